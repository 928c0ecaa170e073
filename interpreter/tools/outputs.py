"""Files a command writes (--save-state, --report): checked before the command runs anything, then
written through a temporary file beside the target, synced and renamed over it.

A target is refused (E0809) when it is a symbolic link, a folder, a FIFO, a device or a socket, or
when it is one of the command's inputs (the encounter, a house-rule file, an edition's file): a
mistyped argument must not replace the encounter with a report. The one exception is the state a
run loads, which `--save-state` may replace: that is how a campaign goes on. An empty file name
(an unset variable in a script) is a mistake of the command line (E0002). The temporary file is
made with O_CREAT|O_EXCL|O_NOFOLLOW, so nothing planted under its name is followed; those of
writes that were killed are removed by the next write beside them.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from ...dsl.diagnostics import Diagnostic, GrimorioError, Span
from ...dsl.store import alive

_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a pipe (FIFO)"),
          (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))
STALE_SECONDS = 3600


def check_output(path: str, flag: str, at: Span, inputs=(), allowed=()) -> Path:
    """`path` as an output of the command, or a diagnostic that says why it cannot be one."""
    if path == "":
        raise GrimorioError(Diagnostic("E0002", f"{flag} needs a file name", at,
                                       f"{flag} FILE; an empty name is often a variable that was not set"))
    target = Path(path)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        if not target.parent.is_dir():
            _refuse(path, flag, at, "its folder does not exist")
        return target
    except OSError as exc:
        _refuse(path, flag, at, exc.strerror or str(exc))
    for test, what in _KINDS:
        if test(st.st_mode):
            _refuse(path, flag, at, f"it is {what}, not a regular file")
    for given in inputs:
        if _same(st, given) and not any(_same(st, a) for a in allowed):
            _refuse(path, flag, at, "it is an input of this command", "name another file for the output")
    return target


def _same(st, other) -> bool:
    try:
        o = os.stat(other)
    except (OSError, ValueError):
        return False
    return (o.st_dev, o.st_ino) == (st.st_dev, st.st_ino)


def _refuse(path, flag, at, why, help=None):
    raise GrimorioError(Diagnostic("E0809", f'{flag} will not write "{path}": {why}', at,
                                   help or "name a regular file (it is written whole, or not at all)"))


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` whole or not at all: a temporary file beside it (O_EXCL|O_NOFOLLOW), synced,
    renamed over it; the folder synced. Raises OSError (the caller says it with its own code)."""
    folder = path.parent if str(path.parent) else Path(".")
    _clean(folder, path.name)
    tmp = folder / f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mode = 0o666                    # as open() makes a file: less the umask
    fd = os.open(tmp, flags, mode)
    try:
        try:
            view = memoryview(text.encode("utf-8"))
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        try:                            # swapped for something else since it was checked: refused still
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                raise IsADirectoryError(21, "it is no longer a regular file", str(path))
        except FileNotFoundError:
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync(folder)


def _clean(folder: Path, name: str) -> None:
    """Remove the temporary files of earlier writes of `name` whose process is gone (or an hour old)."""
    import time
    prefix = f".{name}."
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(prefix) and e.name.endswith(".tmp")]
    except OSError:
        return
    for e in entries:
        parts = e.name[len(prefix):].split(".")
        try:
            st = e.stat(follow_symlinks=False)
            if st.st_uid != getattr(os, "geteuid", lambda: st.st_uid)():
                continue
            pid = int(parts[0]) if parts[0].isdigit() else None
            if time.time() - st.st_mtime > STALE_SECONDS or (pid is not None and pid != os.getpid() and not alive(pid)):
                os.unlink(e.path)
        except OSError:
            continue


def _sync(folder: Path) -> None:
    """The rename itself survives a power cut only once the folder is synced (where the system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
