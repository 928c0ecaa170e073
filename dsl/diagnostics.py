"""One diagnostic type for every stage: parse, build, load, check, run.

A diagnostic carries a code, a message in designer words, a span and an
optional help line. `render` shows it with the source line and a caret.
"""
from __future__ import annotations

import re

from .records import dataclass, field


@dataclass(frozen=True, slots=True)
class Span:
    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def __reduce__(self):
        # Pickled as a call of _span: a kept ruleset holds thousands of spans (dsl/editions/cache.py).
        return _span, (self.file, self.line, self.col, self.end_line, self.end_col)


_FILE, _LINE, _COL, _END_LINE, _END_COL = (Span.__dict__[name].__set__
                                            for name in ("file", "line", "col", "end_line", "end_col"))


def _span(file, line, col, end_line, end_col) -> Span:
    """Span(file, line, col, end_line, end_col), made by its slots' own setters: the frozen __init__ sets
    each field through object.__setattr__, near twice the cost, and unpickling a ruleset makes thousands."""
    span = object.__new__(Span)
    _FILE(span, file)
    _LINE(span, line)
    _COL(span, col)
    _END_LINE(span, end_line)
    _END_COL(span, end_col)
    return span


NOWHERE = Span("<input>", 0, 0)


class InlinedSpan(Span):
    """The span of a generated line that holds rules compiled in place (interpreter/compile/code.py):
    `inner` tells, for each, the columns it takes (UTF-8 bytes) and its own span, so a failure inside
    one is told at that rule's line, as a call of the rule would be (engine.locate)."""
    __slots__ = ("inner",)

    @classmethod
    def of(cls, span: Span, inner) -> "InlinedSpan":
        made = object.__new__(cls)
        for name in ("file", "line", "col", "end_line", "end_col"):
            object.__setattr__(made, name, getattr(span, name))
        object.__setattr__(made, "inner", tuple(inner))
        return made

    def plain(self) -> Span:
        return Span(self.file, self.line, self.col, self.end_line, self.end_col)

    def __reduce__(self):
        return _inlined, (self.plain(), self.inner)


def _inlined(span, inner):
    return InlinedSpan.of(span, inner)


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    span: Span = NOWHERE
    help: str | None = None
    severity: str = "error"


class GrimorioError(Exception):
    """Raised with one or more diagnostics; the CLI renders them."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = list(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics))

    def __reduce__(self):      # crosses process boundaries (simulate's workers) as its diagnostics
        return type(self), (self.diagnostics,)


def error(code: str, message: str, span: Span = NOWHERE, help: str | None = None) -> GrimorioError:
    return GrimorioError(Diagnostic(code, message, span, help))


@dataclass
class Sources:
    """The text of every file read, so a diagnostic can show its line."""

    texts: dict[str, str] = field(default_factory=dict)
    # Texts to read instead of the files on disk, by resolved path: an editor's unsaved buffers.
    unsaved: dict[str, str] = field(default_factory=dict)

    def line(self, file: str, number: int) -> str | None:
        text = self.texts.get(file)
        if text is None or number < 1:
            return None
        # Split as the parser counts lines: on "\n" only (splitlines also splits on form feeds and more).
        lines = text.split("\n")
        return lines[number - 1] if number <= len(lines) else None


def did_you_mean(word: str, candidates) -> str | None:
    """A "did you mean" help line, by edit distance, or None."""
    from difflib import get_close_matches          # not at import: only a mistake needs it
    names = sorted({str(c) for c in candidates})
    close = get_close_matches(word, names, n=1, cutoff=0.6)
    if not close:
        lowered = {n.lower(): n for n in names}
        close = get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
        close = [lowered[c] for c in close]
    return DID_YOU_MEAN.format(close[0]) if close else None


DID_YOU_MEAN = 'did you mean "{}"?'
_SUGGESTED = re.compile(re.escape(DID_YOU_MEAN).replace(r"\{\}", '([^"]+)'))


def suggestion(help_text: str | None) -> str | None:
    """The name a help line made by did_you_mean suggests (an editor offers it as a quick fix)."""
    m = _SUGGESTED.search(help_text or "")
    return m.group(1) if m else None


# Characters that would act on a terminal instead of showing: C0 and C1 controls, DEL, line and paragraph
# separators, and the bidirectional overrides that reorder what is shown.
_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)] if c != 0x0A}
_CONTROLS.update({c: f"\\u{c:04x}" for c in [0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]})


def escape(text: str) -> str:
    """Text echoed into a diagnostic (a file name, a table key, a command-line value) with every control
    character shown as an escape, so nothing a file or an argument holds can drive the terminal."""
    return text.translate(_CONTROLS)


def render(diag: Diagnostic, sources: Sources | None = None) -> str:
    out = [f"{diag.severity}[{diag.code}]: {escape(diag.message)}"]
    span = diag.span
    if span is not NOWHERE and span.line:
        out.append(f"  --> {escape(str(span))}")
        text = sources.line(span.file, span.line) if sources else None
        if text is not None:
            # One column per character, as spans count them: tabs and control characters become spaces.
            text = "".join(" " if ord(ch) in _CONTROLS else ch for ch in text)
            gutter = " " * len(str(span.line))
            width = 1
            if span.end_line == span.line and span.end_col > span.col:
                width = span.end_col - span.col
            width = max(1, min(width, len(text) - span.col + 2))
            out.append(f"{gutter} |")
            out.append(f"{span.line} | {text}")
            out.append(f"{gutter} | {' ' * max(0, span.col - 1)}{'^' * width}")
    elif span.file and span is not NOWHERE:
        out.append(f"  --> {escape(span.file)}")
    if diag.help:
        out.append(f"   = help: {escape(diag.help)}")
    return "\n".join(out)


def render_all(diags, sources: Sources | None = None) -> str:
    return "\n\n".join(render(d, sources) for d in diags)
