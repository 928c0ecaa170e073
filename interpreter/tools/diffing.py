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


def transcript_diff(left, right, left_name: str, right_name: str) -> tuple[str, bool]:
    """The two runs' transcripts as a line diff (text), and whether they differ."""
    a, b = lines(left.engine), lines(right.engine)
    ta, tb = [t for t, _ in a], [t for t, _ in b]
    if ta == tb:
        return f"same transcript under {left_name} and {right_name} ({len(ta)} lines)\n", False
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
    out += _changes(right.program.ruleset, left.program.ruleset)
    return "\n".join(out) + "\n", True


def _changes(rs, base) -> list[str]:
    """What the layers of the second side change that the first side's do not: the why of the diff."""
    theirs = {(c.span, c.what) for c in base.changes}
    mine = [c for c in rs.changes if (c.span, c.what) not in theirs]
    if not mine:
        return []
    return ["what the second side's layers change:"] + [f"* {c.span.file}:{c.span.line}: {c.what}" for c in mine]
