"""Colour on a terminal: diagnostics, warnings and diffs, drawn with rich.

Colour is used only when the stream is a terminal (never in a pipe or a file),
unless the environment says otherwise: NO_COLOR (any value but empty) turns it
off, and wins; FORCE_COLOR (any value but empty) turns it on even in a pipe
(https://no-color.org, https://force-color.org). The words are the same either
way: colour only marks them. rich is imported only when colour is wanted, so a
pipe or a file costs nothing.
"""
from __future__ import annotations

import os
import re
import sys

# Each kind of text: (pattern, style) pairs over each line; a pattern's group, or else its whole match, gets the
# style. CARET is the colour of the diagnostic the line belongs to: red under an error, yellow under a warning.
CARET = "caret"
SEVERITY = {"error": "bold red", "warning": "bold yellow"}
DIAGNOSTIC = (
    (re.compile(r"^(error\[[EW]\d+\]):"), "bold red"),
    (re.compile(r"^(warning\[[EW]\d+\]):"), "bold yellow"),
    (re.compile(r"^(?:error|warning)\[[EW]\d+\]: (.*)$"), "bold"),
    (re.compile(r"^\s*(-->)"), "bold blue"),
    (re.compile(r"^(\s*\d*\s*\|)"), "bold blue"),
    (re.compile(r"^\s*\|\s*(\^+)"), CARET),
    (re.compile(r"^\s*(= help:)"), "bold cyan"),
)
DIFF = (
    (re.compile(r"^(--- .*|\+\+\+ .*)$"), "bold"),
    (re.compile(r"^(- .*)$"), "red"),
    (re.compile(r"^(\+ .*)$"), "green"),
    (re.compile(r"^(the transcripts part at line \d+)$"), "bold yellow"),
    (re.compile(r"^(what the second side's layers change:)$"), "bold"),
)
TEST = DIAGNOSTIC + (
    (re.compile(r"^(FAILED|ERROR) "), "bold red"),
    (re.compile(r"^(=+ (?:FAILURES|ERRORS) =+)$"), "bold red"),
    (re.compile(r"^(_+ .* _+)$"), "bold red"),
)
STYLES = {"diagnostic": DIAGNOSTIC, "diff": DIFF, "test": TEST}


def wanted(stream) -> bool:
    """Whether text written to `stream` is coloured: a terminal, unless NO_COLOR; anything, with FORCE_COLOR."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def write(stream, text: str, kind: str = "diagnostic", end: str = "\n") -> None:
    """Write `text` (and `end`) to `stream`: coloured by the patterns of `kind` where colour is wanted."""
    if not wanted(stream):
        stream.write(text + end)
        return
    from rich.console import Console
    console = Console(file=stream, force_terminal=True, highlight=False, markup=False, emoji=False,
                      soft_wrap=True, color_system="standard")
    console.print(styled(text, STYLES[kind]), end=end)


def styled(text: str, patterns):
    """`text` as a rich Text, each line styled by the patterns that match it."""
    from rich.text import Text
    out = Text(text)
    at, severity = 0, SEVERITY["error"]
    for line in text.split("\n"):
        severity = SEVERITY.get(line.split("[", 1)[0], severity)
        for pattern, style in patterns:
            m = pattern.search(line)
            if m is None:
                continue
            start, end = m.span(1) if m.groups() else m.span()
            out.stylize(severity if style == CARET else style, at + start, at + end)
        at += len(line) + 1
    return out


def error(text: str) -> None:
    """A diagnostic (or several) on standard error."""
    write(sys.stderr, text)
