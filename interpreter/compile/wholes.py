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
passes a whole argument there; a check's parameter likewise, by every check call, and its roll
when every roll a caller gives it by name is whole (its own dice always give one). A rule's
result is whole when its body cannot end without a `return` and every `return` gives a whole
value; an option, when its value (its default, the edition's setting) is a whole number, as
every encounter's and the command line's setting of it is checked to be (the kind of its
value). "Whole" is the greatest fixpoint: assume every candidate is, drop those a value the
assumption cannot show whole reaches, until nothing changes (by induction over a run, every
value they ever hold is then an int).

A local that statements bind (`let`, a loop's variable, a decision table's output, a check's
roll) takes one slot per name wherever its declaration is (the resolver's): the slot's values
are those of one declaration (one generated function, or a round's), so the facts key it by
its declaration, `Wholes.key`.

`c[text]` is whole where the optimizer shows the text names a whole field every combatant has
and `c` a combatant (fieldnames.py, combatants.py: optimizer.whole_facts runs this pass again
with that fact, `Wholes.index`).

Lists the same way (`listy`): a sheet field declared list that no column or other structure
shares, a local, a rule parameter and a rule's result hold a Python list where every value the
text gives them is one (a written list, a comprehension, a list builtin, a `for group`'s variable,
another of them); len, first, `in` and walks then ask no class.

An encounter's own code is compiled later, against the program (its `do` and expectations can
set a field, make a record, call a rule): `broken_by` says whether it would give one of the facts
a value they do not show whole; that encounter then runs on the plain program (compiler.Snippets).
"""
from __future__ import annotations

import contextlib
import threading

from ...dsl.records import dataclass, field, replace

from ...dsl.syntax import nodes as n
from ...dsl.syntax.constants import NotConstant, plain
from ...dsl.check.names import given_roll, walk
from ...dsl.syntax.nodes import every_node
from ...dsl.check.policy import POLICY
from ..run.semantics import LIST_BUILTINS

# Builtins whose result is a whole number whatever they are given (or a refusal).
WHOLE_BUILTINS = frozenset(("len", "floor", "ceil", "round_number", "dice_count", "dice_faces", "dice_modifier"))
# Builtins whose result is whole when every argument is (min and max of two or more values).
WHOLE_OF_WHOLE = {"abs": 1, "min": 2, "max": 2}


@dataclass(frozen=True)
class Wholes:
    fields: frozenset = frozenset()     # field names
    slots: frozenset = frozenset()      # locals and parameters, each by its key (Wholes.key)
    rules: frozenset = frozenset()      # the names of the rules whose every call gives a whole number
    options: frozenset = frozenset()    # the names of the options that hold a whole number
    frame: frozenset = frozenset()      # the slots statements bind: one per name, keyed by declaration
    owner: dict = field(default_factory=dict)   # id() of a node -> its declaration's place among those walked
    # The same of lists: the fields, slots and rules that only ever hold (give) a Python list.
    list_fields: frozenset = frozenset()
    list_slots: frozenset = frozenset()
    list_rules: frozenset = frozenset()
    # `c[text]` that surely reads a whole field of a combatant (fieldnames.py and combatants.py
    # prove the text and the combatant): index(node, bound) -> bool, or None.
    index: object = None

    def holds(self, node, bound) -> bool:
        """Whether `node` surely gives a whole number (a Python int), these facts given."""
        return bool(self.fields or self.slots or self.rules or self.options) and whole(node, bound, self)

    def listed(self, node, bound) -> bool:
        """Whether `node` surely gives a list (a Python list), these facts given."""
        return bool(self.list_fields or self.list_slots or self.list_rules) and listy(node, bound, self)

    def key(self, node, slot):
        """The key of the local `slot` where `node` binds or reads it: a slot statements bind, with
        its declaration (the same name's slot in another declaration is another local); any
        other (a parameter, a field, a script's own) is one local wherever it is read."""
        return (self.owner.get(id(node)), slot) if slot in self.frame else slot


NONE = Wholes()


def owners(nodes) -> dict:
    """id() of each node under `nodes` -> its declaration's place among them (as `scan` keys them)."""
    return {id(x): i for i, d in enumerate(nodes) for x in walk(d)}


class Owners(dict):
    """`Wholes.owner` of facts kept with a compiled program (node ids do not outlive a process, the
    places of the declarations do): `owners(nodes)`, walked when first asked (only a slot that
    statements bind is keyed by its declaration, Wholes.key)."""
    __slots__ = ("_nodes",)

    def __init__(self, nodes):
        super().__init__()
        self._nodes = nodes

    def _walked(self) -> "Owners":
        if self._nodes is not None:
            self.update(owners(self._nodes))
            self._nodes = None
        return self

    def get(self, key, default=None):
        return dict.get(self._walked(), key, default)

    def __eq__(self, other):
        return dict.__eq__(self._walked(), other._walked() if isinstance(other, Owners) else other)

    __hash__ = None


@dataclass(frozen=True)
class FieldValue:
    """What a sheet's default reads by a field's name: the value that field holds."""
    name: str


class Rolled:
    """What a check's own dice give its roll: a whole number (engine.roll: an int, or a Roll)."""
    __slots__ = ()


ROLLED = Rolled()


class Grouped:
    """What `for group` gives its variable: a list of the items of one key (S.groups)."""
    __slots__ = ()


GROUPED = Grouped()


def whole(node, bound, w: Wholes) -> bool:
    """`node` gives a Python int, when the fields, slots, rules and options of `w` do."""
    t = type(node)
    if t is FieldValue:
        return node.name in w.fields
    if t is n.Const:
        return type(node.value) is int
    if t is n.Roll or t is n.Maximum or t is Rolled:
        return True
    if t is n.Attr:
        return node.name in w.fields
    if t is n.Name:
        r = bound(node)
        return r is not None and r.kind == "local" and w.key(node, r.target) in w.slots
    if t is n.OptionRef:
        return node.name in w.options
    if t is n.Index:
        return w.index is not None and w.index(node, bound)
    if t is n.Unary:
        return node.op == "-" and whole(node.operand, bound, w)
    if t is n.Binary:
        return node.op in ("+", "-", "*", "%") and whole(node.left, bound, w) and whole(node.right, bound, w)
    if t is n.IfExp:
        return whole(node.then, bound, w) and whole(node.other, bound, w)
    if t is n.Call and isinstance(node.func, n.Name):
        r = bound(node)
        if r is not None and r.kind == "rule":
            return r.target.name in w.rules
        if r is None or r.kind != "builtin":
            return False
        if r.target in WHOLE_BUILTINS:
            return True
        least = WHOLE_OF_WHOLE.get(r.target)
        return least is not None and len(node.args) >= least and (r.target != "abs" or len(node.args) == 1) \
            and all(a.name is None and whole(a.value, bound, w) for a in node.args)
    return False


def listy(node, bound, w: Wholes) -> bool:
    """`node` gives a Python list, when the list fields, slots and rules of `w` do."""
    t = type(node)
    if t is n.ListExp or t is n.Comprehension or t is Grouped:
        return True
    if t is n.Attr:
        return node.name in w.list_fields
    if t is n.Name:
        r = bound(node)
        return r is not None and r.kind == "local" and w.key(node, r.target) in w.list_slots
    if t is n.IfExp:
        return listy(node.then, bound, w) and listy(node.other, bound, w)
    if t is n.Call and isinstance(node.func, n.Name):
        r = bound(node)
        if r is not None and r.kind == "rule":
            return r.target.name in w.list_rules
        return r is not None and r.kind == "builtin" and r.target in LIST_BUILTINS
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


def other_fields(ruleset, nodes, records=None) -> set:
    """The field names of the structures whose values are not checked whole numbers: events' fields,
    checks' records, records written in the text (`records`: their names, if already found)."""
    out = set()
    for e in ruleset.all(n.Event):
        out |= {f for f, _ in e.fields}
    for c in ruleset.all(n.Check):
        out |= {p.name for p in c.params} | {c.roll_name, c.decide.output}
    if records is None:
        records = {f for x in every_node(nodes) if isinstance(x, n.RecordExp) for f, _ in x.fields}
    return out | records


def list_fields(ruleset, nodes, records=None) -> set:
    """The names of sheet fields declared list (an encounter's and a saved state's values for it
    are checked to be lists) that no column and no structure of another kind shares."""
    declared: dict[str, bool] = {}
    for s in ruleset.all(n.Sheet):
        for f in s.fields:
            declared[f.name] = declared.get(f.name, True) and f.type == "list"
    whole_cols, other_cols = columns(ruleset)
    return {f for f, ok in declared.items() if ok} - whole_cols - other_cols - other_fields(ruleset, nodes, records)


def candidate_fields(ruleset, nodes, records=None) -> set:
    """The names of sheet fields declared int or percent and of table columns of whole numbers, that
    no structure of another kind shares."""
    declared: dict[str, bool] = {}
    for s in ruleset.all(n.Sheet):
        for f in s.fields:
            declared[f.name] = declared.get(f.name, True) and f.type in ("int", "percent")
    whole_cols, other_cols = columns(ruleset)
    names = {f for f, ok in declared.items() if ok} | whole_cols
    return names - {f for f, ok in declared.items() if not ok} - other_cols - other_fields(ruleset, nodes, records)


_scans = threading.local()      # within `scanning()`: the scans made, by their arguments (scan)


@contextlib.contextmanager
def scanning():
    """Within it, `scan` of the same ruleset, declarations and bindings (the same objects) walks them
    once: the optimizer's pass asks it of every fact (wholes twice, writes for the field names, the
    combatants and the sides). What it gives is read, never changed, by every caller."""
    outer = getattr(_scans, "made", None)
    _scans.made = {} if outer is None else outer
    try:
        yield
    finally:
        _scans.made = outer


def scan(ruleset, nodes, bindings):
    """One walk of the declarations: the facts' keys (each node's declaration, the slots statements
    bind, one per name: a Wholes with no facts yet), what gives values to fields and slots
    ({field: [value nodes]}, {slot's key: [value nodes]}), the keys of the slots something else
    binds (a loop, a table's output, an action's parameter...), whose values are not all in the
    text, and the field names of the records written in the text. Made once within `scanning()`."""
    made = getattr(_scans, "made", None)
    if made is None:
        return _scan(ruleset, nodes, bindings)
    key = (id(ruleset), id(nodes), id(bindings))
    found = made.get(key)
    if found is None or found[0] is not ruleset or found[1] is not nodes or found[2] is not bindings:
        found = made[key] = (ruleset, nodes, bindings, _scan(ruleset, nodes, bindings))
    return found[3]


def _scan(ruleset, nodes, bindings):
    owner, frame, records = {}, set(), set()
    fields: dict[str, list] = {}
    given = []                          # (node, slot, value or None): a slot's key needs every frame slot
    seen_keys = set()
    for s in ruleset.all(n.Sheet):
        for f in s.fields:
            if f.default is not None:
                fields.setdefault(f.name, []).append(f.default)
            if bindings.has_slot(f):     # a default reads the fields before it as locals
                given.append((f, bindings.slot(f), FieldValue(f.name)))
                seen_keys.add(id(f))
    for d in (*ruleset.all(n.Action), *ruleset.all(n.Reaction)):
        for fld, amount in d.costs:
            fields.setdefault(fld, []).append(amount)
    rules = {id(r): r for r in ruleset.all(n.Rule)}
    checks = ruleset.space("check")
    called_funcs, calls, check_calls, rule_names = set(), [], [], []
    bound = bindings.of
    for did, d in enumerate(nodes):
        for x in walk(d):
            owner[id(x)] = did
            t = type(x)
            if t is n.Name:
                rule_names.append(x)
            elif t is n.Set:
                if isinstance(x.target, n.Attr):
                    fields.setdefault(x.target.name, []).append(x.value)
                elif isinstance(x.target, n.Name):
                    r = bound(x.target)
                    if r is not None and r.kind == "local":
                        given.append((x, r.target, x.value))
            elif t is n.Let:
                slot = bindings.slot(x)
                frame.add(slot)
                given.append((x, slot, x.value))
                seen_keys.add(id(x))
            elif t is n.For or t is n.Decide:
                if bindings.has_slot(x):
                    frame.add(bindings.slot(x))
                    if t is n.For and x.group and x.key is not None:
                        given.append((x, bindings.slot(x), GROUPED))
                        seen_keys.add(id(x))
            elif t is n.Call and isinstance(x.func, n.Name):
                r = bound(x)
                if r is not None and r.kind == "rule":
                    called_funcs.add(id(x.func))
                    calls.append((r.target, x))
            elif t is n.CheckCall and isinstance(checks.get(x.name), n.Check):
                check_calls.append((checks[x.name], x))
            elif t is n.RecordExp:
                records.update(f for f, _ in x.fields)
        if type(d) is n.Check and bindings.has_slot(d, "roll"):
            frame.add(bindings.slot(d, "roll"))
    w = Wholes(frame=frozenset(frame), owner=owner)
    key = w.key
    slots: dict = {}
    for node, slot, value in given:
        slots.setdefault(key(node, slot), []).append(value)
    referenced = {id(r.target) for x in rule_names if id(x) not in called_funcs
                  for r in [bound(x)] if r is not None and r.kind == "rule"}
    called = {id(rule) for rule, _call in calls}
    for rule in rules.values():
        params = [p for p in rule.params if bindings.has_slot(p)]
        # (a rule the text never calls: whoever calls it, the text does not show what it passes)
        if id(rule) in referenced or id(rule) not in called or len(params) != len(rule.params):
            continue
        seen_keys.update(id(p) for p in rule.params)
        for p in rule.params:
            slots.setdefault(key(p, bindings.slot(p)), [])
    for rule, call in calls:
        if id(rule) in referenced or not all(id(p) in seen_keys for p in rule.params):
            continue
        for p, value in arguments(rule.params, call.args):
            slots[key(p, bindings.slot(p))].append(value)
    # A check: called only by name (no value names it), and by the text at least once (as a rule);
    # its own dice roll a whole number.
    called_checks, admitted = {id(c) for c, _call in check_calls}, set()
    for c in checks.values():
        if not isinstance(c, n.Check) or id(c) not in called_checks or not bindings.has_slot(c, "roll") \
                or not all(bindings.has_slot(p) for p in c.params):
            continue
        admitted.add(id(c))
        seen_keys.update(id(p) for p in c.params)
        seen_keys.add((id(c), "roll"))
        for p in c.params:
            slots.setdefault(key(p, bindings.slot(p)), [])
        slots.setdefault(key(c, bindings.slot(c, "roll")), []).append(ROLLED)
    for c, call in check_calls:
        if id(c) not in admitted:
            continue
        args, roll = given_roll(c, call.args)
        for p, value in arguments(c.params, args):
            slots[key(p, bindings.slot(p))].append(value)
        if roll is not None:
            slots[key(c, bindings.slot(c, "roll"))].append(roll)
    others, lost = set(), set()
    for k, slot in bindings.slots.items():
        if k in seen_keys:
            continue
        node = k if type(k) is int else k[0]
        if slot in frame and node not in owner:
            lost.add(slot)              # (bound where no declaration of these is: never keyed apart)
        others.add((owner.get(node), slot) if slot in frame else slot)
    others |= {k for k in slots if type(k) is tuple and k[1] in lost}
    return w, fields, slots, others, records


def writes(ruleset, nodes, bindings):
    """What gives values to fields and slots, each slot by the resolver's name for it (every
    declaration's local of one name together: coarser than `scan`'s keys, never wrong):
    {field: [value nodes]}, {slot: [value nodes]}, and the slots something else binds."""
    _w, fields, slots, others, _records = scan(ruleset, nodes, bindings)
    by_slot: dict[str, list] = {}
    for k, values in slots.items():
        by_slot.setdefault(k[1] if type(k) is tuple else k, []).extend(values)
    return fields, by_slot, {k[1] if type(k) is tuple else k for k in others}


def argument_of(rule, call):
    """(parameter, argument's value) of a call of `rule`, by position then by name."""
    return arguments(rule.params, call.args)


def arguments(params, args):
    """(parameter, argument's value) of a call with `args` of a rule or check of `params`, by
    position then by name."""
    by_name = {p.name: p for p in params}
    for i, a in enumerate(args):
        p = params[i] if a.name is None else by_name.get(a.name)
        if p is not None:
            yield p, a.value


def ends(block) -> bool:
    """A block that cannot end but by a `return` (or a stop): its last statement returns, or is
    an `if` with an `else` whose every branch ends so."""
    if not block:
        return False
    last = block[-1]
    if type(last) is n.Return or type(last) is n.Stop:
        return True
    return type(last) is n.If and last.orelse is not None and all(ends(b) for _c, b in last.branches) \
        and ends(last.orelse)


def returned(ruleset) -> dict:
    """The rules that can only end by returning a value: rule name -> the values its `return`s give."""
    out = {}
    for rule in ruleset.all(n.Rule):
        values = [x.value for x in walk(rule.body) if type(x) is n.Return]
        if ends(rule.body) and all(v is not None for v in values):
            out[rule.name] = values
    return out


def whole_options(ruleset) -> frozenset:
    """The options whose value is a whole number: its default and the edition's setting (an encounter's,
    and the command line's, are checked to be of the same kind; the prelude's policy options by
    their own contract, which these leave out)."""
    settings: dict[str, list] = {}
    for name, value in ruleset.edition.settings:
        settings.setdefault(name, []).append(value)
    out = set()
    for o in ruleset.all(n.Option):
        try:
            if o.name not in POLICY and all(type(plain(v)) is int for v in (o.default, *settings.get(o.name, ()))):
                out.add(o.name)
        except NotConstant:
            pass
    return frozenset(out)


def wholes(ruleset, nodes, bindings, index=None) -> Wholes:
    """The greatest set of fields, slots and rules that only ever hold (give) whole numbers.
    `index(node, bound)`: a `c[text]` that surely reads a whole field (Wholes.index); the facts
    found with it hold every fact found without it (more is whole, never less)."""
    w, fields_w, slots_w, others, records = scan(ruleset, nodes, bindings)
    w = replace(w, index=index)
    gives = returned(ruleset)
    w = replace(w, fields=frozenset(candidate_fields(ruleset, nodes, records)),
                slots=frozenset(s for s in slots_w if s not in others), rules=frozenset(gives),
                options=whole_options(ruleset))
    bound = bindings.of
    while True:
        w2 = replace(w, fields=frozenset(f for f in w.fields if all(whole(v, bound, w) for v in fields_w.get(f, ()))),
                     slots=frozenset(s for s in w.slots if all(whole(v, bound, w) for v in slots_w[s])),
                     rules=frozenset(r for r in w.rules if all(whole(v, bound, w) for v in gives[r])))
        if w2.fields == w.fields and w2.slots == w.slots and w2.rules == w.rules:
            break
        w = w2
    # Lists, the same way (a sheet's default is one of a field's values; no field's default reads a list).
    w = replace(w, list_fields=frozenset(list_fields(ruleset, nodes, records)), list_rules=frozenset(gives),
                list_slots=frozenset(s for s in slots_w if s not in others))
    while True:
        w2 = replace(w, list_fields=frozenset(f for f in w.list_fields
                                              if all(listy(v, bound, w) for v in fields_w.get(f, ()))),
                     list_slots=frozenset(s for s in w.list_slots if all(listy(v, bound, w) for v in slots_w[s])),
                     list_rules=frozenset(r for r in w.list_rules if all(listy(v, bound, w) for v in gives[r])))
        if w2.list_fields == w.list_fields and w2.list_slots == w.list_slots and w2.list_rules == w.list_rules:
            return w
        w = w2


def broken_by(facts: Wholes, nodes, bindings, bound) -> bool:
    """Whether an encounter's own code (`nodes`, its `bindings`) would give a whole field, rule or
    check parameter or check's roll a value the facts do not show whole (a list field or parameter
    one they do not show a list), or make a record with such a field's name."""
    if not (facts.fields or facts.slots or facts.list_fields or facts.list_slots):
        return False
    own = wholes_of_script(facts, nodes, bindings, bound)
    checks = bindings.resolver.rs.space("check")

    def spoils(params, args) -> bool:
        for p, v in arguments(params, args):
            k = facts.key(p, bindings.slot(p)) if bindings.has_slot(p) else None
            if k in facts.slots and not own.holds(v, bound) or k in facts.list_slots and not own.listed(v, bound):
                return True
        return False
    for x in every_node(nodes):
        t = type(x)
        if t is n.RecordExp and any(f in facts.fields or f in facts.list_fields for f, _ in x.fields):
            return True
        if t is n.Set and isinstance(x.target, n.Attr) and (
                x.target.name in facts.fields and not own.holds(x.value, bound)
                or x.target.name in facts.list_fields and not own.listed(x.value, bound)):
            return True
        if t is n.Call and isinstance(x.func, n.Name):
            r = bound(x)
            if r is not None and r.kind == "rule" and spoils(r.target.params, x.args):
                return True
        if t is n.CheckCall:
            c = checks.get(x.name)
            if isinstance(c, n.Check):
                args, given = given_roll(c, x.args)
                if spoils(c.params, args) or given is not None and bindings.has_slot(c, "roll") \
                        and facts.key(c, bindings.slot(c, "roll")) in facts.slots and not own.holds(given, bound):
                    return True
        if t is n.Name and bound(x) is not None and bound(x).kind == "rule":
            called = any(type(y) is n.Call and y.func is x for y in every_node(nodes))
            if not called and any(bindings.has_slot(p) and (facts.key(p, bindings.slot(p)) in facts.slots
                                                            or facts.key(p, bindings.slot(p)) in facts.list_slots)
                                  for p in bound(x).target.params):
                return True
    return False


def wholes_of_script(facts: Wholes, nodes, bindings, bound) -> Wholes:
    """The facts, and the script's own locals that hold whole numbers (let and set only)."""
    slots: dict[str, list] = {}
    lets = set()
    for x in every_node(nodes):
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
        w = replace(facts, slots=facts.slots | mine)
        kept = frozenset(s for s in mine if all(whole(v, bound, w) for v in slots[s]))
        if kept == mine:
            return w
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
    spoilt |= {f for x in every_node(nodes) if type(x) is n.RecordExp for f, _ in x.fields}
    spoilt |= {x.target.name for x in every_node(nodes) if type(x) is n.Set and type(x.target) is n.Attr}
    return {f: frozenset(names) for f, names in found.items() if f not in spoilt}


def outcomes_broken_by(fields: dict, nodes) -> bool:
    """Whether an encounter's own code sets such a field or makes a record with its name."""
    for x in every_node(nodes):
        if type(x) is n.RecordExp and any(f in fields for f, _ in x.fields):
            return True
        if type(x) is n.Set and type(x.target) is n.Attr and x.target.name in fields:
            return True
    return False
