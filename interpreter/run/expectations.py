"""What an encounter script expects, checked while it runs: conditions, transcript
lines, and scripted decisions the rules must refuse (and why they refuse one)."""
from __future__ import annotations

from ...dsl.records import dataclass

from ...dsl.diagnostics import Diagnostic, Span

from .values import show, written


@dataclass
class Verdict:
    """One expectation checked: where it is written, whether it held, and what to show if not."""
    span: Span
    ok: bool
    left: object = None
    right: object = None
    help: str | None = None
    show_value: object = show          # how the sides are shown: the edition's formats

    def diagnostic(self) -> Diagnostic:
        help = self.help
        if help is None and (self.left is not None or self.right is not None):
            shown = self.show_value
            help = f"the left side is {written(self.left, shown)}, the right side is {written(self.right, shown)}"
        return Diagnostic("E0601", "this expectation failed", self.span, help)


@dataclass(frozen=True)
class Reason:
    """Why the rules refuse a decision: the clause that fails, in the rules' own words, and its place."""
    text: str
    span: Span | None = None
    clause: bool = True          # text is a clause of the rules (else a sentence)

    @property
    def message(self) -> str:
        return f'"{self.text}" is not met' if self.clause else self.text

    def help(self, allowed=None) -> str | None:
        parts = [f"that is written at {self.span}" if self.span is not None else None,
                 f"allowed now: {', '.join(allowed) or 'none'}" if allowed is not None else None]
        return "; ".join(p for p in parts if p) or None


def lines_said(engine) -> list[str]:
    return [ev[2].strip() for ev in engine.events if ev[0] == "say"]


def said(engine, node) -> Verdict:
    """`expect said "TEXT"`: some line of the transcript so far contains TEXT (`not said`: none does)."""
    hits = [line for line in lines_said(engine) if node.said in line]
    if node.negated:
        return Verdict(node.span, not hits, help=f'it was said: "{hits[0]}"' if hits else None)
    help = None if hits else (f'no line so far contains "{node.said}"' +
                              (f'; the last one: "{lines_said(engine)[-1]}"' if lines_said(engine) else ""))
    return Verdict(node.span, bool(hits), help=help)


def clause_text(sources, kind: str, span: Span | None) -> str:
    """A requirement's or cost's own text, as written in the rules ("requires listo(x)")."""
    if span is None:
        return kind
    text = sources.texts.get(span.file, "")
    lines = text.split("\n")
    if not 1 <= span.line <= len(lines):
        return kind
    line = lines[span.line - 1]
    if kind == "cost":                         # the span is the field's name: show the whole clause
        start = line.rfind("cost", 0, span.col)
        return line[start if start >= 0 else span.col - 1:].split("#")[0].strip()
    end = span.end_col - 1 if span.end_line == span.line and span.end_col > span.col else len(line)
    return f"{kind} {line[span.col - 1:end].strip()}"


def failing_clause(program, decl, args, engine) -> Reason:
    """The first cost or requirement of `decl` that does not hold for these arguments."""
    for kind, span, fn in program.requirement_checks(decl):
        if not fn(engine, *args):
            return Reason(clause_text(program.ruleset.sources, kind, span), span)
    return Reason("its requirements", decl.span)


def refusal_verdict(span, who, words, expected: str, reason: Reason | None) -> Verdict:
    """A choice scripted with `refused "TEXT"`: the rules must refuse it, for a reason that contains TEXT."""
    what = " ".join(words)
    if reason is None:
        return Verdict(span, False, help=f"the rules allowed {who} to {what}")
    if expected not in reason.text:
        return Verdict(span, False, help=f'refused, but because of "{reason.text}", not "{expected}"')
    return Verdict(span, True)
