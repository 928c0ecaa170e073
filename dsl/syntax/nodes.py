"""The AST: frozen records (dsl/records.py), each carrying the span of its source text."""
from __future__ import annotations

import re

from ..diagnostics import Span
from ..records import dataclass, field, fields  # records, made without the dataclasses module

# The word of an agreeing placeholder ({x:WORD}): letters (any alphabet), with inner spaces or hyphens.
# Here, not in the builder, so that the checker reads it without importing the parser.
AGREE_WORD = re.compile(r"[^\W\d_](?:[\w' -]*\w)?")

# ------------------------------------------------------------------ expressions


@dataclass(frozen=True)
class Node:
    """Every subclass is a frozen record of the fields it annotates (no decorator on each)."""
    span: Span = field(compare=False, repr=False)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        dataclass(frozen=True)(cls)


class Const(Node):
    value: object          # int, bool, str, None, Fraction, Dice


class DiceLit(Node):
    count: int
    sides: int


class Name(Node):
    id: str


class OptionRef(Node):
    name: str


class Attr(Node):
    obj: Node
    name: str
    name_span: Span = field(compare=False, repr=False, default=None)


class Index(Node):
    obj: Node
    key: Node


class Arg(Node):
    name: str | None
    value: Node


class Call(Node):
    func: Node
    args: tuple[Arg, ...]


class Unary(Node):
    op: str                # "-" or "not"
    operand: Node


class Binary(Node):
    op: str                # + - * / % == != < <= > >= in notin and or
    left: Node
    right: Node


class IfExp(Node):
    cond: Node
    then: Node
    other: Node


class ListExp(Node):
    items: tuple[Node, ...]


class Comprehension(Node):
    elt: Node
    var: str
    iter: Node
    cond: Node | None
    more: tuple = ()        # the clauses after the first (CompFor): [e for a in A for b in B if q]

    def clauses(self) -> list:
        """(variable, list, condition) of every `for` clause, outermost first."""
        return [(self.var, self.iter, self.cond)] + [(c.var, c.iter, c.cond) for c in self.more]


class CompFor(Node):
    """A `for` clause of a comprehension after its first: each item of the clauses before walks it."""
    var: str
    iter: Node
    cond: Node | None


class Search(Node):
    """`first|any|all VAR in LIST where COND`: walks LIST until it knows the answer."""
    kind: str              # first, any, all
    var: str
    iter: Node
    cond: Node
    default: Node | None = None    # first's value when no item matches (none if not given)


class RecordExp(Node):
    fields: tuple[tuple[str, Node], ...]


class Roll(Node):
    dice: Node
    by: Node | None
    purpose: str | None


class CheckCall(Node):
    name: str
    args: tuple[Arg, ...]
    by: Node | None
    purpose: str | None


class Emit(Node):
    event: str
    args: tuple[Arg, ...]


class Maximum(Node):
    dice: Node

# ------------------------------------------------------------------ table cells


class Test(Node):
    kind: str              # any, eq, cmp, range
    op: str | None = None
    value: Node | None = None
    high: Node | None = None


class DecisionRow(Node):
    tests: tuple[tuple[Test, ...], ...]    # one tuple of alternatives per input column
    output: object                          # Node (value) or tuple of statements


class Decide(Node):
    policy: str            # first | all
    inputs: tuple[Node, ...]
    output: str            # "then" for actions, or the name bound to the value
    rows: tuple[DecisionRow, ...]

# ------------------------------------------------------------------ statements


class Let(Node):
    name: str
    value: Node


class Set(Node):
    target: Node
    value: Node


class Say(Node):
    message: str
    args: tuple[Arg, ...]


class Return(Node):
    value: Node | None


class CardOp(Node):
    op: str                # receive | add | remove
    who: Node
    condition: str
    grade: str | None
    cond_span: Span = field(compare=False, repr=False, default=None)
    data: Node | None = None       # what the card holds besides its grade ("with"): a source, a duration...
    # The condition or grade as any other expression (a field, a call, an index): None when a name is written.
    source: Node | None = None
    grade_source: Node | None = None


class Append(Node):
    target: Node
    value: Node


class Act(Node):
    who: Node


class Pass(Node):
    pass


class Stop(Node):
    pass


class Expect(Node):
    """An expectation of an encounter script: a condition that must hold, or a
    transcript line that must (or must not) have been said by then."""
    expr: Node | None
    said: str | None = None
    negated: bool = False


class ExprStmt(Node):
    expr: Node


class If(Node):
    branches: tuple[tuple[Node, tuple], ...]
    orelse: tuple | None


