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
                "until outside a round": ('"until" belongs to a round', "while not CONDITION"),
                "a decimal comma": ("no decimals (a comma is not a decimal point)",
                                    "whole percentage" if "%" in text else "14 or 15" if "FUE" in text else "1,5"),
                "roll by with nothing after": ("needs", "roll 1D6"),
                "roll by after arithmetic": ('follows the dice right after "roll"', "put it in brackets"),
                "a round's start after a step": ("comes before its steps", "above the round's first step"),
                "a card statement without its condition": ("needs a", "name that holds one"),
                }[mistake.name]
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


# ---------------------------------------------------------------- designer words, as docs/errors.md shows them

from pathlib import Path  # noqa: E402

from grimorio.dsl.diagnostics import Sources, render_all  # noqa: E402

ERRORS = Path(__file__).resolve().parent.parent / "docs" / "errors.md"
WORDED = [   # issue 23: each was "unexpected ..." and a list of tokens
    ("casa.rules", "round asalto:\n  step actuar:\n    pass\n\nrule turno(c):\n  act c\n  until c.pv <= 0\n",
     '"until" belongs to a round'),
    ("casa.rules", "table armas:\n  | nombre | factor |\n  | Maza   | x1,5   |\n", "x3/2 for 1,5"),
    ("casa.rules", 'message puntos(c) "{puntos actuales}"\n', "names have no spaces (puntos_actuales)"),
    ("casa.rules", "rule daño(c):\n  return roll 1D6 by\n", '"by" needs who rolls'),
    ("casa.rules", "rule ataque(c):\n  return roll 1D20 + mod(c.DEX) by c\n", "roll (1D20 + mod(c.DEX)) by"),
    ("duelo.enc", "combatant Rodrigo:\n  Espadas 60,5%\n", "60% or 61%"),
    ("casa.rules", "rule f(c):\n  let x = c.pv 3\n  return x\n", 'the line reads as complete before "3"'),
]


@pytest.mark.parametrize("name, text, words", WORDED, ids=[w for _, _, w in WORDED])
def test_the_designer_words_are_shown_and_documented_as_they_are(name, text, words):
    build = build_rules if name.endswith(".rules") else build_encounter
    (d,) = build(text, name)[1]
    shown = render_all([d], Sources({name: text}))
    assert words in shown and "expected" not in (d.help or ""), shown
    docs = ERRORS.read_text(encoding="utf-8")
    assert shown.split("\n1 error")[0].rstrip() in docs, shown


def test_a_skill_the_sheet_lacks_lists_the_skills_and_the_nearest_name():
    # Issue 23: an encounter skill the sheet lacks got no list of skills and no nearest name.
    from grimorio.dsl.check.encounter_check import Facts, check_encounter
    from grimorio.dsl.syntax import nodes as n
    from grimorio.dsl.diagnostics import Span
    sp = Span("duelo.enc", 1, 1)
    fields = {name: n.Field(sp, name, kind) for name, kind in
              [("FUE", "int"), ("altura", "int"), ("Espadas", "percent"), ("Esquiva", "percent"),
               ("Cuchillos", "percent"), ("arma", "text")]}
    facts = Facts(fields, (), {}, {}, frozenset())
    enc, _ = build_encounter('combatant Ana:\n  FUE 12, altura 2, arma "x"\n  Espada 60%, Tortura 40%, Cuchilos 5%\n',
                             "duelo.enc")
    diags = [d for d in check_encounter(enc, facts) if d.code == "E0203"]
    assert [d.message for d in diags] == ['the sheet has no field "Espada"', 'the sheet has no field "Tortura"',
                                          'the sheet has no field "Cuchilos"']
    skills = "(the sheet's percentages: Espadas, Esquiva, Cuchillos)"
    assert diags[0].help == f'did you mean "Espadas"? {skills}'
    assert diags[1].help == f'did you mean "altura"? {skills}'          # the nearest name, whatever its kind
    assert diags[2].help == f'did you mean "Cuchillos"? {skills}'
