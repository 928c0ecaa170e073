"""Runtime values: ranked names (outcomes, grades), structs (rows, records,
events, check results), combatants, and how each is shown in a transcript."""
from __future__ import annotations

import re
from functools import lru_cache
from fractions import Fraction
from operator import attrgetter

from ...dsl.bounds import MAX_DIGITS, TooLongToShow
from .dice import Dice

_BIG = 10 ** MAX_DIGITS
# How a whole number past MAX_DIGITS digits shows (one grown by + in a loop until the step budget
# stopped it): never Python's refusal to convert it, never the internal-bug error.
HUGE = f"(a number of more than {MAX_DIGITS} digits)"


_MANGLED: dict[str, str] = {}


def mangle(name: str) -> str:
    """A DSL name as an ASCII Python attribute name, one-to-one: a name of ASCII
    letters, digits and underscores is kept behind "a_"; any other is spelled
    behind "u_" with "_" doubled and each other character as "_x<hex>_"
    (Python would NFKC-fold non-ASCII identifiers, and two spellings must never meet)."""
    out = _MANGLED.get(name)
    if out is None:
        name = str(name)
        if name.isascii() and all(ch.isalnum() or ch == "_" for ch in name):
            out = "a_" + name
        else:
            out = "u_" + "".join(ch if ch.isascii() and ch.isalnum() else "__" if ch == "_" else f"_x{ord(ch):x}_"
                                 for ch in name)
        if len(_MANGLED) < 100_000:          # a memo, never a meaning: the answer is the same without it
            _MANGLED[name] = out
    return out


def unmangle(attr: str) -> str:
    """The DSL name of a mangled attribute."""
    if attr.startswith("a_"):
        return attr[2:]
    if attr.startswith("u_"):
        return re.sub(r"__|_x([0-9a-f]+)_", lambda m: chr(int(m.group(1), 16)) if m.group(1) else "_", attr[2:])
    return attr


ORDER_HELP = "only outcomes of the same list, or grades of the same condition, can be ordered"


class Ranked:
    """A name with a place in an order: an outcome, or a grade of a condition."""

    __slots__ = ("name", "rank", "kind")

    def __init__(self, name, rank, kind):
        self.name, self.rank, self.kind = name, rank, kind

    def _cmp(self, other):
        if not isinstance(other, Ranked) or other.kind != self.kind:
            raise Refusal("{0} and {1} cannot be compared by order", ORDER_HELP, "E0204", (self, other))
        return other.rank

    def __lt__(self, other):
        return self.rank < self._cmp(other)

    def __le__(self, other):
        return self.rank <= self._cmp(other)

    def __gt__(self, other):
        return self.rank > self._cmp(other)

    def __ge__(self, other):
        return self.rank >= self._cmp(other)

    def __str__(self):
        return self.name

    __repr__ = __str__
    __hash__ = object.__hash__


class Scale(Fraction):
    """A factor written in a table as x2 or /2."""

    def __str__(self):
        return f"x{self.numerator}" if self.denominator == 1 else f"/{self.denominator}" if self.numerator == 1 \
            else f"x{self.numerator}/{self.denominator}"


class Struct:
    """Base of generated record classes; `_names` are the DSL field names."""

    __slots__ = ()
    _names: tuple = ()
    _title: str = "record"
    _key: str | None = None
    _order: tuple = ()          # the mangled fields, in the order __eq__ compares them: the key first

    def __init_subclass__(cls, **options):
        super().__init_subclass__(**options)
        key = cls._key
        cls._order = tuple(sorted(map(mangle, cls._names), key=lambda s: key is None or s != mangle(key)))

    def __str__(self):
        if self._key is not None:
            return show(getattr(self, mangle(self._key)))
        return "{" + ", ".join(f"{n}: {show(getattr(self, mangle(n)))}" for n in self._names) + "}"

    def get(self, name):
        return getattr(self, mangle(name))

    def __eq__(self, other):
        """Records (a table's rows, events and check results among them) are equal by value: the
        same field names, each field equal by the language's `==` (values.same), in any order."""
        kind_of_other = other.__class__
        if kind_of_other is list:                # never a record: asked by every `x != none` of a record
            return False
        if self is other:
            return True
        if kind_of_other is self.__class__:
            fields = self._order                 # the same fields: the key first (two rows differ there)
        elif not isinstance(other, Struct):
            return NotImplemented
        else:
            names = self._names
            if names != other._names and sorted(names) != sorted(other._names):
                return False
            fields = map(mangle, names)
        for s in fields:
            a, b = getattr(self, s, None), getattr(other, s, None)
            if a is not b and not same(a, b):
                return False
        return True

    __hash__ = object.__hash__      # (a record can change: never a key by its value)

    def __reduce__(self):
        """Pickled as its class's making and its values (a kept program's rows): the class is made
        again from its fields where it is read (make_struct keeps one class per shape)."""
        return row, (struct_shape(type(self)), tuple(getattr(self, s) for s in type(self).__slots__))


