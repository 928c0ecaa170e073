"""What each operator and builtin means, for each kind of value (number, fraction, text,
dice, outcome, grade, list, record, row, none). The one place that says it.

The generated code calls these functions for every operator whose operands it
cannot prove to be numbers; Python's own meanings (text formatting with %,
texts multiplied, substrings found by `in`, a text read as a number, true
added as 1, lists ordered item by item, texts by code point) never show
through. Every combination not listed here is an error that says what the
language means instead. Values are bounded too: a number past MAX_DIGITS
digits or a list or text past MAX_LENGTH items stops the run (E0506) instead
of eating the machine; the code the compiler writes in place keeps the same
bound (expressions.within_bound), as tests/test_semantics.py proves.
"""
from __future__ import annotations

import math
import unicodedata
from fractions import Fraction
from functools import lru_cache, partial
from itertools import groupby
from operator import itemgetter

from ...dsl.bounds import MAX_DICE, MAX_DIGITS, MAX_LENGTH
from ...dsl.check.builtin_values import EMPTY_EXTREME, whole
from .dice import Dice, Roll, ValueBound
from .values import Combatant, ConditionType, Ranked, Refusal, Scale, Struct, is_none, kind, member, same  # noqa: F401

_BIG = 10 ** MAX_DIGITS
BIG = _BIG              # for generated code: a whole number within the bound is strictly between -BIG and BIG
# The bound as generated code reads it (one global each): within it, strictly between _NBIG and _BIG.
_BIG2 = _BIG * _BIG     # -BIG < v < BIG exactly when v * v < _BIG2: one comparison for both ends
IN_PLACE = {"_BIG": _BIG, "_NBIG": -_BIG, "_BIG2": _BIG2, "_OBJ_EQ": object.__eq__}


BOUNDS = {
    "MAX_DIGITS": f"numbers hold at most {MAX_DIGITS} digits",
    "MAX_LENGTH": f"lists and texts hold at most {MAX_LENGTH} items",
    "MAX_DICE": f"one dice value holds at most {MAX_DICE} dice",
    "MAX_EVENTS": "one run records at most 200000 transcript lines and rolls",
}


def bound_help(bound: str) -> str:
    return f"{BOUNDS[bound]}: a value this large is a rule that grows without end (see docs/errors.md, E0506)"


class OperatorError(Refusal):
    """An operator given values it does not apply to; located by the engine (E0204)."""

    def __init__(self, message, help=None, values=()):
        super().__init__(message, help, "E0204", values)


_NUMBERS = frozenset((int, Fraction, Roll, Scale))


def is_number(v) -> bool:
    return type(v) in _NUMBERS or (isinstance(v, (int, Fraction)) and type(v) is not bool)


def choice_key(v):
    """What a tactic's `highest` or `lowest` compares the items of a choice by: a number."""
    if is_number(v):
        return v
    raise OperatorError(f"the items of a choice are compared by a number, not {kind(v)}",
                        "the key after highest or lowest must give a number for every item (it is the item)")


def bounded(v):
    """A number within MAX_DIGITS digits (a fraction: its numerator and denominator)."""
    if isinstance(v, int):
        if -_BIG < v < _BIG:
            return v
    elif -_BIG < v.numerator < _BIG and v.denominator < _BIG:
        return v
    raise ValueBound(f"a number grew past {MAX_DIGITS} digits", "MAX_DIGITS")


def _sized(v):
    if len(v) > MAX_LENGTH:
        raise ValueBound(f"{kind(v)} grew past {MAX_LENGTH} items", "MAX_LENGTH")
    return v


def _refuse(op, a, b, help):
    raise OperatorError(f'"{op}" does not apply to {kind(a)} and {kind(b)}', help)


ARITHMETIC = "arithmetic works on numbers; dice add and subtract with dice and whole numbers"


def add(a, b):
    if a.__class__ is int and b.__class__ is int:          # the usual case: bounded() in place
        r = a + b
        if r * r < _BIG2:
            return r
        return bounded(r)
    if is_number(a) and is_number(b):
        return bounded(a + b)
    if isinstance(a, Dice) or isinstance(b, Dice):
        return _dice(a, b, "+")
    ta = type(a)
    if ta is type(b) and ta in (str, list):
        return _sized(a + b)
    return _refuse("+", a, b, ARITHMETIC + "; two texts or two lists join with +")


