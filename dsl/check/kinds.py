"""What kind of value an expression gives, where the text alone tells: enough
to refuse, before anything runs, rolling a number, adding a text to a
fraction, ordering a grade against a number or setting a field of a table's
row, as the run would (interpreter/run/semantics.py says what each operator
takes; tests/test_kinds_agree.py holds the two to each other). Written values,
what operators and builtins make of them, table cells (by their column) and
locals bound to them (the resolver's scopes) have a kind; parameters, rule
results, vars and whatever mixes kinds stay unknown (None), and unknown is
never an error: only sure mismatches are."""
from __future__ import annotations

from fractions import Fraction

from ..syntax import nodes as n
from ..diagnostics import Diagnostic, GrimorioError
from .names import Resolved

NUMBER, BOOL, TEXT, DICE, LIST, NONE = "a number", "true or false", "a text", "dice", "a list", "none"
MAP = "a map"
FRACTION, RECORD = "a fraction", "a record"
CONDITION = "a condition"             # one the text does not name: condition_named(TEXT), an item of all_conditions()
COMBATANT = "the combatant"           # and its name: its fields are the sheet's, whatever it holds
NUMERIC = (NUMBER, FRACTION)          # what arithmetic and order take (the semantics module's is_number)

LIST_BUILTINS = {"combatants", "standing", "cards", "all_conditions", "grades", "distinct", "range", "slice", "without", "held", "keys"}
NUMBER_BUILTINS = {"len", "sum", "abs", "floor", "ceil", "round_number", "dice_count", "dice_faces", "dice_modifier"}


class Kind(str):
    """A kind in a designer's words (it compares as its words), with what more the text shows:
    the kind of a list's items (`item`; None when unknown or mixed) and whether it surely has
    one (`filled`); the fields of a record, a table's row or a grade (`fields`: name -> kind,
    None when unknown); the table a row belongs to (`table`)."""

    def __new__(cls, words, item=None, filled=False, fields=None, table=None):
        k = super().__new__(cls, words)
        k.item, k.filled, k.fields, k.table = item, filled, fields, table
        return k


def join(a, b):
    """What two kinds have in common (the kind of a value that is one or the other), or None."""
    if a is None or b is None or a != b:
        return None
    if not isinstance(a, Kind) or not isinstance(b, Kind):
        return str(a)
    fields = None
    if a.fields is not None and b.fields is not None and a.fields.keys() == b.fields.keys():
        fields = {f: join(a.fields[f], b.fields[f]) for f in a.fields}
    return Kind(a, join(a.item, b.item), a.filled and b.filled, fields, a.table if a.table == b.table else None)


def join_all(kinds):
    """What all these kinds have in common (None for none given)."""
    out = None
    for i, k in enumerate(kinds):
        out = k if i == 0 else join(out, k)
    return out


def list_of(kinds, filled) -> Kind:
    return Kind(LIST, join_all(kinds), filled)


def _column(rows, i):
    """The kind every cell of column i shows (a name, "-" or a missing cell leaves it unknown); of a
    list, only that it is one (`append` may change the list a cell holds)."""
    return held(join_all([kind(r[i], lambda name: None) if i < len(r) and r[i] is not None else None
                          for r in rows]))


def cell_misfit(rows, i: int, value) -> tuple[str, str] | None:
    """(the column's kind, the cell's) when a cell put in column i of these rows (a layer's `change`) is
    surely of another kind than every other cell of the column shows; else None. Whole numbers and
    fractions fit each other. A column's kind is what its cells other than none hold, and none fits
    every column, as "-" does in the table itself."""
    filled = [r for r in rows if i < len(r) and r[i] is not None and kind(r[i], lambda name: None) != NONE]
    col, k = _column(filled, i), kind(value, lambda name: None)
    if col is None or k in (None, NONE) or col == k or (col in NUMERIC and k in NUMERIC):
        return None
    return col, k


