"""`grimorio simulate` of two rule sets on common dice: each outcome's share
under each, and the difference, with its interval; and the difference of the
rounds and of every tally.

Run i of both rule sets uses the same seed, `run_seed(S, i)`, and every die
is drawn from a stream keyed by (seed, who, purpose, count): a rule change
leaves the unrelated rolls of run i alone, so the two outcomes of a run are
strongly correlated. The difference of the shares is then estimated from
the per-run differences d_i = b_i - a_i (a paired estimate), whose variance
is var(a) + var(b) - 2 cov(a, b): far smaller than the var(a) + var(b) of
two independent simulations. Both intervals are reported.

What is counted (simulate.Paired) is a joint table, (outcome under the first
rule set, outcome under the second) -> runs, and the sums of the per-run
differences of each number: tables of disjoint runs add up, so the result
does not depend on how the runs were split among workers. `independent`
(--independent-dice) draws the second rule set's runs from other seeds, to
measure what common dice save with the same code.
"""
from __future__ import annotations

import math
from collections import Counter

from .summary import outcome_label
from .tally import Z95, mean_interval, wilson


# ---------------------------------------------------------------- the comparison
def difference(n11: int, n10: int, n01: int, n: int) -> dict:
    """The difference b - a of two rates from n paired 0/1 outcomes (n11 both, n10 only a, n01
    only b): the estimate, its paired 95% interval, and the interval two independent runs of n
    would give (the normal approximation, clipped to [-1, 1])."""
    pa, pb = (n11 + n10) / n, (n11 + n01) / n
    d = pb - pa
    # The sample variance of the per-run differences (each -1, 0 or 1).
    # One run tells nothing of the spread: the interval is then the whole range (JSON has no infinity).
    half = Z95 * math.sqrt(((n10 + n01) / n - d * d) / (n - 1)) if n > 1 else 2.0
    half_apart = Z95 * math.sqrt((pa * (1 - pa) + pb * (1 - pb)) / n)
    return {"difference": d, "low": max(-1.0, d - half), "high": min(1.0, d + half), "half_width": half,
            "independent_low": max(-1.0, d - half_apart), "independent_high": min(1.0, d + half_apart),
            "independent_half_width": half_apart,
            "narrower": (half_apart / half) if half > 0 else None}


def _rate(k: int, n: int) -> dict:
    low, high = wilson(k, n)
    return {"runs": k, "rate": k / n if n else 0.0, "low": low, "high": high}


def outcome_differences(joint: Counter, n: int, rows_a: list, rows_b: list) -> list[dict]:
    """Each outcome either rule set reports: its share under each, and the paired difference."""
    by_name = {r["outcome"]: r for r in rows_a}
    by_name.update({r["outcome"]: r for r in rows_b if r["outcome"] not in by_name})
    out = []
    for name, row in by_name.items():
        c = Counter()
        for (a, b), k in joint.items():
            c[(a == name, b == name)] += k
        n11, n10, n01 = c[(True, True)], c[(True, False)], c[(False, True)]
        out.append({"outcome": name, "kind": row["kind"], "a": _rate(n11 + n10, n), "b": _rate(n11 + n01, n),
                    **difference(n11, n10, n01, n)})
    return out


def measure_differences(paired) -> list[dict]:
    """The rounds and each tally: the mean of the per-run differences, with its paired interval."""
    return [{"combatant": who, "measure": name, **mean_interval(k, s, ss)}
            for (who, name), (k, s, ss) in paired.diffs.items()]


def compare(counts, summaries: list[dict], names: list, common: bool = True) -> dict:
    a, b = summaries
    paired = counts.paired[0]
    n = paired.runs
    out = {"comparison": True, "encounter": a["encounter"], "a": names[0], "b": names[1], "runs": n, "seed": a["seed"],
           "common_dice": common, "outcome_rule": a["outcome_rule"],
           "outcomes": outcome_differences(paired.joint, n, a["outcomes"], b["outcomes"]),
           "measures": measure_differences(paired),
           "parted": sum(k for (x, y), k in paired.joint.items() if x != y),
           "summaries": summaries, "warnings": a["warnings"]}
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _signed(x: float) -> str:
    return f"{100 * x:+.1f}%"


def render_text(s: dict) -> str:
    dice = "on common dice" if s["common_dice"] else "on independent dice"
    lines = [f"{s['encounter'] or 'encounter'}: {s['runs']} runs of each rule set {dice}, seed {s['seed']}",
             f"  A: {s['a']}", f"  B: {s['b']}"]
    lines += [f"warning: {w}" for w in s.get("warnings", [])]
    lines.append(f"outcome of each run: A, B (95% intervals), and B - A with its 95% interval "
                 f"({'paired run by run' if s['common_dice'] else 'runs apart'}; independent runs would give the "
                 f"last) ({s['outcome_rule']})")
    width = max([len(outcome_label(x)) for x in s["outcomes"]] + [14])
    for x in s["outcomes"]:
        a, b = x["a"], x["b"]
        lines.append(f"  {outcome_label(x):<{width}}  A {_pct(a['rate']):>6} [{_pct(a['low'])}, {_pct(a['high'])}]"
                     f"  B {_pct(b['rate']):>6} [{_pct(b['low'])}, {_pct(b['high'])}]"
                     f"  B - A {_signed(x['difference'])} [{_signed(x['low'])}, {_signed(x['high'])}]"
                     f"  independent runs: ±{100 * x['independent_half_width']:.1f}%")
    parted = s["parted"]
    lines.append(f"runs whose outcome differs between A and B: {parted} of {s['runs']} "
                 f"({_pct(parted / s['runs'] if s['runs'] else 0.0)})")
    lines.append("rounds and tallies, B - A: mean of the per-run differences (paired 95% interval)")
    shown = [(f"{x['combatant']}: {x['measure']}" if x["combatant"] else x["measure"], x) for x in s["measures"]]
    width = max([len(label) for label, _x in shown] + [1])
    lines += [f"  {label:<{width}}  {_signed_number(x)}" for label, x in shown]
    return "\n".join(lines) + "\n"


def _signed_number(x: dict) -> str:
    if x["low"] is None:
        return f"{x['mean']:+.3g}"
    return f"{x['mean']:+.3g} [{x['low']:+.3g}, {x['high']:+.3g}]"
