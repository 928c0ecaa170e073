"""grimorio lexes with a loop of its own over Lark's prepared patterns
(dsl/syntax/lexer.py): every token the parser receives must be the token Lark's own
contextual lexer gives, with the same type, text and place, on every file of
the repository, on table cells, and on text that does not lex or parse,
where the error must be Lark's, at the same place."""
from __future__ import annotations

from unittest import mock

import pytest
from lark.lexer import ContextualLexer

from grimorio.dsl.syntax.lexer import FastContextualLexer
from grimorio.dsl.syntax.parser import lark_parser
from tests.test_parse_trees import CASES

SHAPE = ("type", "value", "start_pos", "line", "column", "end_line", "end_column", "end_pos")


def _recording(base, seen: list):
    class Recording(base):
        def lex(self, lexer_state, parser_state):
            for token in base.lex(self, lexer_state, parser_state):
                seen.append(tuple(getattr(token, a) for a in SHAPE))
                yield token
    return Recording


def lexed(base, text: str, start: str):
    """The tokens the parser received from a lexer of class `base`, and how the parse ended."""
    lexer = lark_parser().parser.lexer.lexer
    seen: list = []
    lexer.__class__ = _recording(base, seen)
    try:
        lark_parser().parse(text, start=start)
        end = "parsed"
    except Exception as exc:  # noqa: BLE001 - the same failure, at the same place, on both sides
        end = (type(exc).__name__, str(exc), getattr(exc, "line", None), getattr(exc, "column", None),
               sorted(getattr(exc, "expected", None) or getattr(exc, "allowed", None) or ()))
    finally:
        lexer.__class__ = FastContextualLexer
    return seen, end


def same_as_lark(text: str, start: str):
    ours = lexed(FastContextualLexer, text, start)
    assert ours == lexed(ContextualLexer, text, start)
    return ours


def test_the_parser_lexes_with_the_fast_loop():
    assert type(lark_parser().parser.lexer.lexer) is FastContextualLexer


@pytest.mark.parametrize("path", CASES)
def test_every_file_gives_the_tokens_lark_gives(path):
    start = "encounter_file" if path.suffix == ".enc" else "rules_file"
    text = path.read_text(encoding="utf-8")
    tokens, _ = same_as_lark(text + "\n", start)
    assert tokens


# Keywords where a name is expected and names where a keyword is, comments, strings with escapes, tabs,
# carriage returns, a bracket open across lines, text no terminal matches, a token the state does not
# expect (Lark's root lexer reports it), and the end of a text in the middle of a declaration.
TEXTS = [
    ("rule rule(set):\n  return set.rule + 1 # nota\n", "rules_file"),
    ('var t = "x\\"y"  # c\n\nvar u = [1,\n   2,\t3]\r\n', "rules_file"),
    ("var x = 3 $ 4\n", "rules_file"),
    ("var x = 3 rule 4\n", "rules_file"),
    ("rule f(x):\n  return x +\n", "rules_file"),
    ("rule f(x):\n    return x\n  return 2\n", "rules_file"),
    ("table t:\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n", "rules_file"),
    ("edition e\ncombatant Rodrigo:\n  pv 10\n  holds espada\n", "encounter_file"),
    ("1D10 + 3 >= 50%", "cell_value"),
    ("first", "cell_value"),
    ("é ñ Ñandú", "cell_value"),
    ("", "rules_file"),
    ("\x00\u200b", "rules_file"),
]


@pytest.mark.parametrize("text,start", TEXTS, ids=[repr(t[:20]) for t, _ in TEXTS])
def test_odd_text_gives_the_tokens_and_errors_lark_gives(text, start):
    same_as_lark(text, start)


def test_a_text_that_stops_lexing_ends_in_lark_s_own_error():
    tokens, end = same_as_lark("var x = 3 $ 4\n", "rules_file")
    assert end[0] in ("UnexpectedCharacters", "UnexpectedToken") and end[2:4] == (1, 11)
    assert [t[0] for t in tokens][:3] == ["VAR", "NAME", "EQUAL"]


def test_building_pauses_the_cycle_collector_and_gives_it_back():
    import gc

    from grimorio.dsl.syntax import builder
    from grimorio.dsl.editions import cache
    seen = []
    real_parse, real_dumps = builder.parse_text, cache.pickle.dumps

    def parsing(*args):
        seen.append(("parse", gc.isenabled()))
        return real_parse(*args)

    def pickling(*args, **kwargs):
        seen.append(("pickle", gc.isenabled()))
        return real_dumps(*args, **kwargs)

    with mock.patch.object(builder, "parse_text", parsing), mock.patch.object(cache.pickle, "dumps", pickling):
        assert gc.isenabled()
        builder.build_rules("var x = 1\n", "t.rules")
        builder.build_encounter("edition e\n", "t.enc")
        cache.build_rules(f"var x = {id(seen)}\n", "t.rules")          # a text the cache has not seen
        assert seen == [("parse", False), ("parse", False), ("parse", False), ("pickle", False)]
        assert gc.isenabled()
        with mock.patch.object(builder, "Builder", side_effect=RuntimeError("boom")), \
                pytest.raises(RuntimeError):
            builder.build_rules("var x = 1\n", "t.rules")
        assert gc.isenabled()
        gc.disable()
        try:
            builder.build_rules("var x = 1\n", "t.rules")
            assert not gc.isenabled()          # a caller that paused it keeps it paused
        finally:
            gc.enable()
