"""The operator semantics module: what each operator does for each kind of
value, and the proof that the optimizing step's in-place shortcuts (interpreter/compile/shortcuts.py:
Python's own operator, used when both sides are surely numbers) give the same answer."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import example, given, strategies as st

from grimorio.interpreter.run import semantics as S
from grimorio.interpreter.run.dice import Dice, ValueBound, make_roll
from grimorio.interpreter.compile.code import Code, computed, name
from grimorio.interpreter.compile.expressions import ExpressionCompiler
from grimorio.interpreter.run.runtime_helpers import RuleFailure
from grimorio.interpreter.compile.inplace import InPlace
from grimorio.interpreter.compile.optimizer import GROWS, Plan, magnitude, result_size
from grimorio.interpreter.run.values import Combatant, ConditionType, Grade, Ranked, Refusal, Scale, make_struct, record


class Optimizing(ExpressionCompiler, InPlace):
    """The expression emitter under a plan that takes the in-place forms (inplace.py), whose code is
    tested here."""
    plan = Plan(in_place=True)


def wholes():
    """Whole numbers across the whole range a value holds: small ones, any size up to the bound,
    and the ones next to it (whose sums, differences and products pass it)."""
    sign = st.sampled_from((1, -1))
    return st.one_of(
        st.integers(-1000, 1000),
        st.integers(-S.BIG + 1, S.BIG - 1),
        st.builds(lambda k, s: s * (S.BIG - 1 - k), st.integers(0, 10**6), sign),       # next to the bound
        st.builds(lambda d, k, s: s * (10 ** d + k), st.integers(0, 999), st.integers(-10, 10), sign),
    )


rolls = st.builds(lambda v: make_roll(v, Dice.of(1, 10), [v]), st.integers(1, 10))
numbers = st.one_of(
    wholes(),
    st.fractions(max_denominator=10**6),
    rolls,
)


def namespace(**values) -> dict:
    """What generated code reads, for code the compiler writes here."""
    return {"S": S, "type": type, "int": int, **S.IN_PLACE, **values}


class Spied:
    """The semantics module with each of its functions noted by name as it is called."""

    def __init__(self, called: list):
        self._called = called

    def __getattr__(self, attr):
        value = getattr(S, attr)
        if not callable(value) or isinstance(value, type):
            return value

        def noted(*args, **kwargs):
            self._called.append(attr)
            return value(*args, **kwargs)
        return noted


def semantics_called(made: str, **values) -> list:
    """The functions of the semantics (and the builtins' functions, b_*) that generated code
    calls, run on these values: none where its in-place form took the fast way."""
    called = []
    ns = {**namespace(**values), "S": Spied(called), "list": list, "len": len}
    for builtin, fn in (("b_len", S.len_), ("b_first", S.first)):
        ns[builtin] = (lambda fn, builtin: lambda *args: called.append(builtin) or fn(*args))(fn, builtin)
    eval(made, ns)  # noqa: S307 - the compiler's own output
    return called


def code(text: str) -> Code:
    """Code as the compiler gives it, with the facts its node would show (code.py): a name, a
    written whole number, a field read (`v.x`), or computed (a call)."""
    if text.isdigit():
        return Code(text, whole=True, number=int(text))
    if text.isidentifier():
        return name(text)
    return Code(text, pure=True) if "(" not in text else computed(text)


def compiler() -> Optimizing:
    made = Optimizing()
    made._tmp = 0
    return made


# Whole numbers past the bound, which no value holds: the test of two computed sides (both ends)
# agrees with the semantics even on them, as the semantics bound results, not what they are given.
beyond = st.builds(lambda k, s: s * (S.BIG + k), st.integers(0, 10**6), st.sampled_from((1, -1)))


@pytest.mark.slow
@given(st.one_of(wholes(), rolls), st.one_of(wholes(), rolls), st.integers(0, 10**6), beyond, st.one_of(wholes(), beyond))
def test_in_place_operators_equal_the_semantics_on_whole_numbers(a, b, n, c, d):
    """+ - * in place on two sides the text shows are whole numbers, bounded in place, give what
    the semantics give: the value, or E0506 past the bound; so beside a written number, where
    one comparison is enough (the other side within the bound, as every value is)."""
    for op in Optimizing.PLAIN:
        for left, right, want in (("a", "b", (a, b)), (str(n), "b", (n, b)), ("a", str(n), (a, n)), ("c", "d", (c, d))):
            made = compiler().within_bound(op, code(left), code(right), "", "S.bounded({p})")
            got = outcome(eval, made, namespace(a=a, b=b, c=c, d=d))  # noqa: S307
            assert got == outcome(S.BINARY[op], *want), made


def test_a_sum_in_place_past_the_bound_is_refused():
    # Regression: `a + b` in place on two whole numbers never asked the bound (4000 doublings passed).
    for op, a, b in (("+", S.BIG - 1, 1), ("-", 1 - S.BIG, 1), ("+", 1 - S.BIG, -1), ("-", 1, 1 - S.BIG),
                     ("+", 1, S.BIG - 1)):
        code = compiler().guarded(op, "a", "b", f"S.{S.BINARY[op].__name__}(a, b)")
        assert outcome(eval, code, namespace(a=a, b=b)) == ("error", "ValueBound")  # noqa: S307
        for left, right in [("a", str(b))] * (b >= 0) + [(str(a), "b")] * (a >= 0):     # beside a written number
            code = compiler().guarded(op, left, right, f"S.{S.BINARY[op].__name__}({left}, {right})")
            assert outcome(eval, code, namespace(a=a, b=b)) == ("error", "ValueBound")  # noqa: S307


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
    with pytest.raises(Refusal) as refused:       # the language's own refusal, never Python's ZeroDivisionError
        S.div(1, 0)
    assert (refused.value.code, refused.value.message) == ("E0501", "division by zero")
    with pytest.raises(Refusal):
        S.mod(1, 0)


values = st.one_of(numbers, st.text(max_size=3), st.lists(st.integers(), max_size=2), st.none(), st.booleans())
# (A whole number written in generated code, beside a computed side: up to the largest one the bound allows.)
written = st.one_of(st.integers(0, 10**6), st.integers(0, S.BIG - 1))


def outcome(fn, *args):
    try:
        return ("value", fn(*args))
    except Exception as exc:  # noqa: BLE001 - the kind of failure is what is compared
        return ("error", type(exc).__name__)


@pytest.mark.slow
@given(st.one_of(values, beyond), st.one_of(values, beyond))
@example(1, -(S.BIG + 1))        # CI drew it: 1 % b is -BIG in place, which no value held can give
def test_guarded_in_place_operators_equal_the_semantics_on_any_values(a, b):
    """The compiler's guarded form (Python's operator on two whole numbers, else the
    semantics) gives what the semantics give, for numbers and for everything else."""
    ns = namespace(a=a, b=b)
    held = all(not isinstance(v, int) or -S.BIG < v < S.BIG for v in (a, b))
    for op in (*Optimizing.GUARDED, "*"):
        if op == "%" and not held:
            continue        # a remainder is smaller than its divisor: in place it is bounded by the values held
        made = compiler().guarded(op, code("a"), code("b"), f"S.{S.BINARY[op].__name__}(a, b)")
        assert outcome(eval, made, ns) == outcome(S.BINARY[op], a, b)  # noqa: S307 - the compiler's own output


@pytest.mark.slow
@given(values, written, st.booleans())
@example(a=None, n=10 ** 1000 - 3, written_first=False)     # 3 + n reaches the bound: the semantics refuse
def test_guarded_operators_beside_a_written_number_equal_the_semantics(a, n, written_first):
    """Computed code beside a written whole number (x - 1, n % 10): named once in the guard,
    it gives what the semantics give, and is worked out exactly once, whichever branch runs."""
    compiler = Optimizing()
    compiler._tmp = 0
    calls = []
    ns = namespace(f=lambda: calls.append(1) or a)
    for op in compiler.GUARDED:
        left, right = (str(n), "f()") if written_first else ("f()", str(n))
        made = compiler.guarded(op, code(left), code(right), f"S.{S.BINARY[op].__name__}({left}, {right})")
        # on small whole numbers whose result is within the bound, the fast way (a divisor of 0 and
        # a result past the bound are the semantics' to refuse)
        assert ((op == "%" and n == 0 and not written_first) or abs(n) + 3 >= S.BIG
                or semantics_called(made, f=lambda: 3) == [])
        calls.clear()
        want = outcome(S.BINARY[op], *((n, a) if written_first else (a, n)))
        assert outcome(eval, made, ns) == want and len(calls) == 1  # noqa: S307 - the compiler's own output


@pytest.mark.slow
@given(values, values, st.booleans())
def test_guarded_operators_on_two_computed_sides_equal_the_semantics(a, b, pure_first):
    """Two sides of which one at least is computed (a rule's result, a field read beside it):
    each named once in the guard, in order, the form gives what the semantics give, works each
    computed side out exactly once, and reads a field before the computed side after it runs
    (which could change it), as the semantics' call does."""
    from types import SimpleNamespace
    compiler = Optimizing()
    compiler._tmp = 0
    calls = []
    v = SimpleNamespace(x=a)

    def g():                  # the computed right side changes the field the left side read
        calls.append(1)
        v.x = "changed"
        return b
    ns = namespace(f=lambda: calls.append(1) or a, g=g, v=v)
    for op in (*compiler.GUARDED, "*"):
        left, right = ("v.x", "g()") if pure_first else ("f()", "g()")
        made = compiler.guarded(op, code(left), code(right), f"S.{S.BINARY[op].__name__}({left}, {right})")
        # on small whole numbers, the fast way
        assert semantics_called(made, f=lambda: 3, g=lambda: 4, v=SimpleNamespace(x=5)) == []
        calls.clear()
        v.x = a
        assert outcome(eval, made, ns) == outcome(S.BINARY[op], a, b)  # noqa: S307 - the compiler's own output
        assert len(calls) == (1 if pure_first else 2)


@pytest.mark.slow
@given(values)
def test_first_and_len_in_place_equal_the_builtins(a):
    """first(x) and len(x), compiled in place for a field read or a computed value, give what
    the builtins give (a value or the same refusal), the computed value worked out once."""
    from types import SimpleNamespace
    compiler = Optimizing()
    compiler._tmp = 0
    call = SimpleNamespace(args=[SimpleNamespace(value=None)])
    calls = []
    ns = {"type": type, "list": list, "len": len, "b_len": S.len_, "b_first": S.first,
          "f": lambda: calls.append(1) or a, "v": SimpleNamespace(x=a)}
    for builtin_name, builtin in (("first", S.first), ("len", S.len_)):
        for arg in ("v.x", "f()"):
            made = getattr(compiler, f"b_{builtin_name}")(builtin_name, call, [code(arg)])
            # on a list, the fast way
            assert semantics_called(made, f=lambda: [2, 1], v=SimpleNamespace(x=[2, 1])) == []
            calls.clear()
            assert outcome(eval, made, ns) == outcome(builtin, a)  # noqa: S307 - the compiler's own output
            assert len(calls) == (arg == "f()")


@pytest.mark.slow
@given(values)
def test_negation_in_place_equals_the_semantics(a):
    """-x compiled in place for a value of unknown kind gives what S.neg gives."""
    from types import SimpleNamespace
    compiler = Optimizing()
    compiler._tmp = 0
    compiler.expr = lambda node: code("v.x")
    compiler.resolving = lambda: lambda name, node=None: None
    made = compiler.x_Unary(SimpleNamespace(op="-", operand=None))   # an operand of unknown kind
    # a whole number the fast way; a fraction is the semantics'
    assert semantics_called(made, v=SimpleNamespace(x=5)) == []
    assert semantics_called(made, v=SimpleNamespace(x=Fraction(1, 2))) == ["neg"]
    assert outcome(eval, made, {"S": S, "type": type, "int": int, "v": SimpleNamespace(x=a)}) == outcome(S.neg, a)  # noqa: S307


@pytest.mark.slow
@given(st.one_of(values, beyond), st.one_of(values, beyond), written)
def test_products_in_place_equal_the_semantics(a, b, n):
    """a * b in place on whole numbers, bounded as S.mul bounds it (a product past the bound is
    refused the same), for two field reads and for computed code beside a written number."""
    compiler = Optimizing()
    compiler._tmp = 0
    calls = []
    ns = namespace(a=a, b=b, f=lambda: calls.append(1) or a)
    assert outcome(eval, compiler.guarded("*", code("a"), code("b"), "S.mul(a, b)"), ns) == outcome(S.mul, a, b)  # noqa: S307
    for left, right in (("f()", str(n)), (str(n), "f()")):
        made = compiler.guarded("*", code(left), code(right), f"S.mul({left}, {right})")
        calls.clear()
        want = outcome(S.mul, *((a, n) if left == "f()" else (n, a)))
        assert outcome(eval, made, ns) == want and len(calls) == 1  # noqa: S307 - the compiler's own output


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
    from grimorio.dsl.check.names import BUILTINS
    functions, engine = set(S.BUILTIN_FUNCTIONS), set(S.ENGINE_BUILTINS)
    assert functions | engine == set(BUILTINS)
    assert not functions & engine


@pytest.mark.slow
@given(wholes(), st.one_of(st.integers(-10**6, 10**6), wholes()).filter(bool))
def test_rounded_division_in_place_equals_the_semantics(a, b):
    """floor(a / b) and ceil(a / b) on two whole numbers, in place, give what the semantics give."""
    for name, (fn, whole) in S.ROUNDED_DIVISION.items():
        assert eval(whole.format(a="a", b="b"), {"a": a, "b": b}) == fn(a, b) == S.BUILTIN_FUNCTIONS[name](S.div(a, b))  # noqa: S307


def ranked():
    from grimorio.interpreter.run.values import Ranked
    return st.builds(Ranked, st.sampled_from(["a", "b"]), st.integers(0, 2), st.sampled_from(["uno", "otro"]))


comparable = st.one_of(values, ranked())


@pytest.mark.slow
@given(comparable, comparable)
def test_comparisons_in_place_equal_the_semantics_on_any_values(a, b):
    """== != < <= > >= as the compiler writes them for two plain operands (Python's own operator
    under compile/code.same_in_place, else the function) give what the semantics give."""
    compiler = Optimizing()
    compiler._tmp = 0
    ns = {"S": S, "type": type, "int": int, "a": a, "b": b}
    for op, fn in S.COMPARISON.items():
        assert outcome(eval, compiler.compare(op, code("a"), code("b")), ns) == outcome(fn, a, b)  # noqa: S307
        # A computed side, named once in the guard (as a decision table's cells are).
        for whole in (0, 1, 7):                # against a written whole number
            assert outcome(eval, compiler.compare(op, code("a"), code(str(whole))), ns) == outcome(fn, a, whole)  # noqa: S307
            assert outcome(eval, compiler.compare(op, code(str(whole)), code("b")), ns) == outcome(fn, whole, b)  # noqa: S307
        for left, right in (("a", "(lambda: b)()"), ("(lambda: a)()", "b"), ("(lambda: a)()", "(lambda: b)()")):
            named = compiler.compare(op, code(left), code(right), named=True)
            assert outcome(eval, named, dict(ns)) == outcome(fn, a, b)  # noqa: S307
        for whole in (0, 7):                   # a computed side against a written whole number
            named = compiler.compare(op, code("(lambda: a)()"), code(str(whole)), named=True)
            assert outcome(eval, named, dict(ns)) == outcome(fn, a, whole)  # noqa: S307


@pytest.mark.slow
@given(comparable, comparable)
def test_a_comparison_reads_its_left_side_before_the_right_side_runs(a, b):
    """`v.x < g()` where g changes v.x: as the semantics' call, the left side is the value read
    before the right side ran, each worked out once."""
    from types import SimpleNamespace
    compiler = Optimizing()
    compiler._tmp = 0
    calls = []
    v = SimpleNamespace(x=a)

    def g():
        calls.append(1)
        v.x = "changed"
        return b
    for op, fn in S.COMPARISON.items():
        made = compiler.compare(op, code("v.x"), code("g()"), named=True)
        calls.clear()
        v.x = a
        assert outcome(eval, made, {"S": S, "type": type, "int": int, "v": v, "g": g}) == outcome(fn, a, b)  # noqa: S307
        assert len(calls) == 1


@pytest.mark.slow
@given(st.one_of(values, ranked()))
def test_comparisons_with_a_written_text_or_a_named_outcome_in_place_equal_the_semantics(a):
    from grimorio.interpreter.run.values import Ranked
    named = Ranked("éxito", 1, "nivel")
    for op in ("==", "!="):
        for other in ("FUE", named):
            code = Optimizing().compare(op, "a", "b", plain=True)
            assert eval(code, {"a": a, "b": other}) == S.COMPARISON[op](a, other)  # noqa: S307


def test_what_orders_and_equals():
    from grimorio.interpreter.run.values import Ranked
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
    from grimorio.interpreter.run import generic, runtime_helpers as H
    want = any(S.equal(a, x) for x in items)
    assert S.contains(a, items) == want == H.eq(items, a)
    assert generic.without(items, a) == [x for x in items if not S.equal(x, a)]
    kept = S.distinct(items)
    assert all(any(S.equal(x, k) for k in kept) for x in items)
    assert not any(S.equal(kept[i], kept[j]) for i in range(len(kept)) for j in range(i))
    first = [x for i, x in enumerate(items) if not any(S.equal(x, y) for y in items[:i])]
    assert len(kept) == len(first) and all(k is f for k, f in zip(kept, first))     # the first of each, in order


# ------------------------------------------------------------ records compare by value

def records(values=st.integers(-3, 3)):
    """Records of the fields k and j (written in either order), and table rows of the same fields."""
    forward, backward = make_struct("record", ("k", "j")), make_struct("record", ("j", "k"))
    row = make_struct("armas", ("k", "j"), key="k", frozen=True)
    return st.one_of(
        st.builds(lambda k, j: record(forward, (k, j)), values, values),
        st.builds(lambda k, j: record(backward, (j, k)), values, values),
        st.builds(lambda k, j: row(k, j), values, values),
    )


def test_records_are_equal_by_value():
    # Regression: {k: 1} == {k: 1} was false, {k: 1} in [{k: 1}] false, distinct kept both.
    from grimorio.interpreter.run import generic
    one, again, other = (record(make_struct("record", ("k",)), (v,)) for v in (1, 1, 2))
    assert S.equal(one, again) and not S.not_equal(one, again) and not S.equal(one, other)
    assert S.contains(again, [other, one]) and len(S.distinct([one, again, other])) == 2
    assert generic.without([one, other, again], again) == [other]
    nested = make_struct("record", ("l", "k"))
    assert not S.equal(record(nested, ([True], 1)), record(nested, ([1], 1)))      # field by field, as ==
    assert S.equal(record(nested, ([1], 1)), record(make_struct("record", ("k", "l")), (1, [1])))
    assert not S.equal(one, record(nested, (1, 1))) and not S.equal(one, 1) and not S.equal(one, None)
    row = make_struct("armas", ("k",), key="k", frozen=True)
    assert S.equal(row(1), one) and S.equal(row(1), row(1)) and not S.equal(row(1), row(2))


def test_two_records_of_one_kind_compare_every_field_and_the_key_first():
    # Records of one class skip the comparison of their names; a table row compares its key first
    # (two rows of a table differ there), then every other field: a copy of a row (one pickled to a
    # worker) with its key equal is equal only if every field is.
    row = make_struct("armas", ("j", "k", "l"), key="k", frozen=True)
    assert row._order == ("a_k", "a_j", "a_l")
    assert S.equal(row(1, "Pelea", [1]), row(1, "Pelea", [1])) and S.not_equal(row(1, "Pelea", [1]), row(2, "Pelea", [1]))
    assert S.not_equal(row(1, "Pelea", 1), row(1, "Daga", 1)) and S.not_equal(row(1, "Pelea", [1]), row(1, "Pelea", [True]))
    plain = make_struct("record", ("k", "j"))
    assert plain._order == ("a_k", "a_j")
    assert S.equal(record(plain, (None, [])), record(plain, ([], None)))       # none equals the empty list
    assert S.not_equal(record(plain, (1, True)), record(plain, (1, 1)))       # true is no number
    assert row(1, "Pelea", [1]) != 1 and not S.equal(record(plain, ("Pelea", 1)), row(1, "Pelea", [1]))
    for r in (row(1, "Pelea", [1]), record(plain, (None, None))):        # a record is never none
        assert not (r == []) and not ([] == r) and r != [] and S.not_equal(r, None) and not S.equal(r, [])


def test_same_of_two_texts_or_two_numbers_is_python_equality_and_nothing_else_changes():
    from grimorio.interpreter.run.values import same
    assert same("a", "a") and not same("a", "b") and same(3, 3) and not same(3, 4)
    assert not same(1, True) and not same(True, 1) and not same(0, False) and same(None, []) and same([], None)
    assert same(Fraction(4, 2), 2) and same(2, Fraction(4, 2)) and not same(1, "1") and same([1, "a"], [1, "a"])


@pytest.mark.slow
@given(records(), records())
def test_records_in_place_compare_as_the_semantics(a, b):
    """== and != in place (Python's own operator on two values of one type) give the semantics'
    answer on records: field by field, whatever the order they were written in."""
    want = all(S.equal(x.get(f), y.get(f)) for x, y in ((a, b),) for f in ("k", "j"))
    for op, fn in (("==", S.equal), ("!=", S.not_equal)):
        assert eval(compiler().compare(op, "a", "b"), namespace(a=a, b=b)) == fn(a, b) == (want if op == "==" else not want)  # noqa: S307


# ------------------------------------------------------------ texts are ordered as a dictionary orders words

def test_texts_are_ordered_as_a_dictionary_orders_words():
    # Regression: texts were ordered by code point, so "á" > "b" and "Zoe" < "ana".
    assert S.less("á", "b") and S.less("ana", "Zoe") and S.less("Álvaro", "Beatriz") and S.less("bote", "caña")
    assert S.less("a", "á") and S.less("A", "a") and S.less("e", "é") and S.less("é", "f")   # then accents, case
    assert not S.less("a", "a") and S.less_equal("a", "a") and S.greater("b", "Á")
    assert S.min_(["bote", "álamo", "Beatriz"]) == "álamo" and S.max_("b", "á", "B") == "b"
    names = ["Zoe", "ana", "Álvaro", "beatriz", "Ana"]
    assert S.ordered(names, lambda x: x, False) == ["Álvaro", "Ana", "ana", "beatriz", "Zoe"]


@pytest.mark.slow
@given(st.lists(st.text(max_size=4), min_size=2, max_size=5))
def test_the_order_of_texts_is_a_total_order_that_keeps_equality(texts):
    """One key per text (S.text_key): two texts are in order both ways only when they are equal."""
    for a in texts:
        for b in texts:
            assert (S.less_equal(a, b) and S.less_equal(b, a)) == (a == b)
            assert S.less(a, b) != S.greater_equal(a, b)
    assert S.ordered(texts, lambda x: x, False) == sorted(texts, key=S.text_key)


# ------------------------------------------------------------ builtins, for every kind of value

def kinds():
    """A value of each kind the language has."""
    fatiga = ConditionType("Fatiga", [])
    fatiga.grades[:] = [Grade("Leve", 0, fatiga, {}), Grade("Grave", 1, fatiga, {})]
    who = type("combatant", (Combatant,), {"__slots__": ()})()
    who.a_name = "Ana"
    return {
        "number": numbers,
        "scale": st.builds(Scale, st.integers(1, 4), st.integers(1, 3)),
        "text": st.text(max_size=3),
        "dice": st.builds(Dice.of, st.integers(1, 3), st.sampled_from((4, 6, 10))),
        "outcome": ranked(),
        "grade": st.sampled_from(fatiga.grades),
        "list": st.lists(st.one_of(st.integers(-5, 5), st.text(max_size=2)), max_size=3),
        "record": records(),
        "none": st.none(),
        "bool": st.booleans(),
        "combatant": st.just(who),
        "condition": st.just(fatiga),
    }


any_value = st.one_of(*kinds().values())


def answer(fn, *args, helped=True):
    """fn(*args) as ("value", v), or its refusal as ("refused", code): a refusal in words (a message,
    and a help line where `helped`), never Python's own error showing through (which the engine
    would turn into the catch-all "these values cannot be used together here")."""
    try:
        return "value", fn(*args)
    except (S.OperatorError, RuleFailure) as exc:
        assert exc.message and (exc.help or not helped), (fn.__name__, args, exc.message)
        return "refused", exc.code
    except ValueBound:
        return "refused", "E0506"


def _orderable(values) -> bool:
    """Values of one order: numbers, texts, or outcomes (grades) of one list."""
    groups = {"number" if S.is_number(v) else ("ranked", v.kind) if isinstance(v, Ranked) else type(v)
              for v in values}
    return len(groups) == 1 and (S.is_number(values[0]) or type(values[0]) is str or isinstance(values[0], Ranked))


@pytest.mark.slow
@given(any_value)
def test_number_builtins_take_numbers_and_refuse_every_other_kind(x):
    import math
    for name, exact in (("abs", abs), ("floor", math.floor), ("ceil", math.ceil)):
        got = answer(S.BUILTIN_FUNCTIONS[name], x)
        if S.is_number(x):
            assert got == ("value", exact(Fraction(x))) and type(got[1]) is not bool
        else:                                            # true and false, none, dice, texts, lists...
            assert got == ("refused", "E0204"), (name, x, got)


@pytest.mark.slow
@given(any_value)
def test_list_builtins_take_lists_and_refuse_every_other_kind(x):
    """len, first, distinct and sum take a list; a text is not one (nor is anything else)."""
    for name in ("len", "first", "distinct", "sum"):
        got = answer(S.BUILTIN_FUNCTIONS[name], x)
        if type(x) is not list:
            assert got == ("refused", "E0204"), (name, x, got)
    if type(x) is list:
        assert S.len_(x) == len(x) and (S.first(x) is (x[0] if x else None))


@pytest.mark.slow
@given(st.lists(st.one_of(any_value, wholes()), max_size=4))
def test_sum_adds_numbers_within_the_bound_and_refuses_the_rest(items):
    got = answer(S.sum_, items)
    if all(S.is_number(x) for x in items):
        total = sum(map(Fraction, items), Fraction(0))
        fits = -S.BIG < total.numerator < S.BIG and total.denominator < S.BIG
        assert got == (("value", total) if fits else ("refused", "E0506"))
    elif any(not S.is_number(x) and not isinstance(x, Dice) for x in items):
        assert got == ("refused", "E0204")
    else:                        # numbers and dice: as + adds them (dice and a fraction do not add)
        assert got[0] == "value" and isinstance(got[1], Dice) or got[0] == "refused"


@pytest.mark.slow
@given(st.lists(any_value, max_size=3), st.booleans())
def test_min_and_max_order_as_the_comparisons_do(items, listed):
    """min and max of values of one order (numbers, texts, outcomes of one list) give the least
    (greatest) by the language's order; of anything else, a refusal; of nothing, E0501."""
    for name, wins in (("min", S.less_equal), ("max", S.greater_equal)):
        got = answer(S.BUILTIN_FUNCTIONS[name], *([items] if listed else items))
        if not items:
            assert got == ("refused", "E0501")
        elif len(items) == 1 and type(items[0]) is list and not listed:
            assert got[0] == "refused" or got[0] == "value"      # min(LIST): the list's own items
        elif _orderable(items):
            assert got[0] == "value" and any(S.equal(got[1], x) for x in items)
            assert all(wins(got[1], x) for x in items)
        else:
            assert got == ("refused", "E0204"), (name, items, got)


@pytest.mark.slow
@given(any_value, any_value, any_value)
def test_clamp_orders_as_the_comparisons_do(x, low, high):
    got = answer(S.clamp, x, low, high)
    if _orderable([x, low, high]):
        assert got == ("value", low if S.less(x, low) else high if S.greater(x, high) else x)
    else:
        assert got == ("refused", "E0204"), (x, low, high, got)


@pytest.mark.slow
@given(any_value, any_value, any_value)
def test_the_generic_builtins_give_a_value_or_a_refusal_in_words(a, b, c):
    """dice, keep_highest, keep_lowest, range, slice and without, on values of every kind."""
    for name in ("dice", "keep_highest", "keep_lowest", "range", "without"):
        answer(S.BUILTIN_FUNCTIONS[name], a, b, helped=False)
    answer(S.BUILTIN_FUNCTIONS["slice"], a, b, c, helped=False)
    answer(S.maximum, a)


@pytest.mark.parametrize("call, message", [
    ("abs(true)", "abs() takes a number, not true"), ("floor(true)", "floor() takes a number, not true"),
    ("sum([true, true])", "sum() takes numbers, not true"), ("max([true, 1])", "max() takes values that have an order, not true"),
    ("min([[2], [1]])", "min() takes values that have an order, not a list"),
    ("clamp([1], [0], [5])", "clamp() takes values that have an order, not a list"),
    ("clamp(true, 0, 5)", "clamp() takes values that have an order, not true"),
    ("abs(\"x\")", "abs() takes a number, not \"x\" (a text)"), ("sum([\"a\", \"b\"])", "sum() takes numbers, not \"a\" (a text)"),
    ("clamp(3, none, 9)", "clamp() takes values that have an order, not none"),
    ("max(1D6, 2D6)", "max() takes values that have an order, not 1D6 (dice)"),
    ("first(x)", "first() takes a list, not 3 (a number)"), ("max(3, \"a\")", "max() cannot order a number and a text together"),
    ("maximum(x)", "maximum() takes dice, not 3 (a number)"), ("ceil(1D6)", "ceil() takes a number, not 1D6 (dice)"),
])
def test_a_builtin_refuses_a_kind_it_does_not_take_in_words_where_it_runs(tmp_path, call, message):
    # Regression: abs(true) gave 1, max([true, 1]) true, first("ab") "a", and abs("x") or max(1D6, 2D6)
    # the engine's catch-all "these values cannot be used together here".
    from grimorio.dsl.syntax.builder import build_encounter
    from grimorio.dsl.diagnostics import GrimorioError
    from grimorio.interpreter.run.encounter import Prepared
    from grimorio.interpreter.compile.programs import program_for
    from tests.test_checker import write_edition
    write_edition(tmp_path, f"sheet s:\n  x: int = 3\n\nrule r(x):\n  let y = {call}\n  return y\n")
    enc, _ = build_encounter("edition prueba\ncombatant Ana:\n  x 3\nexpect r(3) == 1\n", "x.enc")
    with pytest.raises(GrimorioError) as exc:
        Prepared(enc, program_for("prueba", roots=[tmp_path])).run()
    [d] = exc.value.diagnostics
    assert (d.code, d.message, d.span.line) == ("E0204", message, 5) and d.help, (d.code, d.message, d.help)


@pytest.mark.slow
@given(st.one_of(any_value, wholes()), st.one_of(any_value, wholes()), st.integers(0, 9))
def test_min_and_max_in_place_equal_the_builtins(a, b, n):
    """min(a, b) and max(a, b, 7), compiled in place (Python's own on whole numbers, named once
    as the guard asks their types), give what the builtins give, each side worked out once."""
    calls = []
    ns = namespace(v=type("v", (), {"x": a})(), f=lambda: calls.append(1) or b, min=min, max=max,
                   b_min=S.min_, b_max=S.max_)
    for name in ("min", "max"):
        for args, values in ((["v.x", "f()"], (a, b)), (["f()", str(n)], (b, n)), (["v.x", "f()", "7"], (a, b, 7))):
            code = compiler().b_extreme(name, None, args)
            calls.clear()
            assert answer(eval, code, ns) == answer(S.BUILTIN_FUNCTIONS[name], *values), code  # noqa: S307
            assert len(calls) == 1


# ------------------------------------------------------------ a result the text shows is small, unchecked

def arithmetic():
    """+ - * % trees, negations and floor/ceil of a quotient by a written number, over written
    whole numbers and a name the text tells nothing of: what the compiler sizes (magnitude)."""
    from grimorio.dsl.syntax import nodes as n

    def quotient(name, left, by):
        return n.Call(func=n.Name(id=name, span=None), span=None,
                      args=(n.Arg(name=None, span=None, value=n.Binary(op="/", left=left, span=None,
                                                                        right=n.Const(value=by, span=None))),))
    leaf = st.one_of(st.builds(lambda v: n.Const(value=v, span=None), st.integers(-10**6, 10**6)),
                     st.just(n.Name(id="x", span=None)))
    return st.recursive(leaf, lambda inner: st.one_of(
        st.builds(lambda op, a, b: n.Binary(op=op, left=a, right=b, span=None), st.sampled_from("+-*%"), inner, inner),
        st.builds(lambda a: n.Unary(op="-", operand=a, span=None), inner),
        st.builds(quotient, st.sampled_from(["floor", "ceil"]), inner, st.integers(-50, 50).filter(bool))),
        max_leaves=6)


def semantic_value(node, x):
    """A tree worked out by the semantics alone (every result bounded)."""
    from grimorio.dsl.syntax import nodes as n
    if isinstance(node, n.Const):
        return node.value
    if isinstance(node, n.Name):
        return x
    if isinstance(node, n.Unary):
        return S.neg(semantic_value(node.operand, x))
    if isinstance(node, n.Binary):
        return S.BINARY[node.op](semantic_value(node.left, x), semantic_value(node.right, x))
    quotient = node.args[0].value
    return S.BUILTIN_FUNCTIONS[node.func.id](S.div(semantic_value(quotient.left, x), quotient.right.value))


@pytest.mark.slow
@given(arithmetic(), wholes())
def test_a_result_sized_within_the_bound_needs_no_test_in_place(node, x):
    """Where the compiler finds a result's magnitude below the bound (and so leaves the bound's
    test out of the code in place), Python's own operator on the sides' values is within it, and
    every value is no larger than its magnitude."""
    from grimorio.dsl.syntax import nodes as n

    def called(call):
        return call.func.id if call.func.id in ("floor", "ceil") else None
    try:
        value = semantic_value(node, x)
    except (ValueBound, Refusal):
        value = None
    if value is not None:
        assert abs(value) <= magnitude(node, called)
    if isinstance(node, n.Binary) and node.op in GROWS and result_size(node, called) < S.BIG:
        try:
            a, b = semantic_value(node.left, x), semantic_value(node.right, x)
        except (ValueBound, Refusal):
            return
        assert abs({"+": a + b, "-": a - b, "*": a * b}[node.op]) < S.BIG


@given(st.integers(0, 6), st.integers(0, 6), st.integers(0, 12))
def test_a_sure_list_is_paid_for_as_any_walked_list_is(length, spent, budget):
    """H.paid (a list the compiler knows is one: `for c in combatants()`) pays the same steps and
    refuses at the same budget as H.counted, which also asks the value's class."""
    from types import SimpleNamespace
    from grimorio.interpreter.run import runtime_helpers as H
    from grimorio.interpreter.run.refusals import Budget
    answers = []
    for walk in (H.counted, H.paid):
        engine = SimpleNamespace(steps=spent, budget=budget)
        try:
            answers.append((walk(engine, list(range(length))), engine.steps))
        except Budget:
            answers.append(("refused", engine.steps))
    assert answers[0] == answers[1]
    assert (answers[0][0] == "refused") == (spent + length > budget)
