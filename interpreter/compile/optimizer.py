"""The optimizer: a pass over the checked declarations, run before any code is emitted, that
returns the plan the one emitter follows (Jinja2's optimizer pass is the model).

The plan holds what the facts of the nodes prove (dsl/check/purity.py says which expressions
and rules change nothing; magnitude below, how large a number can be):
- `in_place`: operators, comparisons, builtins, indexes, lone dice, appends and loops take their
  in-place forms, each under a guard of its operands' types (inplace.py), bounded as the
  semantics bound it;
- `numeric`: the operands of `-`, the sides of comparisons and a decision table's inputs and
  cells whose kind is a number (dsl/check/kinds.py): compared with Python's own operator;
- `fits`: the nodes of + - * whose result the text shows within the bound: no bound check;
- `lazy`: the events whose reactor's choice (every reactor the script does not answer tests each
  reaction as its tactic comes to it: compiler.chooses_lazily) asks each question of the reactor
  and the event once (every reaction's `by`, costs and requirements and every tactic's `when`
  for it pure);
- `hoisted`: the tactics' `act:` preferences whose conditions are tested once each, as soon as
  the parameters they name are chosen (hoisting.py);
- `asked_once`: the tactics whose choice changes nothing until it runs the action it chose, so
  a rule asked of the actor alone, or of the actor and a value chosen from the actor alone,
  answers once per decision;
- `memo`: the rules whose list is the same all run (invariant.py), by the kinds they read;
- `inline`: the small pure rules compiled in place of their calls;
- `whole`, `outcomes`: the fields, locals and parameters that only hold whole numbers, or an
  outcome of one list (wholes.py);
- `names`: the columns, locals and parameters that only hold a text naming a field every
  combatant has (fieldnames.py), `combatants`: the locals and parameters that only hold a
  combatant (combatants.py), `maps`: the vars that only hold a map (mapvars.py): `c[text]` and
  `m[k]` read in place.
The empty plan, PLAIN, is the plain path: every operator and builtin a call of semantics.py.
tests/test_plain_and_optimized.py runs both and compares them (docs/performance.md).
"""
from __future__ import annotations

import operator
from ...dsl.records import dataclass, field, fields, replace

from ...dsl.syntax import nodes as n
from ...dsl.check import kinds as K
from ...dsl.check.names import walk
from ...dsl.syntax.nodes import every_node

from ..run import semantics as S
from .hoisting import preference_parts
from .invariant import memo_kinds
from .wholes import NONE as NO_WHOLES, Owners, Wholes, outcome_fields, scanning, wholes
from .fieldnames import NONE as NO_NAMES, Names, field_names
from .mapvars import map_vars
from .combatants import NONE as NO_COMBATANTS, Combatants, combatant_slots, offered_nodes
from .sides import member_slots, text_sides


@dataclass(frozen=True)
class Plan:
    """What the emitter may do beyond the plain path (see the module's docstring)."""
    in_place: bool = False
    numeric: frozenset = frozenset()        # id() of the nodes of kind number the emitter asks about
    fits: frozenset = frozenset()           # id() of the + - * nodes within the bound
    lazy: frozenset = frozenset()           # event names
    hoisted: frozenset = frozenset()        # (tactic, index of its `act:` preference)
    asked_once: frozenset = frozenset()     # tactic names
    memo: dict = field(default_factory=dict)    # rule name -> kinds (invariant.memo_kinds)
    inline: frozenset = frozenset()         # rule names
    whole: Wholes = NO_WHOLES               # fields and slots that only hold whole numbers (wholes.py)
    outcomes: dict = field(default_factory=dict)    # field -> the outcomes' names it only holds (wholes.py)
    names: Names = NO_NAMES                 # columns and slots that only hold texts naming a field (fieldnames.py)
    maps: frozenset = frozenset()           # vars that only hold a map (mapvars.py)
    combatants: Combatants = NO_COMBATANTS  # locals and parameters that only hold a combatant (combatants.py)
    text_sides: bool = False                # every combatant's side is a text (sides.py)
    members: frozenset = frozenset()        # comprehensions' slots over the run's combatants (sides.py)

    def with_nodes(self, nodes, bound) -> "Plan":
        """The plan, and the facts of code compiled later against it (an encounter's own);
        `bound(node)`: what a name or call means there, as the resolver bound it."""
        if not self.in_place:
            return self
        return replace(self, numeric=self.numeric | numeric(nodes, bound, self.whole),
                       fits=self.fits | fits(nodes, builtin_of(bound)))

    def kept(self, ruleset, bindings) -> dict | None:
        """What `snippet_plan` takes of this plan (a program's, of `ruleset` and the resolver's
        `bindings`), with no node id in it, as plain data (dicts, tuples, frozensets, texts,
        numbers: reading a program imports no compiler module): kept with the compiled program
        (program.py), so a program read back need not work its facts out again. `snippet_plan`
        gives the ids back (`restored`); with them, the slots the facts know the rules' and
        checks' parameters by (`declared_slots`). None for the plain path."""
        if not self.in_place:
            return None
        return {"whole": _values(self.whole, ("owner", "index")), "outcomes": self.outcomes,
                "names": _values(self.names), "maps": self.maps,
                "combatants": _values(self.combatants, ("offered",)), "text_sides": self.text_sides,
                "members": self.members, "memo": self.memo, "inline": self.inline,
                "declared": declared_slots(ruleset, bindings)}


