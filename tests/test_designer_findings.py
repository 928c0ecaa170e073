"""What a designer trying grimorio from the docs alone found: each a located diagnostic with a help
line, or the right answer, never the internal-bug error (E0003) nor a quietly wrong one.

odds reports the refusals of the rules as `run` does; a none a rule meets is called none; a tactic's
preference fixed to none is skipped; a saved state keeps the data given with cards and the sheet;
has() takes a grade as add takes it; a reproduction hint names the rule set that failed; an
expectation that failed shows its values as the language writes them."""
from __future__ import annotations

import json
import pickle
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grimorio.dsl.diagnostics import GrimorioError, Sources, render_all
from grimorio.dsl.syntax.builder import build_encounter
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.tools import odds as O
from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.tools.odds_cli import render_text
from tests.conftest import diagnostics_of, run_text
from tests.test_checker import write_edition
from tests.test_fuzz import fuzz_settings

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "rulesets" / "arena" / "duel.enc")
BRAWL = str(ROOT / "rulesets" / "arena" / "brawl.enc")


# ---------------------------------------------------------------- 1. odds tells the rules' refusals
REFUSED = [
    ("dice_times(1D6, 0)", "E0204", "dice_times(DICE, 0) leaves no dice"),
    ("floor(1D6)", "E0204", "floor() takes a number, not 1D6 (dice)"),
    ("has(first([]), down)", "E0204", "this value is none, not a combatant"),
    ("has(none, down)", "E0204", "has() takes a combatant, not none"),       # before anything runs
    ("cards(3, Bleeding)", "E0204", "cards() takes a combatant, not a number"),
    ("[1][round_number()+2]", "E0501", "the list has 1 item; there is no item "),
    ("dice_count(-dice(2, 6))", "E0204", "dice_count() takes dice that are added, not -2D6"),
    ("roll repeated(1D6, 1/2)", "E0204", "repeated() takes the dice must be a whole number, not 1/2"),
]


@pytest.mark.parametrize("expr, code, message", REFUSED)
def test_odds_reports_a_refusal_of_the_rules_located_as_run_does(capsys, expr, code, message):
    assert main(["odds", "--edition", "arena", "--expr", expr]) == 2
    err = capsys.readouterr().err
    assert f"error[{code}]: " in err and message in err, err
    assert "<--expr>:1:" in err and "= help: " in err
    assert "E0003" not in err and "{0}" not in err and "Traceback" not in err
    # `run` says the same of the same expression.
    ran = diagnostics_of(f'encounter "x"\nedition arena\ndo:\n  let x = {expr}\n')
    assert f"error[{code}]: " in ran and message in ran


def test_a_refusal_never_shows_a_raw_slot():
    from grimorio.interpreter.run.runtime_helpers import RuleFailure
    failure = RuleFailure("only a list can be walked, not {0}", "walk {0}", "E0204", ([1],))
    assert str(failure) == "only a list can be walked, not 1" and "{" not in str(failure)


def test_odds_of_a_pinned_encounter_enumerate_the_question_s_own_dice(capsys):
    # duel.enc pins every die of its fight (dice strict); the question's rolls are enumerated.
    assert main(["odds", DUEL, "--expr", "roll 1D6", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(r["outcome"], r["probability"]) for r in out["outcomes"]] == [(str(v), "1/6") for v in range(1, 7)]
    assert all(x["probability"] == "1" for x in out["expectations"])       # the pinned fight, as run plays it
    assert main(["odds", DUEL, "--rule", "hurt", "Kira", "Rook", "crushing"]) == 0, capsys.readouterr().err


ARENA_ATOMS = ["0", "1", "-2", "1/2", "none", "true", '"x"', "1D6", "2D6+1", "-2D6", "d20", "down", "Bleeding",
               "Bleeding.Light", "hit", "miss", "round_number()", "[]", "[1, 2]", "weapons", 'weapons["Axe"]']
ARENA_CALLS = ["floor", "ceil", "len", "first", "sum", "dice_count", "dice_faces", "dice_modifier", "distinct",
               "grades", "rows", "abs", "min", "max"]


def arena_expressions():
    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "%", "==", "<", "and", "in"]), inner)
              .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(ARENA_CALLS), inner).map(lambda t: f"{t[0]}({t[1]})"),
            st.tuples(st.sampled_from(["dice_times", "repeated", "keep_highest", "dice", "has", "cards"]),
                      inner, inner).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
            inner.map(lambda e: f"(roll {e})"),
            inner.map(lambda e: f"[{e}]"),
        )
    return st.recursive(st.sampled_from(ARENA_ATOMS), extend, max_leaves=4)


