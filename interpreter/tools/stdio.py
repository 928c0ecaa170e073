"""The process around a command: its standard streams and what the system does to them.

grimorio promises exit 0, 1 or 2 with diagnostics and never a traceback, also
when the world misbehaves: an output closed before the start (`>&-`), a
reader that leaves early (`| head -1`), a full disk (`> /dev/full`), a
terminal whose encoding cannot show an accent, a working folder deleted
under it, a path the system finds too long, and Ctrl-C at any moment (exit
130, see grimorio/_entry.py for the first instants of the process).
"""
from __future__ import annotations

import errno
import os
import sys

from ...dsl.diagnostics import Diagnostic, Span, escape

INTERRUPTED = 130


def prepare() -> bool:
    """Make the standard streams safe to use; False when standard output is closed (nothing can be
    written, so the command must not run as if it could)."""
    open_out = _fd_open(1) and sys.stdout is not None
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        if not _fd_open(fd) or getattr(sys, name) is None:
            # A closed descriptor would be reused by the next file opened: keep it taken by /dev/null.
            if not _fd_open(fd):
                null = os.open(os.devnull, os.O_RDWR)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
            setattr(sys, name, open(os.devnull, "r" if fd == 0 else "w", encoding="utf-8"))
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is getattr(sys, f"__{name}__") and hasattr(stream, "reconfigure"):
            # Transcripts are UTF-8 whatever the locale says; what cannot be encoded is escaped, never a crash.
            try:
                stream.reconfigure(encoding="utf-8", errors="backslashreplace")
            except (OSError, ValueError):
                pass
    return open_out


def _fd_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def closed_output() -> Diagnostic:
    return Diagnostic("E0004", "the standard output is closed: there is nowhere to write",
                      Span("<command line>", 0, 0), "run grimorio with its output open, or send it to a file")


def fault(exc: OSError, whole: Span) -> Diagnostic | None:
    """The diagnostic of a system error met while running a command; None when the reader of the output
    left (a broken pipe), which ends grimorio quietly."""
    if exc.errno == errno.EPIPE or isinstance(exc, BrokenPipeError):
        silence_output()
        return None
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO) and exc.filename is None:
        silence_output()
        return Diagnostic("E0005", f"cannot write the output: {exc.strerror or exc}", whole,
                          "the disk or device the output goes to refused it")
    what = f' "{escape(os.fsdecode(exc.filename))}"' if exc.filename is not None else ""
    reason = exc.strerror or str(exc)
    help = "the working folder no longer exists: run grimorio from a folder that does" \
        if exc.errno == errno.ENOENT and exc.filename in (None, "") else "check the path and its folders"
    return Diagnostic("E0005", f"the system refused{what}: {reason}", whole, help)


def silence_output() -> None:
    """Point standard output at /dev/null, so what is still buffered is dropped at exit instead of failing."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:
        pass


def write_error(text: str) -> None:
    """Write to standard error; an error output that fails (closed, full) is given up on, never raised."""
    try:
        print(text, file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
