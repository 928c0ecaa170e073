"""Texts that name a field: the columns, locals and rule parameters that can only ever hold a text
naming a field every combatant has (the optimizer's `names` facts; `c[text]` then reads the field
in place, with no test of the text).

A sheet field is common when every sheet has it (its own or by `extends`): every combatant then
holds it. A column F holds such names when every table's or condition's column of that name holds
only written texts naming common fields (checked data no rule changes: a row's field cannot be
set), no other structure has a field of that name (a sheet's field, an event's field, a check's
parameter, roll or output, a record written `{F: ...}`, what a combatant holds besides its sheet:
its name, side and sheet), and every `set X.F = v` gives it such a text. A local (a slot of the
resolver's) holds such names when only `let` and `set` give it values and every one is such a
text; a rule's parameter, when the rule is only ever called by name, at least once, and every call
passes one. As for whole numbers (wholes.py, the model), the greatest fixpoint: assume every
candidate holds names, drop those a value the assumption cannot show a name reaches.

An encounter's own code is compiled later, against the program: `names_broken_by` says whether it
would give one of the facts a value they do not show a name; that encounter then runs on the plain
program (compiler.Snippets).
"""
from __future__ import annotations

from ...dsl.records import dataclass

from ...dsl.syntax import nodes as n
from ...dsl.syntax.nodes import every_node
from ...dsl.check.sheets import fields_by_sheet

from .wholes import FieldValue, argument_of, other_fields, writes

# What a combatant holds besides its sheet's fields, read as `c.name`, `c.side`, `c.sheet`.
COMBATANT_OWN = frozenset(("name", "side", "sheet"))


@dataclass(frozen=True)
class Names:
    texts: frozenset = frozenset()      # the common fields' names: the texts the facts hold
    fields: frozenset = frozenset()     # column names that hold such a text, always
    slots: frozenset = frozenset()      # the resolver's slots (locals and rule parameters) that do
    fields_or_none: frozenset = frozenset()     # column names that hold such a text or none
    slots_or_none: frozenset = frozenset()      # slots that do
    whole_texts: frozenset = frozenset()        # the texts naming a field that holds whole numbers (wholes.py)
    whole_fields: frozenset = frozenset()       # column names that hold such a text, always
    whole_slots: frozenset = frozenset()        # slots that do

    def holds(self, node, bound) -> bool:
        """Whether `node` surely gives a text naming a field every combatant has, these facts given."""
        return bool(self.texts) and names(node, bound, self.texts, self.fields, self.slots, False)

    def holds_whole(self, node, bound) -> bool:
        """Whether `node` surely gives a text naming a field every combatant has that only ever
        holds whole numbers (a combatant's field it names is a Python int)."""
        return bool(self.whole_texts) and names(node, bound, self.whole_texts, self.whole_fields, self.whole_slots,
                                                False)

    def holds_or_none(self, node, bound) -> bool:
        """Whether `node` surely gives such a text, or none."""
        return bool(self.texts) and names(node, bound, self.texts, self.fields_or_none, self.slots_or_none, True)


NONE = Names()


def names(node, bound, texts, fields, slots, none_ok: bool) -> bool:
    """`node` gives a text of `texts` (or none, where `none_ok`), when the fields `fields` and the
    slots `slots` hold only such values."""
    t = type(node)
    if t is n.Const:
        return type(node.value) is str and node.value in texts or none_ok and node.value is None
    if t is n.Attr or t is FieldValue:
        return node.name in fields
    if t is n.Name:
        r = bound(node)
        return r is not None and r.kind == "local" and r.target in slots
    if t is n.IfExp:
        return names(node.then, bound, texts, fields, slots, none_ok) and \
            names(node.other, bound, texts, fields, slots, none_ok)
    return False


def common_fields(ruleset, known) -> frozenset:
    """The fields every sheet has (and the resolver knows: the generated code's `_F` holds them)."""
    by_sheet = fields_by_sheet(ruleset.all(n.Sheet))
    if not by_sheet:
        return frozenset()
    common = set.intersection(*({f.name for f in fs} for fs in by_sheet.values()))
    return frozenset(common & set(known))


