"""A conjunction of "does not hold" tests of one combatant's conditions, read as one.

`not has(c, A) and not has(c, B) and ...` asks a combatant's cards once per condition. The run
keeps its cards as a dict with a key for each condition held, and only those (engine.add and
engine.remove, the encounter's holds, a saved state's cards: every key a declared condition,
none with no card). So where the combatant holds no condition at all, every such test is true,
and where the tests name every condition the rules declare, the conjunction is exactly "holds
none". The emitter (inplace.holds_none) reads the sides of an `and` with `conjuncts` and `not_held`.
"""
from __future__ import annotations

from ...dsl.syntax import nodes as n


def conjuncts(x) -> list:
    """The sides of an `and` (any nesting of `and`: Python's `and` is associative), in order."""
    if type(x) is n.Binary and x.op == "and":
        return conjuncts(x.left) + conjuncts(x.right)
    return [x]


def not_held(x, bound):
    """`not has(W, C)` with C a declared condition (no grade asked): (W, C's name)."""
    if type(x) is not n.Unary or x.op != "not" or type(x.operand) is not n.Call:
        return None
    call = x.operand
    if type(call.func) is not n.Name or call.func.id != "has" or len(call.args) != 2:
        return None
    r = bound(call)
    if r is None or r.kind == "rule" or any(a.name is not None for a in call.args):
        return None
    cond = call.args[1].value
    held = bound(cond) if type(cond) is n.Name else None
    return (call.args[0].value, cond.id) if held is not None and held.kind == "condition" else None


def reads_only(node) -> bool:
    """A name, or a field of one (`c`, `e.who`, `x.y.z`): no call, nothing computed."""
    while type(node) is n.Attr:
        node = node.obj
    return type(node) is n.Name
