"""Hypothesis builds expressions and statements from the language's own forms
(literals, names of the yokai edition, operators, builtins, rolls, checks,
lists, comprehensions, searches, records) and runs them in an encounter: whatever they
do, a run ends in a result or a located diagnostic, never a Python error."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.test_fuzz import fuzz_settings
from tests.test_fuzz import run_encounter as run

pytestmark = pytest.mark.slow      # hundreds of fuzzed encounters (tests/conftest.py)

FUZZ = fuzz_settings(150, 5000)          # GRIMORIO_FUZZ=long for deep fuzzing (see tests/test_fuzz.py)

HEAD = 'encounter "fuzz"\nedition yokai\ncombatant Akira:\n  FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2\n' \
       '  holds Heridas Leve\n'

ATOMS = st.sampled_from([
    "0", "1", "-1", "7", "100", "50%", "true", "false", "none", '"FUE"', '"x"', "1D6", "d100", "2D6+1",
    "Akira", "Heridas", "Fatiga", "Heridas.Leve", "Fatiga.Grave", "éxito", "fallo", "incapacitado",
    "Akira.FUE", "Akira.VOL", 'Akira["AGI"]', "x", "round_number()", "combatants()", "conditions()", "map()",
])
UNARY = ["-", "not "]
BINARY = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or", "in", "not in"]
CALLS = ["len", "min", "max", "sum", "abs", "floor", "ceil", "distinct", "first", "enemies", "allies", "grades",
         "condition_named", "keys"]


def expressions():
    def extend(inner):
        return st.one_of(
            st.tuples(st.sampled_from(UNARY), inner).map(lambda t: f"{t[0]}({t[1]})"),
            st.tuples(inner, st.sampled_from(BINARY), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(CALLS), inner).map(lambda t: f"{t[0]}({t[1]})"),
            st.tuples(inner, inner, inner).map(lambda t: f"clamp({t[0]}, {t[1]}, {t[2]})"),
            st.tuples(inner, inner).map(lambda t: f"has({t[0]}, {t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"cards({t[0]}, {t[1]})"),
            st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
            st.tuples(inner, inner).map(lambda t: f"[{t[0]} for x in {t[1]}]"),
            st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
            inner.map(lambda e: f"(roll {e})"),
            inner.map(lambda e: f"maximum({e})"),
            inner.map(lambda e: f"{{campo: {e}}}"),
            st.tuples(inner, inner).map(lambda t: f"(check acción({t[0]}, {t[1]}) by Akira).resultado"),
            st.tuples(inner, inner).map(lambda t: f"obstáculo({t[0]}, {t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"keep_highest(dice({t[0]}, 6), {t[1]})"),
            st.tuples(inner, inner, inner).map(lambda t: f"slice({t[0]}, {t[1]}, {t[2]})"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
            st.tuples(inner, inner).map(lambda t: f"without(range({t[0]}, {t[1]}), {t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"choose({t[0]}, {t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"held({t[0]}, {t[1]})"),
            st.tuples(st.sampled_from(["first", "any", "all"]), inner, inner).map(
                lambda t: f"({t[0]} y in {t[1]} where {t[2]} != y)"),
            st.tuples(inner, inner, inner).map(lambda t: f"(first y in {t[0]} where y == {t[1]} else {t[2]})"),
            st.tuples(inner, inner).map(lambda t: f"(first y in {t[0]} where {t[1]}).FUE"),
        )
    return st.recursive(ATOMS, extend, max_leaves=8)


def statements(expr):
    return st.one_of(
        expr.map(lambda e: f"let x = {e}"),
        expr.map(lambda e: f"if {e}:\n    let x = 1\n  else:\n    let x = 2"),
        expr.map(lambda e: f"for y in {e}:\n    pass"),
        expr.map(lambda e: f"receive Akira Heridas {e}" if e.isidentifier() else f"let z = {e}"),
        expr.map(lambda e: f"expect {e}"),
        st.tuples(expr, expr).map(lambda t: f"let m = map()\n  set m[{t[0]}] = {t[1]}\n  expect {t[0]} in m"),
        expr.map(lambda e: f"add Akira incapacitado with {e}"),
        # A card statement's condition and grade from any expression (a field, a call, an item).
        st.tuples(expr, expr, st.sampled_from(["add", "remove", "receive"])).map(
            lambda t: f"let r = {{c: {t[0]}, g: {t[1]}}}\n  {t[2]} Akira r.c r.g"),
        st.tuples(expr, st.sampled_from(["add", "remove", "receive"])).map(
            lambda t: f"{t[1]} Akira condition_named({t[0]})"),
        expr.map(lambda e: f"let r = [{e}]\n  remove Akira r[1]"),
        st.sampled_from(["receive Akira Fatiga Leve", "remove Akira Heridas", "add Akira incapacitado",
                         'expect said "Akira"', 'expect not said "x"',
                         "actuar(Akira, \"FUE\", 9)", "stop"]),
    )


@FUZZ
@given(expressions())
def test_any_expression_runs_or_is_a_located_diagnostic(expr):
    run(HEAD + "do:\n  let x = 1\n" + f"expect {expr}\n")


@FUZZ
@given(st.lists(statements(expressions()), min_size=1, max_size=4))
def test_any_statements_run_or_are_a_located_diagnostic(stmts):
    run(HEAD + "do:\n  let x = 1\n" + "".join(f"  {s}\n" for s in stmts))
