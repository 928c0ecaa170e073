"""`grimorio fmt`: format rule and encounter files in place, or list those that need it.

A file that does not read cleanly is reported and never rewritten. A file is
written whole to a temporary file beside it and then renamed over the old one,
so an interrupted run leaves either the old text or the new, never half of one.
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

from ...dsl.diagnostics import Diagnostic, GrimorioError, Sources, Span, render_all
from . import colour
from .formatter import format_source
from ...dsl.source import read_bounded, read_text

SUFFIXES = (".rules", ".enc")


def files_under(path: Path, at: Span) -> list[Path]:
    """The rule and encounter files a command line path names: the file itself, or those in a folder."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file()
                      and not any(part.startswith(".") for part in p.relative_to(path).parts))
    if path.exists() and path.suffix not in SUFFIXES:
        raise GrimorioError(Diagnostic("E0023", f'"{path}" is not a .rules or .enc file', at,
                                       "grimorio fmt formats rule files (.rules) and encounters (.enc)"))
    return [path]


def write_atomically(path: Path, text: str, expected: bytes) -> None:
    """Replace a file's text, unless it changed since it was read (`expected`). A read-only file is left as
    it is; a file with other names (hard links) is rewritten in place, so they keep naming it; otherwise a
    temporary file beside it, synced, renamed over it, with the file's mode and (run as root) its owner."""
    target = path.resolve()
    where = Span(str(path), 0, 0)
    try:
        if read_bounded(target) != expected:
            raise GrimorioError(Diagnostic("E0021", f'"{path}" changed while it was being formatted; left as it is',
                                           where, "run grimorio fmt again"))
        st = target.stat()
        if not st.st_mode & 0o222:
            raise GrimorioError(Diagnostic("E0021", f'"{path}" is read-only; left as it is', where,
                                           "make it writable (chmod u+w) to format it"))
        if st.st_nlink > 1:
            _rewrite_in_place(target, text)
            return
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise GrimorioError(Diagnostic("E0021", f'cannot write "{path}": {exc.strerror or exc}', where)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        if hasattr(os, "geteuid") and os.geteuid() == 0 and (st.st_uid, st.st_gid) != (0, 0):
            os.chown(tmp, st.st_uid, st.st_gid)          # root formats a user's file: it stays the user's
        os.replace(tmp, target)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise GrimorioError(Diagnostic("E0021", f'cannot write "{path}": {exc.strerror or exc}', where,
                                       "the file is unchanged")) from None


def _rewrite_in_place(target: Path, text: str) -> None:
    with open(target, "r+", encoding="utf-8", newline="\n") as out:
        out.write(text)
        out.truncate()
        out.flush()
        os.fsync(out.fileno())


def format_file(path: Path, sources: Sources, check: bool, at: Span | None = None) -> bool:
    """Format one file (or only look, with `check`); True when its text is not (or was not) canonical."""
    display = str(path)
    text = read_text(path, display, at, sources)    # a regular file of at most 4 MiB, never blocking
    try:
        raw = read_bounded(path)        # what is on disk now: written over only if it is still there
    except OSError:
        raw = None
    sources.texts[display] = text
    result, diags = format_source(text, display)
    if diags:
        raise GrimorioError(diags)
    if raw == result.encode("utf-8"):
        return False
    if not check:
        write_atomically(path, result, raw)
    return True


STDIN = "-"


def format_stdin(args, sources: Sources, cl) -> int:
    """`grimorio fmt -`: standard input formatted onto standard output (as editors and pipes want it);
    with --check, nothing is written and the exit says whether it needed formatting."""
    from ...dsl.source import MAX_BYTES, decode
    if len(args.paths) > 1:
        raise GrimorioError(Diagnostic("E0002", '"-" (standard input) is formatted alone', cl.span(STDIN),
                                       "format the files in a command of their own"))
    data = sys.stdin.buffer.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise GrimorioError(Diagnostic("E0001", "the standard input is larger than 4 MiB", cl.span(STDIN),
                                       "rules and encounters are short text files"))
    text = decode(data, "<stdin>", cl.span(STDIN), sources)
    name = f"<stdin>{_stdin_kind(text)}"
    sources.texts[name] = text
    result, diags = format_source(text, name)
    if diags:
        raise GrimorioError(diags)
    if args.check:
        changed = result.encode("utf-8") != data
        if changed:
            print(f"would reformat {STDIN}", file=sys.stderr)
        return 1 if changed else 0
    sys.stdout.write(result)
    return 0


def _stdin_kind(text: str) -> str:
    """Whether standard input holds an encounter or rules (it has no file name to say): what reads
    cleanly as one; else what its first line suggests (an encounter starts with "encounter")."""
    from .formatter import build
    for suffix in (".enc", ".rules"):
        if not build(text, f"<stdin>{suffix}")[1]:
            return suffix
    first = next((ln.strip() for ln in text.split("\n") if ln.strip() and not ln.strip().startswith("#")), "")
    return ".enc" if first.split(" ", 1)[0] in ("encounter", "combatant") else ".rules"


def cmd_fmt(args, sources: Sources, cl) -> int:
    if STDIN in args.paths:
        return format_stdin(args, sources, cl)
    diags: list[Diagnostic] = []
    changed, seen, failed = [], 0, 0
    for name in args.paths:
        at = cl.span(name)
        try:
            files = files_under(Path(name), at)
        except GrimorioError as exc:
            diags.extend(exc.diagnostics)
            continue
        for path in files:
            seen += 1
            try:
                if format_file(path, sources, args.check, at):
                    changed.append(path)
            except GrimorioError as exc:
                failed += 1
                diags.extend(exc.diagnostics)
    verb = "would reformat" if args.check else "reformatted"
    for path in changed:
        print(f"{verb} {path}")
    left = seen - len(changed) - failed
    if seen:
        print(f"{len(changed)} file{'s' if len(changed) != 1 else ''} {verb}, {left} already formatted"
              + (f", {failed} not read" if failed else ""))
    if diags:
        colour.error(render_all(diags, sources))
        return 2
    return 1 if changed and args.check else 0
