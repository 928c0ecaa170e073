"""Highlighting: the Pygments lexer and the editors' TextMate grammar know every word of the grammar."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pygments.token import Comment, Keyword, Name, Number, Operator, String

from grimorio.interpreter.tools.highlight import GrimorioLexer
from grimorio.dsl.syntax.keywords import KEYWORDS, grammar_keywords, textmate_grammar

ROOT = Path(__file__).resolve().parent.parent
TEXTMATE = ROOT / "editors" / "grimorio.tmLanguage.json"
GRAMMAR_WORDS = sorted(grammar_keywords())


def test_the_keyword_groups_are_the_grammars_words():
    words = [w for group in KEYWORDS.values() for w in group]
    assert len(words) == len(set(words)), "a word is in two groups"
    assert set(words) == set(GRAMMAR_WORDS), "update KEYWORDS in dsl/syntax/keywords.py to match dsl/syntax/grammar.lark"
    assert {"rule", "decide", "first", "all", "strict", "desc", "where", "choose", "highest", "lowest"} <= \
        set(GRAMMAR_WORDS)


@pytest.mark.parametrize("word", GRAMMAR_WORDS)
def test_pygments_highlights_every_keyword(word):
    tokens = [(t, v) for t, v in GrimorioLexer().get_tokens(f"{word} x\n") if v.strip()]
    assert tokens[0][1] == word and (tokens[0][0] in Keyword or tokens[0][0] in Operator.Word), tokens
    # Inside a longer name the word is not a keyword.
    assert [(t, v) for t, v in GrimorioLexer().get_tokens(f"{word}_x{word}é\n") if v.strip()] == \
        [(Name, f"{word}_x{word}é")]


def test_the_committed_textmate_grammar_is_generated_from_the_keywords():
    assert json.loads(TEXTMATE.read_text(encoding="utf-8")) == textmate_grammar(), \
        "run: python -m grimorio.dsl.syntax.keywords > editors/grimorio.tmLanguage.json"


def _keyword_regexes():
    grammar = json.loads(TEXTMATE.read_text(encoding="utf-8"))
    return [(p["name"], re.compile(p["match"])) for p in grammar["repository"]["keywords"]["patterns"]]


@pytest.mark.parametrize("word", GRAMMAR_WORDS)
def test_textmate_highlights_every_keyword(word):
    scopes = [name for name, rx in _keyword_regexes() if any(m.group() == word for m in rx.finditer(f"  {word}(x)"))]
    assert len(scopes) == 1, (word, scopes)
    assert not any(rx.search(f"{word}é {word}_1 x{word}") for _, rx in _keyword_regexes())


def test_textmate_declarations_strings_and_numbers():
    repo = json.loads(TEXTMATE.read_text(encoding="utf-8"))["repository"]
    m = re.match(repo["declaration"]["match"], "  rule en_pie(c):")
    assert m and m.groups() == ("rule", "en_pie")
    dice, percent, integer = (re.compile(p["match"]) for p in repo["number"]["patterns"])
    assert dice.fullmatch("1D10") and dice.fullmatch("d100") and not dice.search("Bd6")
    assert percent.fullmatch("50%") and integer.search("x 12 ") and not integer.search("x12")
    assert re.search(repo["comment"]["match"], "say hola()  # a comment").group() == "# a comment"


def test_a_whole_file_highlights_without_errors_and_with_its_parts():
    text = (ROOT / "rulesets" / "aquelarre" / "acciones.rules").read_text(encoding="utf-8")
    tokens = list(GrimorioLexer().get_tokens(text))
    assert "".join(v for _, v in tokens) == text
    kinds = {t for t, _ in tokens}
    assert not any("Error" in str(t) for t in kinds)
    assert {Comment.Single, Keyword.Declaration, Name.Function, String.Double, Number.Integer} <= kinds
    placeholders = [v for t, v in GrimorioLexer().get_tokens('message m(a) "{a} hits {a.b}"\n')
                    if t is String.Interpol]
    assert placeholders == ["{a}", "{a.b}"]


def test_pygments_finds_the_lexer_by_name():
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    from importlib.metadata import entry_points
    if not any(ep.name == "grimorio" for ep in entry_points(group="pygments.lexers")):
        pytest.fail('the "pygments.lexers" entry point is not installed: pip install -e ".[test]"')
    assert get_lexer_by_name("grimorio").name == "grimorio"
    assert get_lexer_for_filename("casa.rules").name == "grimorio"

