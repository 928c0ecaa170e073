"""The runtime's short paths give what its long ones give: a side's kept list (Engine.side_walked),
whole-number arithmetic bounded in place (semantics.add, sub, abs_, floor, ceil) and index asking
a list and a map first (runtime_helpers.index)."""
from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from grimorio.interpreter.run import runtime_helpers as H
from grimorio.interpreter.run import semantics as S
from grimorio.interpreter.run.engine import Engine
from grimorio.interpreter.run.maps import new_map
from grimorio.interpreter.run.dice import ValueBound
from grimorio.interpreter.run.values import SIDE_CHANGES, Combatant, Refusal


def _engine():
    return Engine(SimpleNamespace(options={}), [])


def _fighter(side):
    c = Combatant()
    c.side_ = side
    return c


def test_a_sides_list_is_kept_apart_for_true_and_1_and_made_again_after_a_side_changes():
    calls = []

    def rule(_e, c):
        calls.append(c.side_)
        return [c.side_]
    e = _engine()
    a, b, t, t2 = _fighter(True), _fighter(1), _fighter("x"), _fighter("x")
    assert e.side_walked(rule, a) == [True] and e.side_walked(rule, b) == [1]
    assert type(e.side_walked(rule, a)[0]) is bool and type(e.side_walked(rule, b)[0]) is int
    assert e.side_walked(rule, t) is e.side_walked(rule, t2)          # one list for the side "x"
    assert calls == [True, 1, "x"]
    SIDE_CHANGES[0] += 1                                              # a rule set a side somewhere
    assert e.side_walked(rule, t2) == ["x"] and calls == [True, 1, "x", "x"]


def test_a_side_that_is_a_list_is_worked_out_each_time():
    e = _engine()
    c = _fighter(["a"])
    assert e.side_walked(lambda _e, x: [1], c) == [1]


def test_a_value_with_no_side_takes_the_long_way():
    # Not a combatant: the rule is called as it is, each time (memo_walked), never a KeyError.
    e, calls = _engine(), []
    assert e.side_walked(lambda _e, x: calls.append(x) or [x], 3) == [3]
    assert e.side_walked(lambda _e, x: calls.append(x) or [x], 3) == [3] and calls == [3, 3]


_NUMBERS = st.one_of(st.integers(-10 ** 6, 10 ** 6), st.booleans(),
                     st.fractions(max_denominator=7).filter(lambda f: abs(f) < 10 ** 6), st.text(max_size=2))


def _outcome(fn, *args):
    try:
        return ("value", fn(*args), type(fn(*args)))
    except Refusal as exc:
        return ("refused", type(exc).__name__, exc.args[0])


@settings(max_examples=60)
@given(_NUMBERS, _NUMBERS)
def test_add_and_sub_in_place_agree_with_bounded(a, b):
    for fn, op in ((S.add, lambda x, y: x + y), (S.sub, lambda x, y: x - y)):
        if type(a) is int and type(b) is int:
            assert fn(a, b) == S.bounded(op(a, b)) and type(fn(a, b)) is int


def test_add_and_sub_past_the_bound_are_refused_as_before():
    big = 10 ** S.MAX_DIGITS - 1
    for fn, a, b in ((S.add, big, 1), (S.sub, -big, 1)):
        with pytest.raises(ValueBound):
            fn(a, b)
    assert S.add(big, 0) == big and S.sub(-big, 0) == -big


@settings(max_examples=60)
@given(_NUMBERS)
def test_abs_floor_and_ceil_of_anything_as_before(x):
    import math
    for fn, whole in ((S.abs_, abs), (S.floor, math.floor), (S.ceil, math.ceil)):
        got = _outcome(fn, x)
        if type(x) is bool or type(x) is str:
            assert got[0] == "refused", (fn, x)
        else:
            assert got[0] == "value" and got[1] == whole(x), (fn, x)
            if type(x) is int:
                assert got[2] is int


def test_index_of_a_list_and_a_map_first_and_anything_else_as_before():
    m = new_map()
    m.keep("a", 1)
    assert H.index([5, 6], 2) == 6 and H.index(m, "a") == 1 and H.index(m, "b") is None
    with pytest.raises(Refusal):
        H.index([5, 6], 3)
    with pytest.raises(H.RuleFailure):
        H.index(3, 1)
    assert Fraction(1) == 1          # (a fraction is a number, never indexed: refused as before)
    with pytest.raises(H.RuleFailure):
        H.index(Fraction(1, 2), 1)


def test_a_dice_stream_is_made_on_its_first_use_and_drawn_on_after():
    # `streams[who, purpose]` makes the stream on its first use and keeps it (as generated code and
    # Engine.roll ask it): the draws go on from where they were, never from the start again, and
    # each (who, purpose) has its own.
    from grimorio.interpreter.run.dice import stream
    e, c = _engine(), _fighter("a")
    c.a_name = "Ana"
    assert not e.streams
    draws = [e.streams[c, "p"]() for _ in range(4)]
    fresh = stream(e.seed, "Ana", "p")
    assert draws == [fresh() for _ in range(4)] and len(e.streams) == 1
    other = stream(e.seed, "Ana", "q")
    assert [e.streams[c, "q"]() for _ in range(3)] == [other() for _ in range(3)] and len(e.streams) == 2
    assert e.streams[None, "p"]() == stream(e.seed, None, "p")()


def _walk(e, rule, c):
    # As a tactic walks a side rule of its actor: `walks` first, then walk_side.
    return e.walks.get((rule, c)) or e.walk_side(rule, c)


def test_an_actors_side_list_kept_in_walks_goes_as_a_side_is_set_or_a_newer_engine_is_made():
    calls = []

    def rule(_e, c):
        calls.append(c.side_)
        return [c.side_]
    e = _engine()
    a, b, n = _fighter("x"), _fighter("y"), _fighter(1)
    assert _walk(e, rule, a) == ["x"] and _walk(e, rule, a) == ["x"] and calls == ["x"]
    assert e.walks == {(rule, a): ["x"]}
    assert _walk(e, rule, n) == [1] and (rule, n) not in e.walks          # only text sides kept there
    b.a_side = "x"                                                        # a rule sets a side
    assert e.walks == {}
    a.a_side = "z"
    assert _walk(e, rule, a) == ["z"] and calls == ["x", 1, "z"]
    newer = _engine()                                                     # the older keeps nothing more
    assert e.walks == {} and _walk(e, rule, b) == ["x"] and e.walks == {}
    assert _walk(newer, rule, b) == ["x"] and newer.walks == {(rule, b): ["x"]}
    a.a_side = "w"
    assert newer.walks == {} and _walk(newer, rule, a) == ["w"]


@pytest.mark.parametrize("seed", [0, 7, -3, 2 ** 70])
def test_a_runs_streams_are_the_seeds_streams_whatever_the_seed(seed):
    # Streams writes the seed once (dice.stream_at); each stream is still dice.stream's.
    from grimorio.interpreter.run.dice import stream
    e = Engine(SimpleNamespace(options={}), [], seed=seed)
    c = _fighter("a")
    c.a_name = "Ana"
    assert [e.streams[c, "p"]() for _ in range(9)] == [d() for d in [stream(seed, "Ana", "p")] for _ in range(9)]