class ReadOnly(Exception):
    """A field of a table row set: the table is data every combatant shares (E0204)."""


def _read_only(self, attr, value):
    raise ReadOnly(f'"{self._title}" is a table: its rows cannot be changed')


def make_struct(title: str, names, key: str | None = None, frozen=False) -> type:
    """A record class; `frozen`: a table's row, whose fields cannot be set, made by calling
    the class with its values. Any other record is made by `cls._new(*values)` (see `record`):
    the class itself takes no values, so making one calls no Python __init__ from C (a
    quarter of the cost of a record, which rules make on every check and event). One class
    per shape in a process: a kept program names its classes by shape (struct_shape)."""
    return _struct_class(title, tuple(names), key, bool(frozen))


def struct_shape(cls) -> tuple:
    """What make_struct was given for a record class: plain data that makes it again."""
    return cls._title, cls._names, cls._key, cls.__dict__.get("__setattr__") is _read_only


def row(shape: tuple, values: tuple):
    """A record of the class of `shape` (struct_shape) holding `values`: how a kept one is read."""
    return record(make_struct(*shape), values)


@lru_cache(maxsize=None)
def _struct_class(title: str, names: tuple, key, frozen: bool) -> type:
    slots = tuple(mangle(n) for n in names)
    ns = {"__slots__": slots, "_names": tuple(names), "_title": title, "_key": key}
    args = ", ".join(slots)
    code = {"_set": object.__setattr__}
    if frozen:
        body = "".join(f"\n    _set(self, {s!r}, {s})" for s in slots) or "\n    pass"
        exec(f"def __init__(self{', ' if slots else ''}{args}):{body}", code)  # noqa: S102 - from checked names
        ns["__init__"] = code["__init__"]
        ns["__setattr__"] = _read_only
        return type(title, (Struct,), ns)
    body = "".join(f"\n    o.{s} = {s}" for s in slots)
    exec(f"def _new({args}):\n    o = _cls(){body}\n    return o", code)  # noqa: S102 - from checked names
    ns["_new"] = code["_new"]
    cls = code["_cls"] = type(title, (Struct,), ns)
    return cls


def record(cls, values):
    """A record of class `cls` (made by make_struct) holding `values`, in its fields' order."""
    return cls._new(*values) if "_new" in cls.__dict__ else cls(*values)


class Grade(Ranked):
    """A grade of a condition, with the columns of its row."""

    __slots__ = ("condition", "data")

    def __init__(self, name, rank, condition, data):
        super().__init__(name, rank, condition)
        self.condition = condition
        self.data = data          # mangled column name -> value

    def __getattr__(self, attr):
        data = object.__getattribute__(self, "data")
        if attr in data:
            return data[attr]
        raise MissingField(attr, self)


class ConditionType:
    """A condition: special state (no grades) or graded."""

    __slots__ = ("name", "grades", "by_name", "on_receive", "data")

    def __init__(self, name, grades):
        self.name = name
        self.grades = grades
        self.by_name = {g.name: g for g in grades}
        self.on_receive = None
        self.data = {}            # a state's row of data: mangled column name -> value

    def __getattr__(self, attr):
        data = object.__getattribute__(self, "data")
        if attr in data:
            return data[attr]
        if attr.startswith("_"):           # Python's own questions (copy, pickle): not the rules'
            raise AttributeError(attr)
        raise NoColumn("{0} has no column \"%s\"" % unmangle(attr), "a condition's columns are those of its "
                       "data row (docs/language.md: data on conditions)", "E0203", (self,))

    def __reduce__(self):
        """Pickled without what a run links to it (on_receive: a function of the generated code)."""
        return _condition_type, (self.name, self.grades, self.data)

    def __str__(self):
        return self.name

    __repr__ = __str__


