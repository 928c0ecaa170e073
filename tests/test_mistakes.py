"""Everyday mistakes get a designer's message (issue 11, build 5): every entry of the table of known
mistakes is tried on its examples, and each example gets that entry's message, at the mistake."""
from __future__ import annotations

import pytest

from grimorio.dsl.syntax.builder import build_encounter, build_rules
from grimorio.dsl.syntax.parser import MISTAKES

BUILD = {"rules_file": build_rules, "encounter_file": build_encounter}
CASES = [(m, start, text) for m in MISTAKES for start, text in m.examples]


def _diagnostics(start: str, text: str):
    return BUILD[start](text, "m.rules")[1]


@pytest.mark.parametrize("mistake, start, text", CASES, ids=[f"{m.name}: {t!r}" for m, _, t in CASES])
def test_every_known_mistake_gets_its_message(mistake, start, text):
    (d,) = _diagnostics(start, text)
    line = text.split("\n")[d.span.line - 1]
    spot = line[d.span.col - 1:d.span.end_col - 1]
    assert d.code == "E0101" and d.help
    assert spot.strip(), (d, line)
    expected = {"dice without faces": ("dice need a number of faces", "D6"),
                "a single = to compare": ('write "=="', "let a = b"),
                "a misspelled word at the start of a line": ("is not a word of the language", "did you mean"),
                "a decimal point": ("no decimals", "50%"),
                "else if": ('write "elif"', "elif"),
                "a round's start after a step": ("comes before its steps", "above the round's first step")}[mistake.name]
    assert expected[0] in d.message and expected[1] in d.help, d


def test_the_examples_show_the_words_they_are_about():
    (d,) = _diagnostics("rules_file", "action golpe(a, b):\n  requieres en_pie(a)\n  pass\n")
    assert d.help == 'did you mean "requires"?' and (d.span.line, d.span.col, d.span.end_col) == (2, 3, 12)
    (d,) = _diagnostics("rules_file", "var x = 3D\n")
    assert "3D6" in d.help and (d.span.col, d.span.end_col) == (9, 11)
    (d,) = _diagnostics("rules_file", "var x = 10.25\n")
    assert (d.span.col, d.span.end_col) == (9, 14)


def test_a_correct_line_near_a_mistake_is_not_mistaken():
    decls, diags = build_rules("rule f(c):\n  if c.pv == 0:\n    return 2D6\n  elif c:\n    return 1/2\n", "m.rules")
    assert not diags and decls


def test_an_over_indented_line_gets_the_caret_on_that_line():
    (d,) = _diagnostics("rules_file", "rule f(c):\n  let x = 1\n      let y = 2\n")
    assert d.message == "unexpected indentation"
    assert (d.span.line, d.span.col) == (3, 7)


def test_a_comment_after_a_table_row_gets_a_help_line():
    (d,) = _diagnostics("rules_file", "table t:\n  | clave | valor |\n  | a | 1 |  # la fila a\n")
    assert d.code == "E0207" and "comment" in d.help
    assert (d.span.line, d.span.col) == (3, 14)
