"""What an encounter is checked against, read from a checked ruleset: its sheets' fields, its
tactics, conditions and their grades, the keys of its tables, the purposes rolls are made for,
its actions and reactions, and its options' values. Nothing here compiles: `grimorio check`
checks an encounter with these facts alone, and a run checks it with the same ones."""
from __future__ import annotations

from fractions import Fraction

from ..syntax import nodes as n
from ..syntax.constants import NotConstant, constant
from .encounter_check import Facts, combatant_choices
from .names import walk
from .sheets import fields_by_sheet

# Values a cell or an option may hold beyond the plain ones, as checks compare them: a scale is
# a number; dice and an outcome are values no written setting or key ever equals.
_MAKERS = {"scale": Fraction, "dice": lambda count, sides: ("dice", count, sides), "name": lambda name: ("outcome", name)}


def facts_of(rs) -> Facts:
    """The facts of a checked ruleset (its actions' parameters, and which are chosen among combatants, too) (the checker refused any cell or option that is not constant)."""
    sheets = rs.all(n.Sheet)
    return Facts({f.name: f for f in (sheets[0].fields if sheets else ())}, tuple(d.name for d in rs.all(n.Tactic)),
                 {d.name: tuple(d.grades) for d in rs.all(n.Condition)},
                 {d.name: _keys(d) for d in rs.all(n.Table)}, purposes(rs),
                 tuple(d.name for d in rs.all(n.Action)), tuple(d.name for d in rs.all(n.Reaction)), options(rs),
                 {d.name: tuple(p.name for p in d.params[1:]) for d in rs.all(n.Action)}, combatant_choices(rs),
                 {name: {f.name: f for f in fs} for name, fs in fields_by_sheet(sheets).items()})


def purposes(rs) -> frozenset:
    """What rolls are made for: each check's name, and the purpose written after `as` in a roll
    or a check's call anywhere in the rules."""
    out = {d.name for d in rs.all(n.Check)}
    for space in rs.spaces.values():
        for d in space.values():
            out.update(x.purpose for x in walk(d) if isinstance(x, (n.Roll, n.CheckCall)) and x.purpose)
    return frozenset(out)


def options(rs) -> dict:
    """Each option's value before an encounter sets it: its default, or the edition's setting."""
    out = {d.name: _value(d.default) for d in rs.all(n.Option)}
    for name, value in rs.edition.settings:
        if name in out:
            out[name] = _value(value)
    return out


def _keys(d: n.Table) -> tuple:
    """The keys a table's rows are found by (a table read by a roll is found by none)."""
    if d.dice is not None:
        return ()
    return tuple(_value(row[0]) for row in d.rows)


def _value(node):
    try:
        return constant(node, _MAKERS)
    except NotConstant:
        return None
