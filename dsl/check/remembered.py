"""What `grimorio check` found, kept between runs: checking an edition again costs its loader, its
checker and its resolver every time, and most checks are of files that did not change.

An entry holds plain data only (JSON): the key it answers, every reading its check made (the
notes of dsl/editions/cache.py: `recording`), its diagnostics, and the texts of the files they
point at (to show their lines). It answers only while every reading reads the same
(`cache.unchanged`) and grimorio's language code is the same; otherwise the check runs again
and is kept anew. Reading or writing an entry never fails a check."""
from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache

from ..diagnostics import Diagnostic, Span
from .. import store
from ..editions import cache

FORMAT = 1


def remembered(parts, sources, check, code=()) -> list[Diagnostic]:
    """`check()`'s diagnostics, or those kept for the same `parts` (strings naming what is checked)
    while what it read reads the same; the texts of the files they point at go into `sources`.
    `code`: the caller's own source files, whose change (like the language's) makes a new key."""
    key = _key(parts, code)
    name = f"checked-{key[:32]}.json" if key else None
    found = _kept(name, key) if key else None
    if found is not None:
        diags, texts = found
        sources.texts.update(texts)
        return diags
    with cache.recording() as notes:
        diags = check()
    if key and store.place(name):
        _keep(name, key, notes, diags, sources)
    return diags


def _stat(path) -> str:
    st = os.stat(path)
    return f"{path}\0{st.st_size}\0{st.st_mtime_ns}"


def _key(parts, code=()) -> str | None:
    try:
        text = "\0".join([str(FORMAT), language_version(), os.getcwd(), *map(str, parts), "\0code",
                           *(_stat(f) for f in code)])
    except (OSError, RuntimeError, ValueError):
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@lru_cache(maxsize=1)
def language_version() -> str:
    """A digest of the language's own files and of Python's version: what other code checked is never
    reused."""
    return store.code_digest(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def _keep(name: str, key: str, notes: dict, diags: list[Diagnostic], sources) -> None:
    files = {d.span.file for d in diags}
    entry = {"key": key, "notes": [[kind, path, arg, digest] for (kind, path, arg), digest in notes.items()],
             "diagnostics": [[d.code, d.message, _span(d.span), d.help, d.severity] for d in diags],
             "texts": {f: t for f, t in sources.texts.items() if f in files}}
    try:
        data = json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError, UnicodeError):
        return                                   # a reading that is not plain data: not kept
    store.keep(name, hashlib.sha256(data).digest() + data)


def _kept(name: str, key: str):
    data = store.kept(name)
    if data is None or hashlib.sha256(data[32:]).digest() != data[:32]:
        return None
    try:
        entry = json.loads(data[32:].decode("utf-8", "surrogatepass"))
        if entry["key"] != key:
            return None
        notes = {(kind, path, arg): digest for kind, path, arg, digest in entry["notes"]}
        if not cache.unchanged(notes):
            return None
        diags = [Diagnostic(code, message, Span(*span), help, severity)
                 for code, message, span, help, severity in entry["diagnostics"]]
        return diags, dict(entry["texts"])
    except Exception:  # noqa: BLE001 - a damaged or foreign entry is checked again
        return None


def _span(span: Span) -> list:
    return [span.file, span.line, span.col, span.end_line, span.end_col]
