"""`grimorio new NAME`: a new edition's folder that checks clean and runs, its expectations met; and the
designer-worded refusals of a name that is no name or a folder already in use."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent


def cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_new_writes_an_edition_named_after_its_folder(capsys, here):
    code, out, err = cli(capsys, "new", "games/duel_club")
    assert (code, err) == (0, "")
    folder = here / "games" / "duel_club"
    assert sorted(p.name for p in folder.iterdir()) == ["actions.rules", "duel_club.rules", "first.enc",
                                                        "messages.rules", "round.rules", "sheet.rules"]
    assert "edition duel_club:" in (folder / "duel_club.rules").read_text(encoding="utf-8")
    assert 'title "Duel club"' in (folder / "duel_club.rules").read_text(encoding="utf-8")
    assert "edition duel_club\n" in (folder / "first.enc").read_text(encoding="utf-8")
    assert "grimorio run games/duel_club/first.enc" in out


@pytest.mark.slow
def test_the_new_edition_checks_clean_and_its_encounter_runs_with_every_expect_met(capsys, here):
    assert cli(capsys, "new", "my_game")[0] == 0
    assert cli(capsys, "check", "my_game") == (0, "ok\n", "")
    code, out, err = cli(capsys, "run", "my_game/first.enc", "--quiet")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "Round 1",
        "  Ann tries to hit Bo: 1D20=5 against 12 -> success",
        "    Bo: hp 5",
        "  Bo tries to hit Ann: 1D20=15 against 10 -> failure",
        "Round 2",
        "  Ann tries to hit Bo: 1D20=8 against 12 -> success",
        "    Bo: hp 0",
        "    Bo is out",
        "In play at the end: Ann"]


def test_the_new_edition_is_already_formatted(capsys, here):
    cli(capsys, "new", "my_game")
    assert cli(capsys, "fmt", "--check", "my_game")[0] == 0


def test_its_expectations_are_ready_to_fail(capsys, here):
    """The encounter's `expect` lines test something: a changed rule makes the run exit 1."""
    cli(capsys, "new", "my_game")
    messages = here / "my_game" / "messages.rules"
    messages.write_text(messages.read_text(encoding="utf-8").replace("{b} is out", "{b} leaves"), encoding="utf-8")
    code, _out, err = cli(capsys, "run", "my_game/first.enc")
    assert code == 1 and "error[E0601]" in err and 'said "Bo is out"' in err


@pytest.mark.parametrize("name, words", [
    ("my-game", ['"my-game" is not a name', "grimorio new my_game"]),
    ("games/3d", ['"3d" is not a name', "grimorio new games/my_game"]),
    ("rule", ['"rule" is a word of the language']),
])
def test_a_folder_whose_name_is_no_edition_name_is_E0241(capsys, here, name, words):
    code, out, err = cli(capsys, "new", name)
    assert code == 2 and out == ""
    assert "error[E0241]" in err and all(w in err for w in words), err
    assert not (here / name).exists()


def test_a_folder_in_use_is_E0242_and_nothing_is_overwritten(capsys, here):
    (here / "mine").mkdir()
    (here / "mine" / "notes.txt").write_text("keep me", encoding="utf-8")
    code, _out, err = cli(capsys, "new", "mine")
    assert code == 2 and "error[E0242]" in err and "not empty" in err
    assert [p.name for p in (here / "mine").iterdir()] == ["notes.txt"]
    (here / "afile").write_text("", encoding="utf-8")
    assert "is already a file" in cli(capsys, "new", "afile")[2]


def test_an_empty_folder_is_used(capsys, here):
    (here / "empty").mkdir()
    assert cli(capsys, "new", "empty")[0] == 0
    assert (here / "empty" / "empty.rules").is_file()


@pytest.mark.slow
def test_the_installed_command_scaffolds_checks_and_runs(tmp_path):
    env = {**os.environ, "PYTHONPATH": ""}
    exe = Path(sys.executable).with_name("grimorio")
    for args in (["new", "arena_two"], ["check", "arena_two"], ["run", "arena_two/first.enc"]):
        done = subprocess.run([str(exe), *args], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
