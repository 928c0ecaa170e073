"""What kind of value an expression gives, where the text alone tells: enough
to refuse, before anything runs, rolling a number or adding a name to a
number. Unknown stays unknown (None); only sure mismatches are errors."""
from __future__ import annotations

from . import nodes as n
from .diagnostics import Diagnostic, GrimorioError

NUMBER, BOOL, TEXT, DICE, LIST, NONE = "a number", "true or false", "a text", "dice", "a list", "none"

LIST_BUILTINS = {"combatants", "cards", "all_conditions", "grades", "distinct", "range", "slice", "without", "held"}
NUMBER_BUILTINS = {"len", "sum", "abs", "floor", "ceil", "round_number"}


def kind(node, resolve) -> str | None:
    """The kind of a node; `resolve(name)` gives a Resolved or None."""
    if isinstance(node, n.Const):
        v = node.value
        return {bool: BOOL, int: NUMBER, str: TEXT, type(None): NONE}.get(type(v))
    if isinstance(node, n.DiceLit):
        return DICE
    if isinstance(node, (n.ListExp, n.Comprehension)):
        return LIST
    if isinstance(node, (n.Roll, n.Maximum)):
        return NUMBER
    if isinstance(node, n.Name):
        r = resolve(node.id)
        if r is None:
            return None
        if r.kind == "outcome":
            return f'an outcome of "{r.target[0].name}"'
        if r.kind in ("condition", "table"):
            return f"the {r.kind} {node.id}"
        if r.kind == "combatant":
            return f"the combatant {node.id}"
        if r.kind == "number":          # a local the compiler knows holds a whole number here
            return NUMBER
        return None
    if isinstance(node, n.Unary):
        return BOOL if node.op == "not" else kind(node.operand, resolve) if kind(node.operand, resolve) in (
            NUMBER, DICE) else None
    if isinstance(node, n.Binary):
        if node.op in ("==", "!=", "<", "<=", ">", ">=", "in", "notin"):
            return BOOL
        a, b = kind(node.left, resolve), kind(node.right, resolve)
        if node.op in "+-" and DICE in (a, b) and {a, b} <= {DICE, NUMBER}:
            return DICE
        if a == NUMBER and b == NUMBER and node.op in "+-*%":
            return NUMBER
        return None
    if isinstance(node, n.Call) and isinstance(node.func, n.Name):
        r = resolve(node.func.id)
        if r is not None and r.kind == "builtin":
            if r.target in LIST_BUILTINS:
                return LIST
            if r.target in NUMBER_BUILTINS:
                return NUMBER
            if r.target in ("has", "act"):
                return BOOL
    return None


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
        if k is not None and k not in (NUMBER, DICE) and not joins:
            _fail(side, f'"{node.op}" needs numbers (or dice), not {k}',
                  "arithmetic works on numbers and dice; two texts or two lists join with +")
    if DICE in (a, b) and node.op not in "+-":
        _fail(node, f'dice can be added and subtracted, not used with "{node.op}"',
              "roll them first: (roll 1D6) * 2")


def check_order(node: n.Binary, resolve):
    a, b = kind(node.left, resolve), kind(node.right, resolve)
    if a is None or b is None or a == b:
        return
    if a == NUMBER and b == NUMBER:
        return
    _fail(node, f"{a} and {b} cannot be compared by order",
          "order compares numbers with numbers, and outcomes of one list with each other")


def expect_condition(node, resolve, what):
    k = kind(node, resolve)
    if k is not None and not k.startswith("the condition"):
        _fail(node, f"{what} takes a condition, not {k}", "name a condition declared with \"condition\"")


def check_membership(node: n.Binary, resolve):
    k = kind(node.right, resolve)
    if k is not None and k != LIST:
        _fail(node.right, f'"in" needs a list on its right, not {k}',
              "in tests membership in a list; to compare two texts use ==")


# The kinds a builtin's arguments must have, in order, where the runtime refuses any other
# (None: any kind). min and max take numbers or a list; has, cards and held a condition (below).
ARGUMENT_KINDS = {
    "len": ({LIST},), "sum": ({LIST},), "first": ({LIST},), "distinct": ({LIST},),
    "slice": ({LIST}, {NUMBER}, {NUMBER}), "without": ({LIST}, None), "choose": (None, {LIST}),
    "dice": ({NUMBER}, {NUMBER}), "range": ({NUMBER}, {NUMBER}),
    "keep_highest": ({DICE}, {NUMBER}), "keep_lowest": ({DICE}, {NUMBER}),
}


def check_builtin_kinds(name: str, args, resolve):
    """A builtin's argument whose kind the text shows and the builtin refuses (E0204)."""
    for a, allowed in zip(args, ARGUMENT_KINDS.get(name, ())):
        k = kind(a.value, resolve)
        if allowed is not None and k is not None and k not in allowed:
            _fail(a.value, f"{name}() takes {' or '.join(sorted(allowed))}, not {k}",
                  f"see what {name}() does in the list of builtins")


def expect_list(node, resolve):
    """What a for or a comprehension walks: a list."""
    k = kind(node, resolve)
    if k is not None and k != LIST:
        _fail(node, f"only a list can be walked, not {k}", "for and comprehensions walk lists: [x for x in LIST]")
