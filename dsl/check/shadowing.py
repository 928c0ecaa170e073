"""Names that read as something else: a declaration or a local named like dice (`rule d20(adv):`
is accepted, then every `d20(true)` reads as dice), an error; a `let` that takes the name of an
outcome, a table, a condition, a var or a list of outcomes for the rest of its block (`let top =
...` and `top` no longer means the outcome), a warning; a rule named like a builtin (`rule
standing():` and every `standing()` calls the rule), a warning."""
from __future__ import annotations

import re

from ..syntax import nodes as n
from ..diagnostics import Diagnostic, Span
from .names import BUILTINS, walk

DICE_NAME = re.compile(r"[0-9]*[dD][0-9]+")          # the grammar's DICE token, whole

_NODES: dict[tuple, tuple] = {}     # the declarations' ids -> (them, every (declaration, node) under them)


def nodes_of(rs) -> list[tuple]:
    """(declaration, node) for every node under every declaration, walked once for a set of declarations
    (the checker and the warnings both read them; the declarations are frozen, and held here so that their
    ids stay theirs)."""
    decls = tuple(d for space in rs.spaces.values() for d in space.values())
    key = tuple(map(id, decls))
    held = _NODES.get(key)
    if held is None:
        held = _NODES[key] = (decls, [(d, x) for d in decls if isinstance(d, n.Decl) for x in walk(d)])
        while len(_NODES) > 8:
            del _NODES[next(iter(_NODES))]
    return held[1]


def dice_names(rs) -> list[Diagnostic]:
    """E0235: a name the grammar reads as dice wherever it is written as a value or called."""
    out = []
    for space in rs.spaces.values():
        for d in space.values():
            if isinstance(d, n.Decl) and DICE_NAME.fullmatch(d.name) and not isinstance(d, (n.Edition, n.Module)):
                kind = n.KIND_OF.get(type(d), "declaration")
                out.append(_dice(kind, d.name, _name_span(d, kind)))
    for _d, x in nodes_of(rs):
        if isinstance(x, n.Let) and DICE_NAME.fullmatch(x.name):
            out.append(_dice("local", x.name, x.span))
        elif isinstance(x, n.Param) and DICE_NAME.fullmatch(x.name):
            out.append(_dice("parameter", x.name, x.span))
    return out


def _name_span(d, kind: str):
    """Where a declaration's name is, on its first line after its keyword (`rule d20(...)`)."""
    sp = d.span
    col = sp.col + len(kind) + 1
    return Span(sp.file, sp.line, col, sp.line, col + len(d.name))


def _dice(what: str, name: str, span) -> Diagnostic:
    return Diagnostic("E0235", f'a {what} cannot be named "{name}": that is dice', span,
                      f"{name}(...) and {name} read as the dice {name.upper()}; give it a name that is not "
                      f"dice, such as tirar_{name.lower()}")


SHADOWED = {n.Table: "table", n.Condition: "condition", n.Var: "var", n.Outcomes: "list of outcomes"}


def shadowed(rs) -> list[Diagnostic]:
    """W0236: a `let` that hides an outcome, a table, a condition, a var or a list of outcomes."""
    values = rs.space("value")
    outcomes = {v: o for o in rs.all(n.Outcomes) for v in o.values}
    out = []
    for _d, x in nodes_of(rs):
        if not isinstance(x, n.Let):
            continue
        hidden = values.get(x.name)
        if hidden is not None and type(hidden) in SHADOWED:
            what = f'{SHADOWED[type(hidden)]} "{x.name}"'
        elif x.name in outcomes:
            what = f'outcome "{x.name}" of "{outcomes[x.name].name}"'
        else:
            continue
        out.append(Diagnostic(
            "W0236", f"this let hides the {what} for the rest of the block", x.span,
            f"after it, {x.name} is this local, not the {what.split(' ')[0]}; give the local another "
            "name", "warning"))
    return out


def hidden_builtins(rs) -> list[Diagnostic]:
    """W0240: a rule named like a builtin, which every call of that name then reaches instead."""
    return [Diagnostic("W0240", f'rule "{r.name}" hides the builtin {r.name}()', _name_span(r, "rule"),
                       f"every {r.name}(...) in these rules now calls this rule, not the builtin "
                       f"({BUILTINS[r.name][2]}); give the rule another name", "warning")
            for r in rs.all(n.Rule) if r.name in BUILTINS]
