"""Maps: values kept by key, found in one step whatever their number (docs/language.md, Maps).

`map()` makes an empty one; `m[k]` is the value kept for k (none if nothing is); `set m[k] = v`
keeps v for k, and `set m[k] = none` forgets k; `k in m` asks whether m keeps something for k;
`len(m)` and `keys(m)` (the keys, in the order they were first kept). A key is any value that cannot
change: a number, a text, true or false, a combatant, an outcome or grade, a condition, dice, a table's
row. A list, a record or a map can change after it is used as a key, so it is refused (E0292)."""
from __future__ import annotations

from .values import Refusal, Struct, _read_only, kind, same, show, unhash_key


def _refused(key) -> Refusal:
    return Refusal("{0} (" + kind(key) + ") cannot be a key of a map: it can change after it is kept",
                   "key a map by a value that cannot change: a combatant, a text, a number, a table's row "
                   "(m[c], m[c.name])", "E0292", (key,))


def _key(key):
    """The key Python hashes for a key of the language: true and false apart from 1 and 0."""
    t = type(key)
    if t in _FINE:
        return key
    if t is bool:
        return (bool, key)
    if t is list or t is Map or isinstance(key, Struct) and t.__setattr__ is not _read_only:
        raise _refused(key)            # a table's row is the one struct no statement can change
    try:
        hash(key)
    except TypeError:
        raise _refused(key) from None
    if t.__hash__ is object.__hash__ or t in (str, int):
        _FINE.add(t)                   # a kind hashed by identity (a combatant), a text, a number: no more asking
    return key


_FINE: set = set()

# How generated code asks a map's own dict in place (compile/inplace.py), as Map.lookup does: a key
# of a kind in MAP_KEYS as it is, any other through map_key (which refuses one that can change).
MAP_KEYS, map_key = _FINE, _key


class Map:
    """A map of the language: values by key, in the order the keys were first kept."""
    __slots__ = ("_d", "__weakref__")
    __hash__ = None                                # a map changes: never a key, never hashed

    def __init__(self):
        # Python key (_key: the language's key, true and false as (bool, v)) -> value; the dict
        # keeps the key it was first given, so the keys come back as they were first kept.
        self._d = {}

    def lookup(self, key):
        """m[key] (runtime_helpers.index asks every value that has a lookup)."""
        return self._d.get(key if key.__class__ in _FINE else _key(key))

    def keep(self, key, value):
        """set m[key] = value; a value of none forgets the key."""
        k = _key(key)
        if value is None:
            self._d.pop(k, None)
        else:
            self._d[k] = value

    def has(self, key) -> bool:
        return (key if key.__class__ in _FINE else _key(key)) in self._d

    def keys(self) -> list:
        return [unhash_key(k) for k in self._d]

    def __len__(self):
        return len(self._d)

    def __bool__(self):
        return bool(self._d)

    def __eq__(self, other):
        if not isinstance(other, Map):
            return NotImplemented
        return self._d.keys() == other._d.keys() and all(same(v, other._d[k]) for k, v in self._d.items())

    def __repr__(self):
        return "map " + str(self)

    def __str__(self):
        return "{" + ", ".join(f"{show(unhash_key(k))}: {show(v)}" for k, v in self._d.items()) + "}" if self._d else "-"


def new_map():
    """map(): a new, empty map."""
    return Map()


def keys(m) -> list:
    """keys(m): the keys m keeps, in the order they were first kept."""
    if isinstance(m, Map):
        return m.keys()
    raise Refusal("keys() takes a map, not {0} (" + kind(m) + ")", "make one with map(): let m = map()",
                  "E0204", (m,))


def keep(m, key, value):
    """`set m[key] = value`: only a map's items are set this way."""
    if isinstance(m, Map):
        m.keep(key, value)
        return
    raise Refusal("only a map's items can be set with set X[K] = ..., not those of {0} (" + kind(m) + ")",
                  "set a field with set X.FIELD = ...; keep values by key in a map: let m = map()",
                  "E0204", (m,))




from . import values as _values  # noqa: E402
_values._KINDS[Map] = "a map"