def sub(a, b):
    if a.__class__ is int and b.__class__ is int:
        r = a - b
        if r * r < _BIG2:
            return r
        return bounded(r)
    if is_number(a) and is_number(b):
        return bounded(a - b)
    if isinstance(a, Dice) or isinstance(b, Dice):
        return _dice(a, b, "-")
    return _refuse("-", a, b, ARITHMETIC)


def _dice(a, b, op):
    a, b = (x if isinstance(x, Dice) or whole(x) is None else whole(x) for x in (a, b))   # 4/2 is 2
    split = next((x for x in (a, b) if isinstance(x, Fraction)), None)
    if split is not None:
        raise OperatorError(f'dice {"add" if op == "+" else "subtract"} whole numbers, not {{0}}',
                            "round it first, with floor() (down) or ceil() (up)", (split,))
    if not (isinstance(a, (Dice, int)) and isinstance(b, (Dice, int))) or bool in (type(a), type(b)):
        _refuse(op, a, b, ARITHMETIC)
    kept = next((x for x in (a, b) if isinstance(x, Dice) and x.keep is not None), None)
    if kept is not None and (isinstance(a, Dice) and isinstance(b, Dice) or op == "-" and b is kept):
        raise OperatorError(*KEPT_JOINED[isinstance(a, Dice) and isinstance(b, Dice), op], (kept,))
    return a + b if op == "+" else a - b


# Dice of which only some count, joined to other dice, or subtracted from a number: (message, help).
_ROLL_EACH = "roll each and {} the totals: (roll keep_highest(4D6, 3)) {} (roll 1D4)"
KEPT_JOINED = {
    (True, "+"): ('dice of which only some count ({0}) cannot be added to other dice',
                  "a whole number can be added to them: keep_highest(4D6, 3) + 2; or " + _ROLL_EACH.format("add", "+")),
    (True, "-"): ('dice of which only some count ({0}) cannot be joined to other dice with "-"',
                  "a whole number can be subtracted from them: keep_highest(4D6, 3) - 2; or "
                  + _ROLL_EACH.format("subtract", "-")),
    (False, "-"): ("dice of which only some count ({0}) cannot be subtracted from a number",
                   "subtract their roll: 10 - (roll keep_highest(4D6, 3))"),
}


def mul(a, b):
    if is_number(a) and is_number(b):
        return bounded(a * b)
    if isinstance(a, Dice) or isinstance(b, Dice):
        raise OperatorError('dice can be added and subtracted, not used with "*"', "roll them first: (roll 1D6) * 2")
    return _refuse("*", a, b, "only numbers multiply; to repeat a list or a text, use a for or a comprehension")


def by_zero() -> Refusal:
    """What / and % say of a divisor that is zero, and floor or ceil of a division by it."""
    return Refusal("division by zero", "test the divisor first: if d != 0: ...", "E0501")


def div(a, b):
    if is_number(a) and is_number(b):
        if b == 0:
            raise by_zero()
        return bounded(Fraction(a) / b)
    return _refuse("/", a, b, "only numbers divide; a text is not a number (write the number itself)")


def mod(a, b):
    if is_number(a) and is_number(b):
        if b == 0:
            raise by_zero()
        return bounded(a % b)
    return _refuse("%", a, b, "% is the remainder of two numbers; messages put values in texts with {placeholders}")


# What may be divided in place: whole numbers (a roll is one), whose quotient div holds within the bound.
_WHOLE_SIDES = frozenset((int, Roll))


def floor_div(a, b):
    """floor(a / b): of two whole numbers without building the fraction; of anything else, as
    floor(div(a, b)) has it (div bounds the fraction, or refuses what does not divide)."""
    if type(b) is int and b and type(a) in _WHOLE_SIDES:
        return a // b
    return floor(div(a, b))