_ROWS: dict[int, tuple] = {}        # a table or condition's id -> (it, the kind of its rows)


def row_kind(d) -> Kind:
    """The kind of a table's row (a grade of a condition): its columns, each typed by its cells."""
    held = _ROWS.get(id(d))
    if held is None or held[0] is not d:
        if isinstance(d, n.Condition):
            fields = {col: _column([r[1] for r in d.rows], i) for i, col in enumerate(d.columns)}
            k = Kind(f'a grade of "{d.name}"', fields=fields)
        else:
            fields = {col: _column(d.rows, i) for i, col in enumerate(d.columns)}
            if d.dice is not None:
                fields[d.columns[0]] = None         # a roll, or a range as a text
            k = Kind(f'a row of "{d.name}"', fields=fields, table=d.name)
        held = _ROWS[id(d)] = (d, k)
        while len(_ROWS) > 256:
            del _ROWS[next(iter(_ROWS))]
    return held[1]


def _name(node, resolve):
    r = resolve(node.id, node)
    if r is None:
        return None
    if r.kind == "known":               # a local whose kind the text shows (the checker's scopes)
        return r.target
    if r.kind == "outcome":
        return f'an outcome of "{r.target[0].name}"'
    if r.kind == "grade":
        return row_kind(r.target[0])
    if r.kind == "condition" and not r.target.grades and r.target.columns:
        return Kind(f"the condition {node.id}", fields=row_kind(r.target).fields)    # a state with data
    if r.kind in ("condition", "table"):
        return f"the {r.kind} {node.id}"
    if r.kind == "combatant":
        return f"{COMBATANT} {node.id}"
    if r.kind == "number":          # a local the compiler knows holds a whole number here
        return NUMBER
    return None


def _numeric(op, a, b):
    """The kind of a op b on two numbers: a whole number, or a fraction once one side (or /) is."""
    if a in NUMERIC and b in NUMERIC:
        return NUMBER if a == b == NUMBER and op != "/" else FRACTION
    return None


def _binary(node, resolve):
    if node.op in ("==", "!=", "<", "<=", ">", ">=", "in", "notin"):
        return BOOL
    a, b = kind(node.left, resolve), kind(node.right, resolve)
    if node.op in ("and", "or"):
        return join(a, b)
    if node.op in "+-" and DICE in (a, b) and {a, b} <= {DICE, NUMBER}:
        return DICE
    if node.op == "+" and a == b and a in (TEXT, LIST):
        return TEXT if a == TEXT else list_of([a.item if isinstance(a, Kind) else None,
                                               b.item if isinstance(b, Kind) else None],
                                              getattr(a, "filled", False) or getattr(b, "filled", False))
    return _numeric(node.op, a, b)


def _attr(node, resolve):
    if isinstance(node.obj, n.Name):
        r = resolve(node.obj.id, node.obj)
        if r is not None and r.kind == "condition" and not r.target.grades:
            return (row_kind(r.target).fields or {}).get(node.name)     # a state's data: STATE.column
        if r is not None and r.kind == "condition":
            return row_kind(r.target)            # Condition.Grade
    k = kind(node.obj, resolve)
    fields = getattr(k, "fields", None)
    return fields.get(node.name) if fields else None


def _index(node, resolve):
    if isinstance(node.obj, n.Name):
        r = resolve(node.obj.id, node.obj)
        if r is not None and r.kind == "table":
            return row_kind(r.target)
    k = kind(node.obj, resolve)
    return k.item if k == LIST and isinstance(k, Kind) and kind(node.key, resolve) == NUMBER else None


def _rows(node, resolve):
    """rows(TABLE): a list of the table's rows, their columns known."""
    arg = node.args[0].value if len(node.args) == 1 else None
    r = resolve(arg.id, arg) if isinstance(arg, n.Name) else None
    if r is None or r.kind != "table":
        return LIST
    return Kind(LIST, row_kind(r.target), bool(r.target.rows))


