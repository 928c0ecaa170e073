"""Name resolution: the scope rules, which the resolve stage (resolver.py) applies once and writes
down for the compiler (bindings.py); the compiler never asks them again.

A bare name is looked up, in order: a local; a grade of the condition whose
block we are in; a combatant of the encounter; a declaration in the value
namespace (table, condition, var, outcome list); an outcome; a rule (to say it
must be called); a builtin. A called name is a rule, else a builtin (`callee`).
"""
from __future__ import annotations


from ..syntax import nodes as n
from ..syntax.nodes import walk
from ..diagnostics import Diagnostic, GrimorioError, did_you_mean
from ..records import dataclass, field

# Builtin functions of the language: name -> (min args, max args, what it does).
BUILTINS = {
    "combatants": (0, 0, "every combatant, in the encounter's order"),
    "standing": (0, 0, "the combatants still standing, as the rules' stands declaration says"),
    "has": (2, 3, "whether a combatant holds a condition (of a grade)"),
    "cards": (2, 2, "the grades of a condition a combatant holds"),
    "all_conditions": (0, 0, "every condition, in order of declaration"),
    "condition_named": (1, 1, 'condition_named(TEXT): the condition of that name, as "condition" declares it'),
    "grades": (1, 1, "the grades of a condition, mildest first"),
    "distinct": (1, 1, "a list without repeats, in order"),
    "len": (1, 1, "how many items a list has"),
    "min": (1, 9, "the smallest of its arguments, or of a list"),
    "max": (1, 9, "the largest of its arguments, or of a list"),
    "sum": (1, 1, "the sum of a list"),
    "abs": (1, 1, "the absolute value"),
    "floor": (1, 1, "rounds down"),
    "ceil": (1, 1, "rounds up"),
    "clamp": (3, 3, "clamp(x, low, high)"),
    "first": (1, 1, "the first item of a list, or none"),
    "round_number": (0, 0, "the number of the current round"),
    "act": (1, 1, "asks a combatant's controller for an action and runs it; false if it passes"),
    "dice": (2, 2, "dice(n, f): n dice of f faces, from numbers"),
    "keep_highest": (2, 2, "keep_highest(4D6, 3): the dice, of which the 3 highest count"),
    "keep_lowest": (2, 2, "keep_lowest(2D20, 1): the dice, of which the lowest counts"),
    "dice_count": (1, 1, "dice_count(2D6+1): how many dice, 2"),
    "dice_faces": (1, 1, "dice_faces(2D6+1): the faces of each die, 6"),
    "dice_modifier": (1, 1, "dice_modifier(2D6+1): the number added to the dice, 1"),
    "dice_times": (2, 2, "dice_times(1D6+2, 2): twice the dice, the modifier once: 2D6+2"),
    "repeated": (2, 2, "repeated(1D6+2, 2): the whole roll twice, added up: 2D6+4"),
    "rows": (1, 1, "rows(TABLE): the rows of a table, in order"),
    "range": (2, 2, "range(a, b): the whole numbers from a to b"),
    "slice": (3, 3, "slice(list, a, b): the items a to b, counted from 1"),
    "without": (2, 2, "without(list, x): the list without x"),
    "held": (2, 2, "held(c, COND): the data given with the cards of a condition c holds"),
    "choose": (2, 2, "choose(c, list): asks c's controller to choose an item of the list"),
    "map": (0, 0, "map(): a new, empty map (m[k], set m[k] = v, k in m, keys(m))"),
    "keys": (1, 1, "keys(m): the keys a map keeps, in the order they were first kept"),
    "agree": (2, 3, "agree(x, WORD[, PLURAL]): the word as it agrees with x (a count, or the form x gives)"),
}


@dataclass
class Scope:
    locals: set = field(default_factory=set)
    condition: n.Condition | None = None
    combatants: tuple = ()
    # Local name -> its slot: the Python name of its binding, given by the resolver (a number,
    # never the spelling; dsl/check/bindings.py).
    ids: dict = field(default_factory=dict)
    # Local name -> the kind its value has where the text shows it (dsl/check/kinds.py). A name
    # bound anew forgets it.
    kinds: dict = field(default_factory=dict)

    def typed(self, name: str, kind) -> "Scope":
        """`name` bound (or set) to a value of this kind (None: a kind the text does not show)."""
        kinds = {k: v for k, v in self.kinds.items() if k != name}
        if kind is not None:
            kinds[name] = kind
        return Scope(self.locals | {name}, self.condition, self.combatants, self.ids, kinds)

    def forget(self, names) -> "Scope":
        """The same names, the kinds of these forgotten (a loop may change them before it reads them)."""
        kinds = {k: v for k, v in self.kinds.items() if k not in names}
        return Scope(self.locals, self.condition, self.combatants, self.ids, kinds)

    def bound(self, ids: dict, kind=None) -> "Scope":
        """These locals visible too, each named by its slot (the resolver's, dsl/check/bindings.py),
        holding a value of this kind (None: a kind the text does not show)."""
        kinds = {k: v for k, v in self.kinds.items() if k not in ids} if self.kinds else {}
        if kind is not None:
            kinds.update(dict.fromkeys(ids, kind))
        return Scope(self.locals | set(ids), self.condition, self.combatants, {**self.ids, **ids}, kinds)