class For(Node):
    var: str
    iter: Node
    key: Node | None
    desc: bool
    where: Node | None
    body: tuple
    group: bool = False
    more: tuple = ()        # the keys of `ordered by` after the first (OrderKey), each breaking the ties of those before


class OrderKey(Node):
    """A key of `ordered by` after the first: `it.agility desc`."""
    key: Node
    desc: bool


class While(Node):
    cond: Node
    body: tuple

# ------------------------------------------------------------------ declarations


class Decl(Node):
    name: str


class Edition(Decl):
    title: str | None
    description: str | None
    extends: str | None
    includes: tuple[tuple["str | ModuleRef", Span], ...]   # files of its folder, and modules by name
    settings: tuple[tuple[str, Node], ...]


@dataclass(frozen=True)
class ModuleRef:
    """`include module NAME`: a module found by name in the rules folders."""
    name: str


@dataclass(frozen=True)
class Expects:
    """What a module expects the including edition to declare: a kind and the names of that kind."""
    kind: str
    kind_span: Span
    names: tuple[tuple[str, Span], ...]


class Module(Decl):
    title: str | None
    description: str | None
    includes: tuple[tuple["str | ModuleRef", Span], ...]
    expects: tuple[Expects, ...]


class Option(Decl):
    default: Node
    description: str | None


class Format(Decl):
    """How one kind of value prints in the transcript (the name is the kind: dice, true, ...)."""
    template: str
    name_span: Span | None = field(compare=False, repr=False, default=None)
    template_span: Span | None = field(compare=False, repr=False, default=None)


class Var(Decl):
    value: Node
    session: bool = False      # "session var": every run starts it afresh; a saved state does not keep it


class Field(Node):
    name: str
    type: str              # int percent bool text list row
    low: int | None = None
    high: int | None = None
    table: str | None = None
    default: Node | None = None
    type_span: Span | None = field(compare=False, repr=False, default=None)


class Sheet(Decl):
    fields: tuple[Field, ...]              # its own, after those of the sheet it extends
    extends: str | None = None
    extends_span: Span | None = field(compare=False, repr=False, default=None)


class Outcomes(Decl):
    values: tuple[str, ...]
    value_spans: tuple[Span, ...] = field(compare=False, repr=False, default=())


class Param(Node):
    name: str
    domain: Node | None = None


class Condition(Decl):
    grades: tuple[str, ...]
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple], ...]      # (grade, cell values)
    on_receive: tuple[tuple[Param, ...], tuple] | None
    row_spans: tuple[Span, ...] = field(compare=False, repr=False, default=())      # each row's grade cell
    header_spans: tuple[Span, ...] = field(compare=False, repr=False, default=())   # every header cell


class Table(Decl):
    dice: object | None                       # Dice for a dice table
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]                   # cell values; key range (lo, hi) for dice tables
    row_spans: tuple[Span, ...] = field(compare=False, repr=False, default=())
    header_spans: tuple[Span, ...] = field(compare=False, repr=False, default=())


class Check(Decl):
    params: tuple[Param, ...]
    roll_name: str
    dice: Node
    decide: Decide


class Message(Decl):
    params: tuple[Param, ...]
    template: str
    parts: tuple = ()          # the template: texts, and expressions for its {placeholders}


class Event(Decl):
    fields: tuple[tuple[str, Node | None], ...]


class Rule(Decl):
    params: tuple[Param, ...]
    body: tuple


class Action(Decl):
    params: tuple[Param, ...]
    requires: tuple[Node, ...]
    costs: tuple[tuple[str, Node], ...]
    body: tuple
    cost_spans: tuple[Span, ...] = field(compare=False, repr=False, default=())   # each cost's field name


class Reaction(Decl):
    params: tuple[Param, ...]
    event: str
    by: Node | None
    requires: tuple[Node, ...]
    costs: tuple[tuple[str, Node], ...]
    body: tuple
    cost_spans: tuple[Span, ...] = field(compare=False, repr=False, default=())


class Pref(Node):
    name: str
    args: tuple[Arg, ...]
    when: Node | None


class Pick(Node):
    """One way a tactic answers choose(c, list): the item with the highest (lowest) key among
    those whose `when` holds. `it` is the item; `who`, if its line names one, the combatant asked."""
    who: str | None
    order: str             # "highest" or "lowest"
    key: Node
    when: Node | None
    who_span: Span = field(compare=False, repr=False, default=None)


class Tactic(Decl):
    act: tuple[Pref, ...]
    react: tuple[tuple[str, tuple[Pref, ...]], ...]
    choose: tuple[Pick, ...] = ()


