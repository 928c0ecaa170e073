"""A round's `start:` part: it runs once, before round 1 (after an encounter's do: block), with
round_number() 0; a `return` ends it, a `stop` ends the encounter before any round; the checker
reads it as it reads a step; it comes before the steps."""
from __future__ import annotations

import textwrap
from pathlib import Path

from grimorio.interpreter.tools.cli import main

EDITION = """
edition tiny:
  title "A round with a start"
sheet s:
  order: int = 0
var log = []
round r:
  start:
    append log, ["start", round_number()]
    for c in combatants():
      set c.order = roll 1D6 by c as "order"
    if len(combatants()) > 2:
      return
    if len(combatants()) == 1:
      stop
    append log, "two"
  step one:
    append log, round_number()
  until round_number() >= 2
  finally:
    append log, "end"
"""

def run_in(tmp_path: Path, capsys, encounter: str, edition: str = EDITION):
    (tmp_path / "tiny").mkdir(exist_ok=True)
    (tmp_path / "tiny" / "tiny.rules").write_text(textwrap.dedent(edition).lstrip(), encoding="utf-8")
    (tmp_path / "tiny" / "x.enc").write_text(textwrap.dedent(encounter).lstrip(), encoding="utf-8")
    code = main(["run", str(tmp_path / "tiny" / "x.enc")])
    out, err = capsys.readouterr()
    return code, out, err

def test_start_runs_once_before_round_1_with_round_number_0(tmp_path, capsys):
    code, _out, err = run_in(tmp_path, capsys, """
        edition tiny
        combatant A:
          side a
        combatant B:
          side b
        dice strict:
          A order 4
          B order 5
        expect log == [["start", 0], "two", 1, 2, "end"]
        expect A.order == 4 and B.order == 5
        """)
    assert (code, err) == (0, "")

def test_start_runs_after_the_encounters_do_block(tmp_path, capsys):
    code, _out, err = run_in(tmp_path, capsys, """
        edition tiny
        rounds 1
        combatant A:
          side a
        combatant B:
          side b
        do:
          append log, "do"
        expect log[1] == "do" and log[2] == ["start", 0] and len(log) == 5
        """)
    assert (code, err) == (0, "")

def test_a_return_ends_the_start_and_the_rounds_go_on(tmp_path, capsys):
    code, _out, err = run_in(tmp_path, capsys, """
        edition tiny
        combatant A:
          side a
        combatant B:
          side b
        combatant C:
          side c
        expect log == [["start", 0], 1, 2, "end"]
        """)
    assert (code, err) == (0, "")

def test_a_stop_in_the_start_ends_the_encounter_before_round_1(tmp_path, capsys):
    code, _out, err = run_in(tmp_path, capsys, """
        edition tiny
        combatant A:
          side a
        expect log == [["start", 0], "end"]
        expect round_number() == 0
        """)
    assert (code, err) == (0, "")

def test_the_checker_reads_the_start_as_a_step(tmp_path, capsys):
    code, _out, err = run_in(tmp_path, capsys, "edition tiny\ncombatant A:\n  side a\n",
                             EDITION.replace('append log, "two"', 'append log, twoo'))
    assert code == 2 and 'error[E0201]: unknown name "twoo"' in err and "tiny.rules:15:17" in err

def test_the_start_comes_before_the_steps(tmp_path, capsys):
    late = EDITION.replace("  step one:\n    append log, round_number()\n", "") \
        .replace("  start:\n", "  step one:\n    append log, round_number()\n  start:\n")
    code, _out, err = run_in(tmp_path, capsys, "edition tiny\ncombatant A:\n  side a\n", late)
    assert code == 2 and "error[E0101]: a round's start: comes before its steps" in err and "tiny.rules:9:3" in err, err