def ceil_div(a, b):
    """ceil(a / b), as floor_div has floor(a / b)."""
    if type(b) is int and b and type(a) in _WHOLE_SIDES:
        return -(-a // b)
    return ceil(div(a, b))


def floor_mul(a, b):
    """floor(a * b) without building the fraction when b is a factor (a table's scale) and a is
    not: the product as floor(mul(a, b)) has it, bounded alike."""
    if b.__class__ is Scale and a.__class__ is int:
        p = a * b._numerator                # (Fraction's own slots: its properties cost a call each)
        if p * p < _BIG2:                   # within the bound; the reduced product's numerator is no larger
            return p // b._denominator
    return floor(mul(a, b))


def neg(a):
    if is_number(a):
        return -a
    if isinstance(a, Dice):
        return -a
    raise OperatorError(f'"-" does not apply to {kind(a)}', "only numbers and dice can be negated")


def contains(item, container):
    """`item in container`: membership in a list, by the language's equality; nothing else has members."""
    if type(container) is list:
        return member(item, container)
    if type(container) is Map:
        return container.has(item)
    raise OperatorError(f'"in" needs a list or a map on its right, not {kind(container)}',
                        "in tests membership in a list (or a key of a map); to compare two texts use ==")


def equal(a, b) -> bool:
    """`a == b`: none equals none and the empty list; true and false equal no number; lists item
    by item; anything else as compared by value (values.same)."""
    return same(a, b)


def not_equal(a, b) -> bool:
    return not equal(a, b)


ORDER = "order compares numbers with numbers, texts with texts, and outcomes of one list or grades of one condition"


def _ordered(a, b, op):
    """The two sides as Python can order them, or an error in words: numbers with numbers, texts with
    texts (as a dictionary orders them: text_key), outcomes (or grades) of one list by their rank."""
    if is_number(a) and is_number(b):
        return a, b
    if type(a) is str and type(b) is str:
        return text_key(a), text_key(b)
    if isinstance(a, Ranked) and isinstance(b, Ranked) and a.kind == b.kind:
        return a.rank, b.rank
    raise OperatorError(f"{_named(a)} and {_named(b)} cannot be compared by order", ORDER)


@lru_cache(maxsize=4096)
def text_key(text: str) -> tuple:
    """How texts are ordered: as a dictionary orders words, the letters first, without their case
    or accents ("álamo" < "Beatriz" < "bote"), then their accents, then their case, then the
    characters themselves; two texts have one key only when they are the same text."""
    folded = unicodedata.normalize("NFD", text.casefold())
    letters = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return letters, folded, text


def _named(v) -> str:
    """An outcome or a grade by its name (which one matters when ordering them), anything else by its kind."""
    return str(v) if isinstance(v, Ranked) else kind(v)


def less(a, b) -> bool:
    a, b = _ordered(a, b, "<")
    return a < b


def less_equal(a, b) -> bool:
    a, b = _ordered(a, b, "<=")
    return a <= b


def greater(a, b) -> bool:
    a, b = _ordered(a, b, ">")
    return a > b


def greater_equal(a, b) -> bool:
    a, b = _ordered(a, b, ">=")
    return a >= b


# Comparison -> the function generated code calls, and the condition under which Python's own
# operator gives the same answer in place (compile/code.py's same_in_place; tests/test_semantics.py proves each): equality on two
# values of one type (none is only equal to none then, and no true meets a 1), order on two whole numbers.
COMPARISON = {"==": equal, "!=": not_equal, "<": less, "<=": less_equal, ">": greater, ">=": greater_equal}


def append(target, value, kept=frozenset()):
    """`append LIST, VALUE`; `kept`: the identities of the lists the rules' tables hold, never changed."""
    if type(target) is not list:
        raise OperatorError(f"append needs a list, not {kind(target)}", "append LIST, VALUE adds at the end of a list")
    if id(target) in kept:
        raise OperatorError("this list is held by a table, and tables cannot be changed",
                            "append to a copy: let copia = LIST + [], then append copia, VALUE")
    if len(target) >= MAX_LENGTH:
        raise ValueBound(f"a list grew past {MAX_LENGTH} items", "MAX_LENGTH")
    target.append(value)


# Operator -> the function generated code calls (others may add entries: one table, no if-ladder).
BINARY = {"+": add, "-": sub, "*": mul, "/": div, "%": mod, "in": contains}


# ------------------------------------------------------------ builtins
# What each builtin means, for every kind of value: a number builtin refuses true and false,
# dice and none; a list builtin refuses a text (it is not a list); min, max and clamp order
# as the comparisons do (numbers, texts, outcomes of one list) and refuse lists. Each refusal
# says what the builtin takes and, for the kind given, what to write instead (E0204).

def _what(v) -> str:
    """A value given to a builtin, in a designer's words: true and false by name."""
    return ("true" if v else "false") if type(v) is bool else kind(v)


# What to write instead, by what the builtin takes and the kind of the value it refused.
_NOT_NUMBER = {
    bool: "true and false are not numbers: write the number itself, or 1 if COND else 0",
    type(None): "none is no number: test it first, x if x != none else 0",
    Dice: "dice are not a number until rolled: roll them first, (roll 1D6)",
    str: 'a text is never read as a number: write the number itself, 12 and not "12"',
    list: "a list is not a number: sum(LIST) adds its numbers, first(LIST) takes its first",
}
_INSTEAD = {
    "a number": _NOT_NUMBER, "numbers": _NOT_NUMBER,
    "a list": {str: 'a text is not a list: ["ab"] is a list of one text',
               type(None): "none is no list: [] is the empty list"},
    "values that have an order": {
        list: "lists are not ordered: min, max and clamp compare numbers, texts, or outcomes of one list",
        bool: "true and false have no order: compare numbers, texts, or outcomes of one list",
        type(None): "none has no order: test it first, x if x != none else 0",
        Dice: "dice have no order until rolled: roll them first, (roll 1D6)",
    },
}


def _refuse_arg(name, takes, v, help):
    """The refusal of a builtin given a value of the wrong kind: the value as the edition shows it,
    and its kind where the value alone does not say it (true, false and none do)."""
    instead = _INSTEAD.get(takes, {}).get(type(v))
    if v is None or isinstance(v, (list, Struct)):          # its kind says more than its items would
        raise OperatorError(f"{_called(name)} takes {takes}, not {_what(v)}", instead or help)
    said = "{0}" if type(v) is bool else "{0} (" + kind(v) + ")"
    raise OperatorError(f"{_called(name)} takes {_braced(takes)}, not " + said, _braced(instead or help), (v,))


def _braced(text):
    """A text kept as it is when values are filled into it."""
    return text and text.replace("{", "{{").replace("}", "}}")


def _called(name) -> str:
    """A builtin by its call (`min()`), the keys of `ordered by` by their words."""
    return name if " " in name else name + "()"


def _number(name, v):
    if is_number(v):
        return v
    return _refuse_arg(name, "a number", v, f"{name}() takes a number, such as {name}(7 / 2)")


def _items(name, v) -> list:
    if type(v) is list:
        return v
    return _refuse_arg(name, "a list", v, f"{name}() takes a list, such as {name}([1, 2])")


def len_(x):
    return len(x) if type(x) is Map else len(_items("len", x))


def abs_(x):
    if x.__class__ is int:                  # (a whole number: as large as it was, so within the bound)
        return abs(x)
    return abs(_number("abs", x))


def floor(x):
    if x.__class__ is int:
        return x
    return int(x) if isinstance(_number("floor", x), int) else math.floor(x)


def ceil(x):
    if x.__class__ is int:
        return x
    return int(x) if isinstance(_number("ceil", x), int) else math.ceil(x)


def sum_(xs):
    """The sum of numbers, 0 for none, its total bounded; dice among them add as + adds them."""
    if _WHOLE.issuperset(map(type, _items("sum", xs))):
        return bounded(sum(xs))
    dice = False
    for x in xs:
        if isinstance(x, Dice):
            dice = True
        elif not is_number(x):
            _refuse_arg("sum", "numbers", x, "sum() adds numbers (or dice): sum([1, 2])")
    if not dice:
        return bounded(sum(xs))
    total = 0
    for x in xs:
        total = add(total, x)
    return total


_WHOLE = frozenset((int,))


def _order_keys(name, values) -> list:
    """The values as Python orders them as the language does (numbers with numbers, texts
    with texts, outcomes or grades of one list by rank), or a refusal naming the two that
    cannot be ordered together."""
    first = values[0]
    if type(first) is str and all(type(v) is str for v in values):
        return [text_key(v) for v in values]
    if isinstance(first, Ranked) and all(isinstance(v, Ranked) and v.kind == first.kind for v in values):
        return [v.rank for v in values]
    if all(is_number(v) for v in values):
        return values
    for v in values:
        if _unordered(v):
            _refuse_arg(name, "values that have an order", v, ORDER)
    other = next(v for v in values if _ordered_kind(v) != _ordered_kind(first))
    raise OperatorError(f"{_called(name)} cannot order {_named(first)} and {_named(other)} together", ORDER)


def _unordered(v) -> bool:
    """A value no order applies to (a list, none, true and false, dice, a record...)."""
    return not (is_number(v) or type(v) is str or isinstance(v, Ranked))


def _ordered_kind(v):
    return "number" if is_number(v) else v.kind if isinstance(v, Ranked) else type(v)


def _extreme(name, args, pick):
    if len(args) == 1 and type(args[0]) is list:
        args = args[0]
    if not args:
        raise _G.RuleFailure(*EMPTY_EXTREME)       # (E0501 when it runs: the docs say so)
    if _WHOLE.issuperset(map(type, args)):
        return pick(args)
    keys = _order_keys(name, args)
    out = args[pick(range(len(args)), key=keys.__getitem__)]
    return int(out) if type(out) is Roll else out     # a roll through min/max is a plain number


def min_(*args):
    return _extreme("min", args, min)


def max_(*args):
    return _extreme("max", args, max)


def clamp(x, low, high):
    """x, but no less than low and no more than high (low first where they cross)."""
    k, lo, hi = _order_keys("clamp", [x, low, high])
    return low if k < lo else high if k > hi else x


def distinct(xs):
    """The list without repeats, the first of each in order, by the language's equality."""
    if xs.__class__ is list and _KEYED.issuperset(map(type, xs)):
        return list(dict.fromkeys(xs))  # texts and whole numbers: Python's equality and hash are the language's
    out = []
    for x in _items("distinct", xs):
        if not member(x, out):
            out.append(x)
    return out


_KEYED = frozenset((str, int))
# For generated code: the kinds whose Python equality and hash are the language's, and each
# item's type as an iterator (C code: no step of Python between them).
IN_PLACE.update({"_KEYED": _KEYED, "_TYPES": partial(map, type), "_SCALE": Scale})


def first(xs):
    return xs[0] if _items("first", xs) else None


def maximum(dice):
    """The highest total dice can give."""
    if isinstance(dice, Dice):
        return dice.max
    return _refuse_arg("maximum", "dice", dice, "maximum() takes dice, such as maximum(1D8 + 1D4)")


def ordered(items, key, reverse):
    """The items sorted by key (`ordered by`), lowest first or highest with `reverse`, items
    with equal keys in their order; keys ordered as the comparisons order them."""
    return list(map(_second, _sorted_pairs(items, key, reverse)))


def groups(items, key, reverse):
    """Items sorted by key, as lists of equal keys (ties act together: `for group`)."""
    keys = list(map(key, items)) if items.__class__ is list else _not_walked(items)
    if _WHOLE.issuperset(map(type, keys)):
        if len(set(keys)) == len(keys):                 # whole numbers, no two equal: a group each
            # (no two keys equal: the pairs sort by their keys alone, never by their items)
            return list(map(list, zip(map(_second, sorted(zip(keys, items), reverse=reverse)))))
        pairs = sorted(zip(keys, items), key=_first, reverse=reverse)
    else:
        pairs = sorted(zip(_order_keys("ordered by", keys), items), key=_first, reverse=reverse)
    return [list(map(_second, g)) for _k, g in groupby(pairs, _first)]


def whole_groups(items, key, reverse):
    """groups() where every key is a whole number (the optimizer proved the key whole): sorted
    by key (stable, as groups sorts), then the runs of one key, in one walk."""
    if items.__class__ is not list:
        _not_walked(items)
    out, last = [], None
    for item in sorted(items, key=key, reverse=reverse):
        k = key(item)
        if k == last:
            out[-1].append(item)
        else:
            out.append([item])
            last = k
    return out


def _sorted_pairs(items, key, reverse) -> list:
    """(key, item) for each item, sorted by key (stable): whole numbers as Python orders them,
    anything else as the comparisons do (_order_keys)."""
    keys = list(map(key, items)) if items.__class__ is list else _not_walked(items)
    if not _WHOLE.issuperset(map(type, keys)):          # (none at all: nothing to order)
        keys = _order_keys("ordered by", keys)
    return sorted(zip(keys, items), key=_first, reverse=reverse)


def ordered_by_keys(items, key, descs, grouped):
    """`ordered by` several keys: by the first key, ties by the second, and so on, each lowest first
    or highest first (`desc`); items with all keys equal in their order. Grouped (`for group`): lists
    of items whose keys are all equal. `key` gives an item's keys as a tuple, `descs` their directions."""
    rows = list(map(key, items)) if items.__class__ is list else _not_walked(items)
    columns = []
    for column in zip(*rows) if rows else ():
        column = list(column)
        columns.append(column if _WHOLE.issuperset(map(type, column)) else _order_keys("ordered by", column))
    order = list(range(len(rows)))
    for column, desc in reversed(list(zip(columns, descs))):    # stable sorts, the last key first
        order.sort(key=column.__getitem__, reverse=desc)
    if not grouped:
        return [items[i] for i in order]
    together = lambda i: tuple(column[i] for column in columns)   # noqa: E731
    return [[items[i] for i in g] for _k, g in groupby(order, together)]


def _not_walked(items):
    raise OperatorError(f"only a list can be walked, not {kind(items)}",
                        "for and comprehensions walk lists: [x for x in LIST]")


_first, _second = itemgetter(0), itemgetter(1)


# What each builtin means: the function that computes it. The generic builtins (dice from
# numbers, keeping dice, lists) live in generic (shared with the engine); this table is the one
# place that says which function a builtin is, and the compiler reaches a builtin only through
# it (or through ENGINE_BUILTINS).
from .maps import Map, keys, new_map  # noqa: E402 - maps imports only values
from . import runtime_helpers as _G  # noqa: E402 - runtime_helpers (and generic, which it loads) do not import this module

BUILTIN_FUNCTIONS = {
    "len": len_, "abs": abs_, "sum": sum_, "min": min_, "max": max_,
    "floor": floor, "ceil": ceil, "clamp": clamp, "distinct": distinct, "first": first,
    "dice": _G.dice_, "keep_highest": _G.keep_highest, "keep_lowest": _G.keep_lowest,
    "range": _G.range_, "slice": _G.slice_, "without": _G.without,
    "dice_count": _G.dice_count, "dice_faces": _G.dice_faces, "dice_modifier": _G.dice_modifier,
    "dice_times": _G.dice_times, "repeated": _G.repeated, "rows": _G.rows,
    "map": new_map, "keys": keys,
}

# Builtins whose answer is always a list (or a refusal): Python's len of it needs no test
# (tests/test_runtime_paths.py holds each to it).
LIST_BUILTINS = frozenset(("distinct", "combatants", "standing"))

# Builtins that ask the running encounter (its combatants, its round, their controllers):
# methods of the engine of the same name.
ENGINE_BUILTINS = frozenset(("combatants", "standing", "round_number", "all_conditions", "grades", "act", "has", "cards",
                             "choose", "held", "agree", "condition_named"))

# floor(a / b) and ceil(a / b) without building the fraction: the function, and the same on two
# whole numbers in place (tests/test_semantics.py proves the two agree).
ROUNDED_DIVISION = {"floor": (floor_div, "{a} // {b}"), "ceil": (ceil_div, "-(-{a} // {b})")}
