"""`simulate --precision P`: run in batches until every outcome's share, and
every difference of shares in a comparison or a sweep, is known to within P.

The rule is Chow and Robbins' fixed-width sequential interval (Ann. Math.
Statist. 36, 1965): after each batch, stop at the first n where, for every
estimate,

    z * sqrt((v + 1/n) / n) <= P

with v the sample variance of the per-run values (p(1-p) for a share; the
variance of the per-run differences, each -1, 0 or 1, for a paired
difference) and z the 95% normal quantile. The 1/n term keeps a small early
variance estimate (a share seen at 0 or 1 in the first batch) from stopping
the run at once; as P shrinks the coverage of the interval reported at the
stop tends to the nominal 95% whatever the looks (tests/test_simulate.py
measures it on a known split). The intervals reported are the usual ones
(Wilson for a share, the paired normal interval for a difference): at the
stop, each is at most P on each side. `-n` is the cap: a run that reaches it
stops there and says that the target was not met.
"""
from __future__ import annotations

import math
import re
from collections import Counter

from ...dsl.diagnostics import Diagnostic, GrimorioError
from .tally import Z95

FIRST = 200          # runs before the first look
CAP = 100_000        # the most runs by default


def parse(text: str, span) -> float:
    """"1%", "0.5%" or "0.01": a half-width in (0, 0.5]."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(%?)\s*", text or "")
    value = float(m.group(1)) / (100 if m.group(2) else 1) if m else None
    if value is None or not 0 < value <= 0.5:
        raise GrimorioError(Diagnostic("E0040", f'"--precision {text}" is not a half-width between 0 and 50%',
                                       span, "give a percentage, such as --precision 1%, or a fraction, "
                                             "such as --precision 0.01"))
    return value


def share_width(k: int, n: int) -> float:
    """The Chow-Robbins criterion of a share k/n."""
    p = k / n
    return Z95 * math.sqrt((p * (1 - p) + 1 / n) / n)


def difference_width(n10: int, n01: int, n: int) -> float:
    """The Chow-Robbins criterion of a paired difference of shares (n10 runs only the first had it,
    n01 only the second)."""
    d = (n01 - n10) / n
    var = max(0.0, ((n10 + n01) / n - d * d) * n / (n - 1)) if n > 1 else 1.0
    return Z95 * math.sqrt((var + 1 / n) / n)


def widths(counts, categories) -> list[float]:
    """Every criterion of a job's counts (simulate.Counts): each point's outcome shares and each
    later point's difference of shares from the first."""
    out = []
    for tally in counts.tallies:
        out += [share_width(tally.outcomes.get(c, 0), tally.runs) for c in categories]
    for paired in counts.paired:
        for c in categories:
            apart = Counter()
            for (a, b), k in paired.joint.items():
                apart[(a == c, b == c)] += k
            out.append(difference_width(apart[(True, False)], apart[(False, True)], paired.runs))
    return out


def sequential(step, target: float, cap: int, first: int = FIRST):
    """Batches until every criterion is within `target`, or `cap` runs: `step(start, stop)` runs
    those and gives every criterion over all the runs so far. Returns (runs, widest, met)."""
    n, size = 0, min(first, cap)
    while True:
        worst = max(step(n, n + size), default=0.0)
        n += size
        if worst <= target or n >= cap:
            return n, worst, worst <= target
        need = math.ceil(n * (worst / target) ** 2)         # a half-width shrinks as 1/sqrt(n)
        size = min(cap - n, max(need - n, n // 2))