def _values(record, leave=()) -> dict:
    """A record's fields as a dict of their values (but those of `leave`)."""
    return {f.name: getattr(record, f.name) for f in fields(record) if f.name not in leave}


PLAIN = Plan()

# The most nodes a rule's returned expression may have to be compiled in place of its calls
# (the largest the bundled rules call often has 25).
INLINE_NODES = 32


def optimize(ruleset, bindings, purity, counted_by_caller) -> Plan:
    """The plan for a checked ruleset: what its facts allow. `bindings`: the resolver's
    (`bindings.of(node)`: what a name or call means); `counted_by_caller(rule)`: the rule is no
    step of its own (a call of it in place leaves the step count as it was)."""
    bound = bindings.of
    decls = [d for space in ruleset.spaces.values() for d in space.values()]
    tactics, actions = ruleset.all(n.Tactic), ruleset.space("action")
    rules = ruleset.all(n.Rule)
    with scanning():                    # (one walk of the declarations for every fact)
        whole, names, combatants = whole_facts(ruleset, decls, bindings)
        sides = text_sides(ruleset, decls, bindings, combatants)
    return Plan(
        in_place=True,
        whole=whole,
        outcomes=outcome_fields(ruleset, decls, bindings),
        names=names,
        maps=map_vars(ruleset, decls, bindings),
        combatants=combatants,
        text_sides=sides,
        members=member_slots(decls, bindings),
        numeric=numeric(decls, bound, whole),
        fits=fits(decls, builtin_of(bound)),
        lazy=frozenset(e for e in ruleset.space("event") if lazy(ruleset, e, purity)),
        hoisted=frozenset((t.name, i) for t in tactics for i, p in enumerate(t.act)
                          if all(map(purity.expr, preference_parts(p, actions[p.name])))),
        asked_once=frozenset(t.name for t in tactics if all(map(purity.expr, decision_parts(t, actions)))),
        memo={r.name: k for r in rules if (k := memo_kinds(r, bound)) is not None},
        inline=frozenset(r.name for r in rules if inlinable(r, purity, counted_by_caller)),
    )


def snippet_plan(kept, ruleset, bindings, purity, counted_by_caller) -> Plan:
    """The plan for code compiled later against a program (an encounter's own, a scripted
    decision's requirements): in-place forms, the rules kept for the run or compiled in
    place, and the whole numbers the program's code holds (the same pass over the same
    ruleset finds the same); its own nodes' facts come with it (Plan.with_nodes). `kept`:
    what the program kept of its own plan (Plan.kept), or None: then worked out again from
    the ruleset and `bindings()`, the resolver's (a walk of every declaration, five times)."""
    if kept is not None:
        return restored(kept, ruleset)
    bindings = bindings()
    bound = bindings.of
    rules = ruleset.all(n.Rule)
    decls = [d for space in ruleset.spaces.values() for d in space.values()]
    with scanning():
        whole, names, combatants = whole_facts(ruleset, decls, bindings)
        sides = text_sides(ruleset, decls, bindings, combatants)
    return Plan(in_place=True, whole=whole, outcomes=outcome_fields(ruleset, decls, bindings),
                names=names, maps=map_vars(ruleset, decls, bindings), combatants=combatants,
                text_sides=sides,
                members=member_slots(decls, bindings),
                memo={r.name: k for r in rules if (k := memo_kinds(r, bound)) is not None},
                inline=frozenset(r.name for r in rules if inlinable(r, purity, counted_by_caller)))


