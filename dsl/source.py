"""Reading rule and encounter files, refusing what is not text with a diagnostic."""
from __future__ import annotations

from pathlib import Path

from .diagnostics import Diagnostic, GrimorioError, Span

MAX_BYTES = 4 * 1024 * 1024


def read_text(path: Path | str, display: str | None = None) -> str:
    p = Path(path)
    name = display or str(path)
    where = Span(name, 0, 0)
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
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise GrimorioError(Diagnostic("E0001", f'"{name}" is not UTF-8 text', Span(name, line, col, line, col + 1),
                                       "save the file as UTF-8")) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")
