"""Compiled programs kept between runs: what lets a warm run skip the loader's
checks, the checker and the compiler.

`program` is what `program_for` asks: it looks for a kept program under a
key made of what it was asked (the edition, the folders it is looked for in,
the house-rule files, the working folder) and of grimorio's own code, and
uses it only while every file and folder listing its load read reads the
same (dsl/editions/cache.py notes them as the loader reads them). Otherwise it
builds the program and keeps it. A kept program that cannot be read is
built again; one that cannot be written is not kept: never a failure.

How a program becomes bytes, and back:

A Program is plain data (the ruleset's declarations, tables, conditions,
options, the generated source and its line spans) around what cannot be
pickled by name: the functions of its generated module, the record classes
made for its tables, events and checks, and its combatant class. Those are
written as what makes them again: the generated module's code (its
functions are made by running it, exactly as the compiler did), and each
class's name and fields. Anything else that does not pickle, or that would
not come back the same, refuses the whole program: it is then simply not
kept (see `dumps`), never kept half.
"""
from __future__ import annotations

import hashlib
import io
import marshal
import os
import pickle
import types
from functools import lru_cache
from pathlib import Path

from ...dsl.editions import cache
from ...dsl import store
from ...dsl.store import python_code
from ...dsl.diagnostics import Sources
from ...dsl.pause import collector_paused
from ..run import values
from .compiler import FILENAME, Program, compile_checked
from .data import kept_lists
from ..run.values import Combatant, Struct, make_struct

FORMAT = 3      # bump when the layout below changes
# A program of fewer generated lines is not kept: compiling it again costs about what writing it
# costs (10 ms each for a 20-line program), and a test suite makes hundreds that are never read.
KEEP_FROM_LINES = 100


def program(edition: str, span, own: Sources, roots, houses=(), shipped=None) -> Program:
    """The compiled program of an edition with its house-rule files: kept, else `shipped(edition, roots, houses,
    own)` (the package's own, interpreter/compile/shipped.py), else built (and kept). `own` receives the texts
    of its files, for diagnostics. The cyclic collector pauses meanwhile: loading or making a program
    allocates tens of thousands of objects that all live on, and each of its passes would walk them again
    (a tenth of the load)."""
    with collector_paused():
        return _program(edition, span, own, roots, houses, shipped)


def _program(edition: str, span, own: Sources, roots, houses=(), shipped=None) -> Program:
    from ...dsl.editions.loader import load_edition
    key = _key(edition, roots, houses)
    name = f"program-{key[:32]}.pickle" if key else None
    found = _kept(name, key) if key else None
    if found is not None:
        own.texts.update(found.ruleset.sources.texts)
        return found
    found = shipped(edition, roots, houses, own) if shipped is not None else None
    if found is not None:           # a bundled edition, compiled when the package was built
        return found
    with cache.recording() as notes:
        rs = load_edition(edition, roots, span, own, houses)
        built = compile_checked(rs)
    data = dumps(built) if key and len(built.lines) >= KEEP_FROM_LINES and store.place(name) else None
    if data is not None:
        data = pickle.dumps((key, notes, data), protocol=pickle.HIGHEST_PROTOCOL)
        store.keep(name, hashlib.sha256(data).digest() + data)    # a damaged file is told by its digest
    return built


def _kept(name: str, key: str) -> Program | None:
    data = store.kept(name)
    if data is None or hashlib.sha256(data[32:]).digest() != data[:32]:
        return None
    try:
        kept_key, notes, program_data = pickle.loads(data[32:])
        if kept_key != key or not cache.unchanged(notes):
            return None
        return loads(program_data)
    except Exception:  # noqa: BLE001 - a damaged, foreign or stale entry is built again
        return None


def _key(edition: str, roots, houses) -> str | None:
    """What the program is asked for, as a digest; None when that cannot be told (no working folder)."""
    try:
        parts = [str(FORMAT), code_version(), edition, os.getcwd(), *map(str, roots or ()), "\0houses",
                 *(str(Path(h).resolve()) for h in houses)]
    except (OSError, RuntimeError, ValueError):
        return None
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


@lru_cache(maxsize=1)
def code_version() -> str:
    """A digest of grimorio's own code (the language's and the interpreter's files: each one's name, size
    and time of change, as Python itself tells a stale .pyc) and of Python's version: a program compiled
    by other code is never reused."""
    dsl_root = os.path.dirname(os.path.dirname(os.path.realpath(cache.__file__)))
    interpreter_root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    return store.code_digest(dsl_root, interpreter_root)


