"""A tactic's preference tests what does not depend on a choice once, not once per choice.

A preference runs the first combination of its action's parameter values whose
costs, `requires` and `when` all hold (docs/language.md, Tactics). Written
naively, each condition is tested for every value of every parameter's list:
`hacer(yo, x in otros(yo), y in lista)` with `requires listo(yo)` walks every
x and y only to find, for each, that the actor is not ready. Here each
condition is split into the parts joined by `and`, and each part is tested as
soon as the parameters it names are chosen: a part that names only the actor
before any list is taken.
The answer is the same whenever every part and every list is pure (no roll,
check, event, message, card, action, question or change outside its own
locals, in it or in the rules it calls): a pure part gives the same value for
every choice, and testing it fewer times changes nothing (dsl/check/purity.py
says which are). Otherwise the preference is compiled as written: every part
for every combination.
"""
from __future__ import annotations

from ...dsl.syntax import nodes as n
from ...dsl.check.names import walk
from ..run.values import mangle
from .code import ACTOR


def conjuncts(x) -> list:
    """The parts of a condition joined by `and`, in the order they are tested."""
    if isinstance(x, n.Binary) and x.op == "and":
        return conjuncts(x.left) + conjuncts(x.right)
    return [x]


def level(x, later: list[str]) -> int:
    """How many of the parameters after the actor must be chosen before `x` can be tested."""
    named = {node.id for node in walk(x) if isinstance(node, n.Name)}
    return max((j + 1 for j, name in enumerate(later) if name in named), default=0)


def _parts(p: n.Pref, a: n.Action) -> list:
    """A preference's conditions, each part by itself: (kind, node, amount)."""
    parts = [("cost", f, amount) for f, amount in a.costs]
    parts += [("test", x, None) for r in a.requires for x in conjuncts(r)]
    return parts + [("test", x, None) for x in (conjuncts(p.when) if p.when is not None else ())]


def preference_parts(p: n.Pref, a: n.Action) -> list:
    """What a preference works out: each part of its conditions and each parameter's list (or
    given value); all pure, its conditions may be hoisted (optimizer.py)."""
    given = {arg.name: arg.value for arg in p.args}
    return ([x if kind == "test" else amount for kind, x, amount in _parts(p, a)]
            + [given.get(param.name, param.domain) for param in a.params[1:]])


def emit_preference(c, base: str, i: int, p: n.Pref, a: n.Action, hoist: bool):
    """One `act:` preference of a tactic, compiled into the tactic's function by compiler `c`:
    each parameter's list walked in order, each condition tested as soon as it can be where the
    plan hoists it (`hoist`), else every condition for every combination."""
    later = [param.name for param in a.params[1:]]
    given = {arg.name: arg.value for arg in p.args}
    parts = _parts(p, a)
    by_level: list[list] = [[] for _ in range(len(later) + 1)]
    for kind, x, amount in parts:
        by_level[level(amount if kind == "cost" else x, later) if hoist else len(later)].append((kind, x, amount))
    args, depth = [ACTOR], 1
    c.chosen = {}
    for j in range(len(later) + 1):
        if j:
            param = a.params[j]
            if c.asked is not None and param.name in given and level(given[param.name], later) == 0:
                source = _asked_value(c, a, j, given[param.name])
            else:
                source = (f"{base}{i}_arg{j}(_E, {', '.join(args)})" if param.name in given
                          else c.walked(param.domain, lambda: c.in_place(param.domain, a.params[:j], args)))
            c.emit(depth, f"for _v{j} in {source}:", p.span)
            args.append(f"_v{j}")
            depth += 1
        if by_level[j]:
            tests = [_code(c, a, args, part) for part in by_level[j]]
            c.emit(depth, f"if {' and '.join(tests)}:", p.span)
            depth += 1
    c.emit(depth, "_E.steps += 1")
    c.emit(depth, f"x_{c.gid('action', a.name)}(_E, {', '.join(args)})", p.span)
    c.emit(depth, "return True")


def _asked_value(c, a, j: int, value) -> str:
    """A parameter's value given by an expression of the actor alone, in a decision that asks
    each question once (compiler.asking_once): worked out here, its rule calls asked once, and
    noted as the value `_v{j}` stands for, so that a question of the actor and it (`combatiendo
    (objetivo)` where `objetivo: blanco(yo)`) is asked once too, whichever preference asks it
    (expressions.rule_call). None (no value) is no choice, as in the given value's function."""
    code = c.in_place(value, a.params[:1], [ACTOR])
    c.chosen[f"_v{j}"] = code
    t = c.tmp()
    return f"(() if ({t} := {code}) is None else ({t},))"


def _code(c, a, args, part) -> str:
    kind, x, amount = part
    known = a.params[:len(args)]
    if kind == "cost":
        return f"{args[0]}.{mangle(x)} >= ({c.in_place(amount, known, args)})"
    return f"({c.in_place(x, known, args)})"
