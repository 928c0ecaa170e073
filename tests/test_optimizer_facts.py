"""The optimizer decides on facts of each expression's code (interpreter/compile/code.py), set
from the node it was compiled from: never on a regular expression over the generated text."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from grimorio.interpreter.compile.code import Code, type_of, unmarked, marked

COMPILE = Path(__file__).resolve().parent.parent / "interpreter" / "compile"


@pytest.mark.parametrize("path", sorted(COMPILE.glob("*.py")), ids=lambda p: p.name)
def test_no_module_of_the_compiler_reads_code_with_a_regular_expression(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert "re" not in imported, path.name


def test_the_facts_of_a_node_are_its_codes_not_its_texts():
    # The same text with other facts is other code: a name is asked its type as it is, computed code
    # in brackets, a written whole number not at all; text without facts is computed.
    assert type_of(Code("x", name=True)) == "x.__class__"
    assert type_of(Code("x")) == type_of("x") == "(x).__class__"
    assert type_of(Code("7", whole=True, number=7)) == "int"
    whole = Code("7", whole=True, number=7)
    assert whole.pure and whole.literal and whole.steady and not whole.name
    assert not Code("f(x)").pure and Code("c.x", pure=True).steady


def test_a_rule_in_place_is_found_by_its_columns():
    # The marks of rules in place come off the line; each one's columns are told in UTF-8 bytes.
    line = "    x = 'ñ' + " + marked("r", "(a + " + marked("s", "(b)") + ")")
    text, inner = unmarked(line)
    assert text == "    x = 'ñ' + (a + (b))"
    start_r = len("    x = 'ñ' + ".encode())
    assert sorted(inner) == [(start_r, start_r + len("(a + (b))"), "r"), (start_r + 5, start_r + 8, "s")]


def test_a_line_span_with_rules_in_place_survives_the_program_cache():
    # The program cache pickles line spans: the columns of the rules in place come back with them.
    import pickle
    from grimorio.dsl.diagnostics import InlinedSpan, Span
    inner = ((4, 9, Span("r.rules", 3, 2)),)
    again = pickle.loads(pickle.dumps(InlinedSpan.of(Span("r.rules", 7, 2), inner)))
    assert isinstance(again, InlinedSpan) and again.inner == inner and again.plain() == Span("r.rules", 7, 2)
