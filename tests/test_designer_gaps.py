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
