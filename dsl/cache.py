"""What grimorio keeps between runs: the built parser and the built files.

Building Lark's tables and parsing a ruleset cost far more than loading
their results, so both are kept in a folder the package owns, named by
what they were made from: a file's declarations by its text and name and
by the source of the language itself (grammar, parser, builder, AST), so a
changed file or a changed grimorio never meets an old result. A folder
that cannot be made, read or written only costs time: every failure falls
back to building.

GRIMORIO_CACHE_DIR chooses the folder ("" turns the cache off); by default
the package's own __pycache__, else the user's cache folder.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import pickle
import sys
from functools import lru_cache
from pathlib import Path

# The modules whose source decides what a file builds to.
LANGUAGE_FILES = ("grammar.lark", "parser.py", "trees.py", "builder.py", "patches.py", "nodes.py", "bounds.py",
                  "diagnostics.py", "cache.py")
KEEP = 256            # built files kept on disk; the oldest are dropped beyond this
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
    here = Path(__file__).resolve().parent
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
        data = _read(f"built-{key[:32]}.pickle")
    if data is not None:
        try:
            return pickle.loads(data)
        except Exception:  # noqa: BLE001 - a damaged or foreign cache entry is rebuilt
            pass
    from . import builder
    result = (builder.build_rules if kind == "rules" else builder.build_encounter)(text, file)
    try:
        data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return result
    _memory[key] = data
    while len(_memory) > KEEP:
        del _memory[next(iter(_memory))]
    _write(f"built-{key[:32]}.pickle", data)
    return result


def python_code(source: str, filename: str):
    """compile(source, filename, "exec"), or the code object kept from an earlier compile of the same text
    (the generated Python of an edition is the same from run to run: compiling it is most of a cached run)."""
    key = hashlib.sha256(f"{sys.version}\0{filename}\0{source}".encode("utf-8", "surrogatepass")).hexdigest()
    name = f"code-{key[:32]}.marshal"
    data = _memory.get(key) or _read(name)
    if data is not None:
        try:
            return marshal.loads(data)
        except (EOFError, ValueError, TypeError):      # a damaged entry is compiled again
            pass
    code = compile(source, filename, "exec")
    data = marshal.dumps(code)
    _memory[key] = data
    _write(name, data)
    return code


def _read(name: str) -> bytes | None:
    where = place(name)
    if where is None:
        return None
    try:
        return where.read_bytes()
    except OSError:
        return None


def _write(name: str, data: bytes) -> None:
    """Write atomically (a reader never sees half a file), then drop the oldest entries beyond KEEP."""
    where = place(name)
    if where is None:
        return
    tmp = where.with_name(f"{where.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, where)
        kind, _, rest = where.name.partition("-")
        entries = sorted(where.parent.glob(f"{kind}-*{Path(rest).suffix}"), key=lambda p: p.stat().st_mtime)
        for old in entries[:-KEEP]:
            old.unlink()
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
