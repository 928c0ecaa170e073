"""Locals that always hold a combatant (the optimizer's `combatants` facts; `c[text]` then reads the
field with no test of what `c` is).

An action's or a reaction's first parameter, its actor, is a combatant wherever its body runs: the
engine runs an action for the combatant whose tactic (or script) chose it, and a reaction for the
reactor whose tactic (or script) chose it; a script's decision is asked only of a combatant
(engine._scripted). Its requirements are tested for a reactor the event names before any choice
(the event's function, compiled in place), so a reaction's actor read inside its requirements or
costs is no such fact. A local or a rule's parameter is a combatant when every value the text gives
it is (a `let`, a `set`, every call of the rule, which the text only ever calls by name): the
greatest fixpoint, as for whole numbers (wholes.py, the model).

An encounter's own code is compiled later, against the program: `combatants_broken_by` says
whether it passes such a parameter anything the facts do not show a combatant; that encounter
then runs on the plain program (compiler.Snippets).
"""
from __future__ import annotations

from ...dsl.records import dataclass

from ...dsl.syntax import nodes as n
from ...dsl.check.names import walk
from ...dsl.syntax.nodes import every_node

from .wholes import argument_of, writes


@dataclass(frozen=True)
class Combatants:
    slots: frozenset = frozenset()      # the resolver's slots that always hold a combatant
    offered: frozenset = frozenset()    # id() of the nodes read where an event offers a reaction
    reactors: frozenset = frozenset()   # the slots of the reactions' actors

    def holds(self, node, bound) -> bool:
        """Whether `node` surely gives a combatant of the run, these facts given."""
        return combatant(node, bound, self.slots, self.offered, self.reactors)


NONE = Combatants()


def combatant(node, bound, slots, offered, reactors) -> bool:
    """`node` gives a combatant, when the slots `slots` hold only combatants (a reactor's slot but
    where an event offers its reactions: `offered`)."""
    if type(node) is not n.Name:
        return False
    r = bound(node)
    if r is None:
        return False
    if r.kind == "combatant":
        return True
    return r.kind == "local" and r.target in slots and not (r.target in reactors and id(node) in offered)


def offered_nodes(ruleset) -> frozenset:
    """id() of the nodes read where an event offers a reaction: its requirements and costs."""
    return frozenset(id(x) for d in ruleset.all(n.Reaction) for part in (*d.requires, *(a for _f, a in d.costs))
                     for x in walk(part))


def combatant_slots(ruleset, nodes, bindings) -> Combatants:
    """The greatest set of slots that only ever hold a combatant."""
    actions, reactions = ruleset.all(n.Action), ruleset.all(n.Reaction)
    actors = {bindings.slot(d.params[0]) for d in (*actions, *reactions) if d.params and bindings.has_slot(d.params[0])}
    reactors = frozenset(bindings.slot(d.params[0]) for d in reactions if d.params and bindings.has_slot(d.params[0]))
    offered = offered_nodes(ruleset)
    _fields, slots_w, others = writes(ruleset, nodes, bindings)
    params = {id(d.params[0]) for d in (*actions, *reactions) if d.params}
    lets = {id(x) for x in every_node(nodes) if type(x) is n.Let}
    # An actor's slot that its parameter alone binds, and `let`s (their values asked below).
    binders: dict = {}
    for key, slot in bindings.slots.items():
        if slot in actors:
            binders.setdefault(slot, []).append(key)
    slots = frozenset(s for s in actors if all(k in params or k in lets for k in binders.get(s, ()))) | \
        frozenset(s for s in slots_w if s not in others)
    bound = bindings.of
    while True:
        kept = frozenset(s for s in slots if all(combatant(v, bound, slots, offered, reactors)
                                                 for v in slots_w.get(s, ())))
        if kept == slots:
            return Combatants(slots, offered, reactors)
        slots = kept


def combatants_broken_by(facts: Combatants, nodes, bindings, bound) -> bool:
    """Whether an encounter's own code (`nodes`, its `bindings`) would pass a rule's parameter of the
    facts anything they do not show a combatant."""
    if not facts.slots:
        return False
    for x in every_node(nodes):
        if type(x) is n.Call and isinstance(x.func, n.Name):
            r = bound(x)
            if r is not None and r.kind == "rule" and any(
                    bindings.has_slot(p) and bindings.slot(p) in facts.slots and not facts.holds(v, bound)
                    for p, v in argument_of(r.target, x)):
                return True
        if type(x) is n.Name and bound(x) is not None and bound(x).kind == "rule":
            called = any(type(y) is n.Call and y.func is x for y in every_node(nodes))
            if not called and any(bindings.has_slot(p) and bindings.slot(p) in facts.slots for p in bound(x).target.params):
                return True
    return False