def _odds_answers_or_tells(expr):
    """What `grimorio odds --edition arena --expr` does with it: never the internal-bug error."""
    prepared = O.bare_encounter("arena", program_for("arena"))
    try:
        question = O.question_from_text(prepared, expr, "<--expr>", Sources({}))
        dist = O.exact(question, O.Budget(runs=200, seconds=2.0))
        render_text(dist, question)
    except GrimorioError as exc:
        assert all(d.code != "E0003" and d.span is not None for d in exc.diagnostics), exc.diagnostics
    except O.OverBudget:
        pass


@fuzz_settings(8, 2000)
@given(arena_expressions())
def test_odds_of_any_expression_is_an_answer_or_a_located_diagnostic(expr):
    _odds_answers_or_tells(expr)


@pytest.mark.slow
@fuzz_settings(300, 5000)
@given(arena_expressions())
def test_odds_of_many_expressions_are_answers_or_located_diagnostics(expr):
    _odds_answers_or_tells(expr)


# ---------------------------------------------------------------- 2. none where a combatant is asked
TACTICS = """
sheet s:
  hp: int = 10
  actions: int = 0
condition out
rule in_play(c):
  return not has(c, out)
action hit(me, other in enemies(me)):
  requires in_play(me) and in_play(other)
  cost actions 1
  set other.hp = other.hp - 5
  if other.hp <= 0:
    add other out
tactic plain:
  act: hit(other: first([x for x in enemies(me) if in_play(x)]))
round turn:
  step everyone:
    for c in combatants() where in_play(c):
      set c.actions = 1
      while c.actions > 0 and act(c):
        pass
  until len(distinct([c.side for c in combatants() if in_play(c)])) <= 1
"""
THREE = 'encounter "x"\nedition prueba\ncombatant Ann:\n  side one\ncombatant Cy:\n  side one\n' \
        'combatant Bo:\n  side two\n  hp 5\n'


def test_a_tactic_preference_fixed_to_none_is_not_chosen(tmp_path):
    # language.md's own example: act: atacar(rival: first([e for e in enemies(yo) if en_pie(e)])).
    # Bo falls to Ann; Cy's choice is then none, and Cy does nothing (it was E0204 inside in_play).
    write_edition(tmp_path, TACTICS)
    enc, diags = build_encounter(THREE + "expect has(Bo, out)\nexpect Cy.actions == 1\n", "x.enc")
    assert not diags
    outcome = Prepared(enc, program_for("prueba", roots=[tmp_path])).run()
    assert not outcome.failed and outcome.engine.round == 1


def test_a_none_where_a_combatant_is_asked_is_called_none_and_where_it_comes_from(tmp_path):
    write_edition(tmp_path, TACTICS)
    text = THREE + "do:\n  let x = first([c for c in enemies(Ann) if not in_play(c)])\n  let y = in_play(x)\n"
    sources = Sources({"x.enc": text})
    enc, _diags = build_encounter(text, "x.enc")
    with pytest.raises(GrimorioError) as failed:
        Prepared(enc, program_for("prueba", sources=sources, roots=[tmp_path])).run()
    shown = render_all(failed.value.diagnostics, sources)
    assert "error[E0204]: this value is none, not a combatant" in shown and "reglas.rules:6:" in shown
    assert "first()" in shown and "if x != none" in shown


# ---------------------------------------------------------------- 3 and 6. a saved state keeps cards' data and sheets
SAVED = """
encounter "save"
edition arena
combatant Kira:
  side red
  might 2, agility 3, skill 5
combatant Tusk:
  sheet beast
  side blue
  might 3, agility 2, skill 4
  bite Tusks
do:
  add Kira Bleeding Light with {rounds: 2}
  add Kira Bleeding Heavy
"""
LOADED = """
encounter "load"
edition arena
combatant Kira:
combatant Tusk:
do:
  expect held(Kira, Bleeding) == [{rounds: 2}, none]
  expect cards(Kira, Bleeding) == [Bleeding.Light, Bleeding.Heavy]
  expect Tusk.sheet == "beast" and Tusk.bite.name == "Tusks"
"""


