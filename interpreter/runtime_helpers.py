"""Small helpers the generated code calls. Kept apart so the generated module
has no access to anything else (rules are hermetic)."""
from __future__ import annotations

import math
from fractions import Fraction
from itertools import groupby

from ..dsl.builtin_values import EMPTY_EXTREME
from .dice import Dice, Roll
from .values import Combatant, ConditionType, Ranked, Struct, is_none, mangle, member, same, show  # noqa: F401 - used by generated code


class RuleFailure(Exception):
    """A rule did something the language forbids; located by the engine."""

    def __init__(self, message, help=None, code="E0501"):
        super().__init__(message)
        self.message, self.help, self.code = message, help, code


EMIT_DEPTH = 16
STEP_BUDGET = 1_000_000


class Budget(Exception):
    """A loop or a cascade of events ran past its budget."""


def counted(engine, items):
    """The list a for or a comprehension walks, its length paid from the step budget first."""
    if type(items) is list:
        steps = engine.steps = engine.steps + len(items)
        if steps <= engine.budget:
            return items
        raise Budget(engine.budget)
    raise RuleFailure(f"only a list can be walked, not {show(items)}",
                      "for and comprehensions walk lists: [x for x in LIST]", "E0204")


def cannot_order(value, named):
    raise RuleFailure(f"{show(value)} and {show(named)} cannot be compared by order", ORDER_HELP, "E0204")


ORDER_HELP = "only outcomes of the same list, or grades of the same condition, can be ordered"


def reactors(whos):
    """Who may react, without repeats, in order; none is nobody."""
    out = []
    for w in whos:
        if w is not None and w not in out:
            out.append(w)
    return out


def first_reaction(engine, _who, options, _event):
    """A reactor's choice where its tactic prefers nothing for the event: as the prelude's
    option says, the first reaction allowed (or none)."""
    return options[0] if engine.opt["first_reaction"] else None


class StopRun(Exception):
    """The `stop` statement: ends the encounter."""


def floor(x):
    if isinstance(x, int):
        return int(x)
    return math.floor(x)


def ceil(x):
    if isinstance(x, int):
        return int(x)
    return math.ceil(x)


def mulfloor(a, b):
    """floor(a * b) without building a fraction when b is a table scale."""
    if isinstance(b, Fraction) and type(a) is not Fraction:
        return (a * b.numerator) // b.denominator
    return math.floor(a * b)


def eq(value, test):
    """A decision-table cell: membership when the input is a list; else the language's `==`."""
    if type(value) is list:
        return member(test, value)
    return same(value, test)


def rank_of(value, kind, named):
    """The rank of an outcome of the list `kind`; anything else cannot be ordered against `named`."""
    if type(value) is Ranked and value.kind == kind:
        return value.rank
    return cannot_order(value, named)


FIELDED = (Combatant, Struct)


def index(obj, key):
    """obj[key]: a field named by a text of a combatant or record, or a table's row."""
    if isinstance(key, str) and isinstance(obj, (Combatant, Struct)):
        try:
            return getattr(obj, mangle(key))
        except AttributeError:
            raise RuleFailure(f'{show(obj)} has no field "{key}"', "check the spelling against the sheet "
                              "or the table's columns", "E0203") from None
    lookup = getattr(obj, "lookup", None)
    if lookup is not None:
        return lookup(key)
    if isinstance(obj, list):
        return item(obj, key)
    raise RuleFailure(f"{show(obj)} cannot be looked up by {show(key)}")


def groups(items, key, reverse):
    """Items sorted by key, as lists of equal keys (ties act together)."""
    return [list(g) for _k, g in groupby(sorted(items, key=key, reverse=reverse), key)]


def maximum(dice):
    if not isinstance(dice, Dice):
        raise RuleFailure(f"maximum() takes dice, not {show(dice)}")
    return dice.max


def len_(x):
    if not isinstance(x, list):
        raise RuleFailure(f"len() takes a list, not {show(x)}")
    return len(x)


def abs_(x):
    return abs(x)


def sum_(x):
    if not isinstance(x, list):
        raise RuleFailure(f"sum() takes a list, not {show(x)}")
    return sum(x)


def _extreme(fn, args):
    if len(args) == 1 and isinstance(args[0], list):
        args = args[0]
    if not args:
        raise RuleFailure(*EMPTY_EXTREME)
    out = fn(args)
    return int(out) if type(out) is Roll else out


def min_(*args):
    return _extreme(min, args)


def max_(*args):
    return _extreme(max, args)


def clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


_KEYED = frozenset((str, int))       # texts and whole numbers: Python's equality and hash are the language's


def distinct(xs):
    if type(xs) is list and _KEYED.issuperset(map(type, xs)):
        return list(dict.fromkeys(xs))  # the first of each, in order, without asking Python item by item
    out = []
    for x in xs:
        if not member(x, out):
            out.append(x)
    return out


def first(xs):
    return xs[0] if xs else None


def regrade(condition: ConditionType, grade):
    """The grade of `condition` with the same name as `grade` (of any condition)."""
    if grade is None:
        return None
    g = condition.by_name.get(getattr(grade, "name", grade))
    if g is None:
        raise RuleFailure(f'condition "{condition.name}" has no grade "{show(grade)}"')
    return g


# Generic builtins (dice from numbers, keeping dice, lists), reached as H.name.
from .generic import dice_, item, keep_highest, keep_lowest, range_, slice_, without  # noqa: E402,F401
