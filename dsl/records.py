"""`dataclass`: grimorio's records (the AST's nodes, spans, diagnostics, a ruleset), made without
the standard `dataclasses` module.

The standard decorator inspects each class (and `import dataclasses` brings `inspect`, `ast`
and `dis` with it) on every start: for the seventy classes of the AST that was a third of a
warm `grimorio run`. This one reads the class's annotations and writes the same methods
`dataclasses.dataclass` would for the options grimorio uses (`frozen`, `slots`, `field` with a
`default`, a `default_factory`, `compare` or `repr`):

- `__init__` with the fields in order, base classes' first, each default in its place;
- `__repr__`: `Name(field=value, ...)` over the fields shown;
- `__eq__`: the same class and equal compared fields; `__hash__` of the compared fields when
  frozen, none when not (so a mutable record is not a dict key by accident);
- frozen: setting or deleting an attribute raises FrozenInstanceError, an AttributeError;
- slots: the class made again with `__slots__` (frozen ones pickle through their fields);
- `__match_args__`, and `fields()`, `replace()` and `is_record()` for the rest of the code.

The methods' text is compiled once and kept in the store (dsl/store.py), by its text: a warm
start compiles nothing. tests/test_records.py holds every record class to what the standard
decorator makes of the same class.
"""
from __future__ import annotations

import atexit
import marshal
import sys
from hashlib import sha256

from . import store

NAME = f"records-{sys.implementation.cache_tag}-{sha256(sys.version.encode()).hexdigest()[:16]}.marshal"
KEEP = 4000                   # texts kept at most: older ones (from an earlier grimorio) are let go beyond this
_known: dict | None = None    # text -> code, as kept
_used: dict = {}              # text -> code, this process
_compiled = False             # whether this process compiled one (then the cache is written at exit)


class _Missing:
    def __repr__(self):
        return "MISSING"


MISSING = _Missing()


class FrozenInstanceError(AttributeError):
    """A field of a frozen record set or deleted."""


class Field:
    """One field of a record: its name, default (or factory), and whether == and repr see it."""

    __slots__ = ("name", "default", "default_factory", "compare", "repr")

    def __init__(self, default=MISSING, default_factory=MISSING, compare=True, repr=True):
        self.name = None
        self.default, self.default_factory, self.compare, self.repr = default, default_factory, compare, repr

    def __repr__(self):
        return f"Field({self.name!r})"


def field(*, default=MISSING, default_factory=MISSING, compare=True, repr=True) -> Field:
    return Field(default, default_factory, compare, repr)


def dataclass(cls=None, /, *, frozen=False, slots=False):
    """The record class of `cls` (see the module's text)."""
    def wrap(c):
        return _record(c, frozen, slots)
    return wrap if cls is None else wrap(cls)


def fields(record) -> tuple[Field, ...]:
    """The fields of a record or record class, in order."""
    return record.__record_fields__


def is_record(x) -> bool:
    return hasattr(x, "__record_fields__") and not isinstance(x, type)


def replace(record, **changes):
    """A copy of `record` with some fields changed (an unknown name is a TypeError, as __init__ says)."""
    values = {f.name: getattr(record, f.name) for f in record.__record_fields__}
    values.update(changes)
    return record.__class__(**values)


def _record(cls, frozen: bool, slots: bool):
    own = _own_fields(cls)
    known = {f.name: f for base in reversed(cls.__mro__[1:]) for f in base.__dict__.get("__record_fields__", ())}
    known.update((f.name, f) for f in own)
    all_fields = tuple(known.values())
    if slots:
        cls = _with_slots(cls, [f.name for f in own])
    env = {"_set": object.__setattr__, "_MISSING": MISSING, "FrozenInstanceError": FrozenInstanceError}
    for f in all_fields:
        env[f"_d_{f.name}"] = f.default
        env[f"_f_{f.name}"] = f.default_factory
    methods = {}
    exec(_code(_source(all_fields, frozen, slots)), env, methods)  # noqa: S102 - from the class's own names
    for name, fn in methods.items():
        if name not in cls.__dict__:        # what the class writes itself stays (as dataclasses does)
            fn.__qualname__ = f"{cls.__qualname__}.{name}"
            setattr(cls, name, fn)
    if not frozen:
        cls.__hash__ = None
    cls.__match_args__ = tuple(f.name for f in all_fields)
    cls.__record_fields__ = all_fields
    if not cls.__dict__.get("__doc__"):
        cls.__doc__ = cls.__name__ + "(" + ", ".join(f.name for f in all_fields) + ")"
    return cls