SIDE_CHANGES = [0]      # how many times a rule has set a combatant's side (in any run): see Engine.memo
# The newest engine's `walks` ((rule, combatant) -> its side's list, see Engine.walk_side): emptied
# as a side changes, and as a newer engine is made (an older one then keeps nothing more there).
LIVE_WALKS = [{}]


def _set_side(c, side):
    c.side_ = side
    SIDE_CHANGES[0] += 1
    LIVE_WALKS[0].clear()


class Combatant:
    """Base of the generated combatant class; sheet fields are slots. `a_side` reads
    its side (set at creation as `side_`); a rule setting it is counted in SIDE_CHANGES."""

    # acts: its tactic's choice of action; reacts: event -> its tactic's choice of reaction (see engine)
    # a_sheet: the name of its sheet (`c.sheet`)
    __slots__ = ("a_name", "side_", "tactic", "acts", "reacts", "cards", "held", "a_sheet")

    a_side = property(attrgetter("side_"), _set_side)

    def __str__(self):
        return self.a_name

    __repr__ = __str__

    def get(self, name):
        return getattr(self, mangle(name))


def is_none(value) -> bool:
    """none, and the empty list (a decision table's "none" cell and `== none` agree)."""
    return value is None or (type(value) is list and not value)


def same(a, b) -> bool:
    """The language's `==`: none equals none and the empty list; true and false equal no number;
    lists item by item, each by this same equality; anything else as Python compares it by value."""
    if a is b:
        return True
    t = a.__class__
    if t is b.__class__ and (t is str or t is int):      # the usual case, before any other question
        return a == b
    if a is None or b is None:
        return is_none(a) and is_none(b)
    if (type(a) is bool) is not (type(b) is bool):
        return False
    if type(a) is list and type(b) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def member(item, items: list) -> bool:
    """`item in items` by the language's equality. Python's own `in` is that equality for a text
    and for what equals only itself (a combatant, an outcome); the rest is asked item by item."""
    kind = type(item)
    if kind is str or kind.__eq__ is object.__eq__ and item is not None:
        return item in items
    return any(same(item, x) for x in items)


def show(v) -> str:
    """A value as a transcript shows it."""
    if v is None:
        return "-"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, list):
        return _nested(lambda: ", ".join(show(x) for x in _shown(v)), "...") if v else "-"
    if isinstance(v, (int, Fraction)):
        try:
            return _number(v)
        except ValueError:                 # more digits than Python converts (see in_words)
            return in_words(v)
    return str(v)


def _number(v) -> str:
    if isinstance(v, int) and not -_BIG < v < _BIG:
        return HUGE
    if isinstance(v, Fraction) and not isinstance(v, Scale):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    return str(v)


def json_text(data, **options) -> str:
    """json.dumps(data, **options); TooLongToShow when a number in it has more digits than Python writes
    (found by looking at the numbers, never by reading Python's message); any other failure as it is."""
    import json                 # not at import: a text transcript does not need it
    try:
        return json.dumps(data, **options)
    except ValueError:
        if _too_long(data):
            raise TooLongToShow() from None
        raise


def _too_long(data) -> bool:
    """Whether a whole number somewhere in `data` (lists, tuples, dicts) is past the digits Python writes."""
    import sys
    limit = sys.get_int_max_str_digits()
    stack = [data]
    while stack and limit:
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, int) and x.bit_length() > 3 * limit and digit_count(x) > limit:   # d digits: over 3.3 d bits
            return True
    return False


def in_words(v) -> str:
    """A number Python refuses to convert to digits (past sys.get_int_max_str_digits(), 4300 unless
    the process sets it lower, down to 640): how many digits it has, in words."""
    digits = digit_count(int(v.numerator if isinstance(v, Fraction) else v))
    return f"(a number of {digits} digits)" if isinstance(v, int) else f"(a fraction whose top has {digits} digits)"


def digit_count(v: int) -> int:
    """How many digits a whole number has, without writing it."""
    whole = abs(v)
    digits = max(1, int(whole.bit_length() * 0.30102999566398))    # log10(2): never one too many
    return digits + (whole >= 10 ** digits)                         # exact, once the estimate is checked


_depth = [0]
_seen = [0]
SHOW_ITEMS = 10_000       # items one value shows at most: a list holding itself twice must not take 2^33 calls


def _shown(items):
    """The items of a list, until SHOW_ITEMS have been shown in the outermost show()."""
    for x in items:
        if _seen[0] >= SHOW_ITEMS:
            yield "..."
            return
        _seen[0] += 1
        yield x


