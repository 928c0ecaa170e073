"""Runtime values: ranked names (outcomes, grades), structs (rows, records,
events, check results), combatants, and how each is shown in a transcript."""
from __future__ import annotations

from fractions import Fraction

from .dice import Roll


_MANGLED: dict[str, str] = {}


def mangle(name: str) -> str:
    """A DSL name as an ASCII Python identifier (Python would NFKC-fold others)."""
    out = _MANGLED.get(name)
    if out is None:
        out = _MANGLED[name] = "a_" + "".join(
            ch if (ch.isascii() and (ch.isalnum() or ch == "_")) else f"__{ord(ch):x}_" for ch in str(name))
    return out


class Ranked:
    """A name with a place in an order: an outcome, or a grade of a condition."""

    __slots__ = ("name", "rank", "kind")

    def __init__(self, name, rank, kind):
        self.name, self.rank, self.kind = name, rank, kind

    def _cmp(self, other):
        if not isinstance(other, Ranked) or other.kind != self.kind:
            raise TypeError(f"{self.name} and {show(other)} cannot be compared by order")
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

    def __str__(self):
        if self._key is not None:
            return show(getattr(self, mangle(self._key)))
        return "{" + ", ".join(f"{n}: {show(getattr(self, mangle(n)))}" for n in self._names) + "}"

    def get(self, name):
        return getattr(self, mangle(name))

    def to_json(self):
        if self._key is not None:
            return to_json(getattr(self, mangle(self._key)))
        return {n: to_json(getattr(self, mangle(n), None)) for n in self._names}


def make_struct(title: str, names, key: str | None = None, grade=False) -> type:
    slots = tuple(mangle(n) for n in names)
    ns = {"__slots__": slots, "_names": tuple(names), "_title": title, "_key": key}
    args = ", ".join(slots)
    body = "".join(f"\n    self.{s} = {s}" for s in slots) or "\n    pass"
    exec(f"def __init__(self{', ' if slots else ''}{args}):{body}", ns)  # noqa: S102 - generated from checked names
    return type(title, (Struct,), ns)


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
        raise AttributeError(attr)


class ConditionType:
    """A condition: special state (no grades) or graded."""

    __slots__ = ("name", "grades", "by_name", "on_receive")

    def __init__(self, name, grades):
        self.name = name
        self.grades = grades
        self.by_name = {g.name: g for g in grades}
        self.on_receive = None

    def __str__(self):
        return self.name

    __repr__ = __str__


class Combatant:
    """Base of the generated combatant class; sheet fields are slots."""

    __slots__ = ("a_name", "a_side", "tactic", "acts", "cards", "held")

    def __str__(self):
        return self.a_name

    __repr__ = __str__

    def get(self, name):
        return getattr(self, mangle(name))


def show(v) -> str:
    """A value as a transcript shows it."""
    if v is None:
        return "-"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, list):
        return _nested(lambda: ", ".join(show(x) for x in v), "...") if v else "-"
    if isinstance(v, Fraction) and not isinstance(v, Scale):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    return str(v)


def to_json(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, Roll):
        return {"dice": str(v.dice), "faces": list(v.faces), "total": int(v)}
    if isinstance(v, int):
        return int(v)
    if isinstance(v, list):
        return _nested(lambda: [to_json(x) for x in v], "...")
    if isinstance(v, Struct):
        return _nested(v.to_json, "...")
    if isinstance(v, Fraction):
        return str(v)
    return str(v)


_depth = [0]


def _nested(fn, cut):
    """fn(), or `cut` past a depth no real value reaches: a list that holds itself must still show."""
    if _depth[0] > 32:
        return cut
    _depth[0] += 1
    try:
        return fn()
    finally:
        _depth[0] -= 1
