"""Whole numbers the text proves: the sheet fields, locals and rule parameters that can only ever
hold a Python int (the optimizer's `whole` facts; its comparisons and arithmetic then need no
guard of their types).

A field F is whole when every sheet that declares it declares it `int` or `percent` (an
encounter's and a saved state's values for it are checked to be whole numbers) and every
table's or condition's column of that name holds written whole numbers only (checked data no
rule can change), no other structure has a field of that name (an event's field, a check's
parameter, roll or output, a record written `{F: ...}`), and every value the rules give it is
whole: each `set X.F = v`, each cost paid in F, its sheet default. A local (a slot of
the resolver's) is whole when only `let` and `set` give it values and every one is whole; a
rule's parameter, when the rule is only ever called by name, at least once, and every call
passes a whole argument there. "Whole" is the greatest fixpoint: assume every candidate is, drop those a value
the assumption cannot show whole reaches, until nothing changes (by induction over a run, every
value they ever hold is then an int).

An encounter's own code is compiled later, against the program (its `do` and expectations can
set a field, make a record, call a rule): `broken_by` says whether it would give one of the facts
a value they do not show whole; that encounter then runs on the plain program (compiler.Snippets).
"""
from __future__ import annotations

from ...dsl.records import dataclass

from ...dsl.syntax import nodes as n
from ...dsl.check.names import walk

# Builtins whose result is a whole number whatever they are given (or a refusal).
WHOLE_BUILTINS = frozenset(("len", "floor", "ceil", "round_number", "dice_count", "dice_faces", "dice_modifier"))
# Builtins whose result is whole when every argument is (min and max of two or more values).
WHOLE_OF_WHOLE = {"abs": 1, "min": 2, "max": 2}


@dataclass(frozen=True)
class Wholes:
    fields: frozenset = frozenset()     # field names
    slots: frozenset = frozenset()      # the resolver's slots: locals and rule parameters

    def holds(self, node, bound) -> bool:
        """Whether `node` surely gives a whole number (a Python int), these facts given."""
        return bool(self.fields or self.slots) and whole(node, bound, self.fields, self.slots)


NONE = Wholes()


@dataclass(frozen=True)
class FieldValue:
    """What a sheet's default reads by a field's name: the value that field holds."""
    name: str


def whole(node, bound, fields, slots) -> bool:
    """`node` gives a Python int, when the fields `fields` and the slots `slots` hold ints."""
    t = type(node)
    if t is FieldValue:
        return node.name in fields
    if t is n.Const:
        return type(node.value) is int
    if t is n.Roll or t is n.Maximum:
        return True
    if t is n.Attr:
        return node.name in fields
    if t is n.Name:
        r = bound(node)
        return r is not None and r.kind == "local" and r.target in slots
    if t is n.Unary:
        return node.op == "-" and whole(node.operand, bound, fields, slots)
    if t is n.Binary:
        return node.op in ("+", "-", "*", "%") and whole(node.left, bound, fields, slots) \
            and whole(node.right, bound, fields, slots)
    if t is n.IfExp:
        return whole(node.then, bound, fields, slots) and whole(node.other, bound, fields, slots)
    if t is n.Call and isinstance(node.func, n.Name):
        r = bound(node)
        if r is None or r.kind != "builtin":
            return False
        if r.target in WHOLE_BUILTINS:
            return True
        least = WHOLE_OF_WHOLE.get(r.target)
        return least is not None and len(node.args) >= least and (r.target != "abs" or len(node.args) == 1) \
            and all(a.name is None and whole(a.value, bound, fields, slots) for a in node.args)
    return False


def never_a_roll(node) -> bool:
    """`node` gives a plain int, never a roll that remembers its dice (dice.Roll, an int that a
    transcript shows as "1D6=2"): arithmetic and the whole builtins answer plain numbers; a
    name, a field or a rule's answer may hold a roll. min and max of whole numbers are Python's
    own, which give back the argument itself, where the language gives a roll as its number."""
    t = type(node)
    if t is n.Const or t is n.Unary or t is n.Binary:
        return True
    if t is n.IfExp:
        return never_a_roll(node.then) and never_a_roll(node.other)
    return t is n.Call and isinstance(node.func, n.Name) and (
        node.func.id in WHOLE_BUILTINS or node.func.id in WHOLE_OF_WHOLE)


def whole_column(rows, i) -> bool:
    """Every cell of column i is a written whole number (a table is checked data no rule changes)."""
    return bool(rows) and all(i < len(r) and type(r[i]) is n.Const and type(r[i].value) is int for r in rows)


