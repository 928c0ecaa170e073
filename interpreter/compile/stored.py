"""Compiled programs kept between runs: what lets a warm run skip the loader's
checks, the checker and the compiler.

`program` is what `program_for` asks: it looks for a kept program under a
key made of what it was asked (the edition, the folders it is looked for in,
the house-rule files, the working folder) and of grimorio's own code, and
uses it only while every file and folder listing its load read reads the
same (dsl/editions/cache.py notes them as the loader reads them). Otherwise it
builds the program and keeps it. A kept program that cannot be read is
built again; one that cannot be written is not kept: never a failure.

How a program becomes bytes, and back: a Program is plain data (program.py), written
and read by the standard pickle. The file holds a digest of what follows (a damaged one is
told by it), and dsl/store.py signs what it keeps (a foreign one is not read).
"""
from __future__ import annotations

import hashlib
import os
import pickle
from functools import lru_cache
from pathlib import Path

from ...dsl.editions import cache
from ...dsl import store
from ...dsl.diagnostics import Sources
from ...dsl.pause import collector_paused
from .program import Program

FORMAT = 5      # bump when the layout below changes
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
    # The checker and the compiler, imported only to build: a run on a kept program never imports them.
    from ...dsl.check.front import check_edition
    from .compiler import compile_program
    with cache.recording() as notes:
        rs = load_edition(edition, roots, span, own, houses)
        built = compile_program(rs, check_edition(rs))
    data = dumps(built) if key and len(built.line_spans) >= KEEP_FROM_LINES and store.place(name) else None
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


def dumps(program: Program) -> bytes | None:
    """The program as bytes, or None when it holds something the standard pickle does not write."""
    try:
        return pickle.dumps((FORMAT, program), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return None


def loads(data: bytes) -> Program:
    """The program `dumps` wrote. Raises on anything damaged (the caller then builds it anew)."""
    version, program = pickle.loads(data)
    if version != FORMAT or not isinstance(program, Program):
        raise ValueError("another layout")
    return program
