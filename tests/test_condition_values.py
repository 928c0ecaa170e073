"""Conditions as values: `add`, `remove` and `receive` take a condition (and a grade) held in a local,
checked by kind where the text shows it and when it runs otherwise, as a written condition is; a grade's
columns read by a text (`g["loss"]`). Over the English edition, rulesets/arena."""
from __future__ import annotations

import textwrap

import pytest

from tests.conftest import diagnostics_of

HEAD = """
    edition arena
    combatant Kira:
      side red
      might 0, agility 0, skill 0
      holds prone
      holds Bleeding Light
    do:
"""


def test_remove_every_condition_through_a_loop_variable(run):
    run(HEAD + """
      for cond in all_conditions():
        remove Kira cond
      expect not has(Kira, prone) and not has(Kira, Bleeding)
    """)


def test_add_remove_and_receive_with_the_condition_and_the_grade_in_locals(run):
    run(HEAD + """
      remove Kira Bleeding
      let b = Bleeding
      let g = Bleeding.Heavy
      add Kira b g
      add Kira b Light with {rounds: 2}
      expect cards(Kira, Bleeding) == [Bleeding.Heavy, Bleeding.Light]
      expect held(Kira, Bleeding) == [none, {rounds: 2}]
      remove Kira b Heavy
      expect cards(Kira, Bleeding) == [Bleeding.Light]
      receive Kira b Light
      expect cards(Kira, Bleeding) == [Bleeding.Heavy]
      let p = prone
      remove Kira p
      receive Kira p
      expect has(Kira, prone)
    """)


def test_a_loop_over_conditions_gives_each_its_data_and_takes_it_away(run):
    """The workaround this replaces: a decision table listing every condition, edited for each new one."""
    run(HEAD + """
      remove Kira Bleeding
      remove Kira prone
      for cond in [prone, Bleeding]:
        if len(grades(cond)) == 0:
          add Kira cond with {rounds: 2}
        else:
          let mildest = first(grades(cond))
          add Kira cond mildest with {rounds: 3}
      expect held(Kira, prone) == [{rounds: 2}] and held(Kira, Bleeding) == [{rounds: 3}]
      expect cards(Kira, Bleeding) == [Bleeding.Light]
      for cond in [prone, Bleeding]:
        remove Kira cond
      expect not has(Kira, prone) and not has(Kira, Bleeding)
    """)


def test_a_grades_columns_read_by_a_text(run):
    run(HEAD + """
      let g = max(cards(Kira, Bleeding))
      expect g["loss"] == 1 and Bleeding.Heavy["loss"] == 2
      let col = "loss"
      expect g[col] == g.loss
    """)


@pytest.mark.parametrize("body, words", [
    ('let x = 3\n      add Kira x', ['error[E0204]: "add" takes a condition, not a number']),
    ('let b = Bleeding\n      add Kira b Medium', ['error[E0201]: no condition has a grade "Medium"']),
    ('let g = Bleeding.Light\n      for x in [g]:\n        add Kira x',
     ['error[E0204]: "add" takes a condition, not a grade of "Bleeding"']),
    ('remove Kira nothing_here', ['error[E0201]: there is no condition "nothing_here"',
                                  'or a name that holds one (a local, a field, condition_named(TEXT))']),
], ids=["a number", "no such grade", "a grade", "neither a condition nor a local"])
def test_what_the_checker_refuses_before_anything_runs(body, words):
    out = diagnostics_of(HEAD + "      " + body + "\n")
    assert all(w in out for w in words), out


@pytest.mark.parametrize("body, words", [
    ('let b = Bleeding\n      add Kira b', ['error[E0204]: condition "Bleeding" has grades: say which',
                                             "one of Light, Heavy"]),
    ('let p = prone\n      let g = Bleeding.Light\n      add Kira p g', ['error[E0204]: "prone" is a state without grades']),
    ('for x in [Bleeding.Light, prone]:\n        add Kira x',
     ['error[E0204]: Light is a grade of Bleeding, and a condition is asked here',
      "give the condition itself: Bleeding"]),
    ('let b = Bleeding\n      receive Kira b Light with 3',
     ['error[E0233]: "Bleeding" decides what it adds on receive: data cannot be given here']),
    ('let g = Bleeding.Light\n      let x = g["speed"]', ['error[E0203]: Light has no column "speed"',
                                                         "the columns: loss"]),
], ids=["a graded condition without a grade", "a grade for a state", "a grade for a condition",
        "data to a condition that decides", "a column it lacks"])