def expect_table(node, resolve, what):
    k = kind(node, resolve)
    if k is not None and not k.startswith("the table"):
        _fail(node, f"{what} takes a table, not {k}", "name a table declared with \"table\": rows(NAME)")


def _item(k):
    return k.item if isinstance(k, Kind) and k == LIST else None


def _call(node, resolve):
    if not isinstance(node.func, n.Name):
        return None
    r = resolve(node.func.id, node.func)
    if r is None or r.kind != "builtin":
        return None
    name, args = r.target, [kind(a.value, resolve) for a in node.args]
    if name == "rows":
        return _rows(node, resolve)
    if name == "condition_named":
        return CONDITION
    if name == "all_conditions":
        return Kind(LIST, CONDITION)
    if name in ("first", "choose") and len(args) == (1 if name == "first" else 2):
        listed = args[-1]
        return listed.item if isinstance(listed, Kind) and listed == LIST and listed.filled else None
    if name in ("distinct", "slice", "without") and args:
        return Kind(LIST, _item(args[0]), name == "distinct" and getattr(args[0], "filled", False))
    if name == "range":
        return Kind(LIST, NUMBER)
    if name in ("abs", "sum") and args:
        return FRACTION if (args[0] if name == "abs" else _item(args[0])) == FRACTION else NUMBER
    if name in ("dice", "keep_highest", "keep_lowest", "dice_times", "repeated"):
        return DICE
    if name in LIST_BUILTINS:
        return LIST
    if name in NUMBER_BUILTINS:
        return NUMBER
    if name in ("has", "act"):
        return BOOL
    if name == "map":
        return MAP
    if name == "agree":
        return TEXT
    return None


def _comprehension(node, resolve):
    inner = resolve
    for var, items, _cond in node.clauses():      # each clause sees the variables of those before it
        inner = _binding(inner, var, _item(kind(items, inner)))
    return Kind(LIST, kind(node.elt, inner))


def _search(node, resolve):
    """`any` and `all` answer true or false; `first` an item of the list, or none when no item matches."""
    if node.kind != "first":
        return BOOL
    return None if node.default is None else join(_item(kind(node.iter, resolve)), kind(node.default, resolve))


def _binding(resolve, var, item):
    """`resolve`, with `var` a comprehension's variable holding items of this kind (None: unknown)."""
    def inner(name, node=None):
        return resolve(name, node) if name != var else Resolved("known", item) if item else Resolved("local")
    return inner


def _const(node, resolve):
    v = node.value
    return {bool: BOOL, int: NUMBER, str: TEXT, type(None): NONE, Fraction: FRACTION}.get(type(v))


def _unary(node, resolve):
    if node.op == "not":
        return BOOL
    k = kind(node.operand, resolve)
    return k if k in (NUMBER, FRACTION, DICE) else None


CHECK = "\0check "          # resolve(CHECK + name): the check declaration of that name (the resolver's)


def _check_call(node, resolve):
    """A check's result: a record of its parameters, its roll and its output (an outcome, as its rows give)."""
    r = resolve(CHECK + node.name)
    if r is None or r.kind != "check":
        return None
    d = r.target
    out = join_all([kind(row.output, resolve) if isinstance(row.output, n.Node) else None for row in d.decide.rows])
    fields = {p.name: None for p in d.params}
    fields.update({d.roll_name: None, d.decide.output: out})
    return Kind(f'the result of check "{d.name}"', fields=fields)


KIND_OF = {
    n.CheckCall: _check_call,
    n.Const: _const, n.DiceLit: lambda node, resolve: DICE, n.Roll: lambda node, resolve: NUMBER,
    n.Maximum: lambda node, resolve: NUMBER, n.Name: _name, n.Unary: _unary, n.Binary: _binary,
    n.Attr: _attr, n.Index: _index, n.Call: _call, n.Comprehension: _comprehension, n.Search: _search,
    n.ListExp: lambda node, resolve: list_of([kind(x, resolve) for x in node.items], bool(node.items)),
    n.RecordExp: lambda node, resolve: Kind(RECORD, fields={f: kind(v, resolve) for f, v in node.fields}),
    n.IfExp: lambda node, resolve: join(kind(node.then, resolve), kind(node.other, resolve)),
}


