"""Reading rule and encounter files, refusing what is not text with a diagnostic.

A file is looked at before it is read: only a regular file no larger than
the cap is opened, and never more than the cap is read from it, so a FIFO,
a device such as /dev/zero or a huge file is refused at once and never
blocks or fills memory.
"""
from __future__ import annotations

import codecs
import os
import stat
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
    try:
        data = read_bounded(p)
    except FileNotFoundError:
        raise GrimorioError(Diagnostic("E0001", f'there is no file "{name}"', where,
                                       "check the path; it is relative to the folder you run grimorio from")) from None
    except IsADirectoryError:
        raise GrimorioError(Diagnostic("E0001", f'"{name}" is a folder, not a file', where,
                                       "name a .rules or .enc file inside it")) from None
    except NotRegular:
        raise GrimorioError(Diagnostic("E0001", f'"{name}" is not a regular file (a pipe, a device or a socket)',
                                       where, "rules and encounters are text files")) from None
    except TooLarge:
        raise GrimorioError(Diagnostic("E0001", f'"{name}" is larger than 4 MiB', where,
                                       "rules and encounters are short text files")) from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise GrimorioError(Diagnostic("E0001", f'cannot read "{name}": {reason}', where)) from None
    return decode(data, name, at, sources)


def decode(data: bytes, name: str, at: Span | None = None, sources=None) -> str:
    """The text of bytes read from a file (or standard input) named `name`: UTF-8, "\n" line ends, no BOM."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise GrimorioError(Diagnostic("E0001", f'"{name}" is a binary file, not text', at or _nul(name, data, nul, sources),
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


def _nul(name: str, data: bytes, nul: int, sources) -> Span:
    """Where a file nobody named holds its first NUL byte, shown in a readable copy (as a file
    that is not UTF-8 is): a binary file is located even when no include or argument names it."""
    line = data[:nul].count(b"\n") + 1
    col = len(data[data.rfind(b"\n", 0, nul) + 1:nul].decode("utf-8", "replace")) + 1
    if sources is not None:
        sources.texts[name] = data.replace(b"\x00", "\u2400".encode()).decode("utf-8", "replace")
    return Span(name, line, col, line, col + 1)


class NotRegular(OSError):
    """The path is a FIFO, a device or a socket: reading it could block or never end."""


class TooLarge(OSError):
    """The file is over the size cap."""


def read_bounded(path: Path | str, limit: int = MAX_BYTES, whole: bool = True) -> bytes:
    """At most `limit` bytes of a regular file, never opening anything else and never blocking.
    With `whole`, a longer file is TooLarge; without, its first `limit` bytes are returned."""
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(21, "is a folder", str(path))
    if not stat.S_ISREG(st.st_mode):
        raise NotRegular(str(path))
    if whole and st.st_size > limit:
        raise TooLarge(str(path))
    # The file may have been swapped for a FIFO since: open without blocking and look again.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(str(path))
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        if whole:
            raise TooLarge(str(path))
        data = data[:limit]
    return data
