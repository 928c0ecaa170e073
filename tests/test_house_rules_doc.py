"""docs/house-rules.md stays true: every example in it runs.

  ```grimorio with "# file: NAME.rules"    a house-rule file: it loads over aquelarre
                                          (over yokai if marked "<!-- docs: over yokai -->")
                                          and checks with no error; an entry file
                                          (edition ... extends) loads as an edition
  ```grimorio marked "error CODE"          loading it over aquelarre gives that error, at its own lines
  ```grimorio-encounter "# file: X.enc"    runs with the house file its mark names, every expectation met
  ```text "transcript of X.enc"            that run's exact transcript
  ```text "diff of ENC with H.rules"       its lines are those of grimorio diff (text in brackets left out)
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from grimorio.dsl.diagnostics import GrimorioError, render_all
from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.compile.compiler import compile_checked
from grimorio.dsl.editions.loader import load_edition

from .test_docs import blocks

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "house-rules.md"
ALL = blocks(GUIDE)
HOUSES = [b for b in ALL if b.lang == "grimorio" and b.file]
ERRORS = [b for b in ALL if b.lang == "grimorio" and any(m.startswith("error ") for m in b.marks)]
ENCOUNTERS = [b for b in ALL if b.lang == "grimorio-encounter"]


def write_all(folder: Path) -> None:
    for b in HOUSES + ENCOUNTERS:
        (folder / b.file).write_text(b.text, encoding="utf-8")


def test_the_guide_has_examples_of_every_kind():
    assert len(HOUSES) >= 8 and len(ERRORS) >= 4 and ENCOUNTERS
    assert all(b.lang in ("grimorio", "grimorio-encounter", "text") for b in ALL)
    assert all(b.file or b in ERRORS for b in ALL if b.lang == "grimorio")


@pytest.mark.slow
@pytest.mark.parametrize("block", HOUSES, ids=[b.file for b in HOUSES])
def test_house_file_loads_and_checks(tmp_path, block, capsys):
    path = tmp_path / block.file
    path.write_text(block.text, encoding="utf-8")
    if re.search(r"^edition ", block.text, re.M):
        folder = tmp_path / "ed"
        folder.mkdir()
        (folder / block.file).write_text(block.text, encoding="utf-8")
        assert main(["check", str(folder)]) == 0, capsys.readouterr().err
        return
    edition = "yokai" if "over yokai" in block.marks else "aquelarre"
    try:
        program = compile_checked(load_edition(edition, houses=[path]))
    except GrimorioError as exc:
        pytest.fail(render_all(exc.diagnostics))
    assert [w for w in program.warnings if w.code in ("W0701", "W0702")] == []


@pytest.mark.slow
@pytest.mark.parametrize("block", ERRORS, ids=[b.id for b in ERRORS])
def test_mistake_gives_its_error_at_the_house_file(tmp_path, block):
    code = next(m for m in block.marks if m.startswith("error ")).split()[1]
    path = tmp_path / "casa.rules"
    path.write_text(block.text, encoding="utf-8")
    with pytest.raises(GrimorioError) as exc:
        compile_checked(load_edition("aquelarre", houses=[path]))
    diags = exc.value.diagnostics
    assert {d.code for d in diags} == {code}
    assert all(d.span.file.endswith("casa.rules") or "casa" in (d.help or "") for d in diags)


def _house_of(block) -> str:
    return next(m for m in block.marks if m.startswith("run with ")).split()[-1]


@pytest.mark.slow
@pytest.mark.parametrize("block", ENCOUNTERS, ids=[b.file for b in ENCOUNTERS])
def test_encounter_runs_with_its_house_rule_and_shows_its_transcript(tmp_path, block, capsys):
    write_all(tmp_path)
    assert main(["run", str(tmp_path / block.file), "--house", str(tmp_path / _house_of(block))]) == 0, \
        capsys.readouterr().err
    out = capsys.readouterr().out
    for b in ALL:
        if f"transcript of {block.file}" in b.marks:
            assert out == b.text


def _strip(line: str) -> str:
    return re.sub(r"\s+\[.*\]$", "", line)


@pytest.mark.slow
def test_diff_examples_are_what_grimorio_diff_prints(tmp_path, capsys):
    write_all(tmp_path)
    shown = [b for b in ALL if any(m.startswith("diff of ") for m in b.marks)]
    assert shown
    for b in shown:
        _, _, enc, _, house = next(m for m in b.marks if m.startswith("diff of ")).split()
        code = main(["diff", str(ROOT / enc), "--house", str(tmp_path / house)])
        printed = capsys.readouterr().out.splitlines()
        assert code == (0 if printed[0].startswith("same transcript") else 1)       # 1: the transcripts differ
        out = [_strip(ln) for ln in printed[2:]]
        want = [_strip(ln) for ln in b.text.splitlines()]
        assert out[:len(want)] == want