def restored(kept: dict, ruleset) -> Plan:
    """A kept plan (Plan.kept) of `ruleset` as `snippet_plan` works it out: the node ids back,
    each fact keyed by a node as that pass keys it (a node's declaration by its place among
    the ruleset's, walked only when asked: wholes.Owners; the nodes where an event offers a
    reaction) and `c[text]` of a whole field (whole_facts)."""
    decls = [d for space in ruleset.spaces.values() for d in space.values()]
    names = Names(**kept["names"])
    combatants = Combatants(**kept["combatants"], offered=offered_nodes(ruleset))
    whole = Wholes(**kept["whole"], owner=Owners(decls), index=whole_index(names, combatants))
    return Plan(in_place=True, whole=whole, outcomes=kept["outcomes"], names=names, maps=kept["maps"],
                combatants=combatants, text_sides=kept["text_sides"], members=kept["members"],
                memo=kept["memo"], inline=kept["inline"])


def declared_slots(ruleset, bindings) -> tuple:
    """The slots of the rules' parameters, of the checks' parameters and of their rolls (None where
    the resolver gave none), in the ruleset's order: what code compiled later asks of them when
    it calls one (wholes.broken_by and the others), kept so a program read back need not resolve
    its whole ruleset again to tell them."""
    def slot(node, part=None):
        return bindings.slot(node, part) if bindings.has_slot(node, part) else None
    return (tuple(tuple(slot(p) for p in r.params) for r in ruleset.all(n.Rule)),
            tuple((tuple(slot(p) for p in c.params), slot(c, "roll")) for c in ruleset.all(n.Check)))


def declared(kept: dict, ruleset) -> dict:
    """The kept `declared_slots` of `ruleset` by the keys of the resolver's bindings (Bindings.slots):
    id() of a parameter, (id() of a check, "roll") -> its slot or None."""
    rules, checks = kept["declared"]
    found = {}
    for r, slots in zip(ruleset.all(n.Rule), rules, strict=True):
        found.update(zip(map(id, r.params), slots, strict=True))
    for c, (slots, roll) in zip(ruleset.all(n.Check), checks, strict=True):
        found.update(zip(map(id, c.params), slots, strict=True))
        found[(id(c), "roll")] = roll
    return found


def whole_index(names, combatants):
    """`c[text]` that surely reads a whole field (Wholes.index): a text naming one, of a combatant;
    None where no text names one or no slot holds a combatant."""
    if not (names.whole_texts and combatants.slots):
        return None

    def index(node, bound):
        return names.holds_whole(node.key, bound) and combatants.holds(node.obj, bound)
    return index


def whole_facts(ruleset, decls, bindings):
    """The whole-number facts (wholes.py), the texts naming fields (fieldnames.py, which read
    which fields are whole) and the combatants (combatants.py); then the whole-number facts
    again, where `c[text]` of a combatant by a text naming a whole field is whole too (a
    check's parameter `c[c.item.column]`, by a column of a row the combatant holds, and what
    follows from it)."""
    whole = wholes(ruleset, decls, bindings)
    names = field_names(ruleset, decls, bindings, whole.fields)
    combatants = combatant_slots(ruleset, decls, bindings)
    index = whole_index(names, combatants)
    if index is not None:
        whole = wholes(ruleset, decls, bindings, index)
    return whole, names, combatants


def lazy(ruleset, event: str, purity) -> bool:
    """Whether a reactor's choice of its reaction to `event` may ask each question of the reactor
    and the event once (compiler._tactic_react): every reaction's `by`, costs and requirements,
    and every tactic's `when` for it, are pure, so nothing changes while it chooses."""
    reactions = [r for r in ruleset.all(n.Reaction) if r.event == event]
    parts = [x for r in reactions for x in (r.by, *r.requires, *(a for _f, a in r.costs))]
    parts += [p.when for t in ruleset.all(n.Tactic) for ev, prefs in t.react if ev == event
              for p in prefs if p.when is not None]
    return all(map(purity.expr, parts))


