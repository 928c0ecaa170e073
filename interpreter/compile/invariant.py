"""Rules whose list is the same all run long for the same arguments.

A rule that only returns a comprehension over `combatants()` (or over such a
comprehension), filtered by comparing the combatants, their sides and constants
with == and !=, gives the same list whenever it is called with the same
arguments, until a rule sets a side: the prelude's `enemies(c)` and `allies(c)`
are of this kind. The compiler calls such a rule through `Engine.memo`, which
works the list out once per run and key instead of walking every combatant on
every call. A parameter the filter reads only as `p.side` is keyed by its side:
`enemies(c)` is worked out once per side, so a tactic choosing among its
enemies costs the same per combatant with 2 combatants or 256.
"""
from __future__ import annotations

from ...dsl.syntax import nodes as n

# How each parameter makes the key (one letter per parameter, see Engine.memo):
BY_VALUE = "v"     # compared as it is (==, !=): any value that can be a key
BY_SIDE = "s"      # only its side is read: a combatant, keyed by its side
BY_BOTH = "b"      # both: a combatant, keyed by itself


def memo_kinds(rule: n.Rule, bound) -> str | None:
    """One letter per parameter if `rule` returns such a list, else None.
    `bound(node)`: what a name node means, as the resolver bound it (the compiler's `bound`)."""
    body = rule.body
    if len(body) != 1 or not isinstance(body[0], n.Return) or not isinstance(body[0].value, n.Comprehension):
        return None
    params = [p.name for p in rule.params]
    uses: dict[str, set] = {p: set() for p in params}
    if not _listed(body[0].value, bound, _Uses(uses)):
        return None
    return "".join(BY_BOTH if len(uses[p]) > 1 else BY_SIDE if uses[p] == {"side"} else BY_VALUE for p in params)


class _Uses:
    """What the filter reads of each parameter (a comprehension's variable hides one of the same name)."""

    def __init__(self, uses, hidden=frozenset()):
        self.uses, self.hidden = uses, hidden

    def note(self, name, how):
        if name in self.uses and name not in self.hidden:
            self.uses[name].add(how)

    def hide(self, name) -> "_Uses":
        return _Uses(self.uses, self.hidden | {name})


def _listed(x, bound, uses) -> bool:
    """A list of combatants that no rule changes during a run."""
    if isinstance(x, n.Call) and isinstance(x.func, n.Name) and not x.args:
        r = bound(x.func)
        return r is not None and r.kind == "builtin" and r.target == "combatants"
    if isinstance(x, n.Comprehension) and not x.more:
        within = uses.hide(x.var)
        return (_listed(x.iter, bound, uses) and isinstance(x.elt, n.Name) and x.elt.id == x.var
                and (x.cond is None or _test(x.cond, bound, within)))
    return False


def _test(x, bound, uses) -> bool:
    if isinstance(x, n.Binary) and x.op in ("and", "or"):
        return _test(x.left, bound, uses) and _test(x.right, bound, uses)
    if isinstance(x, n.Binary) and x.op in ("==", "!="):
        return _atom(x.left, bound, uses) and _atom(x.right, bound, uses)
    if isinstance(x, n.Unary) and x.op == "not":
        return _test(x.operand, bound, uses)
    return False


def _atom(x, bound, uses, how="value") -> bool:
    """A value that stays put: a constant, a parameter or the element, or the side of one."""
    if isinstance(x, n.Const):
        return type(x.value) in (str, int, bool) or x.value is None
    if isinstance(x, n.Name):
        r = bound(x)
        if r is None or r.kind != "local":
            return False
        uses.note(x.id, how)
        return True
    if isinstance(x, n.Attr) and x.name == "side" and isinstance(x.obj, n.Name):
        return _atom(x.obj, bound, uses, "side")
    return False
