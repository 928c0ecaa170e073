"""The grammar itself: conflict-free, and every terminal has designer words."""
from __future__ import annotations

from grimorio.dsl.syntax.parser import START, TOKEN_WORDS, _words, lark_parser


def test_grammar_builds_in_strict_mode():
    # strict: no shift/reduce conflicts, no terminals that can match the same text.
    parser = lark_parser(strict=True)
    assert set(START) <= set(parser.options.start)


def test_every_pattern_terminal_has_designer_words():
    parser = lark_parser()
    patterns = [t.name for t in parser.terminals if t.pattern.type == "re" and not t.name.startswith("__IGNORE")]
    assert sorted(set(patterns) - set(TOKEN_WORDS)) == []


def test_fixed_terminals_are_shown_as_their_text():
    words = _words(lark_parser())
    assert words["LPAR"] == '"("'
    assert words["RULE"] == '"rule"'
    assert all(not w.startswith("__") for w in words.values())
