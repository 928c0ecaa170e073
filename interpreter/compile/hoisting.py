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


def lead_cost(p: n.Pref, a: n.Action, hoist: bool):
    """The cost a preference tests first, where it is tested before any parameter is chosen
    (`hoist`): (field, written whole amount); else None. Two preferences with the same one test
    the same thing of the actor (compiler._tactic_act tests it once for a run of them)."""
    if not hoist or not a.costs:
        return None
    f, amount = a.costs[0]
    return (f, amount.value) if isinstance(amount, n.Const) and type(amount.value) is int else None


def emit_preferences(c, base: str, prefs: list, shared: bool):
    """A tactic's `act:` preferences, in order (`prefs`: (index, preference, action, hoisted)). Where
    the decision asks each question once (`shared`: every part pure, optimizer.asked_once), nothing
    changes from one preference to the next, so
    - a run of preferences that test the same cost first (lead_cost) tests it once: the run goes
      under one `if`, each preference without it;
    - a question of the actor alone that a preference's first test asks is surely answered in what
      follows it (to the end of the decision, or of the run of preferences it stands in): where a
      later preference asks it again, the first names its answer (`_q…`), the later read it."""
    keys = [lead_cost(p, a, hoist) if shared else None for _i, p, a, hoist in prefs]
    top: dict = {}                      # questions answered for the rest of the decision
    for k, (i, p, a, hoist) in enumerate(prefs):
        key = keys[k]
        joined = key is not None and k > 0 and keys[k - 1] == key
        opens = key is not None and not joined and k + 1 < len(keys) and keys[k + 1] == key
        if not joined:
            c.sure = dict(top)
        if opens:
            c.emit(1, f"if {_code(c, a, [ACTOR], ('cost', *a.costs[0]))}:", p.span)
        grouped = joined or opens
        scope = prefs[k:]               # where an answer named by its first test is sure
        if grouped:
            scope = [q for m, q in enumerate(prefs[k:], k) if keys[m] == key and all(keys[k:m + 1])]
        after = [(b, preference_parts(q, b)) for _i, q, b, _h in scope]
        bound = emit_preference(c, base, i, p, a, hoist, 2 if grouped else 1, grouped, after if shared else None)
        if bound is not None and not grouped:
            top[bound[0]] = bound[1]
    c.sure = {}


def emit_preference(c, base: str, i: int, p: n.Pref, a: n.Action, hoist: bool, depth: int = 1,
                    paid: bool = False, after=None):
    """One `act:` preference of a tactic, compiled into the tactic's function by compiler `c`:
    each parameter's list walked in order, each condition tested as soon as it can be where the
    plan hoists it (`hoist`), else every condition for every combination. `paid`: its first cost
    is tested already, by the `if` it stands in (emit_preferences). `after`: the parts of the
    decision its first test comes before, where that test's question, of the actor alone, is
    named if one of them asks it again (c.sure; None: nothing named). Returns what it named:
    (question, local), or None."""
    later = [param.name for param in a.params[1:]]
    given = {arg.name: arg.value for arg in p.args}
    parts = _parts(p, a)[1 if paid else 0:]
    by_level: list[list] = [[] for _ in range(len(later) + 1)]
    for kind, x, amount in parts:
        by_level[level(amount if kind == "cost" else x, later) if hoist else len(later)].append((kind, x, amount))
    args = [ACTOR]
    c.chosen = {}
    named = None
    looped = False                      # a parameter's list walked: what follows may run again
    for j in range(len(later) + 1):
        if j:
            param = a.params[j]
            if c.asked is not None and param.name in given and level(given[param.name], later) == 0:
                # one value or none: no list to walk; outside any walk, it is worked out once here
                c.fresh = given[param.name] if not looped else None
                try:
                    code = _asked_value(c, a, j, given[param.name])
                finally:
                    c.fresh = None
                c.emit(depth, f"if (_v{j} := {code}) is not None:", p.span)
            else:
                looped = True
                source = (f"{base}{i}_arg{j}(_E, {', '.join(args)})" if param.name in given
                          else c.walked(param.domain, lambda: c.in_place(param.domain, a.params[:j], args)))
                c.emit(depth, f"for _v{j} in {source}:", p.span)
            args.append(f"_v{j}")
            depth += 1
        if by_level[j]:
            first = by_level[j][0]
            if j == 0 and after is not None and first[0] == "test":
                call = _question(first[1])
                rule = actor_question(c, call, a)
                if rule is not None and sum(actor_question(c, x, b, rule) is not None
                                            for b, parts in after for x in walk(tuple(parts))) > 1:
                    c.bind, c.bound_now = call, None
            tests = []
            for part in by_level[j]:
                # before any list is walked, a question a part asks (alone, or under `not`) that
                # nothing before it in the decision asks is asked here for the first time
                c.fresh = _question(part[1]) if j == 0 and after is not None and part[0] == "test" else None
                try:
                    tests.append(_code(c, a, args, part))
                finally:
                    c.bind = c.fresh = None
                if c.bound_now is not None:
                    named, c.bound_now = c.bound_now, None
                    c.sure = {**c.sure, named[0]: named[1]}
            c.emit(depth, f"if {' and '.join(tests)}:", p.span)
            depth += 1
    c.emit(depth, "_E.steps += 1")
    c.emit(depth, f"x_{c.gid('action', a.name)}(_E, {', '.join(args)})", p.span)
    c.emit(depth, "return True")
    return named


def _question(x):
    """The call a condition's part is, alone or under `not` (else the part itself)."""
    return x.operand if isinstance(x, n.Unary) and x.op == "not" else x


def actor_question(c, x, a: n.Action, rule=None):
    """The rule that `x` asks of the actor alone (a call of it whose every argument is the action's
    first parameter, as the resolver bound them), if it is `rule` (any rule where None); else None."""
    if not isinstance(x, n.Call) or not x.args:
        return None
    r = c.bound(x)
    if r is None or r.kind != "rule" or (rule is not None and r.target.name != rule):
        return None
    actor = c.slot(a.params[0])
    for arg in x.args:
        b = c.bound(arg.value) if isinstance(arg.value, n.Name) else None
        if b is None or b.kind != "local" or b.target != actor:
            return None
    return r.target.name


def _asked_value(c, a, j: int, value) -> str:
    """A parameter's value given by an expression of the actor alone, in a decision that asks
    each question once (compiler.asking_once): worked out here, its rule calls asked once, and
    noted as the value `_v{j}` stands for, so that a question of the actor and it (`combatiendo
    (objetivo)` where `objetivo: blanco(yo)`) is asked once too, whichever preference asks it
    (expressions.rule_call). None (no value) is no choice, as in the given value's function:
    the preference tests it and goes on with the value, with no list to walk."""
    # The value stands for the question it asks (or, for any other expression, its code, written
    # as in every preference: no answer named), whichever form the code takes here.
    saved, c.sure, c.question = c.sure, {}, None
    try:
        code = c.in_place(value, a.params[:1], [ACTOR])
        asked = c.question[1] if c.question is not None and c.question[0] is value else code
    finally:
        c.sure, c.question = saved, None
    c.chosen[f"_v{j}"] = asked
    return code


def _code(c, a, args, part) -> str:
    kind, x, amount = part
    known = a.params[:len(args)]
    if kind == "cost":
        return f"{args[0]}.{mangle(x)} >= ({c.in_place(amount, known, args)})"
    return f"({c.in_place(x, known, args)})"
