"""Generic builtins a game needs beyond the two bundled ones: dice built from
numbers, keeping the highest or lowest dice, ranges, slices and removal from
lists. The generated code reaches them through runtime_helpers (H)."""
from __future__ import annotations

from fractions import Fraction

from ...dsl.check.builtin_values import dice_problem, item_problem, keep_problem, one_kind_problem, range_problem, whole
from .dice import Dice
from .refusals import RuleFailure
from .values import kind, same


def _whole(v, what: str) -> int:
    """v as a whole number (4/2 is 2), or a diagnostic that says what it is instead."""
    out = whole(v)
    if out is not None:
        return out
    if isinstance(v, Fraction):
        raise RuleFailure(what + " must be a whole number, not {0}", "{0} is not whole: round it first, "
                          "with floor() (down) or ceil() (up)", "E0204", (v,))
    raise RuleFailure(what + " must be a whole number, not {0} (" + kind(v) + ")",
                      "a number such as 3, or a division that comes out whole such as 6/2", "E0204", (v,))


def _list(v, what: str) -> list:
    if not isinstance(v, list):
        raise RuleFailure(what + " takes a list, not {0} (" + kind(v) + ")", None, "E0204", (v,))
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
        raise RuleFailure(name + "() takes dice, not {0} (" + kind(dice) + ")", "for example " + name + "(4D6, 3)",
                          "E0204", (dice,))
    k = _whole(k, f"the dice {name}() keeps")
    if len(dice.terms) != 1 or dice.terms[0][0] < 0 or dice.keep is not None:
        raise RuleFailure(name + "() takes one kind of dice, such as 4D6, not {0}",
                          "keep first, then add: keep_highest(4D6, 3) + 2", "E0204", (dice,))
    problem = keep_problem(name, str(dice), dice.terms[0][1], k)
    if problem is not None:
        raise RuleFailure(*problem)
    return Dice(dice.terms, dice.const, (k, which))


def keep_highest(dice, k) -> Dice:
    """The same dice, of which only the k highest count when rolled."""
    return _keep(dice, k, "highest")


def keep_lowest(dice, k) -> Dice:
    return _keep(dice, k, "lowest")


def _one_kind(dice, name: str) -> tuple:
    """The (count, faces) of dice of one kind (2D6, 2D6+1), or a refusal that says how to take others apart."""
    if not isinstance(dice, Dice):
        raise RuleFailure(name + "() takes dice, not {0} (" + kind(dice) + ")", "for example " + name + "(2D6+1)",
                          "E0204", (dice,))
    found = one_kind_problem(name, dice.terms)
    if found is not None:
        raise RuleFailure(*found, "E0204", (dice,))
    return dice.terms[0][1], dice.terms[0][2]


def dice_count(dice) -> int:
    """dice_count(2D6+1): how many dice, 2."""
    return _one_kind(dice, "dice_count")[0]


def dice_faces(dice) -> int:
    """dice_faces(2D6+1): the faces of each die, 6."""
    return _one_kind(dice, "dice_faces")[1]


def dice_modifier(dice) -> int:
    """dice_modifier(2D6+1): the whole number added to the dice, 1 (0 for none; negative if subtracted)."""
    if not isinstance(dice, Dice):
        raise RuleFailure("dice_modifier() takes dice, not {0} (" + kind(dice) + ")",
                          "for example dice_modifier(2D6+1)", "E0204", (dice,))
    return dice.const


def _scaled(dice, n, name: str, modifier_too: bool) -> Dice:
    if not isinstance(dice, Dice):
        raise RuleFailure(name + "() takes dice, not {0} (" + kind(dice) + ")", "for example " + name + "(1D6+2, 2)",
                          "E0204", (dice,))
    n = _whole(n, f"how many times {name}() takes the dice")
    if dice.keep is not None:
        raise RuleFailure(name + "() cannot scale dice of which only some count: {0}",
                          "roll them several times and add the totals", "E0204", (dice,))
    if n < 1:
        raise RuleFailure(f"{name}(DICE, {n}) leaves no dice", "a number of times from 1", "E0204", ())
    return Dice(tuple((s, c * n, f) for s, c, f in dice.terms), dice.const * n if modifier_too else dice.const)


def dice_times(dice, n) -> Dice:
    """dice_times(1D6+2, 2): n times the dice, the modifier once: 2D6+2."""
    return _scaled(dice, n, "dice_times", False)


def repeated(dice, n) -> Dice:
    """repeated(1D6+2, 2): the whole roll n times, added up, modifier and all: 2D6+4."""
    return _scaled(dice, n, "repeated", True)


def rows(table) -> list:
    """rows(TABLE): the rows of a table, in the order written (a new list)."""
    held = getattr(table, "rows", None)
    if not isinstance(held, list) or not hasattr(table, "lookup"):
        raise RuleFailure("rows() takes a table, not {0} (" + kind(table) + ")",
                          "name a table declared with \"table\": rows(NAME)", "E0204", (table,))
    return list(held)


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
    if k.__class__ is int and 0 < k <= len(items):        # the usual case, asked before any other
        return items[k - 1]
    k = _whole(k, "a list's position")
    problem = item_problem(len(items), k)
    if problem is not None:
        raise RuleFailure(*problem)
    return items[k - 1] if k > 0 else items[k]