def decision_parts(t: n.Tactic, actions) -> list:
    """What a tactic's choice of action works out: every preference's costs, requirements,
    `when` and the list (or given value) of each parameter after the actor."""
    parts = []
    for p in t.act:
        a = actions[p.name]
        given = {arg.name: arg.value for arg in p.args}
        parts += [amount for _f, amount in a.costs] + list(a.requires) + ([p.when] if p.when is not None else [])
        parts += [given.get(param.name, param.domain) for param in a.params[1:]]
    return parts


def inlinable(rule: n.Rule, purity, counted_by_caller) -> bool:
    """A small rule that only returns a pure expression and is no step of its own: compiled in
    place of its calls, the answer and the step count are the same."""
    body = rule.body
    return (len(body) == 1 and isinstance(body[0], n.Return) and body[0].value is not None
            and sum(1 for _ in walk(body[0].value)) <= INLINE_NODES and purity.rule(rule)
            and counted_by_caller(rule))


# ------------------------------------------------------------ kinds: the comparisons Python's own
def numeric(nodes, bound, whole: Wholes = NO_WHOLES) -> frozenset:
    """The nodes of kind number (K.kind, from the resolver's bindings), or that the whole-number
    facts show whole (wholes.py), among those whose kind the emitter asks: an operand of `-`, a
    comparison's sides, a decision table's inputs and cells."""
    def resolve(_name, node=None):
        return bound(node) if node is not None else None       # (a check's name: kinds.CHECK)
    return frozenset(id(x) for x in _asked_kinds(nodes) if K.kind(x, resolve) == K.NUMBER or whole.holds(x, bound))


def _asked_kinds(nodes):
    for x in every_node(nodes):
        if isinstance(x, n.Unary) and x.op == "-":
            yield x.operand
        elif isinstance(x, n.Binary) and x.op in S.COMPARISON:
            yield from (x.left, x.right)
        elif isinstance(x, n.Decide):
            yield from x.inputs
        elif isinstance(x, n.Test):
            yield from (v for v in (x.value, x.high) if v is not None)


# ------------------------------------------------------------ magnitude: the bound checks that can go
def builtin_of(bound):
    """The builtin a call calls, or None (a rule's call)."""
    def builtin(call):
        r = bound(call)
        return r.target if r is not None and r.kind == "builtin" else None
    return builtin


def fits(nodes, called) -> frozenset:
    """The + - * nodes under `nodes` whose result is within the bound, as the text shows."""
    return frozenset(id(x) for x in every_node(nodes) if isinstance(x, n.Binary) and x.op in GROWS
                     and result_size(x, called) < S.BIG)


# Results that can grow: in place, each is bounded as the semantics bound it (MAX_DIGITS, E0506).
GROWS = frozenset(("+", "-", "*"))

# The magnitude of a result, from its sides' (a remainder is smaller than what divides).
SIZE = {"+": operator.add, "-": operator.add, "*": operator.mul, "%": lambda _a, b: b}


def magnitude(node, called) -> int:
    """How large a number `node` gives can be, as the text shows (an upper bound of its
    absolute value): S.BIG - 1 (any number within the bound) where the text shows nothing
    smaller. Every number is within the bound, so a written one, a remainder (smaller than
    what divides), a rounded quotient by a written number and len() are small, and a sum or
    product of small ones stays within it: no need to test it in place. `called(call)`: the
    builtin a call calls, or None."""
    most = S.BIG - 1
    if isinstance(node, n.Const):
        return abs(node.value) if type(node.value) is int else most
    if isinstance(node, n.Unary):
        return magnitude(node.operand, called) if node.op == "-" else most
    if isinstance(node, n.Binary) and node.op in SIZE:
        return min(most, result_size(node, called))        # (past the bound, it is refused)
    if isinstance(node, n.Call) and isinstance(node.func, n.Name) and node.args:
        builtin, arg = called(node), node.args[0].value
        if builtin == "len":
            return S.MAX_LENGTH
        if builtin in ("floor", "ceil") and isinstance(arg, n.Binary) and arg.op == "/" \
                and isinstance(arg.right, n.Const) and type(arg.right.value) is int and arg.right.value:
            return magnitude(arg.left, called) // abs(arg.right.value) + 1
    return most


def result_size(node: n.Binary, called) -> int:
    """The magnitude of an operator's result from its sides', before the bound is asked of it
    (S.BIG or more where only the bound keeps it within)."""
    return SIZE[node.op](magnitude(node.left, called), magnitude(node.right, called))