def _own_fields(cls) -> list[Field]:
    """The fields a class declares itself, in order; its class attributes become their defaults."""
    out = []
    for name in cls.__dict__.get("__annotations__", {}):
        value = cls.__dict__.get(name, MISSING)
        f = value if isinstance(value, Field) else Field(default=value)
        f.name = name
        out.append(f)
        if isinstance(value, Field):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    return out


def _with_slots(cls, names: list[str]):
    """The class made again with a slot for each of its own fields (as dataclasses does)."""
    ns = {k: v for k, v in cls.__dict__.items() if k not in names and k not in ("__dict__", "__weakref__")}
    ns["__slots__"] = tuple(names)
    made = type(cls)(cls.__name__, cls.__bases__, ns)
    made.__qualname__ = cls.__qualname__
    return made


def _source(all_fields, frozen: bool, slots: bool) -> str:
    """The text of a record class's methods."""
    params, body = [], []
    for f in all_fields:
        if f.default_factory is not MISSING:
            params.append(f"{f.name}=_MISSING")
            value = f"_f_{f.name}() if {f.name} is _MISSING else {f.name}"
        else:
            params.append(f.name if f.default is MISSING else f"{f.name}=_d_{f.name}")
            value = f.name
        body.append(f"    _set(self, {f.name!r}, {value})" if frozen else f"    self.{f.name} = {value}")
    shown = ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in all_fields if f.repr)
    compared = "".join(f"self.{f.name}, " for f in all_fields if f.compare)
    other = "".join(f"other.{f.name}, " for f in all_fields if f.compare)
    text = [f"def __init__(self{''.join(', ' + p for p in params)}):", *(body or ["    pass"]),
            "def __repr__(self):",
            f"    return f'{{self.__class__.__qualname__}}({shown})'",
            "def __eq__(self, other):",
            "    if other.__class__ is self.__class__:",
            f"        return ({compared}) == ({other})",
            "    return NotImplemented"]
    if frozen:
        text += ["def __hash__(self):", f"    return hash(({compared}))",
                 "def __setattr__(self, name, value):",
                 "    raise FrozenInstanceError(f'cannot assign to field {name!r}')",
                 "def __delattr__(self, name):",
                 "    raise FrozenInstanceError(f'cannot delete field {name!r}')"]
        if slots:
            names = tuple(f.name for f in all_fields)
            text += ["def __getstate__(self):", f"    return [getattr(self, n) for n in {names!r}]",
                     "def __setstate__(self, state):", f"    for n, v in zip({names!r}, state):",
                     "        _set(self, n, v)"]
    return "\n".join(text) + "\n"


def _code(text: str):
    """The code of a text, compiled once and kept."""
    global _compiled
    code = _table().get(text)
    if code is None:
        code = compile(text, "<record>", "exec", dont_inherit=True)
        if not _compiled:
            _compiled = True
            atexit.register(_keep)
    _used[text] = code
    return code


def _table() -> dict:
    global _known
    if _known is None:
        _known = {}
        data = store.kept(NAME)
        if data is not None and sha256(data[32:]).digest() == data[:32]:
            try:
                table = marshal.loads(data[32:])
                if isinstance(table, dict):
                    _known = table
            except (EOFError, ValueError, TypeError):
                pass
        else:
            _known = _shipped()
    return _known


SHIPPED = "records.shipped"       # written when the package is built (setup.py): a fresh install compiles none


def _shipped() -> dict:
    """The records' code compiled when the package was built, if this is the Python that compiled it."""
    import os
    try:
        with open(os.path.join(os.path.dirname(os.path.realpath(__file__)), SHIPPED), "rb") as f:
            shipped = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(shipped, dict) or shipped.get("python") != sys.version or not isinstance(shipped.get("table"), dict):
        return {}
    return shipped["table"]


def shipped_bytes() -> bytes:
    """What SHIPPED holds: the code of every record text this process used (setup.py, once it has imported
    grimorio's modules)."""
    return marshal.dumps({"python": sys.version, "table": dict(_used)})


def _keep() -> None:
    table = {**_known, **_used} if len(_known) + len(_used) <= KEEP else dict(_used)
    try:
        data = marshal.dumps(table)
    except ValueError:
        return
    store.keep(NAME, sha256(data).digest() + data)
