"""Whether expressions, and the rules they call, change nothing: no roll, check, event, message,
card, action, question or change outside their own locals. The compiler's preferences test a pure
condition once (interpreter/compile/hoisting.py); the checker refuses a message argument that is
not pure, since a message's arguments are worked out only while a transcript is kept (E0245)."""
from __future__ import annotations

from ..syntax import nodes as n
from ..diagnostics import Diagnostic
from .names import Resolver, Scope, walk

# What changes the run or asks someone, wherever it stands.
_EFFECTS = (n.Roll, n.CheckCall, n.Emit, n.Say, n.CardOp, n.Act, n.Stop, n.Expect)
_ASKING = frozenset(("act", "choose"))      # builtins that ask a controller


class Purity:
    """Whether expressions, and the rules they call, have no effect (cached per rule)."""

    def __init__(self, ruleset, resolver):
        self.resolver = resolver
        self.vars = {v.name for v in ruleset.all(n.Var)}
        self.rules: dict[str, bool] = {}

    def expr(self, x) -> bool:
        for node in walk(x):
            if isinstance(node, _EFFECTS):
                return False
            if isinstance(node, n.Call) and not self._call(node):
                return False
        return True

    def _call(self, x) -> bool:
        r = self.resolver.resolve(x.func.id, Scope())
        if r is None:
            return False
        if r.kind == "builtin":
            return r.target not in _ASKING
        return r.kind == "rule" and self.rule(r.target)

    def rule(self, d: n.Rule) -> bool:
        known = self.rules.get(d.name)
        if known is None:
            self.rules[d.name] = False              # a rule that calls itself back is taken as impure
            known = self.rules[d.name] = self.block(d.body, {p.name for p in d.params})
        return known

    def block(self, body, bound=frozenset()) -> bool:
        """Statements that change nothing outside their own locals (`bound`: names bound around
        them, such as parameters, which they must not take for lists of their own)."""
        nodes = list(walk(body))
        fresh = self._fresh_lists(nodes, set(bound))
        for node in nodes:
            if isinstance(node, _EFFECTS) or (isinstance(node, n.Call) and not self._call(node)):
                return False
            if isinstance(node, n.Set) and not (isinstance(node.target, n.Name) and node.target.id not in self.vars):
                return False
            if isinstance(node, n.Append) and not (isinstance(node.target, n.Name) and node.target.id in fresh):
                return False
        return True

    def _fresh_lists(self, nodes, params) -> set:
        """Locals only ever bound to a list made here: appending to them changes nothing outside."""
        made, other = set(), set(params) | self.vars
        for node in nodes:
            if isinstance(node, n.Let):
                (made if isinstance(node.value, (n.ListExp, n.Comprehension)) else other).add(node.name)
            elif isinstance(node, n.Set) and isinstance(node.target, n.Name):
                other.add(node.target.id)
            elif isinstance(node, n.For):
                other.add(node.var)
        return made - other


def say_arguments(rs) -> list[Diagnostic]:
    """E0245: an argument of `say` that changes something or rolls. `say` works its arguments out only
    when a transcript is kept, so under simulate (no transcript) the change would not happen, and the
    same seed would give another run than the transcript tells."""
    names = Resolver(rs)
    pure, out = Purity(rs, names), []
    for s in _says(rs):
        for a in s.args:
            unknown = any(isinstance(x, n.Call) and isinstance(x.func, n.Name) and names.callee(x.func.id) is None
                          for x in walk(a.value))           # the resolver reports those
            if not unknown and not pure.expr(a.value):
                out.append(Diagnostic(
                    "E0245", "an argument of say cannot change anything or roll", a.value.span,
                    "say works its arguments out only when a transcript is kept, so simulate would skip "
                    "them; do it first (let x = ...), then say x"))
    return out


def _says(rs):
    seen = set()
    for space in rs.spaces.values():
        for d in space.values():
            if isinstance(d, n.Decl) and id(d) not in seen:
                seen.add(id(d))
                yield from (x for x in walk(d) if isinstance(x, n.Say))