def columns(ruleset) -> tuple[set, set]:
    """The names of the tables' and conditions' columns: those whose every cell is a written whole
    number, and the others."""
    whole_cols, other = set(), set()
    for d in (*ruleset.all(n.Table), *ruleset.all(n.Condition)):
        rows = [r[1] for r in d.rows] if isinstance(d, n.Condition) else list(d.rows)
        for i, col in enumerate(d.columns):
            (whole_cols if whole_column(rows, i) and not (isinstance(d, n.Table) and d.dice is not None and i == 0)
             else other).add(col)
    return whole_cols, other


def other_fields(ruleset, nodes) -> set:
    """The field names of the structures whose values are not checked whole numbers: events' fields,
    checks' records, records written in the text."""
    out = set()
    for e in ruleset.all(n.Event):
        out |= {f for f, _ in e.fields}
    for c in ruleset.all(n.Check):
        out |= {p.name for p in c.params} | {c.roll_name, c.decide.output}
    out |= {f for x in walk(tuple(nodes)) if isinstance(x, n.RecordExp) for f, _ in x.fields}
    return out


def candidate_fields(ruleset, nodes) -> set:
    """The names of sheet fields declared int or percent and of table columns of whole numbers, that
    no structure of another kind shares."""
    declared: dict[str, bool] = {}
    for s in ruleset.all(n.Sheet):
        for f in s.fields:
            declared[f.name] = declared.get(f.name, True) and f.type in ("int", "percent")
    whole_cols, other_cols = columns(ruleset)
    names = {f for f, ok in declared.items() if ok} | whole_cols
    return names - {f for f, ok in declared.items() if not ok} - other_cols - other_fields(ruleset, nodes)


def writes(ruleset, nodes, bindings):
    """What gives values to fields and slots: {field: [value nodes]}, {slot: [value nodes]}, and
    the slots something else binds (a loop, a table's output, a check's roll, an action's
    parameter...), whose values are not all in the text."""
    fields: dict[str, list] = {}
    slots: dict[str, list] = {}
    seen_keys = set()
    for s in ruleset.all(n.Sheet):
        for f in s.fields:
            if f.default is not None:
                fields.setdefault(f.name, []).append(f.default)
            if bindings.has_slot(f):     # a default reads the fields before it as locals
                slots.setdefault(bindings.slot(f), []).append(FieldValue(f.name))
                seen_keys.add(id(f))
    for d in (*ruleset.all(n.Action), *ruleset.all(n.Reaction)):
        for fld, amount in d.costs:
            fields.setdefault(fld, []).append(amount)
    rules = {id(r): r for r in ruleset.all(n.Rule)}
    called_funcs, calls = set(), []
    for x in walk(tuple(nodes)):
        t = type(x)
        if t is n.Set:
            if isinstance(x.target, n.Attr):
                fields.setdefault(x.target.name, []).append(x.value)
            elif isinstance(x.target, n.Name):
                r = bindings.of(x.target)
                if r is not None and r.kind == "local":
                    slots.setdefault(r.target, []).append(x.value)
        elif t is n.Let:
            slots.setdefault(bindings.slot(x), []).append(x.value)
            seen_keys.add(id(x))
        elif t is n.Call and isinstance(x.func, n.Name):
            r = bindings.of(x)
            if r is not None and r.kind == "rule":
                called_funcs.add(id(x.func))
                calls.append((r.target, x))
    referenced = {id(r.target) for x in walk(tuple(nodes)) if type(x) is n.Name and id(x) not in called_funcs
                  for r in [bindings.of(x)] if r is not None and r.kind == "rule"}
    called = {id(rule) for rule, _call in calls}
    for rule in rules.values():
        given = [p for p in rule.params if bindings.has_slot(p)]
        # (a rule the text never calls: whoever calls it, the text does not show what it passes)
        if id(rule) in referenced or id(rule) not in called or len(given) != len(rule.params):
            continue
        seen_keys.update(id(p) for p in rule.params)
        for p in rule.params:
            slots.setdefault(bindings.slot(p), [])
    for rule, call in calls:
        if id(rule) in referenced or not all(id(p) in seen_keys for p in rule.params):
            continue
        for p, value in argument_of(rule, call):
            slots[bindings.slot(p)].append(value)
    others = {slot for key, slot in bindings.slots.items() if (key if type(key) is int else None) not in seen_keys}
    return fields, slots, others


def argument_of(rule, call):
    """(parameter, argument's value) of a call of `rule`, by position then by name."""
    by_name = {p.name: p for p in rule.params}
    for i, a in enumerate(call.args):
        p = rule.params[i] if a.name is None else by_name.get(a.name)
        if p is not None:
            yield p, a.value


