"""Whether every combatant's side is a text (the optimizer's `text_sides` fact): then a comparison
with a combatant's side is Python's own `==` or `!=`, with no guard of the two values' types.

Python's equality of a text with anything is the language's (values.same): a text equals only an
equal text; none, a truth, a number, a list or a combatant is never equal to one. So one side of
`==` known a text is enough.

A combatant's side is given where the encounter makes it (its `side` line, or the prelude's option
naming the default side, a text) and changed only by `set x.side = ...` (a saved state holds no side).
The program's text holds the fact when every value it sets a side to is a text: a written text, or
the side or name of a combatant. Where an encounter makes a combatant whose side is no text (a
number, true), or its own code sets a side to anything else, it runs on the plain program
(`sides_broken_by`, compiler.Snippets.for_code).
"""
from __future__ import annotations

from ...dsl.syntax import nodes as n
from ...dsl.check.names import walk

from .wholes import writes


def text_value(node, holds) -> bool:
    """`node` surely gives a text when sides are texts: a written text, or a combatant's side or
    name (`holds(node)`: the node surely gives a combatant)."""
    if type(node) is n.Const:
        return type(node.value) is str
    return type(node) is n.Attr and node.name in ("side", "name") and holds(node.obj)


def side_read(node, holds) -> bool:
    """`node` reads a combatant's side."""
    return type(node) is n.Attr and node.name == "side" and holds(node.obj)


# Builtins whose answer is a list of the run's combatants.
_MEMBERS = ("combatants", "standing")


def member_slots(nodes, bindings) -> frozenset:
    """The slots of the comprehensions' variables that walk a list of the run's combatants
    (`[x for x in combatants() if ...]`): nothing else binds them, so each holds a combatant."""
    bound = bindings.of
    out = set()
    for x in walk(tuple(nodes)):
        if type(x) is n.Comprehension:
            for i, (_var, items, _cond) in enumerate(x.clauses()):
                if (type(items) is n.Call and isinstance(items.func, n.Name) and items.func.id in _MEMBERS
                        and not items.args and (r := bound(items)) is not None and r.kind == "builtin"):
                    out.add(bindings.slot(x, i))
    return frozenset(out)


def member(node, bound, slots) -> bool:
    """`node` reads the variable of a comprehension over the run's combatants (member_slots)."""
    if type(node) is not n.Name:
        return False
    r = bound(node)
    return r is not None and r.kind == "local" and r.target in slots


def text_sides(ruleset, decls, bindings, combatants) -> bool:
    """Whether every value the program's text sets a side to is a text."""
    fields = writes(ruleset, decls, bindings)[0]
    bound = bindings.of
    return all(text_value(v, lambda x: combatants.holds(x, bound)) for v in fields.get("side", ()))


def sides_broken_by(nodes, sides, holds) -> bool:
    """Whether an encounter breaks the fact: a combatant it makes has a side that is no text
    (`sides`: each combatant's side), or its own code (`nodes`) sets a side to what is not surely one."""
    if any(side.__class__ is not str for side in sides):
        return True
    return any(type(x) is n.Set and type(x.target) is n.Attr and x.target.name == "side"
               and not text_value(x.value, holds) for x in walk(tuple(nodes)))