@dataclass(frozen=True)
class Resolved:
    kind: str          # local grade combatant rule table condition var outcomes outcome builtin
    target: object = None      # a local: its slot (dsl/check/bindings.py)


_KNOWN_FIELDS: dict[tuple[int, ...], tuple[tuple, frozenset[str]]] = {}    # declarations' ids -> (them, fields)


def field_names(ruleset) -> frozenset[str]:
    """Every field any value of this ruleset can have: a name read as `x.NAME`
    that is none of these is a mistake wherever it appears. Kept for the same
    declarations (frozen nodes, held here so that their ids stay theirs): every
    encounter prepared against a program asks again, and walking the whole
    ruleset was most of the cost of preparing one."""
    decls = tuple(d for space in ruleset.spaces.values() for d in space.values())
    key = tuple(map(id, decls))
    known = _KNOWN_FIELDS.get(key)
    if known is None:
        known = _KNOWN_FIELDS[key] = (decls, frozenset(_field_names(ruleset)))
        while len(_KNOWN_FIELDS) > 16:
            del _KNOWN_FIELDS[next(iter(_KNOWN_FIELDS))]
    return known[1]


def _field_names(ruleset) -> set[str]:
    out = {"name", "side", "sheet"}
    for s in ruleset.all(n.Sheet):
        out |= {f.name for f in s.fields}
    for t in ruleset.all(n.Table):
        out |= set(t.columns)
    for c in ruleset.all(n.Condition):
        out |= set(c.columns)
    for e in ruleset.all(n.Event):
        out |= {f for f, _ in e.fields}
    for c in ruleset.all(n.Check):
        out |= {p.name for p in c.params} | {c.roll_name, c.decide.output}
    for space in ruleset.spaces.values():
        for d in space.values():
            for node in walk(d):
                if isinstance(node, n.RecordExp):
                    out |= {f for f, _ in node.fields}
    return out


class Resolver:
    def __init__(self, ruleset, fields=None):
        """`fields`: the ruleset's field names when they are known (a compiled program keeps them)."""
        self.rs = ruleset
        self.fields = field_names(ruleset) if fields is None else fields
        self.values = ruleset.space("value")
        self.rules = ruleset.space("rule")
        self.outcomes: dict[str, tuple[n.Outcomes, int]] = {}
        for d in self.values.values():
            if isinstance(d, n.Outcomes):
                for i, v in enumerate(d.values):
                    self.outcomes.setdefault(v, (d, i))

    def knowing_records(self, nodes) -> "Resolver":
        """This resolver, knowing also the fields of the records `nodes` make (an encounter's own
        script: `let r = {zz: 1}`, `add Ana caído with {n: 1}`); itself when they add none."""
        extra = {f for x in walk(nodes) if isinstance(x, n.RecordExp) for f, _ in x.fields} - self.fields
        if not extra:
            return self
        import copy             # (here: a run of an encounter without records of its own never imports it)
        out = copy.copy(self)
        out.fields = self.fields | extra
        return out

    def resolve(self, name: str, scope: Scope) -> Resolved | None:
        if name in scope.locals:
            return Resolved("local", scope.ids.get(name))
        if scope.condition is not None and name in scope.condition.grades:
            return Resolved("grade", (scope.condition, name))
        if name in scope.combatants:
            return Resolved("combatant", scope.combatants.index(name))
        d = self.values.get(name)
        if d is not None:
            kind = {n.Table: "table", n.Condition: "condition", n.Var: "var", n.Outcomes: "outcomes"}[type(d)]
            return Resolved(kind, d)
        if name in self.outcomes:
            return Resolved("outcome", self.outcomes[name])
        return self.callee(name)

    def callee(self, name: str) -> Resolved | None:
        """What `name(...)` calls: a rule, else a builtin (no local or value can be called)."""
        rule = self.rules.get(name)
        if rule is not None:
            return Resolved("rule", rule)
        if name in BUILTINS:
            return Resolved("builtin", name)
        return None

    def candidates(self, scope: Scope):
        out = set(scope.locals) | set(self.values) | set(self.rules) | set(self.outcomes) | set(BUILTINS)
        out |= set(scope.combatants)
        if scope.condition is not None:
            out |= set(scope.condition.grades)
        return out


