"""The build cache: a rules or encounter file's declarations, kept by what they were made from, and
what a load read (so a kept result is used only while every file it read reads the same).

Building Lark's tables and parsing a ruleset cost far more than loading
their results, so both are kept, named by what they were made from: a
file's declarations by its text and name and by the source of the language
itself (grammar, parser, builder, AST), so a changed file or a changed
grimorio never meets an old result. They are kept in the store (dsl/store.py),
which checks every entry it gives back.

A compiled program is kept too (interpreter/compile/stored.py), under a key that
names what it was asked for; what its load read is noted as it is read
(`consult`) and kept beside it, and a kept program is used only while every
file and folder listing it read reads the same (`unchanged`). So is a check's
verdict (dsl/check/remembered.py).
"""
from __future__ import annotations

import hashlib
import io
import os
import pickle
import sys
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from ..pause import collector_paused
from ..store import KEEP, _memory, keep, kept

# The modules whose source decides what a file builds to.
LANGUAGE_FILES = ("syntax/grammar.lark", "syntax/parser.py", "syntax/trees.py", "syntax/lexer.py", "syntax/builder.py",
                  "syntax/patches.py", "syntax/nodes.py", "records.py", "bounds.py", "diagnostics.py", "editions/cache.py",
                  "pause.py", "store.py", "syntax/texts.py")


@lru_cache(maxsize=None)
def language_key() -> str:
    h = hashlib.sha256(f"{sys.version_info[:2]}".encode())
    here = Path(__file__).resolve().parent.parent     # dsl/
    for name in LANGUAGE_FILES:
        try:
            h.update((here / name).read_bytes())
        except OSError:
            h.update(os.urandom(16))       # unknown source: nothing is ever reused
    return h.hexdigest()


def build_rules(text: str, file: str):
    """The declarations and diagnostics of a rules file, built or taken from the cache."""
    return _built("rules", text, file)


def build_encounter(text: str, file: str):
    """The encounter and diagnostics of an encounter file, built or taken from the cache."""
    return _built("encounter", text, file)


