"""grimorio builds Lark's trees with its own small functions (dsl/syntax/trees.py):
they must give exactly the trees Lark itself gives, positions included, on
every rules file and encounter of the repository, on table cells, and on
text that does not parse."""
from __future__ import annotations

import functools
from pathlib import Path

import pytest
from lark import Lark, Token, Tree

from grimorio.dsl.syntax.parser import START, _Indenter, chunk_by_chunk, chunks, grammar_text, lark_parser, whole_file
from grimorio.dsl.syntax.trees import tree_depth

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(p for p in ROOT.glob("**/*") if p.suffix in (".rules", ".enc")
               and not {".venv", "build", ".git"} & set(p.relative_to(ROOT).parts))
# The quick profile compares a few files of each kind; the slow one (-m slow) every file.
SAMPLE = {"rulesets/aquelarre/tiradas.rules", "rulesets/aquelarre/duelo.enc", "rulesets/estados/tiempo.rules",
          "rulesets/yokai/edicion.rules", "rulesets/casa/criticos_quinto.rules"}
CASES = [pytest.param(p, id=str(p.relative_to(ROOT)),
                      marks=() if str(p.relative_to(ROOT)) in SAMPLE else pytest.mark.slow) for p in FILES]


@functools.lru_cache(maxsize=None)
def lark_own() -> Lark:
    # cache: Lark keeps its own grammar analysis in pytest's cache folder (not the temporary folder: the tests
    # leave nothing there, tests/temp_guard.py), checked against the grammar and these options by the file's
    # first line (1.6 s to build, 0.1 s to read back); the parser is Lark's all the same.
    kept = ROOT / ".pytest_cache" / "lark-own-parser.tmp"
    try:
        kept.parent.mkdir(exist_ok=True)
    except OSError:
        pass                 # not kept: Lark builds it
    return Lark(grammar_text(), parser="lalr", lexer="contextual", postlex=_Indenter(), start=START,
                propagate_positions=True, maybe_placeholders=True, cache=str(kept))


def shape(node):
    """Everything of a tree grimorio can read: rule names, tokens with their places, positions."""
    if isinstance(node, Token):
        return ("token", node.type, str(node), node.line, node.column, node.end_line, node.end_column)
    if isinstance(node, Tree):
        meta = node.meta
        place = None if meta.empty else (meta.line, meta.column, meta.end_line, meta.end_column)
        return (node.data, place, tuple(shape(c) for c in node.children))
    return node


def parsed(parser: Lark, text: str, start: str):
    try:
        return shape(parser.parse(text, start=start))
    except Exception as exc:  # noqa: BLE001 - the same failure, at the same place, on both sides
        return ("error", type(exc).__name__, getattr(exc, "line", None), getattr(exc, "column", None))


def test_the_repository_has_files_to_compare():
    assert len(FILES) > 100


@pytest.mark.parametrize("path", CASES)
def test_every_chunk_gives_the_tree_lark_gives(path):
    start = "encounter_file" if path.suffix == ".enc" else "rules_file"
    for _, chunk in chunks(path.read_text(encoding="utf-8")):
        assert parsed(lark_parser(), chunk + "\n", start) == parsed(lark_own(), chunk + "\n", start)


@pytest.mark.parametrize("path", CASES)
def test_a_file_parsed_in_one_go_gives_the_trees_of_its_chunks(path):
    start = "encounter_file" if path.suffix == ".enc" else "rules_file"
    text = path.read_text(encoding="utf-8")
    whole = whole_file(text, start)
    if whole is not None:
        trees, diags = chunk_by_chunk(chunks(text), str(path), start)
        assert not diags and [shape(t) for t in whole] == [shape(t) for t in trees]


def test_most_files_are_parsed_in_one_go():
    starts = ["encounter_file" if p.suffix == ".enc" else "rules_file" for p in FILES]
    whole = [whole_file(p.read_text(encoding="utf-8"), s) is not None for p, s in zip(FILES, starts)]
    assert sum(whole) > len(FILES) * 2 // 3


@pytest.mark.parametrize("text", ["var x = [1,\n2]\n", "rule f(c):\n  return (c +\n1)\n"])
def test_a_bracket_open_across_the_margin_is_parsed_chunk_by_chunk(text):
    assert whole_file(text, "rules_file") is None


CELLS = [("cell_value", "(a + b) * c.FUE"), ("cell_value", "[x for x in l if x > 1]"), ("cell_tests", "<= 5, any"),
         ("cell_tests", "1..3"), ("cell_stmts", "set a.n = 1; say m(a)"), ("cell_value", "roll 1D10 by a as \"t\""),
         ("cell_value", "f(a, b: (1))"), ("cell_value", "a if b else (c)"), ("cell_value", "( (x) )")]
BROKEN = ["rule f(c):\n  return (c +\n", "var x = [1,\n  2\n", "rule f(:\n  pass\n", "rule f(c):\n return c\n   pass\n",
          "sheet s:\n  a: int 1..\n", "action a(x):\n  requires x\n"]


@pytest.mark.parametrize("start,text", CELLS)
def test_table_cells_give_the_tree_lark_gives(start, text):
    assert parsed(lark_parser(), text, start) == parsed(lark_own(), text, start)


@pytest.mark.parametrize("text", BROKEN)
def test_text_that_does_not_parse_fails_at_the_same_place(text):
    ours = parsed(lark_parser(), text, "rules_file")
    assert ours[0] == "error" and ours == parsed(lark_own(), text, "rules_file")


def test_the_depth_is_the_depth_of_the_tree():
    tree = lark_parser().parse("rule f(c):\n  let a = 1\n  let b = 2\n  if a:\n    return ((c + 1) * 2)\n"
                               "  return a\n", start="rules_file")

    def walk(t):
        return 1 + max((walk(c) for c in t.children if isinstance(c, Tree)), default=0)
    assert tree_depth(tree) == walk(tree) > 5
