"""The operator semantics module: what each operator does for each kind of
value, and the proof that the compiler's in-place shortcut (Python's own
operator, used when both sides are surely numbers) gives the same answer."""
from __future__ import annotations

import operator
from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from grimorio.interpreter import semantics as S
from grimorio.interpreter.dice import Dice, ValueBound, make_roll
from grimorio.interpreter.expressions import ExpressionCompiler

numbers = st.one_of(
    st.integers(-10**30, 10**30),
    st.fractions(max_denominator=10**6),
    st.builds(lambda v: make_roll(v, Dice.of(1, 10), [v]), st.integers(1, 10)),
)


@given(numbers, numbers)
def test_in_place_operators_equal_the_semantics_on_numbers(a, b):
    python = {"+": operator.add, "-": operator.sub, "*": operator.mul}
    for op, symbol in ExpressionCompiler.PLAIN.items():
        assert python[symbol](a, b) == S.BINARY[op](a, b)


@pytest.mark.parametrize("op, a, b", [
    ("%", "a%db", 7), ("/", "12", 2), ("*", "ab", 3), ("*", [1], 3), ("+", "a", 1), ("+", [1], "a"),
    ("-", "ab", "a"), ("+", True, 1), ("*", Dice.of(1, 6), 2), ("/", Dice.of(1, 6), 2), ("in", "FUE", "FUERZA"),
    ("+", None, 1),
])
def test_what_does_not_apply_is_an_error_in_words(op, a, b):
    with pytest.raises(S.OperatorError) as exc:
        S.BINARY[op](a, b)
    assert exc.value.help and "does not apply" in exc.value.message or "dice" in exc.value.message \
        or '"in" needs a list' in exc.value.message


def test_what_applies():
    assert S.add("ab", "cd") == "abcd"
    assert S.add([1], [2]) == [1, 2]
    assert S.add(Dice.of(1, 6), 1) == Dice(((1, 1, 6),), 1)
    assert S.sub(10, Dice.of(1, 6)) == 10 - Dice.of(1, 6)
    assert S.div(7, 2) == Fraction(7, 2)
    assert S.mod(-7, 3) == 2
    assert S.floor_div(-7, 2) == -4 and S.ceil_div(7, 2) == 4
    assert S.contains(2, [1, 2]) and not S.contains(3, [1, 2])
    assert S.equal([], None) and S.equal(None, None) and not S.equal(0, None)


def test_values_are_bounded():
    with pytest.raises(ValueBound) as exc:
        S.mul(10 ** 600, 10 ** 600)
    assert exc.value.bound == "MAX_DIGITS"
    with pytest.raises(ValueBound):
        S.add(Dice.of(6000, 6), Dice.of(6000, 6))
    with pytest.raises(ValueBound):
        S.add("x" * 600_000, "x" * 600_000)
    with pytest.raises(ZeroDivisionError):
        S.div(1, 0)


values = st.one_of(numbers, st.text(max_size=3), st.lists(st.integers(), max_size=2), st.none(), st.booleans())


def outcome(fn, *args):
    try:
        return ("value", fn(*args))
    except Exception as exc:  # noqa: BLE001 - the kind of failure is what is compared
        return ("error", type(exc).__name__)


@given(values, values)
def test_guarded_in_place_operators_equal_the_semantics_on_any_values(a, b):
    """The compiler's guarded form (Python's operator on two whole numbers, else the
    semantics) gives what the semantics give, for numbers and for everything else."""
    compiler = ExpressionCompiler()
    ns = {"S": S, "type": type, "int": int, "a": a, "b": b}
    for op in compiler.GUARDED:
        code = compiler.guarded(op, "a", "b", f"S.{S.BINARY[op].__name__}(a, b)")
        assert outcome(eval, code, ns) == outcome(S.BINARY[op], a, b)  # noqa: S307 - the compiler's own output


def test_the_checker_lets_texts_join_as_the_semantics_module_does(tmp_path):
    # Regression: `"a" + "b"` ran but `grimorio check` refused it (E0204), though the docs say texts join.
    from tests.test_checker import check
    ok, bad = tmp_path / "ok", tmp_path / "bad"
    ok.mkdir()
    bad.mkdir()
    assert not [d for d in check(ok, 'rule junta(a, b):\n  return a + " " + b + "!"\n') if d.code == "E0204"]
    assert [d.code for d in check(bad, 'rule mal():\n  return "a" + 1\n')] == ["E0204"]