class Step(Node):
    name: str
    body: tuple


class Round(Decl):
    steps: tuple[Step, ...]
    until: Node | None
    final: tuple | None
    start: tuple | None = None      # `start:`, run once before round 1


class Tally(Decl):
    """A measure taken when a run ends: per combatant when it names one (`param`),
    else once per run. `grimorio simulate` sums them over many runs."""
    param: str | None
    value: Node


class Stands(Tally):
    """Whether a combatant is still in the encounter when it ends (named "stands")."""


class Draw(Tally):
    """A named outcome of a run that no side won alone (`draw todos_huyeron: ...`): true or false."""

# ------------------------------------------------------------------ encounters


class Combatant(Node):
    name: str
    fields: tuple[tuple[str, object, Span], ...]
    holds: tuple[tuple[str, str | None, Span], ...]
    changes: frozenset = frozenset()      # the fields given by "change" lines (a saved value changed on purpose)


class Pin(Node):
    words: tuple[str, ...]     # [who] [purpose]
    faces: tuple[int, ...]


class Decision(Node):
    who: str
    # (words, span, refused): refused is None for a choice the rules must allow,
    # else the text the reason of their refusal must contain ("" for any reason).
    choices: tuple[tuple[tuple[str, ...], Span, str | None], ...]


class Encounter(Node):
    title: str | None
    edition: str | None
    edition_span: Span | None
    seed: int | None
    settings: tuple[tuple[str, Node], ...]
    rounds: int | None
    combatants: tuple[Combatant, ...]
    strict_dice: bool
    pins: tuple[Pin, ...]
    script: tuple[tuple[int, tuple[Decision, ...]], ...]
    do: tuple
    expects: tuple[Expect, ...]                        # checked after the run
    round_expects: tuple[tuple[int, Expect], ...] = ()  # checked at the end of a round

# ------------------------------------------------------------------ labeled blocks and layers


class Block(Node):
    """`block NAME:` — statements run in place, with a name a layer can patch."""
    name: str
    body: tuple


class Target(Node):
    """What a patch names: a declaration (kind, name), and maybe a part of it."""
    kind: str                  # the declaration's keyword: rule, table, round, ...
    name: str
    part: str | None = None    # step, block, row, grade, act, react, on receive, requires, cell
    key: object = None         # the part's name, row number or row key


class HouseHead(Node):
    """`extends EDITION` at the margin of a house-rule file: the edition its patches are written for."""
    edition: str


class Patch(Node):
    """One change a layer makes to a declaration below it."""
    op: str                    # replace remove insert add change set
    target: Target
    where: str | None = None   # before after start end
    new: object = None         # the declaration, statements, step, rows, preferences, value...
    column: str | None = None  # the cell's column, for change


# The keyword of each kind of declaration, as a layer names it.
KIND_OF = {
    Rule: "rule", Action: "action", Reaction: "reaction", Message: "message", Table: "table",
    Check: "check", Tactic: "tactic", Condition: "condition", Option: "option", Event: "event",
    Var: "var", Round: "round", Outcomes: "outcomes", Sheet: "sheet", Edition: "edition", Module: "module",
    Tally: "tally", Stands: "stands", Draw: "draw", Format: "format",
}


def walk(node):
    """Every AST node under `node` (tuples and nested nodes included), depth first, without recursion."""
    stack = [node]
    while stack:
        x = stack.pop()
        if type(x) is tuple:
            stack.extend(reversed(x))
        elif isinstance(x, Node):
            yield x
            names = _FIELDS.get(type(x))
            if names is None:
                names = _FIELDS[type(x)] = tuple(f.name for f in fields(x))
            stack.extend(v for v in map(x.__getattribute__, reversed(names)) if isinstance(v, (tuple, Node)))


_FIELDS: dict[type, tuple[str, ...]] = {}       # each node class's field names

_EVERY: tuple = ((), (), [])        # the last (ids, declarations, every node) every_node made


def every_node(nodes) -> list:
    """Every node under the declarations `nodes`, as `walk(tuple(nodes))` gives them, kept for the
    last declarations asked: the optimizer's passes walk the same ones many times over (on a
    warm run, for an encounter's own code). The declarations are held with the list, so their
    ids stay theirs; nodes never change once built."""
    global _EVERY
    nodes = tuple(nodes)
    key = tuple(map(id, nodes))
    kept = _EVERY
    if kept[0] != key:
        kept = _EVERY = (key, nodes, list(walk(nodes)))
    return kept[2]
