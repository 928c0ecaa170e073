"""Code compiled for whole numbers beside the general code (interpreter/compile/statements.py,
`decide`): a decision table that orders values is compiled once for whole numbers, without a
guard per cell, and once for any value. Both must give the same answer, or the same refusal,
for the same values: the whole-number copy runs on Python ints, the general one on the same
numbers as fractions or as rolls (what a transcript keeps), which the semantics module reads."""
from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.compile.compiler import compile_checked
from grimorio.interpreter.run.dice import Dice, make_roll
from tests import compiled
from tests.test_checker import write_edition

RULES = """
outcomes res: malo < bueno < genial

check prueba(a, b) rolls t = d100:
  | t                     | a      | res    |
  |-----------------------|--------|--------|
  | <= ceil(a / 10)       | any    | genial |
  | >= 90 + floor(b / 3)  | any    | malo   |
  | 40..a * 2             | > -b   | bueno  |
  | < a - b, > a % 7      | any    | bueno  |
  | any                   | any    | malo   |

rule clase(x, y):
  decide first:
    | x * y    | x - y   | r   |
    |----------|---------|-----|
    | > 100    | any     | 3   |
    | 10..100  | <= y    | 2   |
    | any      | any     | 1   |
  return r

rule al_menos_bueno(x):
  return x >= bueno

rule en(l, k):
  return l[k]
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    root = tmp_path_factory.mktemp("specialized")
    write_edition(root, RULES)
    return compile_checked(load_edition("prueba", roots=[root]))


def function(program, kind):
    """The rule "clase", or the check "prueba" as a caller naming its roll calls it (`_given`)."""
    if kind == "check":
        found = compiled.function(program, "check", "prueba")
        return program.ns[f"{found.__name__}_given"]
    return compiled.function(program, kind, "clase")


def answer(fn, *args, **kw):
    engine = SimpleNamespace(rec=False, plain=True, steps=0, budget=10**9)
    try:
        got = fn(engine, *args, **kw)
    except Exception as exc:  # noqa: BLE001 - the kind of refusal is what is compared
        return ("refused", type(exc).__name__, getattr(exc, "message", None))
    return ("value", getattr(got, "a_res", got))


def test_both_copies_are_compiled(program):
    # The whole-number copy stands under one test of the types it relies on (the roll and the two
    # parameters): on whole numbers no cell asks the semantics; on fractions the general copy does.
    from grimorio.interpreter.run import semantics as S
    engine = SimpleNamespace(rec=False, plain=True, steps=0, budget=10**9)
    check, rule = function(program, "check"), function(program, "rule")
    assert compiled.calls_into(S, check, engine, None, "prueba", 30, 4, 50) == []
    assert compiled.calls_into(S, rule, engine, 5, 30) == []
    assert "ceil_div" in compiled.calls_into(S, check, engine, None, "prueba", Fraction(30), 4, 50)
    assert compiled.calls_into(S, rule, engine, Fraction(5), 30)
    # one guard, not one per cell: the whole-number copy executes fewer bytecodes than the general one
    assert compiled.bytecodes(check, engine, None, "prueba", 30, 4, 50) < \
        compiled.bytecodes(check, engine, None, "prueba", Fraction(30), 4, 50)


small = st.integers(-300, 300)
whole = st.one_of(small, st.integers(-10**40, 10**40))


def as_other(v: int, how: int):
    """The same number, not a Python int: a fraction, or a roll of d100 as a transcript keeps it."""
    return Fraction(v) if how == 0 or not 1 <= v <= 100 else make_roll(v, Dice.of(1, 100), [v])


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(a=whole, b=whole, roll=st.integers(1, 100), how=st.tuples(*[st.integers(0, 1)] * 3))
def test_a_check_answers_alike_on_ints_and_on_the_same_numbers_otherwise(program, a, b, roll, how):
    check = function(program, "check")
    fast = answer(check, None, "prueba", a, b, roll)
    general = answer(check, None, "prueba", as_other(a, how[0]), as_other(b, how[1]), as_other(roll, how[2]))
    assert fast == general


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(x=whole, y=whole, how=st.tuples(st.integers(0, 1), st.integers(0, 1)))
def test_a_rule_table_answers_alike_on_ints_and_on_the_same_numbers_otherwise(program, x, y, how):
    rule = function(program, "rule")
    assert answer(rule, x, y) == answer(rule, as_other(x, how[0]), as_other(y, how[1]))


@pytest.mark.parametrize("a, b", [("x", 3), (None, 3), (3, [1]), (True, 2)])
def test_values_that_are_not_numbers_take_the_general_copy(program, a, b):
    # What the semantics refuse is refused alike (a text ordered against a number, a list ...);
    # `true` is not a whole number to the language, though Python's bool is an int.
    check = function(program, "check")
    got = answer(check, None, "prueba", a, b, 50)
    assert got[0] == "refused", got


def test_an_ordering_against_a_named_outcome_answers_as_the_ranks_do(program):
    # `x >= bueno` asks a dict of the list's outcomes; anything else goes to the semantics, which refuse it.
    rule = function_named(program, "al_menos_bueno")
    res = {o.name: o for o in program.outcome_values.values() if o.kind == "res"}
    assert {name: answer(rule, o) for name, o in res.items()} == {
        "malo": ("value", False), "bueno": ("value", True), "genial": ("value", True)}
    for odd in (2, "bueno", None, [res["bueno"]]):
        assert answer(rule, odd)[0] == "refused", odd


def test_a_stored_program_keeps_its_outcomes_one_with_its_answers(program):
    # The dict of answers and the outcomes the rules make come back from the program cache as
    # the same objects: the look-up answers, the semantics are not asked.
    from unittest import mock
    from grimorio.interpreter.run import semantics as S
    from grimorio.interpreter.compile import stored
    from grimorio.interpreter.compile.compiler import load
    again = load(stored.loads(stored.dumps(program.program)))
    rule = function_named(again, "al_menos_bueno")
    res = {o.name: o for o in again.outcome_values.values() if o.kind == "res"}
    with mock.patch.object(S, "greater_equal", side_effect=AssertionError("asked the semantics")):
        assert [answer(rule, res[x]) for x in ("malo", "genial")] == [("value", False), ("value", True)]


def function_named(program, rule_name):
    return program.ns[program.gids[("rule", rule_name)]]


# ---------------------------------------------------------------- drawn tables
TERMS = ["a", "b", "0", "3", "-2", "a + b", "a - 1", "b * 2", "floor(a / 3)", "ceil(b / 2)", "a % 5", "-a",
         "(a + 1) * (b - 1)", "abs(b)"]
term = st.sampled_from(TERMS)
cell = st.one_of(
    st.just("any"),
    st.tuples(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), term).map(" ".join),
    st.tuples(term, term).map(lambda t: f"{t[0]}..{t[1]}"),
    st.tuples(st.sampled_from(["<=", ">"]), term, term).map(lambda t: f"{t[0]} {t[1]}, {t[0]} {t[2]}"),
)


def table_rule(inputs, rows) -> str:
    head = "| " + " | ".join(inputs) + " | r |"
    lines = [head, "|" + "---|" * (len(inputs) + 1)]
    lines += ["| " + " | ".join(cells) + f" | {i + 1} |" for i, cells in enumerate(rows)]
    lines.append("| " + " | ".join("any" for _ in inputs) + " | 0 |")
    return "rule tabla(a, b):\n  decide first:\n" + "".join(f"    {x}\n" for x in lines) + "  return r\n"


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(data=st.data(), n_inputs=st.integers(1, 3), n_rows=st.integers(1, 4))
def test_drawn_tables_answer_alike_on_ints_and_on_the_same_numbers_otherwise(tmp_path_factory, data, n_inputs,
                                                                             n_rows):
    inputs = data.draw(st.lists(term, min_size=n_inputs, max_size=n_inputs))
    rows = data.draw(st.lists(st.lists(cell, min_size=n_inputs, max_size=n_inputs), min_size=n_rows,
                              max_size=n_rows))
    root = tmp_path_factory.mktemp("drawn")
    write_edition(root, table_rule(inputs, rows))
    program = compile_checked(load_edition("prueba", roots=[root]))
    rule = function_named(program, "tabla")
    for _ in range(8):
        a, b = data.draw(small), data.draw(small)
        how = data.draw(st.tuples(st.integers(0, 1), st.integers(0, 1)))
        assert answer(rule, a, b) == answer(rule, as_other(a, how[0]), as_other(b, how[1])), (a, b, how)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(items=st.lists(st.integers(), max_size=4),
       k=st.one_of(st.integers(-6, 6), st.booleans(), st.none(), st.text(max_size=2), st.fractions(-3, 3)))
def test_a_list_item_read_in_place_is_what_the_builtin_reads(program, items, k):
    # l[k] reads a list's item in place for a whole position from 1 that the list has; any other
    # position (0, negative, past the end, not a whole number) goes to H.index, which says why.
    from grimorio.interpreter.run import runtime_helpers as H
    assert answer(function_named(program, "en"), items, k) == answer(lambda _e, a, b: H.index(a, b), items, k)
