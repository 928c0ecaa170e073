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


@pytest.mark.slow
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


@pytest.mark.slow
@given(values, values)
def test_guarded_in_place_operators_equal_the_semantics_on_any_values(a, b):
    """The compiler's guarded form (Python's operator on two whole numbers, else the
    semantics) gives what the semantics give, for numbers and for everything else."""
    compiler = ExpressionCompiler()
    ns = {"S": S, "type": type, "int": int, "a": a, "b": b}
    for op in compiler.GUARDED:
        code = compiler.guarded(op, "a", "b", f"S.{S.BINARY[op].__name__}(a, b)")
        assert outcome(eval, code, ns) == outcome(S.BINARY[op], a, b)  # noqa: S307 - the compiler's own output


@pytest.mark.slow
@given(values, st.integers(0, 10**6), st.booleans())
def test_guarded_operators_beside_a_written_number_equal_the_semantics(a, n, written_first):
    """Computed code beside a written whole number (x - 1, n % 10): named once in the guard,
    it gives what the semantics give, and is worked out exactly once, whichever branch runs."""
    compiler = ExpressionCompiler()
    compiler._tmp = 0
    calls = []
    ns = {"S": S, "type": type, "int": int, "f": lambda: calls.append(1) or a}
    for op in compiler.GUARDED:
        left, right = (str(n), "f()") if written_first else ("f()", str(n))
        code = compiler.guarded(op, left, right, f"S.{S.BINARY[op].__name__}({left}, {right})")
        assert ":=" in code
        calls.clear()
        want = outcome(S.BINARY[op], *((n, a) if written_first else (a, n)))
        assert outcome(eval, code, ns) == want and len(calls) == 1  # noqa: S307 - the compiler's own output


@pytest.mark.slow
@given(values, values, st.booleans())
def test_guarded_operators_on_two_computed_sides_equal_the_semantics(a, b, pure_first):
    """Two sides of which one at least is computed (a rule's result, a field read beside it):
    each named once in the guard, in order, the form gives what the semantics give, works each
    computed side out exactly once, and reads a field before the computed side after it runs
    (which could change it), as the semantics' call does."""
    from types import SimpleNamespace
    compiler = ExpressionCompiler()
    compiler._tmp = 0
    calls = []
    v = SimpleNamespace(x=a)

    def g():                  # the computed right side changes the field the left side read
        calls.append(1)
        v.x = "changed"
        return b
    ns = {"S": S, "type": type, "int": int, "f": lambda: calls.append(1) or a, "g": g, "v": v}
    for op in (*compiler.GUARDED, "*"):
        left, right = ("v.x", "g()") if pure_first else ("f()", "g()")
        code = compiler.guarded(op, left, right, f"S.{S.BINARY[op].__name__}({left}, {right})")
        assert ":=" in code and f"S.{S.BINARY[op].__name__}({left}" not in code.split(" else ")[0]
        calls.clear()
        v.x = a
        assert outcome(eval, code, ns) == outcome(S.BINARY[op], a, b)  # noqa: S307 - the compiler's own output
        assert len(calls) == (1 if pure_first else 2)


@pytest.mark.slow
@given(values)
def test_first_and_len_in_place_equal_the_builtins(a):
    """first(x) and len(x), compiled in place for a field read or a computed value, give what
    the builtins give (a value or the same refusal), the computed value worked out once."""
    from types import SimpleNamespace
    from grimorio.interpreter import runtime_helpers as H
    compiler = ExpressionCompiler()
    compiler._tmp = 0
    call = SimpleNamespace(args=[SimpleNamespace(value=None)])
    calls = []
    ns = {"type": type, "list": list, "len": len, "b_len": H.len_, "b_first": H.first,
          "f": lambda: calls.append(1) or a, "v": SimpleNamespace(x=a)}
    for name, builtin in (("first", H.first), ("len", H.len_)):
        for arg in ("v.x", "f()"):
            code = getattr(compiler, f"b_{name}")(name, call, [arg], None)
            assert f"b_{name}(" not in code.split(" else ")[0]
            calls.clear()
            assert outcome(eval, code, ns) == outcome(builtin, a)  # noqa: S307 - the compiler's own output
            assert len(calls) == (arg == "f()")