def wholes(ruleset, nodes, bindings) -> Wholes:
    """The greatest set of fields and slots that only ever hold whole numbers."""
    fields_w, slots_w, others = writes(ruleset, nodes, bindings)
    fields = frozenset(candidate_fields(ruleset, nodes))
    slots = frozenset(s for s in slots_w if s not in others)
    bound = bindings.of
    while True:
        f2 = frozenset(f for f in fields if all(whole(v, bound, fields, slots) for v in fields_w.get(f, ())))
        s2 = frozenset(s for s in slots if all(whole(v, bound, fields, slots) for v in slots_w[s]))
        if f2 == fields and s2 == slots:
            return Wholes(fields, slots)
        fields, slots = f2, s2


def broken_by(facts: Wholes, nodes, bindings, bound) -> bool:
    """Whether an encounter's own code (`nodes`, its `bindings`) would give a whole field or rule
    parameter a value the facts do not show whole, or make a record with a whole field's name."""
    if not facts.fields and not facts.slots:
        return False
    own = wholes_of_script(facts, nodes, bindings, bound)
    for x in walk(tuple(nodes)):
        t = type(x)
        if t is n.RecordExp and any(f in facts.fields for f, _ in x.fields):
            return True
        if t is n.Set and isinstance(x.target, n.Attr) and x.target.name in facts.fields \
                and not own.holds(x.value, bound):
            return True
        if t is n.Call and isinstance(x.func, n.Name):
            r = bound(x)
            if r is not None and r.kind == "rule":
                if any(bindings.has_slot(p) and bindings.slot(p) in facts.slots and not own.holds(v, bound)
                       for p, v in argument_of(r.target, x)):
                    return True
        if t is n.Name and bound(x) is not None and bound(x).kind == "rule":
            called = any(type(y) is n.Call and y.func is x for y in walk(tuple(nodes)))
            if not called and any(bindings.has_slot(p) and bindings.slot(p) in facts.slots for p in bound(x).target.params):
                return True
    return False


def wholes_of_script(facts: Wholes, nodes, bindings, bound) -> Wholes:
    """The facts, and the script's own locals that hold whole numbers (let and set only)."""
    slots: dict[str, list] = {}
    lets = set()
    for x in walk(tuple(nodes)):
        if type(x) is n.Let and bindings.has_slot(x):
            slots.setdefault(bindings.slot(x), []).append(x.value)
            lets.add(id(x))
        elif type(x) is n.Set and isinstance(x.target, n.Name):
            r = bound(x.target)
            if r is not None and r.kind == "local":
                slots.setdefault(r.target, []).append(x.value)
    others = {slot for key, slot in bindings.slots.items() if key not in lets}
    mine = frozenset(s for s in slots if s not in others)
    while True:
        every = facts.slots | mine
        kept = frozenset(s for s in mine if all(whole(v, bound, facts.fields, every) for v in slots[s]))
        if kept == mine:
            return Wholes(facts.fields, every)
        mine = kept


# ------------------------------------------------------------ outcomes: a check's output, always one
def outcome_fields(ruleset, nodes, bindings) -> dict:
    """The field names that only ever hold a named outcome: a check's output whose every row gives
    one by name (a `first` table: a value or a refusal), which no other structure has (a sheet's
    field, a column, an event's field, another record, a check's parameter or roll) and no `set`
    changes. Field name -> the outcomes' names (the emitter asks that they share one list)."""
    found: dict[str, set] = {}
    spoilt = {c.roll_name for c in ruleset.all(n.Check)} | {p.name for c in ruleset.all(n.Check) for p in c.params}
    for c in ruleset.all(n.Check):
        d, names = c.decide, set()
        for row in d.rows:
            r = bindings.of(row.output) if type(row.output) is n.Name else None
            if r is None or r.kind != "outcome":
                spoilt.add(d.output)
            names.add(getattr(row.output, "id", None))
        if d.policy != "first" or not d.rows:
            spoilt.add(d.output)
        found.setdefault(d.output, set()).update(names)
    spoilt |= {f.name for s in ruleset.all(n.Sheet) for f in s.fields} | set().union(*columns(ruleset))
    spoilt |= {f for e in ruleset.all(n.Event) for f, _ in e.fields}
    spoilt |= {f for x in walk(tuple(nodes)) if type(x) is n.RecordExp for f, _ in x.fields}
    spoilt |= {x.target.name for x in walk(tuple(nodes)) if type(x) is n.Set and type(x.target) is n.Attr}
    return {f: frozenset(names) for f, names in found.items() if f not in spoilt}


def outcomes_broken_by(fields: dict, nodes) -> bool:
    """Whether an encounter's own code sets such a field or makes a record with its name."""
    for x in walk(tuple(nodes)):
        if type(x) is n.RecordExp and any(f in fields for f, _ in x.fields):
            return True
        if type(x) is n.Set and type(x.target) is n.Attr and x.target.name in fields:
            return True
    return False