def name_columns(ruleset, texts, none_ok: bool) -> tuple[set, set]:
    """The names of the tables' and conditions' columns whose every cell is a written text of
    `texts` (or none, where `none_ok`), and the others."""
    good, other = set(), set()
    for d in (*ruleset.all(n.Table), *ruleset.all(n.Condition)):
        rows = [r[1] for r in d.rows] if isinstance(d, n.Condition) else list(d.rows)
        for i, col in enumerate(d.columns):
            rolled = isinstance(d, n.Table) and d.dice is not None and i == 0
            cells = [r[i] if i < len(r) else None for r in rows]
            ok = bool(rows) and not rolled and all(
                type(c) is n.Const and (type(c.value) is str and c.value in texts or none_ok and c.value is None)
                for c in cells)
            (good if ok else other).add(col)
    return good, other


def field_names(ruleset, nodes, bindings, whole_fields=frozenset()) -> Names:
    """The greatest sets of columns and slots that only ever hold texts naming a common field
    (those that hold such texts or none; those that hold texts naming one of `whole_fields`,
    the fields the whole-number facts hold)."""
    texts = common_fields(ruleset, bindings.fields)
    if not texts:
        return NONE
    written = writes(ruleset, nodes, bindings)
    sure = _fixpoint(ruleset, nodes, bindings, texts, written, False)
    maybe = _fixpoint(ruleset, nodes, bindings, texts, written, True)
    whole_texts = texts & frozenset(whole_fields)
    whole = _fixpoint(ruleset, nodes, bindings, whole_texts, written, False) if whole_texts else ((), ())
    return Names(texts, *sure, *maybe, whole_texts, *map(frozenset, whole))


def _fixpoint(ruleset, nodes, bindings, texts, written, none_ok) -> tuple[frozenset, frozenset]:
    good, other = name_columns(ruleset, texts, none_ok)
    sheet_fields = {f.name for s in ruleset.all(n.Sheet) for f in s.fields}
    fields = frozenset(good - other - sheet_fields - COMBATANT_OWN - other_fields(ruleset, nodes))
    fields_w, slots_w, others = written
    slots = frozenset(s for s in slots_w if s not in others)
    bound = bindings.of
    while True:
        f2 = frozenset(f for f in fields if all(names(v, bound, texts, fields, slots, none_ok)
                                                for v in fields_w.get(f, ())))
        s2 = frozenset(s for s in slots if all(names(v, bound, texts, fields, slots, none_ok) for v in slots_w[s]))
        if f2 == fields and s2 == slots:
            return fields, slots
        fields, slots = f2, s2


def names_broken_by(facts: Names, nodes, bindings, bound) -> bool:
    """Whether an encounter's own code (`nodes`, its `bindings`) would give a column or a rule's
    parameter of the facts a value they do not show fits it, or make a record with such a column's
    name (its own locals are taken as holding anything)."""
    if not facts.fields_or_none and not facts.slots_or_none:
        return False

    def fits(value, fields, slots, name) -> bool:
        """A value given to a column or slot `name` that the facts hold."""
        if name in slots and not facts.holds(value, bound):
            return False
        if name in facts.whole_fields | facts.whole_slots and not facts.holds_whole(value, bound):
            return False
        return name not in fields or facts.holds_or_none(value, bound)

    held = facts.fields_or_none | facts.whole_fields
    for x in every_node(nodes):
        t = type(x)
        if t is n.RecordExp and any(f in held for f, _ in x.fields):
            return True
        if t is n.Set and isinstance(x.target, n.Attr) and x.target.name in held \
                and not fits(x.value, facts.fields_or_none, facts.fields, x.target.name):
            return True
        if t is n.Call and isinstance(x.func, n.Name):
            r = bound(x)
            if r is not None and r.kind == "rule" and any(
                    bindings.has_slot(p) and not fits(v, facts.slots_or_none, facts.slots, bindings.slot(p))
                    for p, v in argument_of(r.target, x)):
                return True
        if t is n.Name and bound(x) is not None and bound(x).kind == "rule":
            called = any(type(y) is n.Call and y.func is x for y in every_node(nodes))
            if not called and any(bindings.has_slot(p) and bindings.slot(p) in facts.slots_or_none | facts.whole_slots
                                  for p in bound(x).target.params):
                return True
    return False
