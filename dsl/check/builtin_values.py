"""What the generic builtins refuse in their values (dice(0, 6), keep_highest(4D6, 5), a range too
long): one place, read by check for values written in the rules (E0209, before anything runs)
and by the runtime for computed ones (interpreter/run/generic.py). So are a division by a written
zero and a row a table does not have, asked for by a written key."""
from __future__ import annotations

from fractions import Fraction

from ..syntax import nodes as n
from ..syntax.constants import NotConstant, constant, plain, written
from ..diagnostics import Diagnostic, GrimorioError, did_you_mean

from ..bounds import MAX_DICE as MAX_BUILT_DICE      # the documented bound of a dice value (10,000)
MAX_FACES, MAX_RANGE = 1_000_000, 100_000


def whole(v) -> int | None:
    """The language's whole number, the one definition check and run share: a number with no
    fractional part (4/2 is 2, a factor x2 is 2), never true or false; None for anything else."""
    if type(v) is bool:
        return None
    if isinstance(v, int):
        return int(v)
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v.numerator)
    return None


def dice_problem(count: int, faces: int) -> tuple[str, str] | None:
    """dice(count, faces): why it cannot be made (message, help), or None."""
    if 1 <= count <= MAX_BUILT_DICE and 1 <= faces <= MAX_FACES:
        return None
    limits = f"from 1 to {MAX_BUILT_DICE} dice of 1 to {MAX_FACES} faces"
    if count < 1 or faces < 1:
        return f"dice({count}, {faces}) rolls no dice", limits
    if count > MAX_BUILT_DICE:
        return f"dice({count}, {faces}) is too many dice (at most {MAX_BUILT_DICE})", limits
    return f"dice({count}, {faces}) has too many faces (at most {MAX_FACES})", limits


def keep_problem(name: str, dice: str, count: int, k: int) -> tuple[str, str] | None:
    """keep_highest/keep_lowest of `count` dice (written `dice`), keeping k."""
    return None if 1 <= k <= count else (f"{name}({dice}, {k}) keeps {k} of {count} dice", f"keep 1 to {count}")


def one_kind_problem(name: str, terms) -> tuple[str, str] | None:
    """dice_count(), dice_faces() of dice whose `terms` are (sign, count, faces): they take dice of one
    kind, added. The message holds {0} for the dice as written."""
    if len(terms) == 1 and terms[0][0] >= 0:
        return None
    if len(terms) == 1:
        return (name + "() takes dice that are added, not {0}: these dice are subtracted",
                f"write them without the minus sign: {name}({terms[0][1]}D{terms[0][2]}); "
                "to subtract, subtract the number it gives")
    return (name + "() takes dice of one kind, such as 2D6+1, not {0}",
            "dice of several kinds have no one count or faces: keep them apart in the rules "
            "(two columns, or a list of dice)")


class _Written:
    """Dice written out in the rules, as (sign, faces) -> count and a whole number added."""

    def __init__(self, terms, const=0):
        self.terms, self.const = terms, const

    def _join(self, other, sign):
        if type(other) is int:
            return _Written(self.terms, self.const + sign * other)
        if not isinstance(other, _Written):
            return NotImplemented
        terms = dict(self.terms)
        for (s, f), c in other.terms.items():
            terms[(s * sign, f)] = terms.get((s * sign, f), 0) + c
        return _Written(terms, self.const + sign * other.const)

    def __add__(self, other):
        return self._join(other, 1)

    def __sub__(self, other):
        return self._join(other, -1)

    def __radd__(self, other):
        return self._join(other, 1)

    def __rsub__(self, other):
        return (-self)._join(other, 1)

    def __neg__(self):
        return _Written({(-s, f): c for (s, f), c in self.terms.items()}, -self.const)

    def __str__(self):
        text = "".join(("-" if s < 0 else "+") + f"{c}D{f}" for (s, f), c in self.terms.items())
        return (text + (f"{self.const:+d}" if self.const else "")).lstrip("+")


