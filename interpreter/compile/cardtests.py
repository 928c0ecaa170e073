"""A conjunction of "does not hold" tests of one combatant's conditions, read as one.

`not has(c, A) and not has(c, B) and ...` asks a combatant's cards once per condition. The run
keeps its cards as a dict with a key for each condition held, and only those (engine.add and
engine.remove, the encounter's holds, a saved state's cards: every key a declared condition,
none with no card). So where the combatant holds no condition at all, every such test is true,
and where the tests name every condition the rules declare, the conjunction is exactly "holds
none". The emitter (inplace.binary_in_place) asks `absent_conditions` for the tests of an `and`.
"""
from __future__ import annotations

from ...dsl.syntax import nodes as n


def absent_conditions(x, bound) -> list | None:
    """For `not has(W1, C1) and not has(W2, C2) and ...` (any nesting of `and`), each test's
    (W node, condition name); None if any side of the `and` is something else."""
    tests = []
    for side in _conjuncts(x):
        test = _not_held(side, bound)
        if test is None:
            return None
        tests.append(test)
    return tests


def _conjuncts(x):
    if type(x) is n.Binary and x.op == "and":
        return _conjuncts(x.left) + _conjuncts(x.right)
    return [x]


def _not_held(x, bound):
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
