"""Fuzzing from the grammar itself: hypothesis.extra.lark draws rules files and
encounters that the grammar derives, with explicit strategies for names,
keywords, numbers, texts, dice and table rows, and a layout pass that turns
the grammar's _NL, _INDENT and _DEDENT into real lines and indentation. Most
examples parse, so they reach the loader, the checker, the compiler and (for
encounters over the bundled editions) the engine, where mutated text rarely
gets. Whatever comes out must be a located grimorio diagnostic, and every run
must end within its budget.

Default: a fixed handful of examples. The long profile (outside CI) is
`GRIMORIO_FUZZ=long GRIMORIO_FUZZ_EXAMPLES=100000 .venv/bin/python -m pytest -q -m slow tests/test_fuzz_grammar.py`.
"""
from __future__ import annotations

import functools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import LarkStrategy
from lark import Lark
from lark.grammar import Terminal
from lark.lexer import PatternStr

from grimorio.dsl.syntax.parser import START, grammar_text
from tests.temp_guard import scratch
from tests.test_fuzz import RULESETS, check_edition, fuzz_settings, run_encounter

SOLO = scratch("grimorio-solo-") / "solo"      # copied into WORK by check_edition; removed after the session

NL, INDENT, DEDENT = "\x00N", "\x00I", "\x00D"
# Names a designer writes, the language's own words used as names, bundled names, and oddities.
NAMES = st.sampled_from(["a", "x", "pj", "objetivo", "Rodrigo", "Bandido", "FUE", "AGI", "pv", "resultado",
                         "éxito", "fallo", "Leve", "Grave", "Heridas", "armas", "ataque", "rule", "set", "any",
                         "none", "it", "yo", "c", "xé", "x__e9_", "_", "Ñandú", "ataque_2"]) \
    | st.from_regex(r"[a-zA-Zé_][a-zA-Z0-9_é]{0,6}", fullmatch=True)
PATTERNS = {
    "NAME": NAMES,
    "INT": st.sampled_from(["0", "1", "2", "3", "10", "100", "65536", "9" * 40]),
    "PERCENT": st.sampled_from(["0%", "5%", "50%", "100%", "250%"]),
    "DICE": st.sampled_from(["1D10", "1d6", "2D6", "d100", "1D100", "0d6", "1D0", "3d20"]),
    "STRING": st.sampled_from(['"a"', '"Rodrigo"', '""', '"x\\"y"', '"{pj} cae"', '"línea {0}"', '"\\n"']),
    "TABLE_ROW": st.sampled_from(["| a | b |", "|---|---|", "| 1 | 2 |", "| <= 5 | éxito |", "| any | fallo |",
                                  "| Espada | 1D8 | 5 |", "| x |", "|", "| 1..3 | Leve |"]),
    "COMMENT": st.just("# nota"),
    "__IGNORE_0": st.just(" "),
    "DICE_MODE": st.just("strict"),
    "_NL": st.just(NL), "_INDENT": st.just(INDENT), "_DEDENT": st.just(DEDENT),
}


@functools.lru_cache(maxsize=None)
def grammar() -> Lark:
    """The grammar, built without the cache (hypothesis reads its rules) and without the indenter.
    Hypothesis reads only its rules and start symbols, so no parse table or lexer is built for
    it: Earley's set-up is a third of LALR's with its lexer's collision check (1.0 s)."""
    return Lark(grammar_text(), parser="earley", lexer="dynamic", start=START)


@functools.lru_cache(maxsize=None)
def explicit(start: str) -> dict:
    """A strategy for every terminal: fixed words as written, patterns from PATTERNS, each followed by a
    space so that two words drawn one after the other stay two words."""
    out = {}
    terminals, rules, ignore = grammar().grammar.compile([start], ())
    used = {s.name for r in rules for s in r.expansion if s.is_term} | set(ignore)
    for t in terminals:
        if t.name not in used:
            continue
        if isinstance(t.pattern, PatternStr):
            out[t.name] = st.just(t.pattern.value + " ")
        elif t.name in PATTERNS:
            out[t.name] = PATTERNS[t.name] if t.name.startswith("_") else PATTERNS[t.name].map(lambda s: s + " ")
        else:
            out[t.name] = st.from_regex(t.pattern.to_regexp(), fullmatch=True).map(lambda s: s + " ")
    for name in ("_INDENT", "_DEDENT"):
        if name in used:
            out[name] = PATTERNS[name]
    return out