def built_key(kind: str, text: str, file: str) -> str:
    return hashlib.sha256(f"{language_key()}\0{kind}\0{file}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


# The bundled rules' files, built when the package is built (setup.py) and shipped in it: part of the
# installed package, trusted as its code is; found by the same key as a cache entry, so a file that is
# not what was built (another text, another grimorio, another Python) is simply not found there.
SHIPPED = "built.pickle"


@lru_cache(maxsize=1)
def shipped() -> dict:
    try:
        data = (Path(__file__).resolve().parent / SHIPPED).read_bytes()
        table = pickle.loads(data)
    except (OSError, ValueError, EOFError, pickle.UnpicklingError):
        return {}
    return table if isinstance(table, dict) else {}


# The bundled encounters are shipped too, built under a name no file has (PLACEHOLDER): a run gives the
# encounter's text under any name (a bundled encounter, or a copy of it), and every string of the built
# form that is that name becomes the run's name as it is read back. setup.py ships one only when building
# it under two names makes the same bytes but for the name (so the name is in no other string).
PLACEHOLDER = "\0grimorio-file\0"


class _Naming(pickle.Pickler):
    """Writes every string equal to `name` as a reference that _Renaming fills in."""

    def __init__(self, out, name: str):
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self.name = name

    def persistent_id(self, obj):
        return "file" if type(obj) is str and obj == self.name else None


class _Renaming(pickle.Unpickler):
    def __init__(self, data: bytes, name: str):
        super().__init__(io.BytesIO(data))
        self.name = name

    def persistent_load(self, pid):
        if pid != "file":
            raise pickle.UnpicklingError(f"unknown reference {pid!r}")
        return self.name


def named_dumps(result, name: str) -> bytes:
    out = io.BytesIO()
    with collector_paused():
        _Naming(out, name).dump(result)
    return out.getvalue()


def _shipped_encounter(text: str, file: str):
    data = shipped().get(built_key("encounter", text, PLACEHOLDER))
    if data is None:
        return None
    try:
        with collector_paused():
            return _Renaming(data, file).load()
    except Exception:  # noqa: BLE001 - built anew
        return None


def _built(kind: str, text: str, file: str):
    key = built_key(kind, text, file)
    data = _memory.get(key) or shipped().get(key)
    if data is None and kind == "encounter":
        found = _shipped_encounter(text, file)
        if found is not None:
            return found
    if data is None:
        data = kept(f"built-{key[:32]}.pickle")
    if data is not None:
        try:
            with collector_paused():
                return pickle.loads(data)
        except Exception:  # noqa: BLE001 - a damaged or foreign cache entry is rebuilt
            pass
    from ..syntax import builder
    result = (builder.build_rules if kind == "rules" else builder.build_encounter)(text, file)
    try:
        with collector_paused():
            data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return result
    _memory[key] = data
    while len(_memory) > KEEP:
        del _memory[next(iter(_memory))]
    keep(f"built-{key[:32]}.pickle", data)
    return result

# ------------------------------------------------------------------ what a load read
def _names(folder, pattern: str) -> list[str]:
    """The sorted names in `folder`: its sub-folders ("/"), or the files that match `pattern`."""
    folder = Path(folder)
    if pattern == "/":
        return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    return sorted(p.name for p in folder.glob(pattern))


def _head(path, limit: int) -> bytes:
    from ..source import read_bounded
    return read_bounded(path, limit, whole=False)


def _whole(path, _arg=None) -> bytes:
    from ..source import read_bounded
    return read_bounded(path)


def _text(path, _arg=None) -> str:
    from ..source import read_text
    return read_text(path)


def _resolved(path, _arg=None) -> str:
    return str(Path(path).resolve())


# How a load reads what it depends on: each by a kind of reading that can be done again to see whether
# it still reads the same. (kind -> reader(path, argument))
READERS = {"names": _names, "head": _head, "bytes": _whole, "text": _text, "resolve": _resolved}
_recordings: list[dict] = []


@contextmanager
def recording():
    """Note every `consult` made inside; yields the notes: (kind, path, argument) -> digest."""
    notes: dict = {}
    _recordings.append(notes)
    try:
        yield notes
    finally:
        _recordings.remove(notes)


def consult(kind: str, path, arg=None):
    """READERS[kind](path, arg), noted in every recording under way (failures too: a file that could
    not be read, and now can, changes what a load finds)."""
    if not _recordings:
        return READERS[kind](path, arg)
    try:
        value = READERS[kind](path, arg)
    except Exception as exc:  # noqa: BLE001 - noted as it is, and raised on
        for notes in _recordings:
            notes[(kind, str(path), arg)] = _failed(exc)
        raise
    return noted(kind, path, value, arg)


def noted(kind: str, path, value, arg=None):
    """`value`, which the caller read itself as READERS[kind](path, arg) reads it, noted; returned."""
    for notes in _recordings:
        notes[(kind, str(path), arg)] = _digest(value)
    return value


def unrepeatable() -> None:
    """The load under way read something no file holds (an editor's unsaved text): never reuse it."""
    for notes in _recordings:
        notes[("unrepeatable", "", None)] = ""


def unchanged(notes: dict) -> bool:
    """Whether every reading noted reads the same now."""
    for (kind, path, arg), digest in notes.items():
        if kind not in READERS:
            return False
        try:
            now = _digest(READERS[kind](path, arg))
        except Exception as exc:  # noqa: BLE001 - compared with what was noted
            now = _failed(exc)
        if now != digest:
            return False
    return True


def _digest(value) -> str:
    if isinstance(value, list):
        value = "\0".join(value)
    if isinstance(value, str):
        value = value.encode("utf-8", "surrogatepass")
    return hashlib.sha256(value).hexdigest()


def _failed(exc: BaseException) -> str:
    diagnostics = getattr(exc, "diagnostics", None)
    return f"failed: {type(exc).__name__}: {[d.message for d in diagnostics] if diagnostics else exc}"
