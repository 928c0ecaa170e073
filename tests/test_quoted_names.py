"""Combatant names with spaces, written as quoted texts (issue 11): the transcript shows them as written,
and pins and scripted decisions name them the same way."""
from __future__ import annotations

import re
from pathlib import Path

from grimorio.interpreter.tools.cli import main

SCENARIO = Path(__file__).resolve().parent / "scenarios" / "duelo_guionizado.enc"


def _run(capsys, path: Path):
    code = main(["run", str(path)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_quoted_name_runs_as_the_plain_one_and_shows_as_written(capsys, tmp_path):
    plain = SCENARIO.read_text(encoding="utf-8")
    plain = "\n".join(ln for ln in plain.split("\n") if not ln.startswith("expect Bandido"))
    quoted = plain.replace("combatant Bandido:", 'combatant "Bandido tuerto":')
    quoted = re.sub(r"^(  )Bandido\b", r'\1"Bandido tuerto"', quoted, flags=re.M)       # pins and decisions
    quoted = re.sub(r"(atacar) Bandido\b", r'\1 "Bandido tuerto"', quoted)               # targets
    assert quoted.count('"Bandido tuerto"') > 5
    (tmp_path / "plain.enc").write_text(plain, encoding="utf-8")
    (tmp_path / "quoted.enc").write_text(quoted, encoding="utf-8")
    code, expected, err = _run(capsys, tmp_path / "plain.enc")
    assert code == 0, err
    code, got, err = _run(capsys, tmp_path / "quoted.enc")
    assert code == 0, err
    assert "Bandido tuerto ataca a Rodrigo" in got
    assert got == expected.replace("Bandido", "Bandido tuerto")


def test_a_quoted_name_that_is_not_a_combatant_is_named_in_the_error(capsys, tmp_path):
    enc = tmp_path / "x.enc"
    enc.write_text(SCENARIO.read_text(encoding="utf-8").replace("  Bandido iniciativa 4", '  "Bandido tuertos" iniciativa 4'),
                   encoding="utf-8")
    code, _, err = _run(capsys, enc)
    assert code == 2 and 'error[E0201]' in err and '"Bandido tuertos"' in err
