"""Vars that only ever hold a map (the optimizer's `maps` facts; `m[k]` then asks the map's own
dict in place, with no test of what `m` is).

A var holds a map when it is a `session` var (a saved state keeps none of them, so no file gives
it another value) whose value is `map()`, and every `set V = v` of it gives `map()`: a fresh map,
always. Its items (`set V[k] = v`) change, the map stays a map.

An encounter's own code is compiled later, against the program: `maps_broken_by` says whether it
sets such a var to anything else; that encounter then runs on the plain program (compiler.Snippets).
"""
from __future__ import annotations

from ...dsl.syntax import nodes as n
from ...dsl.syntax.nodes import every_node


def fresh_map(node, bound) -> bool:
    """`node` is a call of the builtin map(): a new, empty map."""
    if type(node) is not n.Call or not isinstance(node.func, n.Name) or node.args:
        return False
    r = bound(node)
    return r is not None and r.kind == "builtin" and r.target == "map"


def set_vars(nodes, bound):
    """(name, value) of each `set V = value` of a var under `nodes`."""
    for x in every_node(nodes):
        if type(x) is n.Set and type(x.target) is n.Name:
            r = bound(x.target)
            if r is not None and r.kind == "var":
                yield x.target.id, x.value


def map_vars(ruleset, nodes, bindings) -> frozenset:
    """The names of the vars that only ever hold a map."""
    bound = bindings.of
    found = {v.name for v in ruleset.all(n.Var) if v.session and fresh_map(v.value, bound)}
    found -= {name for name, value in set_vars(nodes, bound) if not fresh_map(value, bound)}
    return frozenset(found)


def maps_broken_by(maps: frozenset, nodes, bound) -> bool:
    """Whether an encounter's own code sets such a var to anything but map()."""
    return bool(maps) and any(name in maps and not fresh_map(value, bound) for name, value in set_vars(nodes, bound))
