"""Dice as values you can take apart and scale: dice_count, dice_faces, dice_modifier; dice_times (the dice
n times, the modifier once) against repeated (the whole roll n times); like dice as one term (1D8 + 1D8 is
2D8) and equality whatever the order written; shown and pinned as before."""
from __future__ import annotations

import textwrap

import pytest

from grimorio.dsl.syntax.builder import build_encounter
from grimorio.interpreter.run.dice import Dice
from grimorio.interpreter.run.encounter import Prepared
from tests.conftest import diagnostics_of
from tests.test_plain_and_optimized import program

HEAD = """
    edition arena
    combatant Kira:
      side red
      might 1, agility 2, skill 0
      weapon Axe
    do:
"""
VALUES = HEAD + """
      expect 1D8 + 1D8 == 2D8
      expect 1D4 + 1D8 == 1D8 + 1D4
      expect 1D8 + 1D4 + 1D8 == 2D8 + 1D4
      expect 1D8 - 1D8 != 1D8 + 1D8
      expect dice_count(2D6 + 1) == 2 and dice_faces(2D6 + 1) == 6 and dice_modifier(2D6 + 1) == 1
      expect dice_modifier(1D6 - 2) == -2 and dice_modifier(1D6) == 0 and dice_modifier(1D8 + 1D4 + 3) == 3
      expect dice_times(1D6 + 2, 2) == 2D6 + 2
      expect repeated(1D6 + 2, 2) == 2D6 + 4
      expect dice_times(1D8 + 1D4 - 1D6, 3) == 3D8 + 3D4 - 3D6
      expect maximum(dice_times(Kira.weapon.damage, 2)) == 16
      expect dice(dice_count(2D6) * 2, dice_faces(2D6)) == 4D6
"""


def test_dice_taken_apart_scaled_and_compared(run):
    run(VALUES)


def test_like_dice_show_as_one_term_and_are_pinned_die_by_die(run):
    r = run(HEAD + """
      let d = 1D8 + 1D4 + 1D8
      let t = roll d by Kira as "damage"
      expect t == 6 + 5 + 2
      say over([d, dice_times(1D6 + 2, 2), repeated(1D6 + 2, 2)], t)
    dice strict:
      Kira damage 6 5 2
    """)
    assert r.lines[-1] == "Over after 2D8+1D4=13 (6+5+2) bouts: standing 2D8+1D4, 2D6+2, 2D6+4"


def test_the_dice_class_merges_like_terms_where_the_first_was():
    d = Dice(((1, 1, 8), (1, 1, 4), (1, 1, 8)), 2)
    assert d.terms == ((1, 2, 8), (1, 1, 4)) and str(d) == "2D8+1D4+2"
    assert Dice(((1, 1, 4), (1, 2, 8)), 2) == d and hash(Dice(((1, 1, 4), (1, 2, 8)), 2)) == hash(d)
    assert Dice(((1, 1, 8), (-1, 1, 8))).terms == ((1, 1, 8), (-1, 1, 8))       # a die taken away stays
    assert (d.max, d.min) == (22, 5)


@pytest.mark.parametrize("body, words", [
    ("let a = 1D8\n      let n = dice_count(a + 1D4)",
     ["dice_count() takes dice of one kind, such as 2D6+1, not 1D8+1D4"]),
    ("let a = 1D6\n      let n = dice_faces(a - 1D4)", ["dice_faces() takes dice of one kind"]),
    ("let d = dice_times(keep_highest(4D6, 3), 2)", ["dice_times() cannot scale dice of which only some count"]),
    ("let k = 0\n      let d = repeated(1D6, k)", ["repeated(DICE, 0) leaves no dice"]),
    ("let x = [1D6]\n      let d = dice_times(x[1], 3 / 2)", ["must be a whole number, not 3/2"]),
], ids=["count of two kinds", "faces of a difference", "kept dice", "no times", "a fraction"])
def test_what_is_refused_when_it_runs(body, words):
    out = diagnostics_of(HEAD + "      " + body + "\n")
    assert "error[E0204]" in out and all(w in out for w in words), out


@pytest.mark.parametrize("body, words", [
    ("let n = dice_count(3)", ["dice_count() takes dice, not a number"]),
    ('let d = dice_times(1D6, "two")', ["dice_times() takes a whole number, not a text"]),
    ("let n = dice_faces(1D6) + 1D6", []),
], ids=["a number for dice", "a text for times", "a number from dice"])
def test_what_the_checker_knows_before_anything_runs(body, words):
    out = diagnostics_of(HEAD + "      " + body + "\n")
    if words:
        assert "error[E0204]" in out and all(w in out for w in words), out
    else:
        assert out == "", out


@pytest.mark.slow
def test_the_plain_and_the_optimized_program_give_the_same():
    enc, _ = build_encounter(textwrap.dedent(VALUES).lstrip("\n"), "dice.enc")
    for compiled in (program("arena", (), False), program("arena", (), True)):
        out = Prepared(enc, compiled).run(record=True)
        assert not out.failed and len(out.expectations) == 11


def test_odds_reads_scaled_dice_as_dice_to_roll(capsys):
    from grimorio.interpreter.tools.cli import main
    assert main(["odds", "--edition", "arena", "--expr", "repeated(1D2 + 1, 2)"]) == 0
    out = capsys.readouterr().out
    assert "  4                  1/4" in out and "  5                  1/2" in out and "mean 5 (= 5)" in out
    assert main(["odds", "--edition", "arena", "--expr", "dice_times(1D2, 2) >= 4"]) == 0
    assert "true               1/4" in capsys.readouterr().out
