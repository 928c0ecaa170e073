"""What the checker says of a search (`first|any|all X in LIST where COND [else VALUE]`) before
anything runs: a condition that never reads the item, and an item read from a `first` that may
find nothing (docs/language.md, Searches; docs/errors.md, E0290 and E0291)."""
from __future__ import annotations

from ..syntax import nodes as n
from .names import walk


def search_problems(x: n.Search) -> list[tuple]:
    """(code, message, span, help) of each problem of this search."""
    reads = any(isinstance(v, n.Name) and v.id == x.var for v in walk(x.cond))
    if reads:
        return []
    return [("E0290", f'this search\'s condition never reads "{x.var}": it is the same for every item',
             x.cond.span, f"name the item in the condition ({x.kind} {x.var} in LIST where {x.var}.FIELD ...); "
             "to ask whether a list has items, len(LIST) > 0")]


def unguarded_first(obj) -> tuple | None:
    """(code, message, span, help) when `obj`, read for a field or an item, is a `first` search that
    gives none when no item matches."""
    if not isinstance(obj, n.Search) or obj.kind != "first" or obj.default is not None:
        return None
    return ("E0291", f'"first {obj.var} in ... where ..." gives none when no item matches, and none has '
                     "no fields or items", obj.span,
            "keep it in a let and test it (if x != none:), or say what it gives then: "
            f"first {obj.var} in LIST where COND else VALUE")