@pytest.mark.slow
@given(values)
def test_negation_in_place_equals_the_semantics(a):
    """-x compiled in place for a value of unknown kind gives what S.neg gives."""
    from types import SimpleNamespace
    compiler = ExpressionCompiler()
    compiler._tmp = 0
    compiler.expr = lambda node, scope: "v.x"
    compiler.resolving = lambda scope: lambda name: None
    code = compiler.x_Unary(SimpleNamespace(op="-", operand=None), None)   # an operand of unknown kind
    assert "S.neg" in code and code.startswith("(-")
    assert outcome(eval, code, {"S": S, "type": type, "int": int, "v": SimpleNamespace(x=a)}) == outcome(S.neg, a)  # noqa: S307


@pytest.mark.slow
@given(st.one_of(values, st.integers(-S.BIG, S.BIG)), st.one_of(values, st.integers(-S.BIG, S.BIG)),
       st.integers(0, 10**6))
def test_products_in_place_equal_the_semantics(a, b, n):
    """a * b in place on whole numbers, bounded as S.mul bounds it (a product past the bound is
    refused the same), for two field reads and for computed code beside a written number."""
    compiler = ExpressionCompiler()
    compiler._tmp = 0
    calls = []
    ns = {"S": S, "type": type, "int": int, "a": a, "b": b, "f": lambda: calls.append(1) or a}
    assert outcome(eval, compiler.guarded("*", "a", "b", "S.mul(a, b)"), ns) == outcome(S.mul, a, b)  # noqa: S307
    for left, right in (("f()", str(n)), (str(n), "f()")):
        code = compiler.guarded("*", left, right, f"S.mul({left}, {right})")
        calls.clear()
        want = outcome(S.mul, *((a, n) if left == "f()" else (n, a)))
        assert outcome(eval, code, ns) == want and len(calls) == 1  # noqa: S307 - the compiler's own output


def test_the_checker_lets_texts_join_as_the_semantics_module_does(tmp_path):
    # Regression: `"a" + "b"` ran but `grimorio check` refused it (E0204), though the docs say texts join.
    from tests.test_checker import check
    ok, bad = tmp_path / "ok", tmp_path / "bad"
    ok.mkdir()
    bad.mkdir()
    assert not [d for d in check(ok, 'rule junta(a, b):\n  return a + " " + b + "!"\n') if d.code == "E0204"]
    assert [d.code for d in check(bad, 'rule mal():\n  return "a" + 1\n')] == ["E0204"]


def test_every_builtin_has_one_meaning():
    """Each builtin of the language is a function of the semantics table or a question to the
    running encounter: exactly one of the two, and nothing the language does not name."""
    from grimorio.dsl.names import BUILTINS
    functions, engine = set(S.BUILTIN_FUNCTIONS), set(S.ENGINE_BUILTINS)
    assert functions | engine == set(BUILTINS)
    assert not functions & engine


@pytest.mark.slow
@given(st.integers(-10**30, 10**30), st.integers(-10**6, 10**6).filter(bool))
def test_rounded_division_in_place_equals_the_semantics(a, b):
    """floor(a / b) and ceil(a / b) on two whole numbers, in place, give what the semantics give."""
    for name, (fn, whole) in S.ROUNDED_DIVISION.items():
        assert eval(whole.format(a="a", b="b"), {"a": a, "b": b}) == fn(a, b) == S.BUILTIN_FUNCTIONS[name](S.div(a, b))  # noqa: S307


def ranked():
    from grimorio.interpreter.values import Ranked
    return st.builds(Ranked, st.sampled_from(["a", "b"]), st.integers(0, 2), st.sampled_from(["uno", "otro"]))


comparable = st.one_of(values, ranked())


