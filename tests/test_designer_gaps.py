"""What a designer trying grimorio from the docs alone met (their D20 game, tests/d20): places where
`check` said ok to a file the run refused, and diagnostics that did not say what was wrong. Each test
changes the game or layers a house rule on it and asserts the located diagnostic `check` now gives."""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from grimorio.dsl.check.front import check_edition
from grimorio.dsl.diagnostics import GrimorioError
from grimorio.dsl.editions.loader import load_edition

GAME = Path(__file__).parent / "d20"


def game(tmp_path, edits: dict | None = None) -> Path:
    """The D20 game copied under tmp_path, with `edits` ({file: (old, new)}) made to it."""
    folder = tmp_path / "d20"
    shutil.copytree(GAME, folder)
    for name, (old, new) in (edits or {}).items():
        text = (folder / name).read_text(encoding="utf-8")
        assert old in text
        (folder / name).write_text(text.replace(old, new), encoding="utf-8")
    return folder


def house(tmp_path, text: str) -> Path:
    path = tmp_path / "house.rules"
    path.write_text("extends d20\n" + textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def checked(tmp_path, edits=None, house_text=None):
    """The diagnostics checking the game (with the house rule, if any) gives: its errors, else its warnings."""
    game(tmp_path, edits)
    houses = [house(tmp_path, house_text)] if house_text is not None else []
    try:
        return check_edition(load_edition("d20", roots=[tmp_path], houses=houses))
    except GrimorioError as e:
        return e.diagnostics


def errors(diags):
    return [d for d in diags if d.code.startswith("E")]


def test_the_game_as_written_checks_clean(tmp_path):
    assert errors(checked(tmp_path)) == []


# ---------------------------------------------------------------- 1. E0237 and none in a column

def test_a_text_into_a_column_of_none_and_texts_is_taken(tmp_path):
    # A column's kind is what its cells other than none hold: "-" and a text are a column of texts.
    assert errors(checked(tmp_path, house_text='change monster_kinds["Spider"].grade = "Strong"\n')) == []
    assert errors(checked(tmp_path / "b", house_text='change monster_kinds["Ghoul"].grade = "Mild"\n')) == []


def test_none_into_a_column_of_numbers_is_taken(tmp_path):
    # The base table may hold "-" among numbers; a house rule may too.
    assert errors(checked(tmp_path, house_text='change monster_kinds["Spider"].rounds = none\n')) == []


def test_a_text_into_a_column_of_numbers_and_none_is_still_refused(tmp_path):
    d, = errors(checked(tmp_path, {"tables.rules": ("| Goblin | 1D6    | -          | -     | 0 ",
                                                     "| Goblin | 1D6    | -          | -     | - ")},
                        'change monster_kinds["Spider"].rounds = "three"\n'))
    assert d.code == "E0237" and d.message.endswith("holds a number, not a text")
    assert d.span.file.endswith("house.rules") and d.span.line == 2


# ---------------------------------------------------------------- 2. what the run refused, found by check

def test_a_sheet_default_naming_a_missing_row_is_refused(tmp_path):
    # The run stopped with E0501 at the first combatant; check said ok.
    d, = errors(checked(tmp_path, {"sheet.rules": ('weapons = "Club"', 'weapons = "Clubb"')}))
    assert d.code == "E0209" and d.message == 'table "weapons" has no row for "Clubb"'
    assert d.span.file.endswith("sheet.rules") and (d.span.line, d.span.col) == (6, 21)
    assert d.help == 'did you mean "Club"?'


def test_a_cell_condition_named_reads_through_a_sheet_field_names_a_condition(tmp_path):
    # condition_named(a.kind.leaves): `kind: monster_kinds` says which table; the run failed at the rule.
    d, = errors(checked(tmp_path, {"tables.rules": ("| Ghoul  | 1D6    | frightened |",
                                                     "| Ghoul  | 1D6    | Frightened |")}))
    assert d.code == "E0280" and d.message == 'no condition is named "Frightened"'
    assert d.span.file.endswith("tables.rules") and d.span.line == 14
    assert 'did you mean "frightened"?' in d.help and 'column "leaves"' in d.help


def test_a_house_rule_changing_that_cell_is_blamed_at_its_own_line(tmp_path):
    d, = errors(checked(tmp_path, house_text='change monster_kinds["Spider"].leaves = "Poisonned"\n'))
    assert d.code == "E0280" and d.span.file.endswith("house.rules") and (d.span.line, d.span.col) == (2, 41)


def test_a_written_grade_the_condition_lacks_is_refused(tmp_path):
    d, = errors(checked(tmp_path, house_text='''
        rule poison(c):
          add c Poisoned "Sever"
        '''))
    assert d.code == "E0201" and d.message == 'condition "Poisoned" has no grade "Sever"'
    assert d.span.file.endswith("house.rules") and (d.span.line, d.span.col) == (3, 18)
    assert errors(checked(tmp_path / "b", house_text='''
        rule poison(c):
          add c Poisoned "Strong"
        ''')) == []


# ---------------------------------------------------------------- 3. a round's start: patched by a layer

def start_of(tmp_path, text: str) -> tuple:
    game(tmp_path)
    rs = load_edition("d20", roots=[tmp_path], houses=[house(tmp_path, text)])
    assert errors(check_edition(rs)) == []
    from grimorio.dsl.syntax import nodes as n
    turn, = rs.all(n.Round)
    return turn.start


def said(statements) -> list:
    from grimorio.dsl.syntax import nodes as n
    return [s.message for s in statements if isinstance(s, n.Say)]


@pytest.mark.parametrize("where, at", [("start", 0), ("end", -1)])
def test_statements_go_at_the_start_or_end_of_a_rounds_start(tmp_path, where, at):
    start = start_of(tmp_path, f"insert at {where} of start in round turn:\n  say turn(0)\n")
    assert len(start) == 2 and said([start[at]]) == ["turn"] and said(start) == ["turn"]


def test_a_rounds_start_is_replaced_and_removed(tmp_path):
    assert said(start_of(tmp_path, "replace start in round turn:\n  say turn(0)\n")) == ["turn"]
    assert start_of(tmp_path / "b", "remove start from round turn\n") is None


def test_a_start_patch_said_as_a_step_says_how_to_name_the_start(tmp_path):
    d, = errors(checked(tmp_path, house_text="insert at start of step start in round turn:\n  say turn(0)\n"))
    assert d.code == "E0308" and d.message == 'round "turn" has no step "start": its start: is not a step'
    assert "replace start in round turn" in d.help and (d.span.line, d.span.col) == (2, 40)


def test_a_round_without_a_start_cannot_have_its_start_replaced(tmp_path):
    d, = errors(checked(tmp_path, {"round.rules": ("  start:\n    for c in combatants():\n      let die = roll d20 by c as \"init\"\n      set c.init = die + c.dex\n      say rolls_init(c, die)\n", "")},
                        "remove start from round turn\n"))
    assert d.code == "E0308" and d.message == 'round "turn" has no start:'


def test_a_patched_start_runs_before_round_1(tmp_path, monkeypatch, capsys):
    from grimorio.interpreter.tools.cli import main
    game(tmp_path)
    monkeypatch.chdir(tmp_path)
    path = house(tmp_path, "insert at start of start in round turn:\n  say turn(0)\n")
    assert main(["run", "d20/skirmish.enc", "--quiet", "--house", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["Turn 0", "Ana: initiative 10 (1D20=8 + dex 2)"]


# ---------------------------------------------------------------- 4. diagnostics that say what is wrong

@pytest.mark.parametrize("dice, says", [
    ("-2D6", "dice_count() takes dice that are added, not -2D6: these dice are subtracted"),
    ("1-2D6", "dice_count() takes dice that are added, not -2D6+1: these dice are subtracted"),
    ("2D6+1D4", "dice_count() takes dice of one kind, such as 2D6+1, not 2D6+1D4")])
def test_dice_count_of_written_dice_it_refuses_is_found_by_check(tmp_path, dice, says):
    d, = errors(checked(tmp_path, house_text=f"rule f():\n  return dice_count({dice})\n"))
    assert d.code == "E0209" and d.message == says and (d.span.line, d.span.col) == (3, 10)
    assert ("without the minus sign: dice_count(2D6)" in d.help) == ("subtracted" in says)


def test_dice_count_of_computed_subtracted_dice_says_they_are_subtracted():
    from grimorio.interpreter.run.dice import Dice
    from grimorio.interpreter.run.generic import dice_count
    from grimorio.interpreter.run.refusals import RuleFailure
    with pytest.raises(RuleFailure) as exc:
        dice_count(-Dice(((1, 2, 6),)))
    assert exc.value.message.startswith("dice_count() takes dice that are added, not -2D6")
    assert "without the minus sign: dice_count(2D6)" in exc.value.help
    assert dice_count(Dice(((1, 2, 6),), 1)) == 2


def test_forms_side_by_side_in_a_placeholder_are_found_by_check(tmp_path):
    # {d:his her}: check said ok; the run stopped with E0265 at column 1 of the message.
    d, = errors(checked(tmp_path, {"messages.rules": ("{d:his} blood", "{d:his her} blood")}))
    assert d.code == "E0264" and d.message.startswith('"his her" is not a word of the agreement table')
    assert d.span.file.endswith("messages.rules") and (d.span.line, d.span.col) == (8, 37)
    assert d.help.startswith("did you mean {d:his}?")


def test_a_word_the_table_lacks_stops_the_run_at_its_placeholder(tmp_path, monkeypatch, capsys):
    from grimorio.interpreter.tools.cli import main
    game(tmp_path, {"messages.rules": ("{d:his} blood", "{d:hiss} blood")})
    monkeypatch.chdir(tmp_path)
    assert main(["run", "d20/skirmish.enc", "--quiet"]) != 0
    err = capsys.readouterr().err
    assert 'error[E0265]: there is no word "hiss" to agree with Mort' in err
    assert "d20/messages.rules:8:35" in err and 'help: did you mean "his"?' in err


def test_a_placeholder_that_is_no_word_hides_no_other_error(tmp_path):
    diags = errors(checked(tmp_path, house_text='message m(n) "{n:} and {n:3}"\nrule f():\n  return nosuch\n'))
    assert sorted((d.code, d.span.line, d.span.col) for d in diags) == \
        [("E0201", 4, 10), ("E0261", 2, 18), ("E0261", 2, 27)]


def test_setting_a_records_field_by_key_says_to_name_it(tmp_path):
    d, = errors(checked(tmp_path, house_text='rule f():\n  let r = {a: 1}\n  set r["a"] = 2\n  return r\n'))
    assert d.code == "E0204" and d.message == "only a map's items can be set with set X[K] = ..., not those of a record"
    assert d.help == "a field is set by its name: set r.a = ..." and (d.span.line, d.span.col) == (4, 7)


# ---------------------------------------------------------------- 5. what the docs now say

def test_the_data_held_gives_is_the_cards_own(tmp_path, monkeypatch, capsys):
    # docs/language.md (conditions, held): setting a field of held()'s record changes the card.
    from grimorio.interpreter.tools.cli import main
    game(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "d20/held.enc", "--quiet"]) == 0
    text = (tmp_path / "d20" / "held.enc").read_text(encoding="utf-8")
    (tmp_path / "d20" / "held.enc").write_text(text.replace("[{rounds: 2}]\n  let", "[{rounds: 3}]\n  let"),
                                               encoding="utf-8")
    assert main(["run", "d20/held.enc", "--quiet"]) != 0


def unread(diags) -> set:
    return {d.message for d in diags if d.code == "W0703"}


def test_a_column_only_a_replaced_rule_read_is_warned_of(tmp_path):
    # docs/errors.md W0703: the rules the layers leave are those counted.
    assert unread(checked(tmp_path)) == {'no rule reads column "hands" of table "weapons"'}
    replaced = unread(checked(tmp_path / "b", house_text='''
        replace rule damage(a, d, result):
          let dealt = roll arms(a).damage by a as "damage"
          set d.hp = d.hp - dealt
          fall_if_spent(d)
        '''))
    assert 'no rule reads column "leaves" of table "monster_kinds"' in replaced
    assert 'no rule reads column "grade" of table "monster_kinds"' in replaced


def test_a_column_a_house_rule_reads_is_read_until_a_later_layer_removes_it(tmp_path):
    game(tmp_path)
    first = tmp_path / "a.rules"
    first.write_text("extends d20\nrule two_handed(c):\n  return c.weapon.hands == 2\n", encoding="utf-8")
    second = tmp_path / "b.rules"
    second.write_text("extends d20\nremove rule two_handed\n", encoding="utf-8")
    assert unread(check_edition(load_edition("d20", roots=[tmp_path], houses=[first]))) == set()
    assert unread(check_edition(load_edition("d20", roots=[tmp_path], houses=[first, second]))) == \
        {'no rule reads column "hands" of table "weapons"'}
