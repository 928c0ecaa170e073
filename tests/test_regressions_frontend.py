"""Every regression input named frontend_* under tests/regressions/ gives what its README row says."""
from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main

FOLDER = Path(__file__).resolve().parent / "regressions"


def _rows() -> list[tuple[str, str, int, str]]:
    rows = []
    for line in (FOLDER / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("frontend_"):
            name, command, code, expected = cells
            rows.append((name, command.strip("`"), int(code), expected.strip("`").replace("\\|", "|")))
    return rows


def test_every_frontend_file_has_a_row_and_every_row_a_file():
    files = {p.name for p in FOLDER.glob("frontend_*")}
    named = {r[0] for r in _rows()}
    assert files == named


@pytest.mark.parametrize("name, command, code, expected", _rows(), ids=[r[0] for r in _rows()])
def test_regression(name, command, code, expected, capsys, monkeypatch):
    monkeypatch.chdir(FOLDER)
    got = main([*shlex.split(command), name])
    out = capsys.readouterr()
    text = out.out + out.err
    assert "Traceback" not in text and "E0003" not in text, text
    assert got == code, text
    assert expected in text, text
