"""Generic builtins a game needs beyond the two bundled ones: dice built from
numbers, keeping the highest or lowest dice, ranges, slices and removal from
lists. The generated code reaches them through runtime_helpers (H)."""
from __future__ import annotations

from ..dsl.builtin_values import dice_problem, item_problem, keep_problem, range_problem
from .dice import Dice
from .runtime_helpers import RuleFailure, show
from .values import same


def _whole(v, what: str) -> int:
    if type(v) is bool or not isinstance(v, int):
        raise RuleFailure(f"{what} must be a whole number, not {show(v)}", None, "E0204")
    return int(v)


def _list(v, what: str) -> list:
    if not isinstance(v, list):
        raise RuleFailure(f"{what} takes a list, not {show(v)}", None, "E0204")
    return v


def dice_(count, faces) -> Dice:
    """dice(n, f): n dice of f faces, n and f computed."""
    count, faces = _whole(count, "the number of dice"), _whole(faces, "the faces of a die")
    problem = dice_problem(count, faces)
    if problem is not None:
        raise RuleFailure(*problem)
    return Dice.of(count, faces)


def _keep(dice, k, which: str) -> Dice:
    name = f"keep_{which}"
    if not isinstance(dice, Dice):
        raise RuleFailure(f"{name}() takes dice, not {show(dice)}", None, "E0204")
    k = _whole(k, f"the dice {name}() keeps")
    if len(dice.terms) != 1 or dice.terms[0][0] < 0 or dice.keep is not None:
        raise RuleFailure(f"{name}() takes one kind of dice, such as 4D6, not {dice}",
                          "keep first, then add: keep_highest(4D6, 3) + 2")
    problem = keep_problem(name, str(dice), dice.terms[0][1], k)
    if problem is not None:
        raise RuleFailure(*problem)
    return Dice(dice.terms, dice.const, (k, which))


def keep_highest(dice, k) -> Dice:
    """The same dice, of which only the k highest count when rolled."""
    return _keep(dice, k, "highest")


def keep_lowest(dice, k) -> Dice:
    return _keep(dice, k, "lowest")


def range_(low, high) -> list:
    """range(a, b): the whole numbers from a to b, both included."""
    low, high = _whole(low, "range()'s start"), _whole(high, "range()'s end")
    problem = range_problem(low, high)
    if problem is not None:
        raise RuleFailure(*problem)
    return list(range(low, high + 1))


def slice_(items, start, end) -> list:
    """slice(list, a, b): the items a to b, counted from 1, both included (a new list)."""
    items = _list(items, "slice()")
    start, end = _whole(start, "slice()'s start"), _whole(end, "slice()'s end")
    n = len(items)
    start, end = (start + n + 1 if start < 0 else start), (end + n + 1 if end < 0 else end)
    return items[max(start, 1) - 1:max(end, 0)]


def without(items, item) -> list:
    """without(list, x): the list without its items equal to x (a new list)."""
    return [x for x in _list(items, "without()") if not same(x, item)]


def item(items: list, k):
    """items[k], counted from 1; -1 is the last."""
    k = _whole(k, "a list's position")
    problem = item_problem(len(items), k)
    if problem is not None:
        raise RuleFailure(*problem)
    return items[k - 1] if k > 0 else items[k]