def _one_kind(name):
    def problem(args):
        d = constant(args[0].value, {"dice": lambda count, faces: _Written({(1, faces): count}),
                                     "scale": lambda v: v, "name": lambda v: v})
        if not isinstance(d, _Written):
            raise NotConstant
        found = one_kind_problem(name, [(s, c, f) for (s, f), c in d.terms.items()])
        return None if found is None else (found[0].format(d), found[1])
    return problem


def range_problem(low: int, high: int) -> tuple[str, str] | None:
    return None if high - low < MAX_RANGE else (f"range({low}, {high}) is too long", f"at most {MAX_RANGE} numbers")


def _whole(node):
    v = whole(plain(node))
    if v is None:
        raise NotConstant
    return v


def _dice(args):
    return dice_problem(_whole(args[0].value), _whole(args[1].value))


def _keep(name):
    def problem(args):
        d = args[0].value
        if not isinstance(d, n.DiceLit):
            raise NotConstant
        written = "d100" if (d.count, d.sides) == (1, 100) else f"{d.count}D{d.sides}"
        return keep_problem(name, written, d.count, _whole(args[1].value))
    return problem


def _range(args):
    return range_problem(_whole(args[0].value), _whole(args[1].value))


def item_problem(length: int, k: int) -> tuple[str, str] | None:
    """LIST[k] of a list of `length` items, counted from 1 (-1 the last)."""
    if 1 <= k <= length or -length <= k <= -1:
        return None
    return (f"the list has {length} item{'s' if length != 1 else ''}; there is no item {k}",
            "items are counted from 1; -1 is the last")


# min() or max() of nothing: what the checker says of `min([])`, and a run of an empty list.
EMPTY_EXTREME = ("min() and max() need at least one value", "check the list is not empty first")


def _extreme(args):
    if len(args) == 1 and isinstance(args[0].value, n.ListExp) and not args[0].value.items:
        return EMPTY_EXTREME
    return None


# A builtin -> why its written arguments cannot be (raises NotConstant for what is not written out).
WRITTEN = {"min": _extreme, "max": _extreme, "dice": _dice, "range": _range,
           "keep_highest": _keep("keep_highest"), "keep_lowest": _keep("keep_lowest"),
           "dice_count": _one_kind("dice_count"), "dice_faces": _one_kind("dice_faces")}


def check_builtin_values(name: str, args, span) -> None:
    """A builtin called with values written out that it refuses (E0209, at the call)."""
    problem = WRITTEN.get(name)
    if problem is None:
        return
    try:
        found = problem(args)
    except NotConstant:
        return
    if found is not None:
        raise GrimorioError(Diagnostic("E0209", found[0], span, found[1]))


def check_divisor(node) -> None:
    """`/` or `%` by a written zero."""
    if isinstance(node, n.Const) and type(node.value) is int and node.value == 0:
        raise GrimorioError(Diagnostic("E0209", "division by zero", node.span, "divide by a number other than 0"))


def check_table_key(table: n.Table, key) -> None:
    """TABLE[KEY] with a written key that no row of a keyed table has."""
    if table.dice is not None or not all(isinstance(row[0], n.Const) for row in table.rows):
        return
    try:
        v = plain(key)
    except NotConstant:
        return
    keys = [row[0].value for row in table.rows]
    if v not in keys:
        raise GrimorioError(Diagnostic("E0209", f'table "{table.name}" has no row for {written(v)}', key.span,
                                       did_you_mean(str(v), [str(k) for k in keys]) or
                                       f"its keys are {', '.join(written(k) for k in keys[:12])}"))


def check_item(items, key) -> None:
    """A written list's item by a written position."""
    try:
        k = _whole(key)
    except NotConstant:
        return
    found = item_problem(len(items.items), k)
    if found is not None:
        raise GrimorioError(Diagnostic("E0209", found[0], key.span, found[1]))