def laid_out(drawn: str) -> str:
    """The drawn words with the layout markers made real: a new line, indented to the block it is in."""
    out, level = [], 0
    parts = re.split(f"({NL}|{INDENT}|{DEDENT})", drawn)
    pending = False
    for part in parts:
        if part == NL:
            pending = True
        elif part == INDENT:
            level += 1
        elif part == DEDENT:
            level = max(0, level - 1)
        elif part.strip():
            if pending:
                out.append("\n" + "  " * level)
                pending = False
            out.append(part.rstrip(" ") if "|" in part else part)
    return ("".join(out) + "\n").replace(" \n", "\n")


# How many grammar rules deep a draw may nest before it is given up. from_lark picks each rule's
# expansion at random, and this grammar's recursion (expressions, blocks, lists) makes most draws grow
# without end: about three draws in four ran on until hypothesis refused them at its own limit of 100
# nested draws (about 86 grammar rules: drawing a name alone takes 14 draws) and were thrown away.
# Kept draws stay far shallower: of 1,500 rules files and 1,000 encounters kept before this cap, the
# deepest nested 29 and 27 rules (fewer than 1% went past 22). Giving the runaway draws up at 48
# keeps the same examples, bar a rare one deeper than any seen, and halves what each lost draw costs.
GRAMMAR_DEPTH = 48


class DepthCapped(LarkStrategy):
    """from_lark's own strategy (hypothesis.extra.lark), with a draw given up as soon as it nests
    GRAMMAR_DEPTH rules deep instead of when hypothesis's own depth limit refuses it."""

    def __init__(self, start: str, depth: int = GRAMMAR_DEPTH):
        super().__init__(grammar(), start, explicit(start), st.characters(codec="utf-8"))
        self.depth, self.top = depth, 0

    def do_draw(self, data):
        self.top = data.depth
        return super().do_draw(data)

    def draw_symbol(self, data, symbol, draw_state):
        if not isinstance(symbol, Terminal) and data.depth - self.top >= self.depth:
            data.mark_invalid(f"the draw nests more than {self.depth} grammar rules")
        super().draw_symbol(data, symbol, draw_state)


@functools.lru_cache(maxsize=None)
def drawn_from(start: str):
    return DepthCapped(start).map(laid_out)


FUZZ = fuzz_settings(25, 50_000)        # two tests: 100,000 examples in the long profile


def solo_edition():
    """An edition of one included file and nothing else: checking it costs what the drawn file costs."""
    if not SOLO.is_dir():
        SOLO.mkdir()
        (SOLO / "edicion.rules").write_text('edition solo:\n  title "solo"\n  include "reglas.rules"\n',
                                            encoding="utf-8")
        (SOLO / "reglas.rules").write_text("", encoding="utf-8")
    return SOLO


@pytest.mark.slow
@FUZZ
@given(st.data(), st.booleans())
def test_rules_files_the_grammar_derives(data, alone):
    """A drawn file in place of one file of aquelarre, or as the one file of an edition of its own."""
    text = data.draw(drawn_from("rules_file"))
    if alone:
        check_edition(solo_edition(), "reglas.rules", text)
    else:
        check_edition(RULESETS / "aquelarre", "tacticas.rules", text)


@pytest.mark.slow
@FUZZ
@given(st.data(), st.sampled_from(["aquelarre", "yokai"]))
def test_encounters_the_grammar_derives(data, edition):
    text = data.draw(drawn_from("encounter_file"))
    run_encounter(f"edition {edition}\n" + text)


@pytest.mark.slow      # builds the grammar strategy (about 1.3 s)
@settings(max_examples=30, derandomize=True, database=None)
@given(st.deferred(lambda: DepthCapped("rules_file", depth=2)))     # built when it runs, not when collected
def test_a_draw_nested_deeper_than_its_cap_is_given_up(text):
    # At depth 2 a rules file holds no declaration (a declaration is the third rule down): every
    # draw that reaches one is given up, and only blank files (a comment at most) are kept.
    assert not laid_out(text).replace("# nota", "").strip()


def test_the_layout_pass_makes_blocks_the_parser_reads():
    from grimorio.dsl.syntax.builder import build_rules
    text = laid_out(f"rule f (x ) :{NL}{INDENT}return x {NL}{DEDENT}")
    assert text == "rule f (x ) :\n  return x\n"
    decls, diags = build_rules(text, "t.rules")
    assert not diags and decls[0].name == "f"
