"""The whole numbers an expression can take (a small interval analysis): written numbers, lone rolls,
+ - *, % N, clamp, min, max, if-expressions and numeric cells of a catalogue. Dead data (deadcode.py)
finds the rows no lookup reaches with it; coverage.py finds the keys no row answers."""
from __future__ import annotations

from ..syntax import nodes as n

Range = tuple[int, int] | None          # whole numbers low..high, or None: could be anything


def key_range(x, tables=None) -> Range:
    """The whole numbers an expression can take, or None when that is not known. `tables`: the ruleset's
    tables by name, so that a cell read from one (`otra["k"].col`) ranges over that column's numbers."""
    fn = RANGES.get(type(x))
    return fn(x, tables or {}) if fn else None


def _cell(x: n.Attr, tables) -> Range:
    t = tables.get(x.obj.obj.id) if isinstance(x.obj, n.Index) and isinstance(x.obj.obj, n.Name) else None
    if t is None or x.name not in t.columns[1:]:
        return None
    cells = [row[t.columns.index(x.name)] for row in t.rows]
    values = [c.value if isinstance(c, n.Const) else c for c in cells]
    if not values or any(type(v) is not int for v in values):
        return None
    return (min(values), max(values))


def _const(x: n.Const, _tables) -> Range:
    v = x.value
    return (v, v) if type(v) is int else None


def _roll(x: n.Roll, _tables) -> Range:
    d = x.dice
    return (d.count, d.count * d.sides) if isinstance(d, n.DiceLit) else None


def _unary(x: n.Unary, tables) -> Range:
    r = key_range(x.operand, tables)
    return (-r[1], -r[0]) if x.op == "-" and r else None


def _binary(x: n.Binary, tables) -> Range:
    left, right = key_range(x.left, tables), key_range(x.right, tables)
    if x.op == "%" and right and right[0] == right[1] and right[0] > 0:
        if left and 0 <= left[0] and left[1] < right[0]:
            return left                     # already below m: x % m is x
        return (0, right[0] - 1)            # whatever the left side: x % m is 0..m-1 for m > 0
    if left is None or right is None:
        return None
    if x.op == "+":
        return (left[0] + right[0], left[1] + right[1])
    if x.op == "-":
        return (left[0] - right[1], left[1] - right[0])
    if x.op == "*":
        ends = [a * b for a in left for b in right]
        return (min(ends), max(ends))
    return None


def _call(x: n.Call, tables) -> Range:
    if not isinstance(x.func, n.Name) or x.func.id not in ("clamp", "min", "max"):
        return None
    args = [key_range(a.value, tables) for a in x.args]
    if x.func.id == "clamp" and len(args) == 3 and args[1] and args[2]:
        inner = args[0] or (args[1][0], args[2][1])
        return (max(inner[0], args[1][0]), min(inner[1], args[2][1]))
    if None in args or not args or len(x.args) < 2:
        return None
    pick = min if x.func.id == "min" else max
    return (pick(a[0] for a in args), pick(a[1] for a in args))


def _ifexp(x: n.IfExp, tables) -> Range:
    a, b = key_range(x.then, tables), key_range(x.other, tables)
    return (min(a[0], b[0]), max(a[1], b[1])) if a and b else None


RANGES = {n.Const: _const, n.Roll: _roll, n.Unary: _unary, n.Binary: _binary, n.Call: _call, n.IfExp: _ifexp,
          n.Attr: _cell}
