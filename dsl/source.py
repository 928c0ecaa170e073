"""Reading rule and encounter files, refusing what is not text with a diagnostic."""
from __future__ import annotations

import codecs
from pathlib import Path

from .diagnostics import Diagnostic, GrimorioError, Span

MAX_BYTES = 4 * 1024 * 1024


def read_text(path: Path | str, display: str | None = None, at: Span | None = None, sources=None) -> str:
    """The text of a file. `at` is where the file was named (a command line argument, an include),
    the place of errors about the file as a whole; `sources` receives a readable copy of a file that
    is not UTF-8, so its diagnostic can show the line."""
    p = Path(path)
    name = display or str(path)
    where = at or Span(name, 0, 0)
    if not p.exists():
        raise GrimorioError(Diagnostic("E0001", f'there is no file "{name}"', where,
                                       "check the path; it is relative to the folder you run grimorio from"))
    if p.is_dir():
        raise GrimorioError(Diagnostic("E0001", f'"{name}" is a folder, not a file', where,
                                       "name a .rules or .enc file inside it"))
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise GrimorioError(Diagnostic("E0001", f'cannot read "{name}": {exc.strerror or exc}', where)) from None
    if len(data) > MAX_BYTES:
        raise GrimorioError(Diagnostic("E0001", f'"{name}" is larger than 4 MiB', where,
                                       "rules and encounters are short text files"))
    if b"\x00" in data:
        raise GrimorioError(Diagnostic("E0001", f'"{name}" is a binary file, not text', where,
                                       "rules and encounters are UTF-8 text files"))
    # Line ends first: "\r" and "\n" are never part of a longer UTF-8 character.
    data = data.removeprefix(codecs.BOM_UTF8).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        col = len(data[start:exc.start].decode("utf-8", "replace")) + 1
        if sources is not None:
            sources.texts[name] = data.decode("utf-8", "replace")
        raise GrimorioError(Diagnostic("E0001", f'"{name}" is not UTF-8 text', Span(name, line, col, line, col + 1),
                                       "save the file as UTF-8")) from None