def test_what_is_refused_when_it_runs(body, words):
    out = diagnostics_of(HEAD + "      " + body + "\n")
    assert all(w in out for w in words), out


# ------------------------------------------------------------------ any expression of condition kind
def test_the_condition_and_the_grade_from_fields_calls_and_indexes(run):
    """Not only a local: a record's field, a list's item, a call, a loop variable's field."""
    run(HEAD + """
      remove Kira Bleeding
      remove Kira prone
      let r = {wound: Bleeding, how: Bleeding.Heavy, also: [prone]}
      add Kira r.wound r.how
      add Kira r.also[1]
      expect cards(Kira, Bleeding) == [Bleeding.Heavy] and has(Kira, prone)
      remove Kira condition_named("Bleeding") r.how
      remove Kira r.also[1]
      expect not has(Kira, prone) and not has(Kira, Bleeding)
      for e in [{c: prone, g: none}, {c: Bleeding, g: "Light"}]:
        add Kira e.c e.g with {rounds: 1}
      expect has(Kira, prone) and cards(Kira, Bleeding) == [Bleeding.Light]
      for e in [{c: prone}, {c: Bleeding}]:
        remove Kira e.c
      expect not has(Kira, prone) and not has(Kira, Bleeding)
    """)


def test_a_text_looked_up_as_a_condition(run):
    """The text in data ("terror" in a table, a sheet's text field) turned into the condition it names."""
    run(HEAD + """
      remove Kira Bleeding
      let names = ["prone", "Bleeding"]
      for name in names:
        remove Kira condition_named(name)
      expect not has(Kira, prone) and not has(Kira, Bleeding)
      receive Kira condition_named(names[2]) Light
      receive Kira condition_named("Bleeding") Light
      expect cards(Kira, Bleeding) == [Bleeding.Heavy]
      expect condition_named("prone") == prone and has(Kira, condition_named(names[2]))
      expect condition_named("prone").strike_bonus == 2 and condition_named("prone")["strike_bonus"] == 2
    """)


@pytest.mark.parametrize("body, words", [
    ('add Kira "prone"', ['error[E0204]: "add" takes a condition, not a text',
                          "look the condition up by it with condition_named(TEXT)"]),
    ('remove Kira weapons', ['error[E0204]: "remove" takes a condition, not the table weapons']),
    ('add Kira range(1, 2)[1]', ['error[E0204]: "add" takes a condition, not a number']),
    ('add Kira Bleeding.Light', ['error[E0204]: "add" takes a condition, not a grade of "Bleeding"']),
    ('add Kira Bleeding len(combatants())', ['error[E0204]: "add" takes a grade, not a number']),
    ('add Kira condition_named("Bleding") Light', ['error[E0280]: no condition is named "Bleding"',
                                                  'did you mean "Bleeding"?']),
    ('let c = condition_named(3)', ['error[E0204]: condition_named() takes a text, not a number']),
    ('remove Kira len(combatants())', ['error[E0204]: "remove" takes a condition, not a number']),
], ids=["a text", "a table", "an item that is a number", "a grade", "a number as grade", "a misspelt text",
        "no text", "a call of another kind"])
def test_what_the_checker_refuses_of_any_expression(body, words):
    out = diagnostics_of(HEAD + "      " + body + "\n")
    assert all(w in out for w in words), out
    assert "E0003" not in out


def test_a_column_condition_named_reads_is_checked_cell_by_cell():
    """condition_named(ROW.column) with the row's table known: every text of the column must name a
    condition, each refused at its cell before anything runs (a weapon's name is no condition)."""
    out = diagnostics_of(HEAD + "      for w in rows(weapons):\n        add Kira condition_named(w.name)\n")
    for name in ("Fists", "Dagger", "Short sword", "Axe", "Maul"):
        assert f'error[E0280]: no condition is named "{name}"' in out, out
    assert "rulesets/arena/tables.rules:4:5" in out and '(condition_named reads column "name" at' in out
    assert out.count("error[E0280]") == 5           # once per cell, however many calls read the column
    ok = diagnostics_of(HEAD + "      for w in rows(natural_weapons):\n        receive Kira condition_named(w.leaves) "
                               "w.grade\n")
    assert "E0280" not in ok, ok