def bind_args(params, args, span, what) -> list:
    """The argument node given for each parameter, by place or by name; a
    GrimorioError (E0206) for one too many, a name no parameter has, or one missing."""
    names = [p.name for p in params]
    out: list = [None] * len(names)
    pos = 0
    for a in args:
        if a.name is None:
            if pos >= len(names):
                raise GrimorioError(Diagnostic(
                    "E0206", f"{what} takes {len(names)} argument{'s' if len(names) != 1 else ''}, this gives more",
                    a.span, f"its parameters are: {', '.join(names) or 'none'}"))
            out[pos] = a.value
            pos += 1
        else:
            if a.name not in names:
                raise GrimorioError(Diagnostic("E0206", f'{what} has no parameter "{a.name}"', a.span,
                                               did_you_mean(a.name, names)))
            out[names.index(a.name)] = a.value
    missing = [nm for nm, v in zip(names, out) if v is None]
    if missing:
        raise GrimorioError(Diagnostic("E0206", f"{what} needs {', '.join(missing)}", span,
                                       f"its parameters are: {', '.join(names)}"))
    return out


def given_roll(check, args) -> tuple[list, object]:
    """A check's arguments, and the roll its caller gives by the roll's name (`r: 7`): the
    table is then read for that roll and no die is rolled; None when the check rolls its own."""
    given = [a for a in args if a.name == check.roll_name]
    return [a for a in args if a.name != check.roll_name], (given[0].value if given else None)


def check_builtin_args(name: str, args, span) -> None:
    """A builtin takes its arguments in order, as many as it says (E0206)."""
    lo, hi, does = BUILTINS[name]
    if any(a.name for a in args):
        raise GrimorioError(Diagnostic("E0206", f'builtin "{name}" takes its arguments in order, without names', span,
                                       f"{name}: {does}"))
    if not lo <= len(args) <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise GrimorioError(Diagnostic("E0206", f'"{name}" takes {want} argument{"s" if hi != 1 else ""}, '
                                                f"not {len(args)}", span, f"{name}: {does}"))


def check_attr(resolver: "Resolver", x: n.Attr, scope: Scope) -> None:
    """`Condition.Grade` names a grade it has (E0201); any other `.name` is a field something declares (E0203)."""
    if isinstance(x.obj, n.Name):
        r = resolver.resolve(x.obj.id, scope)
        if r is not None and r.kind == "condition" and not r.target.grades and r.target.columns:
            if x.name not in r.target.columns:          # a state's data: STATE.column
                raise GrimorioError(Diagnostic("E0203", f'state "{r.target.name}" has no column "{x.name}"',
                                               x.name_span or x.span, did_you_mean(x.name, r.target.columns) or
                                               f"its columns are: {', '.join(r.target.columns)}"))
            return
        if r is not None and r.kind == "condition":
            grades = r.target.grades
            if x.name not in grades:
                raise GrimorioError(Diagnostic("E0201", f'condition "{r.target.name}" has no grade "{x.name}"',
                                               x.name_span or x.span, did_you_mean(x.name, grades)))
            return
    if x.name not in resolver.fields:
        raise GrimorioError(Diagnostic("E0203", f'nothing in these rules has a field "{x.name}"', x.name_span or x.span,
                                       did_you_mean(x.name, resolver.fields) or
                                       "fields come from the sheet, table columns, events, checks and records"))


def known(space: dict, name: str, what: str, span):
    """The declaration called `name`, or an error (E0201) with the closest name."""
    found = space.get(name)
    if found is None:
        raise GrimorioError(Diagnostic("E0201", f'there is no {what} "{name}"', span, did_you_mean(name, space)))
    return found


def emit_args(event: n.Event, args, span) -> list:
    """The value node of each field of an emitted event: every value named, defaults for the rest (E0206)."""
    if any(a.name is None for a in args):
        raise GrimorioError(Diagnostic("E0206", "name each value an event carries, as FIELD: VALUE", span,
                                       f"its fields are: {', '.join(f for f, _ in event.fields) or 'none'}"))
    given = {a.name for a in args}
    full = list(args) + [n.Arg(span, f, default) for f, default in event.fields if f not in given and default is not None]
    return bind_args([n.Param(span, f) for f, _ in event.fields], full, span, f'event "{event.name}"')
