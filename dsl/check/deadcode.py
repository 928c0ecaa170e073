"""Dead data: what a ruleset declares but nothing reads. Warnings, not errors
(severity "warning"): the rules still run, but a designer who changed the data
would see no effect.

- W0703 a table column that no field access reads;
- W0704 rows of a dice table that no lookup can reach, from the range of
  whole numbers each lookup's key can take (a small interval analysis);
- W0705 an option no rule reads.
"""
from __future__ import annotations

from ..syntax import nodes as n
from ..diagnostics import Diagnostic
from .agreement import agreement_columns

Range = tuple[int, int] | None          # whole numbers low..high, or None: could be anything


def dead_data(rs) -> list[Diagnostic]:
    from ..editions.loader import prelude
    from .shadowing import nodes_of
    nodes = [x for _d, x in nodes_of(rs)]
    read = {x.name for x in nodes if isinstance(x, n.Attr)}
    # A column can also be read by a value that names it (fila[zona]): a text equal to its name, written
    # anywhere in the rules or their tables, may be such a key.
    read |= {x.value for x in nodes if isinstance(x, n.Const) and isinstance(x.value, str)}
    read |= {v for t in rs.all(n.Table) for row in t.rows for v in row if isinstance(v, str)}
    read |= agreement_columns(rs)
    options = {x.name for x in nodes if isinstance(x, n.OptionRef)}
    out = []
    for t in rs.all(n.Table):
        out += _columns(t, read)
        if t.dice is not None:
            out += _rows(t, [x for x in nodes if isinstance(x, n.Index) and _names(x.obj, t.name)],
                         {d.name: d for d in rs.all(n.Table)})
    # The prelude's options are policy the runtime itself reads (the default tactic, reactions per
    # event): read whoever declares them, the prelude or an edition that declares one again.
    policy = {d.name for d in prelude()[1] if isinstance(d, n.Option)}
    for o in rs.all(n.Option):
        if o.name not in options and o.name not in policy:
            out.append(_warn("W0705", f'no rule reads option "{o.name}"', o.span,
                             f'read it with "option {o.name}", or remove it'))
    from .coverage import coverage
    from .shadowing import shadowed
    # Not dead data, but what a run would miss as well: names that hide others, values no row answers.
    return out + shadowed(rs) + [d for d in coverage(rs) if d.severity == "warning"]


def _warn(code, message, span, help) -> Diagnostic:
    return Diagnostic(code, message, span, help, "warning")


def _names(node, name: str) -> bool:
    return isinstance(node, n.Name) and node.id == name


def _columns(t: n.Table, read: set[str]) -> list[Diagnostic]:
    out = []
    for col, span in list(zip(t.columns, t.header_spans))[1:]:       # the first column is the key
        if col not in read:
            out.append(_warn("W0703", f'no rule reads column "{col}" of table "{t.name}"', span,
                             f'a rule reads it as ROW.{col}; data nothing reads changes nothing'))
    return out


def _rows(t: n.Table, lookups, tables) -> list[Diagnostic]:
    if not lookups:
        return []
    reach = [key_range(x.key, tables) for x in lookups]
    if any(r is None for r in reach):
        return []
    out = []
    for row, span in zip(t.rows, t.row_spans):
        lo, hi = row[0]
        if not any(a <= hi and lo <= b for a, b in reach):
            rolls = f"{lo}" if lo == hi else f"{lo}-{hi}"
            where = ", ".join(f"{x.span} ({a} to {b})" for x, (a, b) in zip(lookups, reach))
            out.append(_warn("W0704", f'no lookup of table "{t.name}" reaches {rolls}', span,
                             f"it is looked up at {where}"))
    return out


# ------------------------------------------------------------------ the range of a lookup's key


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
