"""`grimorio diff`: one encounter under two rule sets, on the same dice.

Dice come from streams keyed by who rolls and for what (dice.stream), so a
rule change leaves every roll it does not touch as it was: the transcripts
agree up to the first line the change reaches, and every line after that
differs only through it. The diff shows them side by side, with the rule and
layer behind each line that differs.
"""
from __future__ import annotations

from difflib import SequenceMatcher

from ..run.transcript import lines


def transcript_diff(left, right, left_name: str, right_name: str, ended: bool = True) -> tuple[str, bool]:
    """The two runs' transcripts as a line diff (text), and whether they differ; with how each run
    ended when both `ended` (neither stopped on an error)."""
    a, b = lines(left.engine), lines(right.engine)
    ta, tb = [t for t, _ in a], [t for t, _ in b]
    ends = _outcomes(left, right, left_name, right_name) if ended else ""
    if ta == tb:
        return f"same transcript under {left_name} and {right_name} ({len(ta)} lines)\n" + ends, False
    out = [f"--- {left_name}", f"+++ {right_name}"]
    ops = SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes()
    first = next(i1 for tag, i1, _i2, _j1, _j2 in ops if tag != "equal")
    out.append(f"the transcripts part at line {first + 1}")
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            out += [f"  {t}" for t in ta[i1:i2]]
            continue
        out += [f"- {t}    [{why}]" for t, why in a[i1:i2]]
        out += [f"+ {t}    [{why}]" for t, why in b[j1:j2]]
    out += [ends.rstrip("\n")] if ends else []
    out += _changes(right.program.ruleset, left.program.ruleset)
    return "\n".join(out) + "\n", True


def _outcomes(left, right, left_name: str, right_name: str) -> str:
    """How each run ended, as the rules' one notion of the outcome says (run/outcome.py); nothing
    for a run that stopped on an error."""
    from ...dsl.diagnostics import GrimorioError
    from ..run.outcome import outcome_of
    try:
        a, b = outcome_of(left.engine), outcome_of(right.engine)
    except GrimorioError:
        return ""
    return f"outcome: {a.name} under {left_name}, {b.name} under {right_name}\n"


def _changes(rs, base) -> list[str]:
    """What the layers of the second side change that the first side's do not: the why of the diff."""
    theirs = {(c.span, c.what) for c in base.changes}
    mine = [c for c in rs.changes if (c.span, c.what) not in theirs]
    if not mine:
        return []
    return ["what the second side's layers change:"] + [f"* {c.span.file}:{c.span.line}: {c.what}" for c in mine]