@pytest.mark.slow
@given(comparable, comparable)
def test_comparisons_in_place_equal_the_semantics_on_any_values(a, b):
    """== != < <= > >= as the compiler writes them for two plain operands (Python's own operator
    under semantics.same_in_place, else the function) give what the semantics give."""
    compiler = ExpressionCompiler()
    compiler._tmp = 0
    ns = {"S": S, "type": type, "int": int, "a": a, "b": b}
    for op, fn in S.COMPARISON.items():
        assert outcome(eval, compiler.compare(op, "a", "b"), ns) == outcome(fn, a, b)  # noqa: S307
        # A computed side, named once in the guard (as a decision table's cells are).
        for whole in (0, 1, 7):                # against a written whole number
            assert outcome(eval, compiler.compare(op, "a", str(whole)), ns) == outcome(fn, a, whole)  # noqa: S307
            assert outcome(eval, compiler.compare(op, str(whole), "b"), ns) == outcome(fn, whole, b)  # noqa: S307
        for left, right in (("a", "(lambda: b)()"), ("(lambda: a)()", "b"), ("(lambda: a)()", "(lambda: b)()")):
            named = compiler.compare(op, left, right, named=True)
            assert outcome(eval, named, dict(ns)) == outcome(fn, a, b)  # noqa: S307
        for whole in (0, 7):                   # a computed side against a written whole number
            named = compiler.compare(op, "(lambda: a)()", str(whole), named=True)
            assert outcome(eval, named, dict(ns)) == outcome(fn, a, whole)  # noqa: S307


@pytest.mark.slow
@given(comparable, comparable)
def test_a_comparison_reads_its_left_side_before_the_right_side_runs(a, b):
    """`v.x < g()` where g changes v.x: as the semantics' call, the left side is the value read
    before the right side ran, each worked out once."""
    from types import SimpleNamespace
    compiler = ExpressionCompiler()
    compiler._tmp = 0
    calls = []
    v = SimpleNamespace(x=a)

    def g():
        calls.append(1)
        v.x = "changed"
        return b
    for op, fn in S.COMPARISON.items():
        code = compiler.compare(op, "v.x", "g()", named=True)
        calls.clear()
        v.x = a
        assert outcome(eval, code, {"S": S, "type": type, "int": int, "v": v, "g": g}) == outcome(fn, a, b)  # noqa: S307
        assert len(calls) == 1


@pytest.mark.slow
@given(st.one_of(values, ranked()))
def test_comparisons_with_a_written_text_or_a_named_outcome_in_place_equal_the_semantics(a):
    from grimorio.interpreter.values import Ranked
    named = Ranked("éxito", 1, "nivel")
    for op in ("==", "!="):
        for other in ("FUE", named):
            code = ExpressionCompiler().compare(op, "a", "b", plain=True)
            assert eval(code, {"a": a, "b": other}) == S.COMPARISON[op](a, other)  # noqa: S307


def test_what_orders_and_equals():
    from grimorio.interpreter.values import Ranked
    assert S.less(1, Fraction(3, 2)) and S.greater_equal("b", "a")
    assert S.less(Ranked("x", 0, "nivel"), Ranked("y", 1, "nivel"))
    assert not S.equal(True, 1) and S.equal(1, Fraction(2, 2)) and S.not_equal(False, 0)
    for a, b in (("1", 2), (Ranked("x", 0, "nivel"), Ranked("y", 1, "otro")), (None, 1), ([1], [2])):
        with pytest.raises(S.OperatorError) as exc:
            S.less(a, b)
        assert "cannot be compared by order" in exc.value.message and exc.value.help == S.ORDER


@pytest.mark.slow
@given(comparable, st.lists(comparable, max_size=4))
def test_membership_is_the_languages_equality_item_by_item(a, items):
    """`in`, a decision table's cell on a list, distinct() and without() all ask S.equal: Python's
    own `in` (true == 1, none != []) is used only where it agrees."""
    from grimorio.interpreter import generic, runtime_helpers as H
    want = any(S.equal(a, x) for x in items)
    assert S.contains(a, items) == want == H.eq(items, a)
    assert generic.without(items, a) == [x for x in items if not S.equal(x, a)]
    kept = H.distinct(items)
    assert all(any(S.equal(x, k) for k in kept) for x in items)
    assert not any(S.equal(kept[i], kept[j]) for i in range(len(kept)) for j in range(i))
    first = [x for i, x in enumerate(items) if not any(S.equal(x, y) for y in items[:i])]
    assert len(kept) == len(first) and all(k is f for k, f in zip(kept, first))     # the first of each, in order
