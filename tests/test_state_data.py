"""Data on a condition without grades: a state's table has one row, named after the state, read as
`STATE.column` or `STATE["column"]` (through a local too), its columns known to the checker."""
from __future__ import annotations

import textwrap
from pathlib import Path

from grimorio.interpreter.tools.cli import main

EDITION = """
edition sd:
  title "states with data"
sheet s:
  hp: int = 3
condition prone:
  | state | to_hit | speed |
  |-------|--------|-------|
  | prone | 2      | 1D4   |
condition hidden
rule bonus(c):
  return prone.to_hit if has(c, prone) else 0
round r:
  step one:
    pass
  until true
"""
ENCOUNTER = """
edition sd
combatant A:
  holds prone
combatant B:
  hp 1
do:
  expect bonus(A) == 2 and bonus(B) == 0
  expect prone.speed == 1D4 and prone["to_hit"] == 2
  let p = prone
  expect p.to_hit == 2 and p["speed"] == 1D4
  expect [c["to_hit"] for c in [prone]] == [2]
"""


def run_in(tmp_path: Path, capsys, edition: str = EDITION, encounter: str = ENCOUNTER, command: str = "run"):
    (tmp_path / "sd").mkdir(exist_ok=True)
    (tmp_path / "sd" / "sd.rules").write_text(textwrap.dedent(edition).lstrip(), encoding="utf-8")
    (tmp_path / "sd" / "x.enc").write_text(textwrap.dedent(encounter).lstrip(), encoding="utf-8")
    code = main([command, str(tmp_path / "sd" / ("x.enc" if command == "run" else ""))])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_states_data_read_by_name_by_text_and_through_a_local(tmp_path, capsys):
    assert run_in(tmp_path, capsys) == (0, "", "")


def test_a_column_the_state_lacks_is_E0203_before_the_run(tmp_path, capsys):
    code, _out, err = run_in(tmp_path, capsys, encounter=ENCOUNTER + "  let x = prone.spead\n")
    assert code == 2 and 'error[E0203]: state "prone" has no column "spead"' in err and 'did you mean "speed"' in err
    code, _out, err = run_in(tmp_path, capsys, encounter=ENCOUNTER + "  let x = p.spead\n")
    assert code == 2 and "error[E0203]" in err and 'did you mean "speed"' in err, err


def test_a_column_by_a_text_it_lacks_is_E0203_when_it_runs(tmp_path, capsys):
    code, _out, err = run_in(tmp_path, capsys, encounter=ENCOUNTER + '  let x = prone["spead"]\n')
    assert code == 2 and 'error[E0203]: prone has no column "spead"' in err and "to_hit, speed" in err, err


def test_the_row_is_named_after_the_state_and_is_one(tmp_path, capsys):
    other = EDITION.replace("| prone | 2      | 1D4   |", "| lying | 2      | 1D4   |")
    code, _out, err = run_in(tmp_path, capsys, edition=other, command="check")
    assert code == 2 and 'error[E0201]: the row of state "prone" names "lying"' in err, err
    two = EDITION.replace("| prone | 2      | 1D4   |", "| prone | 2      | 1D4   |\n  | prone | 3 | 1D6 |")
    code, _out, err = run_in(tmp_path, capsys, edition=two, command="check")
    assert code == 2 and 'error[E0202]: state "prone" has two rows' in err, err