def _saved(tmp_path, capsys) -> Path:
    (tmp_path / "save.enc").write_text(textwrap.dedent(SAVED).lstrip(), encoding="utf-8")
    (tmp_path / "load.enc").write_text(textwrap.dedent(LOADED).lstrip(), encoding="utf-8")
    state = tmp_path / "state.json"
    assert main(["run", str(tmp_path / "save.enc"), "--quiet", "--save-state", str(state)]) == 0, \
        capsys.readouterr().err
    return state


def test_a_saved_state_keeps_the_data_given_with_cards_and_a_combatant_s_sheet(tmp_path, capsys):
    state = _saved(tmp_path, capsys)
    data = json.loads(state.read_text(encoding="utf-8"))
    assert data["combatants"]["Kira"]["held"] == {"Bleeding": [{"record": "record", "fields": [["rounds", 2]]}, None]}
    # Loaded, Tusk is named and nothing more: its sheet comes from the state too.
    assert main(["run", str(tmp_path / "load.enc"), "--quiet", "--load-state", str(state)]) == 0, \
        capsys.readouterr().err
    # Saving again what was loaded gives the same bytes.
    again = tmp_path / "again.json"
    assert main(["run", str(tmp_path / "load.enc"), "--quiet", "--load-state", str(state),
                 "--save-state", str(again)]) == 0
    assert again.read_bytes() == state.read_bytes()


def test_a_state_of_version_2_without_card_data_still_loads(tmp_path, capsys):
    state = _saved(tmp_path, capsys)
    data = json.loads(state.read_text(encoding="utf-8"))
    data["version"] = 2
    del data["combatants"]["Kira"]["held"]
    state.write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "old.enc").write_text(textwrap.dedent(LOADED).replace("[{rounds: 2}, none]", "[none, none]")
                                      .lstrip(), encoding="utf-8")
    assert main(["run", str(tmp_path / "old.enc"), "--quiet", "--load-state", str(state)]) == 0, \
        capsys.readouterr().err


def test_card_data_that_does_not_match_the_cards_is_refused_at_its_place(tmp_path, capsys):
    state = _saved(tmp_path, capsys)
    data = json.loads(state.read_text(encoding="utf-8"))
    data["combatants"]["Kira"]["held"]["Bleeding"].append(None)
    state.write_text(json.dumps(data, indent=1), encoding="utf-8")
    assert main(["run", str(tmp_path / "load.enc"), "--quiet", "--load-state", str(state)]) == 2
    err = capsys.readouterr().err
    assert "error[E0805]" in err and "combatants.Kira.held.Bleeding" in err and "= help: " in err


def test_a_loaded_combatant_given_another_sheet_than_it_was_saved_with_is_refused(tmp_path, capsys):
    state = _saved(tmp_path, capsys)
    text = textwrap.dedent(LOADED).replace("combatant Tusk:\n", "combatant Tusk:\n  sheet fighter\n")
    (tmp_path / "other.enc").write_text(text.lstrip(), encoding="utf-8")
    assert main(["run", str(tmp_path / "other.enc"), "--quiet", "--load-state", str(state)]) == 2
    assert 'the state saved Tusk with sheet "beast", and the encounter gives it sheet "fighter"' \
        in capsys.readouterr().err


# ---------------------------------------------------------------- 4. has() takes a grade as add takes it
def test_has_takes_a_grade_or_its_name_as_add_does():
    run_text("""
        encounter "x"
        edition arena
        combatant Kira:
          might 2, agility 3, skill 5
        do:
          add Kira Bleeding "Light"
          let g = "Light"
          expect has(Kira, Bleeding, "Light") and has(Kira, Bleeding, g) and has(Kira, Bleeding, Bleeding.Light)
          expect not has(Kira, Bleeding, "Heavy")
        """)


def test_has_refuses_a_grade_of_another_kind_before_the_run_where_it_shows():
    shown = diagnostics_of('encounter "x"\nedition arena\ncombatant Kira:\n  might 2, agility 3, skill 5\n'
                           'do:\n  expect has(Kira, Bleeding, 5)\n')
    assert "error[E0204]: has() takes a grade, not a number" in shown and "scenario.enc:6:30" in shown