def _nested(fn, cut):
    """fn(), or `cut` past a depth no real value reaches: a list that holds itself must still show."""
    if _depth[0] > 32:
        return cut
    if _depth[0] == 0:
        _seen[0] = 0
    _depth[0] += 1
    try:
        return fn()
    finally:
        _depth[0] -= 1


def described(v, show_value=show) -> str:
    """A value inside a diagnostic's sentence: a text in quotes (so `"a"` never reads as a word of
    the sentence), anything else as `show_value` (the edition's formats, once located) prints it."""
    return f'"{v}"' if type(v) is str else show_value(v)


def written(v, show_value=show) -> str:
    """A value as the language writes it, for an expectation that failed: a list in brackets, nested
    as it nests ([[2, 1], [2, 2]], [none], []), a text in quotes, none, true and false as words, a
    record as {name: value}; anything else (numbers, dice, outcomes, grades, rows, combatants) as
    `show_value` (the edition's formats) shows it. At most SHOW_ITEMS items in all, then "..."."""
    left = [SHOW_ITEMS]

    def w(x, depth):
        if x is None or x is True or x is False:
            return _WORDS[x]
        if type(x) is str:
            return '"' + x.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if depth > 32:                             # a list that holds itself
            return "..."
        if isinstance(x, list):
            items = []
            for item in x:
                if left[0] <= 0:
                    items.append("...")
                    break
                left[0] -= 1
                items.append(w(item, depth + 1))
            return "[" + ", ".join(items) + "]"
        if isinstance(x, Struct) and x._key is None:
            return "{" + ", ".join(f"{k}: {w(getattr(x, mangle(k), None), depth + 1)}" for k in x._names) + "}"
        return show_value(x)
    return w(v, 0)


_WORDS = {None: "none", True: "true", False: "false"}


class Refusal(Exception):
    """A value the language refuses while the rules run (an operator, a builtin, a rule's own
    statement); located by the engine. `message` and `help` may hold {} slots for `values`,
    filled when the diagnostic is made, by the edition's formats (`text`)."""

    def __init__(self, message, help=None, code="E0501", values=()):
        super().__init__(message)
        self.template, self.help_template, self.code, self.values = message, help, code, tuple(values)

    def text(self, show_value=show) -> tuple[str, str | None]:
        """The message and the help, each value shown by `show_value`."""
        if not self.values:
            return self.template, self.help_template
        shown = [described(v, show_value) for v in self.values]
        return self.template.format(*shown), self.help_template and self.help_template.format(*shown)

    @property
    def message(self) -> str:
        return self.text()[0]

    def __str__(self):
        return self.message          # the values in their slots, never a raw "{0}"

    @property
    def help(self) -> str | None:
        return self.text()[1]


class NoColumn(Refusal, AttributeError):
    """A column a value does not have, read by the rules: refused as the language refuses (E0203), and
    still an AttributeError to Python's getattr and hasattr."""


def hash_key(v):
    """A value as a key of a dict or a set the rules look values up in (a catalogue's index, a memo):
    true and false kept apart from 1 and 0, which Python takes for the same key (True == 1)."""
    return (bool, v) if v.__class__ is bool else v


def unhash_key(k):
    """The value `hash_key` made a key of."""
    return k[1] if k.__class__ is tuple and len(k) == 2 and k[0] is bool else k


def kind(v) -> str:
    """A value's kind, in a designer's words."""
    t = type(v)
    if t is bool:
        return "true or false"
    if isinstance(v, (int, Fraction)):
        return "a number"
    return _KINDS.get(t) or next((k for cls, k in _BASES if isinstance(v, cls)), "a value")


_KINDS = {str: "a text", list: "a list", type(None): "none", Dice: "dice"}
_BASES = ((Ranked, "an outcome or a grade"), (Struct, "a record"), (Combatant, "a combatant"),
          (ConditionType, "a condition"))


class MissingField(Refusal, AttributeError):
    """A field a value does not have, asked by its own lookup (a grade's columns): a refusal
    of the language (E0203), and an AttributeError still, so getattr(v, name, None) works."""

    def __init__(self, attr: str, obj):
        Refusal.__init__(self, "{0} has no field \"" + unmangle(attr) + "\"",
                         "check the spelling against the sheet, the table columns or the event", "E0203", (obj,))
        self.name, self.obj = attr, obj


def _condition_type(name, grades, data) -> ConditionType:
    ct = ConditionType(name, grades)
    ct.data = data
    return ct
