"""The English example edition, rulesets/arena: its encounters run with every expectation met, their
transcripts are pinned (read line by line against rulesets/arena before acceptance), its rules do what
their comments say, and its house rule changes what it says it changes."""
from __future__ import annotations

from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
ARENA = ROOT / "rulesets" / "arena"
HOUSE = str(ARENA / "house" / "wide_crushing.rules")


def cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_the_edition_checks_clean(capsys):
    code, out, err = cli(capsys, "check", str(ARENA))
    assert (code, out, err) == (0, "ok\n", "")


def test_the_scripted_duel_meets_its_expectations_and_keeps_its_transcript(capsys, snapshot):
    code, out, err = cli(capsys, "run", str(ARENA / "duel.enc"), "--quiet")
    assert code == 0, err
    assert out == snapshot
    for seed in ("2", "99"):         # dice strict: every die is pinned, the seed changes nothing
        assert cli(capsys, "run", str(ARENA / "duel.enc"), "--seed", seed, "--quiet")[1] == out


def test_the_brawl_plays_by_the_tactics_to_one_side_left(capsys, snapshot):
    code, out, err = cli(capsys, "run", str(ARENA / "brawl.enc"), "--quiet")
    assert code == 0, err
    lines = out.splitlines()
    # The order of play is rolled once, in the round's start:, before bout 1.
    assert [ln.split(":")[0] for ln in lines[:5]] == ["Ash", "Bree", "Cobb", "Dell", "Bout 1"]
    assert lines.count("Bout 2") == 1 and not any("order" in ln for ln in lines[5:])
    assert lines[-1].startswith("Over after ")
    assert out == snapshot


def test_the_hunt_puts_beasts_of_their_own_sheet_in_the_pit(capsys, snapshot):
    """Two sheets: a beast has every field of a fighter and its own weapon, whose row names by text what a
    hit leaves (Fangs: prone; Tusks: Bleeding Light, the grade a cell too); the wounds table's row walks
    the bleeding step."""
    code, out, err = cli(capsys, "run", str(ARENA / "hunt.enc"), "--quiet")
    assert code == 0, err
    assert "    Kira is left prone" in out and "    Kira is left Bleeding" in out
    assert "Grey blocks" not in out and "Kira bleeds (Light, -1): hp 3; stanch 1D20=10 + 2" in out
    assert out == snapshot


def test_a_beast_cannot_block_and_a_fighter_has_no_bite(run):
    r = run("""
        edition arena
        combatant Kira:
          side red
          might 0, agility 0, skill 0
        combatant Grey:
          sheet beast
          side blue
          might 0, agility 5, skill 0, bite Claws
        dice strict:
          Kira strike 15
          Kira damage 2
          Grey strike 15
          Grey damage 1
        do:
          set Kira.actions = 1
          set Grey.actions = 1
          act Kira
          act Grey
        expect Grey.hp == 8 - 2 and not has(Grey, Bleeding)
        expect Kira.hp == 8 - 1 and cards(Kira, Bleeding) == [Bleeding.Light]
        expect arms(Kira) == weapons["Fists"] and arms(Grey) == natural_weapons["Claws"]
        """)
    assert "Grey blocks" not in r.text and "Kira is left Bleeding" in r.text
    from tests.conftest import diagnostics_of
    out = diagnostics_of("edition arena\ncombatant Kira:\n  side red\n  might 0, agility 0, skill 0, bite Fangs\n")
    assert "E0203" in out and '"beast"' in out, out


def test_a_crushing_blow_rolls_the_weapon_dice_twice_over_plus_might(run):
    r = run("""
        edition arena
        combatant Kira:
          side red
          might 2, agility 0, skill 5
          weapon Axe
        combatant Rook:
          side blue
          might 0, agility 0, skill 0, guard 12, weapon Maul
        dice strict:
          Kira strike 20
          Kira damage 5 3
        round 0:
          Kira: strike Rook
        do:
          set Kira.actions = 1
          act Kira
        expect Rook.hp == 8 - (5 + 3 + 2)
        expect cards(Rook, Bleeding) == [Bleeding.Heavy]
        """)
    assert "crushing" in r.text and "damage 2D8=8 (5+3) -> 10" in r.text