def test_has_refuses_a_grade_of_another_kind_as_it_runs_where_the_text_hides_it():
    shown = diagnostics_of('encounter "x"\nedition arena\ncombatant Kira:\n  might 2, agility 3, skill 5\n'
                           'do:\n  let n = [5]\n  expect has(Kira, Bleeding, n[1])\n')
    assert "error[E0204]: has() takes a grade, not 5 (a number)" in shown and "scenario.enc:7:" in shown
    shown = diagnostics_of('encounter "x"\nedition arena\ncombatant Kira:\n  might 2, agility 3, skill 5\n'
                           'do:\n  let n = ["Light"]\n  expect has(Kira, down, n[1])\n')
    assert "E0204" in shown and "a state without grades" in shown


# ---------------------------------------------------------------- 5. a reproduction hint reproduces
def test_a_run_error_names_the_rule_set_it_failed_on_across_processes(tmp_path):
    from grimorio.interpreter.tools.simulate import Job, RunError, Spec, keep, run_job_share
    write_edition(tmp_path, TACTICS, "good")
    write_edition(tmp_path, TACTICS + "rule boom(c):\n  return dice_times(1D6, 0)\ntally b: len([boom(1)])\n", "bad")
    good, bad = (Prepared(build_encounter(THREE.replace("prueba", name), "x.enc")[0],
                          program_for(name, roots=[tmp_path])) for name in ("good", "bad"))
    specs = (Spec(("a",), 1), Spec(("b",), 1))
    keep(specs[0], good)
    keep(specs[1], bad)
    _counts, failure = run_job_share(Job(specs), 0, 3)
    assert isinstance(failure, RunError) and failure.point == 1
    assert pickle.loads(pickle.dumps(failure)).point == 1          # as a worker process sends it back


@pytest.mark.slow
def test_simulate_compare_hints_the_run_that_failed_with_its_house_files(tmp_path, capsys):
    house = tmp_path / "boom.rules"
    house.write_text("extends arena\ninsert at end of rule hurt:\n  let z = dice_times(1D6, 0)\n", encoding="utf-8")
    assert main(["simulate", BRAWL, "-n", "5", "--compare", "--house", str(house)]) == 2
    err = capsys.readouterr().err
    hint = next(line for line in err.splitlines() if "to see it:" in line)
    assert f"--house {house}" in hint
    argv = hint.split("to see it: grimorio ", 1)[1].split()
    assert main(argv) == 2
    assert "dice_times(DICE, 0) leaves no dice" in capsys.readouterr().err


# ---------------------------------------------------------------- 7. expectations show values as written
@pytest.mark.parametrize("expect, help", [
    ("[[2, 1], [2, 2]] == [[2, 1]]", "the left side is [[2, 1], [2, 2]], the right side is [[2, 1]]"),
    ("[none] == []", "the left side is [none], the right side is []"),
    ('{a: "x", b: [none]} == {a: "y", b: []}', 'the left side is {a: "x", b: [none]}, the right side is {a: "y", b: []}'),
    ("[1/2, true] == [1D6]", "the left side is [1/2, true], the right side is [1D6]"),
    ("Kira.hp == 5", "the left side is 12, the right side is 5"),
])
def test_a_failed_expectation_shows_its_values_as_the_language_writes_them(expect, help):
    text = f'encounter "x"\nedition arena\ncombatant Kira:\n  might 2, agility 3, skill 5\nexpect {expect}\n'
    outcome = Prepared(build_encounter(text, "x.enc")[0], program_for("arena")).run()
    (verdict,) = [v for v in outcome.expectations if not v.ok]
    d = verdict.diagnostic()
    assert (d.code, d.help) == ("E0601", help)


@pytest.mark.parametrize("statement", ["add x down", "remove x down", "let y = cards(x, Bleeding)",
                                       "let y = held(x, Bleeding)", 'let y = has(x, Bleeding, "Light")'])
def test_a_card_builtin_or_statement_given_none_says_so(statement):
    # These reached Python's AttributeError inside the engine: the internal-bug error (E0003).
    shown = diagnostics_of(f'encounter "x"\nedition arena\ndo:\n  let x = first([])\n  {statement}\n')
    assert "error[E0204]: this value is none, not a combatant" in shown and "scenario.enc:5:" in shown


def test_has_with_a_written_condition_checks_the_grade_s_name_before_the_run():
    shown = diagnostics_of('encounter "x"\nedition arena\ncombatant Kira:\n  might 2, agility 3, skill 5\n'
                           'do:\n  expect has(Kira, Bleeding, "Ligth")\n')
    assert 'error[E0201]: condition "Bleeding" has no grade "Ligth"' in shown and 'did you mean "Light"' in shown
