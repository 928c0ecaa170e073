"""Generated code that carries what the optimizer knows of it (inplace.py decides on these facts).

Each expression the optimizing compiler emits is a `Code`: its Python text, and the facts the
annotation (`facts`) learnt from the node it was compiled from, never read back from the text:
- `whole`: a written whole number, at least 0 (its digits; the value is the Python int);
- `literal`: a written value Python folds into a constant (a number, a text, a truth, none, and
  arithmetic of written numbers), which Python warns about beside `is`, indexed or called;
- `name`: a Python name (a local's binding, a constant of the program, a name the compiler made);
- `pure`: it reads names and fields only, so working it out twice gives the same value and
  changes nothing;
- `steady`: pure, or a combatant by its place in the run (`_E.cb[i]`): read twice, the same one;
- `combatant`: a combatant of the run, always (`_E.cb[i]`, the chooser of a tactic's decision).
Text made without facts (a plain str) is taken as computed: none of them hold.
"""
from __future__ import annotations

from fractions import Fraction

from ...dsl.syntax import nodes as n


class Code(str):
    """Python text with its facts (all False unless given); `number`: a written whole number's value."""
    whole = literal = name = pure = steady = combatant = False
    number = None

    def __new__(cls, text: str, *, whole=False, literal=False, name=False, pure=False, steady=False, number=None,
                combatant=False):
        code = super().__new__(cls, text)
        code.whole, code.literal, code.name, code.number = whole, literal or whole, name, number
        code.pure = pure or whole or name
        code.steady = steady or code.pure or combatant
        code.combatant = combatant
        return code

    def facts(self) -> dict:
        return {"whole": self.whole, "literal": self.literal, "name": self.name, "pure": self.pure,
                "steady": self.steady, "number": self.number, "combatant": self.combatant}


def name(text: str) -> Code:
    """A Python name."""
    return Code(text, name=True)


# The chooser of a tactic's decision, in the functions that decide: the actor `_c` (called as
# `c.acts(...)` or through `c.tactic`) and the reactor `_who` of a reaction's choice (called through
# its `tactic` or its `reacts`): attributes only a combatant has, so each is one, always.
ACTOR = Code("_c", name=True, combatant=True)
REACTOR = Code("_who", name=True, combatant=True)


def computed(text: str) -> Code:
    """Code that works something out: nothing known of it."""
    return Code(text)


def is_(code, fact: str) -> bool:
    """Whether `code` holds `fact` (a plain str holds none)."""
    return getattr(code, fact, False)


def is_whole(code) -> bool:
    """A written whole number, at least 0."""
    return is_(code, "whole")


def type_of(code) -> str:
    """Generated code asking the type of a value: its `__class__`, which CPython reads in one
    specialized step where `type(x)` is a call; a written whole number is an int, not asked."""
    if is_(code, "whole"):
        return "int"
    return f"{code}.__class__" if is_(code, "name") else f"({code}).__class__"


def same_in_place(op: str, a, b) -> str:
    """The guard, for two sides, under which Python's own `op` gives the semantics' answer; against
    a written whole number only the other side is asked (an int: both orders and == agree)."""
    asked = [side for side in (a, b) if not is_(side, "whole")]
    if len(asked) < 2:
        return f"{type_of(asked[0])} is int" if asked else "True"
    if op in ("==", "!="):
        return f"{type_of(a)} is {type_of(b)} is not list"
    return f"{type_of(a)} is int is {type_of(b)}"


def const_facts(value) -> dict:
    """The facts of a written value's code (a fraction is a constant of the program, by name)."""
    if isinstance(value, Fraction):
        return {"name": True}
    if type(value) is int and value >= 0:
        return {"whole": True, "number": value}
    # none and the truths are names Python reads in one step; a text or a negative number is not one
    return {"literal": True, "name": value is None or type(value) is bool}


# Arithmetic Python folds into a constant when both sides are written numbers.
FOLDED = frozenset(("+", "-", "*", "/", "%"))


def folded(node, facts_of) -> bool:
    """Whether the node is arithmetic of written values, which Python folds into a constant."""
    if isinstance(node, n.Unary):
        return node.op == "-" and facts_of(node.operand).literal
    if isinstance(node, n.Binary):
        return node.op in FOLDED and facts_of(node.left).literal and facts_of(node.right).literal
    return False


# ------------------------------------------------------------ rules compiled in place, and their lines
# A rule compiled in place is marked in the code that holds it (OPEN name SHUT ... CLOSE); the line
# that finally holds it is emitted without the marks, its span (diagnostics.InlinedSpan) told where
# each such rule stands.
OPEN, SHUT, CLOSE = "\x01", "\x02", "\x03"


def marked(rule_name: str, text: str) -> str:
    """The code of a rule compiled in place, marked with the rule's name."""
    return f"{OPEN}{rule_name}{SHUT}{text}{CLOSE}"


def unmarked(line: str) -> tuple[str, list]:
    """The line without its marks, and where each rule compiled in place stands in it: (start, end,
    rule name), in UTF-8 bytes from the line's start, as Python's code positions count columns."""
    out, open_at, inner, at, i = [], [], [], 0, 0
    while i < len(line):
        ch = line[i]
        if ch == OPEN:
            shut = line.index(SHUT, i)
            open_at.append((at, line[i + 1:shut]))
            i = shut + 1
            continue
        if ch == CLOSE:
            start, name = open_at.pop()
            inner.append((start, at, name))
        else:
            out.append(ch)
            at += len(ch.encode("utf-8")) if ch > "\x7f" else 1
        i += 1
    return "".join(out), inner
