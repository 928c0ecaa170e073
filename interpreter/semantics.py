"""What each operator means, for each kind of value. The one place that says it.

The generated code calls these functions for every operator whose operands it
cannot prove to be numbers; Python's own meanings (text formatting with %,
texts multiplied, substrings found by `in`, a text read as a number) never
show through. Every combination not listed here is an error that says what
the language means instead. Values are bounded too: a number past
MAX_DIGITS digits or a list or text past MAX_LENGTH items stops the run
(E0506) instead of eating the machine.
"""
from __future__ import annotations

import re
from fractions import Fraction

from ..dsl.bounds import MAX_DICE, MAX_DIGITS, MAX_LENGTH
from .dice import Dice, Roll, ValueBound
from .values import Combatant, ConditionType, Ranked, Scale, Struct, is_none, member, same

_BIG = 10 ** MAX_DIGITS
BIG = _BIG              # for generated code: a whole number within the bound is strictly between -BIG and BIG


BOUNDS = {
    "MAX_DIGITS": f"numbers hold at most {MAX_DIGITS} digits",
    "MAX_LENGTH": f"lists and texts hold at most {MAX_LENGTH} items",
    "MAX_DICE": f"one dice value holds at most {MAX_DICE} dice",
    "MAX_EVENTS": "one run records at most 200000 transcript lines and rolls",
}


def bound_help(bound: str) -> str:
    return f"{BOUNDS[bound]}: a value this large is a rule that grows without end (see docs/errors.md, E0506)"


class OperatorError(Exception):
    """An operator given values it does not apply to; located by the engine (E0204)."""

    def __init__(self, message, help=None):
        super().__init__(message)
        self.message, self.help, self.code = message, help, "E0204"


def kind(v) -> str:
    """A value's kind, in a designer's words."""
    t = type(v)
    if t is bool:
        return "true or false"
    if isinstance(v, (int, Fraction)):
        return "a number"
    return _KINDS.get(t) or next((k for cls, k in _BASES if isinstance(v, cls)), "a value")


_KINDS = {str: "a text", list: "a list", type(None): "none", Dice: "dice"}
_BASES = ((Ranked, "an outcome or a grade"), (Struct, "a record"), (Combatant, "a combatant"),
          (ConditionType, "a condition"))


_NUMBERS = frozenset((int, Fraction, Roll, Scale))


def is_number(v) -> bool:
    return type(v) in _NUMBERS or (isinstance(v, (int, Fraction)) and type(v) is not bool)


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
    if type(a) is int and type(b) is int or is_number(a) and is_number(b):
        return bounded(a + b)
    if isinstance(a, Dice) or isinstance(b, Dice):
        return _dice(a, b, "+")
    ta = type(a)
    if ta is type(b) and ta in (str, list):
        return _sized(a + b)
    return _refuse("+", a, b, ARITHMETIC + "; two texts or two lists join with +")


def sub(a, b):
    if type(a) is int and type(b) is int or is_number(a) and is_number(b):
        return bounded(a - b)
    if isinstance(a, Dice) or isinstance(b, Dice):
        return _dice(a, b, "-")
    return _refuse("-", a, b, ARITHMETIC)


def _dice(a, b, op):
    whole = (Dice, int)
    if not (isinstance(a, whole) and isinstance(b, whole)) or bool in (type(a), type(b)):
        _refuse(op, a, b, ARITHMETIC)
    return a + b if op == "+" else a - b


def mul(a, b):
    if is_number(a) and is_number(b):
        return bounded(a * b)
    if isinstance(a, Dice) or isinstance(b, Dice):
        raise OperatorError('dice can be added and subtracted, not used with "*"', "roll them first: (roll 1D6) * 2")
    return _refuse("*", a, b, "only numbers multiply; to repeat a list or a text, use a for or a comprehension")


def div(a, b):
    if is_number(a) and is_number(b):
        if b == 0:
            raise ZeroDivisionError
        return bounded(Fraction(a) / b)
    return _refuse("/", a, b, "only numbers divide; a text is not a number (write the number itself)")


def mod(a, b):
    if is_number(a) and is_number(b):
        if b == 0:
            raise ZeroDivisionError
        return bounded(a % b)
    return _refuse("%", a, b, "% is the remainder of two numbers; messages put values in texts with {placeholders}")


def floor_div(a, b):
    """floor(a / b) without building the fraction."""
    if type(a) in _NUMBERS and type(b) in _NUMBERS or is_number(a) and is_number(b):
        if b == 0:
            raise ZeroDivisionError
        return a // b if type(b) is int else bounded(a // b)      # by a whole number it never grows
    return _refuse("/", a, b, "only numbers divide; a text is not a number (write the number itself)")


