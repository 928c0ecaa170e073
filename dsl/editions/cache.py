"""What grimorio keeps between runs: the built parser and the built files.

Building Lark's tables and parsing a ruleset cost far more than loading
their results, so both are kept in a folder the package owns, named by
what they were made from: a file's declarations by its text and name and
by the source of the language itself (grammar, parser, builder, AST), so a
changed file or a changed grimorio never meets an old result. A folder
that cannot be made, read or written only costs time: every failure falls
back to building.

A compiled program is kept too (interpreter/compile/stored.py), under a key that
names what it was asked for; what its load read is noted as it is read
(`consult`) and kept beside it, and a kept program is used only while every
file and folder listing it read reads the same (`unchanged`).

GRIMORIO_CACHE_DIR chooses the folder ("" turns the cache off); by default
the package's own __pycache__, else the user's cache folder.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import pickle
import sys
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from ..pause import collector_paused  # noqa: F401 - the one helper (dsl/pause.py); callers reach it here too

# The modules whose source decides what a file builds to.
LANGUAGE_FILES = ("syntax/grammar.lark", "syntax/parser.py", "syntax/trees.py", "syntax/lexer.py", "syntax/builder.py",
                  "syntax/patches.py", "syntax/nodes.py", "records.py", "bounds.py", "diagnostics.py", "editions/cache.py",
                  "pause.py")
KEEP = 256            # built files kept on disk; the oldest are dropped beyond this
KEEP_BY_KIND = {"program": 16}    # compiled programs are larger: fewer are kept
_memory: dict[str, bytes] = {}


def folders() -> list[Path]:
    chosen = os.environ.get("GRIMORIO_CACHE_DIR")
    if chosen is not None:
        return [Path(chosen)] if chosen else []
    user = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [Path(__file__).resolve().parent / "__pycache__", Path(user) / "grimorio"]


def place(name: str) -> Path | None:
    """Where the cached `name` is, or should be written: the first folder that holds it, else the first
    that can be made and written; None when there is none."""
    try:
        candidates = folders()
        for folder in candidates:
            if (folder / name).is_file():
                return folder / name
        for folder in candidates:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError:
                continue
            if os.access(folder, os.W_OK):
                return folder / name
    except (OSError, RuntimeError, ValueError):      # no home folder, an unreadable path
        pass
    return None


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


def _built(kind: str, text: str, file: str):
    key = hashlib.sha256(f"{language_key()}\0{kind}\0{file}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()
    data = _memory.get(key)
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


def python_code(source: str, filename: str):
    """compile(source, filename, "exec"), or the code object kept from an earlier compile of the same text
    (the generated Python of an edition is the same from run to run: compiling it is most of a cached run)."""
    key = hashlib.sha256(f"{sys.version}\0{filename}\0{source}".encode("utf-8", "surrogatepass")).hexdigest()
    name = f"code-{key[:32]}.marshal"
    data = _memory.get(key) or kept(name)
    if data is not None:
        try:
            return marshal.loads(data)
        except (EOFError, ValueError, TypeError):      # a damaged entry is compiled again
            pass
    code = compile(source, filename, "exec")
    data = marshal.dumps(code)
    _memory[key] = data
    keep(name, data)
    return code


def kept(name: str) -> bytes | None:
    where = place(name)
    if where is None:
        return None
    try:
        return where.read_bytes()
    except OSError:
        return None


def keep(name: str, data: bytes) -> None:
    """Write atomically (a reader never sees half a file), then drop the oldest entries beyond KEEP."""
    where = place(name)
    if where is None:
        return
    tmp = where.with_name(f"{where.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, where)
        kind, _, rest = where.name.partition("-")
        _trim(where.parent, kind, Path(rest).suffix, KEEP_BY_KIND.get(kind, KEEP))
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


_writes: dict = {}       # this process's writes by kind, since the start


def _trim(folder: Path, kind: str, suffix: str, limit: int) -> None:
    """Drop the oldest entries of a kind down to `limit`, once they are a quarter over it. A process
    looks at the folder on its first write of a kind and then once every quarter of the limit's
    writes, so the folder holds at most about a quarter over the limit for each process writing it
    (listing it and reading the entries' times on every write cost a test suite that builds many
    small editions a tenth of its time)."""
    count = _writes[kind] = _writes.get(kind, 0) + 1
    if (count - 1) % max(1, limit // 4):
        return
    with os.scandir(folder) as listing:
        entries = [e for e in listing if e.name.startswith(kind + "-") and e.name.endswith(suffix)]
    if len(entries) <= limit + limit // 4:
        return
    entries.sort(key=lambda e: e.stat().st_mtime)
    for old in entries[:-limit]:
        os.unlink(old.path)


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