def kind(node, resolve) -> str | None:
    """The kind of a node; `resolve(name, node)` gives a Resolved or None: what the name means at
    that Name node (the checker looks the name up in its scope, the compiler reads the node's
    binding); `node` is None for a check's name (CHECK)."""
    f = KIND_OF.get(type(node))
    return f(node, resolve) if f is not None else None


def _fail(node, message, help):
    raise GrimorioError(Diagnostic("E0204", message, node.span, help))


def expect_dice(node, resolve, what):
    k = kind(node, resolve)
    if k is not None and k not in (DICE,):
        _fail(node, f"{what} takes dice, not {k}", "dice are written like 1D10, 2D6+1 or d100")


def expect_number(node, resolve, what):
    k = kind(node, resolve)
    if k is not None and k != NUMBER:
        _fail(node, f"{what} must be a number, not {k}", "the items are compared by a number worked out for "
              "each (it is the item): it.FIELD, len(...), a rule that gives a number")


def check_arithmetic(node: n.Binary, resolve):
    a, b = kind(node.left, resolve), kind(node.right, resolve)
    for side, k in ((node.left, a), (node.right, b)):
        # Lists join with +, and texts: one beside its like, or beside what the text does not tell
        # (a rule's result). The semantics module says the same at run time.
        joins = node.op == "+" and k in (LIST, TEXT) and {a, b} <= {k, None}
        if k is not None and k not in (NUMBER, FRACTION, DICE) and not joins:
            _fail(side, f'"{node.op}" needs numbers (or dice), not {k}',
                  "arithmetic works on numbers and dice; two texts or two lists join with +")
    if DICE in (a, b) and node.op not in "+-":
        _fail(node, f'dice can be added and subtracted, not used with "{node.op}"',
              "roll them first: (roll 1D6) * 2")
    broken = next((f for f in map(_written_ratio, (node.left, node.right)) if f is not None and f.denominator != 1), None)
    if DICE in (a, b) and broken is not None:
        _fail(node, f"dice add and subtract whole numbers, not {broken}", "round it first: floor(...) or ceil(...)")


def _written_ratio(node) -> Fraction | None:
    """A quotient of two written whole numbers (7 / 2), which the text shows whole or not; else None.
    Any other fraction may come out whole (4/2 is 2), which the runtime takes."""
    if isinstance(node, n.Binary) and node.op == "/" and all(
            isinstance(x, n.Const) and type(x.value) is int for x in (node.left, node.right)) and node.right.value:
        return Fraction(node.left.value, node.right.value)
    return None


def check_negation(node: n.Unary, resolve):
    k = kind(node.operand, resolve)
    if node.op == "-" and k is not None and k not in (NUMBER, FRACTION, DICE):
        _fail(node, f'"-" does not apply to {k}', "only numbers and dice can be negated")


def _ordered(a, b) -> bool:
    """Order compares numbers with numbers, texts with texts, outcomes of one list, grades of one condition."""
    if a in NUMERIC and b in NUMERIC:
        return True
    return a == b and (a == TEXT or a.startswith(("an outcome of", "a grade of")))


def check_order(node: n.Binary, resolve):
    a, b = kind(node.left, resolve), kind(node.right, resolve)
    if a is None or b is None or _ordered(a, b):
        return
    _fail(node, f"{a} and {b} cannot be compared by order",
          "order compares numbers with numbers, texts with texts, and outcomes of one list or grades of "
          "one condition with each other")


def _named_value(k) -> bool:
    return k is not None and k.startswith(("an outcome of", "a grade of"))