def ceil_div(a, b):
    """ceil(a / b) without building the fraction."""
    if type(a) in _NUMBERS and type(b) in _NUMBERS or is_number(a) and is_number(b):
        if b == 0:
            raise ZeroDivisionError
        return -(-a // b) if type(b) is int else bounded(-(-a // b))
    return _refuse("/", a, b, "only numbers divide; a text is not a number (write the number itself)")


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
    raise OperatorError(f'"in" needs a list on its right, not {kind(container)}',
                        "in tests membership in a list; to compare two texts use ==")


def equal(a, b) -> bool:
    """`a == b`: none equals none and the empty list; true and false equal no number; lists item
    by item; anything else as compared by value (values.same)."""
    return same(a, b)


def not_equal(a, b) -> bool:
    return not equal(a, b)


ORDER = "order compares numbers with numbers, texts with texts, and outcomes of one list or grades of one condition"


def _ordered(a, b, op):
    """The two sides as Python can order them, or an error in words: numbers with numbers, texts with
    texts, outcomes (or grades) of one list by their rank."""
    if is_number(a) and is_number(b) or type(a) is str and type(b) is str:
        return a, b
    if isinstance(a, Ranked) and isinstance(b, Ranked) and a.kind == b.kind:
        return a.rank, b.rank
    raise OperatorError(f"{_named(a)} and {_named(b)} cannot be compared by order", ORDER)


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
# operator gives the same answer in place (tests/test_semantics.py proves each): equality on two
# values of one type (none is only equal to none then, and no true meets a 1), order on two whole numbers.
COMPARISON = {"==": equal, "!=": not_equal, "<": less, "<=": less_equal, ">": greater, ">=": greater_equal}


def type_of(code: str) -> str:
    """Generated code asking the type of a value: its `__class__`, which CPython reads in one
    specialized step where `type(x)` is a call (half the time of the guard, and two bytecodes
    fewer); the same type for every value the rules make, none of which sets `__class__`."""
    if WHOLE.match(code):
        return "int"                    # a written whole number (no need to ask)
    return f"{code}.__class__" if _NAME.match(code) else f"({code}).__class__"


_NAME = re.compile(r"^[A-Za-z_]\w*$")
WHOLE = re.compile(r"^\d+$")           # a written whole number, in generated code


def same_in_place(op: str, a: str, b: str) -> str:
    """The guard, for two sides (code), under which Python's own `op` gives the semantics' answer;
    against a written whole number only the other side is asked (an int: both orders and == agree)."""
    asked = [side for side in (a, b) if not WHOLE.match(side)]
    if len(asked) < 2:
        return f"{type_of(asked[0])} is int" if asked else "True"
    if op in ("==", "!="):
        return f"{type_of(a)} is {type_of(b)} is not list"
    return f"{type_of(a)} is int is {type_of(b)}"



def append(target, value):
    if type(target) is not list:
        raise OperatorError(f"append needs a list, not {kind(target)}", "append LIST, VALUE adds at the end of a list")
    if len(target) >= MAX_LENGTH:
        raise ValueBound(f"a list grew past {MAX_LENGTH} items", "MAX_LENGTH")
    target.append(value)


# Operator -> the function generated code calls (others may add entries: one table, no if-ladder).
BINARY = {"+": add, "-": sub, "*": mul, "/": div, "%": mod, "in": contains}


# ------------------------------------------------------------ builtins
# What each builtin means, for every kind of value: the function that computes it. The
# generic functions themselves live in runtime_helpers and generic (shared with the
# engine); this table is the one place that says which function a builtin is, and the
# compiler reaches a builtin only through it (or through ENGINE_BUILTINS).
from . import runtime_helpers as _H  # noqa: E402 - runtime_helpers does not import this module

BUILTIN_FUNCTIONS = {
    "len": _H.len_, "abs": _H.abs_, "sum": _H.sum_, "min": _H.min_, "max": _H.max_,
    "floor": _H.floor, "ceil": _H.ceil, "clamp": _H.clamp, "distinct": _H.distinct, "first": _H.first,
    "dice": _H.dice_, "keep_highest": _H.keep_highest, "keep_lowest": _H.keep_lowest,
    "range": _H.range_, "slice": _H.slice_, "without": _H.without,
}

# Builtins that ask the running encounter (its combatants, its round, their controllers):
# methods of the engine of the same name.
ENGINE_BUILTINS = frozenset(("combatants", "round_number", "all_conditions", "grades", "act", "has", "cards",
                             "choose", "held"))

# floor(a / b) and ceil(a / b) without building the fraction: the function, and the same on two
# whole numbers in place (tests/test_semantics.py proves the two agree).
ROUNDED_DIVISION = {"floor": (floor_div, "{a} // {b}"), "ceil": (ceil_div, "-(-{a} // {b})")}