def test_a_graze_halves_the_damage_rounding_down_and_a_prone_target_is_easier(run):
    # guard 13, skill 0 and a prone target (+2): 9 + 2 = 11 is within 3 of 13, a graze; 1D8=7 -> 3.
    r = run("""
        edition arena
        combatant Kira:
          side red
          might 0, agility 0, skill 0, weapon Axe
        combatant Rook:
          side blue
          might 0, agility 0, skill 0, guard 13
          holds prone
        dice strict:
          Kira strike 9
          Kira damage 7
        round 0:
          Kira: strike Rook
        do:
          set Kira.actions = 1
          act Kira
        expect Rook.hp == 8 - 3
        expect not has(Rook, Bleeding)
        """)
    assert "1D20=9 + 2 against guard 13 -> graze" in r.text


def test_a_second_wound_while_bleeding_makes_it_heavy(run):
    run("""
        edition arena
        combatant Kira:
          might 0, agility 0, skill 0
        do:
          receive Kira Bleeding Light
          expect cards(Kira, Bleeding) == [Bleeding.Light]
          receive Kira Bleeding Light
        expect cards(Kira, Bleeding) == [Bleeding.Heavy]
        """)


def test_a_save_of_12_stanches_the_bleeding_and_11_does_not(run):
    r = run("""
        edition arena
        combatant Kira:
          side red
          might 2, agility 0, skill 0
          holds Bleeding Heavy
        combatant Rook:
          side blue
          might 1, agility 0, skill 0
          holds Bleeding Light
        dice strict:
          Kira stanch 10
          Rook stanch 10
        do:
          bleed(Kira, Bleeding, wounds["Bleeding"].stanch)
          bleed(Rook, condition_named("Bleeding"), 12)
        expect not has(Kira, Bleeding) and Kira.hp == 12 - 2
        expect has(Rook, Bleeding) and Rook.hp == 10 - 1
        """)
    assert "Kira bleeds (Heavy, -2): hp 10; stanch 1D20=10 + 2" in r.text


def test_a_two_handed_weapon_cannot_block(run):
    r = run("""
        edition arena
        combatant Kira:
          side red
          might 0, agility 0, skill 5
        combatant Rook:
          side blue
          might 0, agility 0, skill 0, weapon Maul
        dice strict:
          Kira strike 15
          Kira damage 2
        do:
          set Kira.actions = 1
          set Rook.actions = 2
          act Kira
        expect Rook.actions == 2
        """)
    assert "blocks" not in r.text


@pytest.mark.slow
def test_the_house_rule_knocks_down_so_the_next_strike_gets_2_more(capsys):
    code, out, err = cli(capsys, "diff", str(ARENA / "brawl.enc"), "--house", HOUSE)
    assert code == 1, err          # the runs differ: diff exits 1, as diff does
    assert "-   Bree strikes at Dell with Short sword: 1D20=9 + 6 against guard 13 -> hit" in out
    assert "+   Bree strikes at Dell with Short sword: 1D20=9 + 8 against guard 13 -> hit" in out


@pytest.mark.slow
def test_the_house_rule_crushes_on_a_natural_19(capsys, tmp_path):
    enc = tmp_path / "nineteen.enc"
    enc.write_text("""edition arena
combatant Kira:
  side red
  might 0, agility 0, skill 0
combatant Rook:
  side blue
  might 0, agility 0, skill 0, guard 20, weapon Maul
dice:
  Kira strike 19
round 0:
  Kira: strike Rook
do:
  set Kira.actions = 1
  act Kira
expect has(Rook, prone) and cards(Rook, Bleeding) == [Bleeding.Heavy]
expect 8 - 4 <= Rook.hp and Rook.hp <= 8 - 2
""", encoding="utf-8")
    assert cli(capsys, "run", str(enc), "--house", HOUSE)[0] == 0
    code, out, err = cli(capsys, "run", str(enc))
    assert code == 1 and "E0601" in err          # without the house rule, 19 + 0 only grazes a guard of 20
    assert "1D20=19 + 0 against guard 20 -> graze" in out


@pytest.mark.slow
def test_the_house_rule_checks_clean_over_the_edition(capsys):
    assert cli(capsys, "check", str(ARENA), "--house", HOUSE)[:2] == (0, "ok\n")