def check_equality(node: n.Binary, resolve):
    """An outcome or a grade is a name, never a text: `t.outcome == "top"` is always false (E0234)."""
    a, b = kind(node.left, resolve), kind(node.right, resolve)
    for named, other, text in ((a, b, node.right), (b, a, node.left)):
        if _named_value(named) and other == TEXT:
            word = text.value if isinstance(text, n.Const) and isinstance(text.value, str) else None
            raise GrimorioError(Diagnostic(
                "E0234", f"{named} is never equal to a text: this is always "
                         f"{'false' if node.op == '==' else 'true'}", node.span,
                f"write the outcome without quotes: {word}" if word else
                "outcomes and grades are names, written without quotes"))


def check_field(node: n.Attr, resolve):
    """`x.NAME` where the text shows x's kind: a record, a table's row or a grade has the fields it
    shows; a number, a text, a list and the like have none (E0203, as the run would say)."""
    if isinstance(node.obj, n.Name):
        r = resolve(node.obj.id, node.obj)
        if r is not None and r.kind in ("condition", "combatant"):
            return                          # Condition.Grade (names.check_attr); a combatant's sheet
    k = kind(node.obj, resolve)
    fields = getattr(k, "fields", None)
    if k is None or k.startswith(COMBATANT) or k == CONDITION or fields is not None and node.name in fields:
        return
    if fields is None:
        _fail_field(node, f'{k} has no fields: it has no "{node.name}"',
                    "fields belong to combatants, records, events, checks and table rows")
    _fail_field(node, f'{k} has no field "{node.name}"',
                f"its fields are: {', '.join(fields) or 'none'}")


def _fail_field(node, message, help):
    raise GrimorioError(Diagnostic("E0203", message, node.name_span or node.span, help))


def row_table(node, resolve) -> str | None:
    """The table whose row `node` shows it holds (a row's fields cannot be set), or None."""
    return getattr(kind(node, resolve), "table", None)


def is_condition(k) -> bool:
    return k == CONDITION or k.startswith("the condition")


def expect_condition(node, resolve, what):
    k = kind(node, resolve)
    if k is not None and not is_condition(k):
        _fail(node, f"{what} takes a condition, not {k}", _CONDITION_HELP.get(k, _CONDITION_HELP[None]))


_CONDITION_HELP = {
    TEXT: "a text only names one: look the condition up by it with condition_named(TEXT)",
    None: "name a condition declared with \"condition\", or give a value that holds one "
          "(a local, a field, condition_named(TEXT))",
}


def expect_combatant(node, resolve, what):
    """Whose cards a builtin reads (has, cards, held): a combatant, where the text shows the kind."""
    k = kind(node, resolve)
    if k is not None and not k.startswith(COMBATANT):
        _fail(node, f"{what} takes a combatant, not {k}", "the combatant whose cards it reads: a name of the "
              "encounter, a parameter, an item of enemies(c) or combatants()")


def expect_grade(node, resolve, what):
    """The grade a card statement is given, as an expression: a grade, or a grade's name as a text."""
    k = kind(node, resolve)
    if k is not None and k != TEXT and not k.startswith("a grade of"):
        _fail(node, f"{what} takes a grade, not {k}", "a grade (CONDITION.GRADE, or a value that holds one), "
              "or a grade's name as a text")


def check_membership(node: n.Binary, resolve):
    k = kind(node.right, resolve)
    if k is not None and k not in (LIST, MAP):
        _fail(node.right, f'"in" needs a list or a map on its right, not {k}',
              "in tests membership in a list (or a key of a map); to compare two texts use ==")