@pytest.mark.parametrize("body, words", [
    ('let name = "Bleding"\n      add Kira condition_named(name) Light',
     ['error[E0280]: no condition is named "Bleding"', 'did you mean "Bleeding"?', "scenario.enc:9"]),
    ('let name = "zzz"\n      let c = condition_named(name)',
     ['error[E0280]: no condition is named "zzz"', "the conditions are: down, prone, Bleeding"]),
    ('let r = {c: [prone, 3]}\n      for x in r.c:\n        add Kira x',
     ['error[E0204]: a condition is asked here, not 3 (a number)']),
    ('let r = {c: 3}\n      add Kira r.c', ['error[E0204]: a condition is asked here, not 3 (a number)']),
    ('let r = {g: 3}\n      add Kira Bleeding r.g', ['error[E0501]: condition "Bleeding" has no grade 3']),
    ('let r = {g: "Medium"}\n      add Kira Bleeding r.g', ['error[E0501]: condition "Bleeding" has no grade "Medium"']),
    ('let r = {g: Bleeding.Light}\n      add Kira prone r.g', ['error[E0204]: "prone" is a state without grades']),
], ids=["a misspelt text", "a text naming nothing", "an item that is a number", "a field holding a number",
        "a number as grade", "a grade it lacks",
        "a grade for a state"])
def test_what_is_refused_when_it_runs_of_any_expression(body, words):
    out = diagnostics_of(HEAD + "      " + body + "\n")
    assert all(w in out for w in words), out
    assert "E0003" not in out


@pytest.mark.slow           # compiles arena plain once (a second)
@pytest.mark.parametrize("body", [
    'remove Kira Bleeding\n      let r = {c: Bleeding, g: "Light"}\n      add Kira r.c r.g\n'
    '      receive Kira condition_named("Bleeding") r.g\n      expect cards(Kira, Bleeding) == [Bleeding.Heavy]',
    'for w in rows(natural_weapons):\n        receive Kira condition_named(w.leaves) w.grade\n'
    '      expect has(Kira, prone) and cards(Kira, Bleeding) == [Bleeding.Heavy]',
    'let name = "Bleding"\n      add Kira condition_named(name) Light',
    'let r = {g: "Medium"}\n      add Kira Bleeding r.g',
], ids=["fields and a call", "a table's texts", "a text naming nothing", "a grade it lacks"])
def test_card_statements_of_any_expression_run_alike_plain_and_optimized(tmp_path, body):
    from tests.test_plain_and_optimized import run as run_both
    path = tmp_path / "cards.enc"
    path.write_text(textwrap.dedent(HEAD + "      " + body + "\n").lstrip("\n"), encoding="utf-8")
    plain = run_both(path, 1, False)
    assert plain == run_both(path, 1, True)
    if plain[0] == "error":
        assert plain[1][0][0] in ("E0280", "E0501"), plain
    else:
        assert plain[2] and all(ok for ok, _left, _right in plain[2]), plain[2]


@pytest.mark.slow           # checks aquelarre_estados with a layer (a second)
def test_a_layer_that_changes_a_cell_condition_named_reads_is_checked(tmp_path, capsys):
    """aquelarre_estados gives a blow's E.Alt by the type its mapping row names (condition_named(e.tipo)):
    a house rule that misspells it is E0280 at its change, before anything runs (it was a decision table
    that ran out of rows, E0501, when a blow of that kind landed)."""
    from grimorio.interpreter.tools.cli import main
    casa = tmp_path / "casa.rules"
    casa.write_text('extends aquelarre_estados\nchange estados_por_golpe["crítico"].tipo = Herida\n', encoding="utf-8")
    assert main(["check", str(casa)]) == 2
    err = capsys.readouterr().err
    assert 'error[E0280]: no condition is named "Herida"' in err and 'did you mean "Heridas"?' in err, err
