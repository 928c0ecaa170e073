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
from .ranges import key_range


def dead_data(rs) -> list[Diagnostic]:
    from ..editions.files import prelude
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
    from .shadowing import hidden_builtins, shadowed
    # Not dead data, but what a run would miss as well: names that hide others, values no row answers.
    return out + shadowed(rs) + hidden_builtins(rs) + [d for d in coverage(rs) if d.severity == "warning"]


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