# The kinds a builtin's arguments must have, in order, where the runtime refuses any other
# (None: any kind). min and max take numbers or a list; has, cards and held a condition (below).
# A whole number: a fraction may come out whole (4/2), which the runtime takes (builtin_values.whole).
WHOLE = frozenset((NUMBER, FRACTION))
ARGUMENT_KINDS = {
    "len": ({LIST, MAP},), "keys": ({MAP},), "sum": ({LIST},), "first": ({LIST},), "distinct": ({LIST},),
    "slice": ({LIST}, WHOLE, WHOLE), "without": ({LIST}, None), "choose": (None, {LIST}),
    "dice": (WHOLE, WHOLE), "range": (WHOLE, WHOLE),
    "keep_highest": ({DICE}, WHOLE), "keep_lowest": ({DICE}, WHOLE),
    "agree": (None, {TEXT}, {TEXT}), "condition_named": ({TEXT},),
    "dice_count": ({DICE},), "dice_faces": ({DICE},), "dice_modifier": ({DICE},),
    "dice_times": ({DICE}, WHOLE), "repeated": ({DICE}, WHOLE),
}


def check_builtin_kinds(name: str, args, resolve):
    """A builtin's argument whose kind the text shows and the builtin refuses (E0204)."""
    for a, allowed in zip(args, ARGUMENT_KINDS.get(name, ())):
        k = kind(a.value, resolve)
        if allowed is not None and k is not None and k not in allowed:
            takes = "a whole number" if allowed == WHOLE else " or ".join(sorted(allowed))
            _fail(a.value, f"{name}() takes {takes}, not {k}", f"see what {name}() does in the list of builtins")


def expect_list(node, resolve, search: str | None = None):
    """What a for, a comprehension or a search (`search`: first, any or all) walks: a list."""
    k = kind(node, resolve)
    if k is not None and k != LIST:
        table = k.startswith("the table ") and isinstance(node, n.Name)
        _fail(node, f"only a list can be walked, not {k}", f"walk its rows: rows({node.id})" if table else
              f"a search walks a list: {search} x in LIST where COND" if search else
              "for and comprehensions walk lists: [x for x in LIST]")


def check_map_key(node: n.Index, resolve):
    """A map's key the text shows can change (a list, a record, a map): E0292, as when it runs."""
    if kind(node.obj, resolve) != MAP:
        return
    k = kind(node.key, resolve)
    if k in (LIST, MAP, RECORD):
        raise GrimorioError(Diagnostic("E0292", f"{k} cannot be a key of a map: it can change after it is kept",
                                       node.key.span, "key a map by a value that cannot change: a combatant, a "
                                       "text, a number, a table's row (m[c], m[c.name])"))


def expect_map(target, resolve):
    """What `set X[K] = ...` changes: a map's item (a list's items, a table's rows and fields are not set so)."""
    k = kind(target.obj, resolve)
    if k is not None and k != MAP:
        _fail(target.obj, f"only a map's items can be set with set X[K] = ..., not those of {k}", set_help(target))


def set_help(t) -> str:
    """How to set what `set X[KEY]` meant: a record's field by its name, else a field, a var or a map's item."""
    key = t.key if isinstance(t, n.Index) else None
    if isinstance(key, n.Const) and isinstance(key.value, str) and key.value.isidentifier():
        obj = t.obj.id if isinstance(t.obj, n.Name) else "RECORD"
        return f'a field is set by its name: set {obj}.{key.value} = ...'
    return ('set a field ("set c.FIELD = ..."), a var, or a map\'s item (let m = map(), then set m[K] = ...); '
            "an item of a list or a row of a table is not set")


def held(k):
    """The kind a local keeps of a value: what cannot change while it holds it. A list's items and the
    values of a record's fields can (append, set, a rule given the list or record, another local
    holding the same one), so a local keeps only that it holds a list, or a record and its fields'
    names; a table's row never changes."""
    if not isinstance(k, Kind):
        return k
    if k == LIST:
        return LIST
    if k == RECORD and k.fields is not None:
        return Kind(RECORD, fields=dict.fromkeys(k.fields))
    return k


def item_kind(node, resolve):
    """The kind of the items of the list `node` gives, where the text shows it."""
    return _item(kind(node, resolve))