class Refused(Exception):
    """The program holds something this module cannot write faithfully."""


def dumps(program: Program) -> bytes | None:
    """The program as bytes, or None when it holds something that would not come back the same."""
    state = dict(vars(program))
    ns = state["ns"]
    out = io.BytesIO()
    try:
        code = python_code(state["source"], FILENAME)
        made = _made_by(code, ns)
        state["consts"] = list(state["consts"].values())      # keyed by id(): renumbered on load
        state["_requirements"] = {}                            # keyed by id(), filled lazily: starts empty
        rest = {k: v for k, v in ns.items() if k not in made}
        writer = _Writer(out, ns, made)
        writer.dump((FORMAT, ns["__builtins__"], marshal.dumps(code)))
        writer.dump((rest, state))
    except (Refused, pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return None
    return out.getvalue()


def loads(data: bytes) -> Program:
    """The program `dumps` wrote. Raises on anything damaged (the caller then builds it anew)."""
    reader = _Reader(io.BytesIO(data))
    version, builtins, code = reader.load()
    if version != FORMAT:
        raise ValueError("another layout")
    ns = {"__builtins__": builtins}
    exec(marshal.loads(code), ns)  # noqa: S102 - the generated module, as the compiler ran it
    reader.ns = ns
    rest, state = reader.load()
    ns.update(rest)
    state["consts"] = {id(ns[name]): name for name in state["consts"]}
    program = Program.__new__(Program)
    object.__setattr__(program, "__dict__", state)
    ns["_KEPT"] = kept_lists(program.tables, program.conditions)          # identities of this process's objects, not the writer's
    return program


def _made_by(code, ns: dict) -> set[str]:
    """The names of `ns` that running the generated module makes (its top-level functions)."""
    defined = {c.co_name for c in code.co_consts if isinstance(c, types.CodeType)}
    made = set()
    for name, value in ns.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is ns:
            if name not in defined or value.__name__ != name or value.__code__.co_filename != FILENAME:
                raise Refused(name)
            made.add(name)
    return made


class _Writer(pickle.Pickler):
    def __init__(self, file, ns, made):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.ns = ns
        self.made = {id(ns[name]): name for name in made}

    def persistent_id(self, obj):
        if obj is self.ns:
            return "ns"
        if isinstance(obj, types.ModuleType):
            return ("module", obj.__name__)
        if isinstance(obj, types.FunctionType):
            name = self.made.get(id(obj))
            if name is not None:
                return ("fn", name)
            if obj.__globals__ is self.ns:
                raise Refused(obj.__name__)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, type):
            if issubclass(obj, Struct) and obj is not Struct:
                return make_struct, _struct_args(obj)
            if issubclass(obj, Combatant) and obj is not Combatant:
                return _combatant_class, _combatant_args(obj)
        elif isinstance(obj, Struct):
            try:
                return values.record, (type(obj), tuple(getattr(obj, s) for s in type(obj).__slots__))
            except AttributeError:
                raise Refused(type(obj).__name__) from None
        return NotImplemented


class _Reader(pickle.Unpickler):
    ns: dict | None = None

    def persistent_load(self, pid):
        if pid == "ns" and self.ns is not None:
            return self.ns
        kind, name = pid
        if kind == "module":
            import importlib
            return importlib.import_module(name)
        if kind == "fn" and self.ns is not None:
            return self.ns[name]
        raise pickle.UnpicklingError(f"unknown reference {pid!r}")


def _struct_args(cls) -> tuple:
    """What make_struct was given for `cls`; refused if the class is not exactly what it makes."""
    frozen = cls.__dict__.get("__setattr__") is values._read_only
    args = (cls._title, cls._names, cls._key, frozen)
    if cls.__bases__ != (Struct,) or cls.__name__ != cls._title or set(vars(cls)) != set(vars(make_struct(*args))):
        raise Refused(cls.__name__)
    return args


def _combatant_class(name: str, module: str, slots: tuple) -> type:
    return type(name, (Combatant,), {"__slots__": slots, "__module__": module})


def _combatant_args(cls) -> tuple:
    args = (cls.__name__, cls.__module__, cls.__slots__)
    if cls.__bases__ != (Combatant,) or set(vars(cls)) != set(vars(_combatant_class(*args))):
        raise Refused(cls.__name__)
    return args
