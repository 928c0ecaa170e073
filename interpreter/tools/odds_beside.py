"""`simulate --exact`: the exact odds (odds.py) beside the simulated shares, for what both can say
of one rule set: the probability each expectation of the encounter holds, and the distribution of
each tally. One enumeration of the encounter's rolls answers them all (each tally's distribution is
read off the joint one). Each expectation's exact value is shown with whether it falls inside the
simulated 95% interval; an enumeration past its budget says so instead of giving a number (never a
silent approximation)."""
from __future__ import annotations

from fractions import Fraction

from . import odds as O

SECONDS = 20.0          # what --exact may spend, besides the runs' own time


class Tallies:
    """The tallies' values at the end of one run (one outcome of the joint enumeration, known by how
    it shows)."""
    __slots__ = ("values",)

    def __init__(self, values: tuple):
        self.values = values


class Joint(O.Question):
    """Every tally of the ruleset at the end of a run, as one value: a tuple, a tally of one
    combatant once for each combatant in the encounter's order."""

    def __init__(self, prepared):
        self.labels, parts = [], []
        names = [b[1] for b in prepared.blueprints]
        for d, fn in prepared.p.tallies:
            if d.param is None:
                self.labels.append(d.name)
                parts.append(lambda eng, fn=fn: fn(eng))
            else:
                for index, who in enumerate(names):
                    self.labels.append(f"{d.name}({who})")
                    parts.append(lambda eng, fn=fn, index=index: fn(eng, eng.cb[index]))
        super().__init__(prepared, lambda eng: Tallies(tuple(part(eng) for part in parts)), "every tally")

    def show(self, value) -> str:
        return "; ".join(self.prepared.p.format.show(v) for v in value.values)


def _shown(p: Fraction) -> dict:
    return {"fraction": f"{p.numerator}/{p.denominator}", "share": float(p)}


def _marginal(dist, j: int, fmt) -> dict:
    """Tally j's own distribution, summed over the joint one, and its mean when it is a number."""
    out: dict = {}
    for value, _shown_text, p in dist.ordered():
        v = value.values[j]
        key = (type(v).__name__, fmt.show(v))
        entry = out.setdefault(key, [v, fmt.show(v), Fraction(0)])
        entry[2] += p
    entries = sorted(out.values(), key=lambda e: (not isinstance(e[0], (int, Fraction)), e[0]
                                                  if isinstance(e[0], (int, Fraction)) else 0, e[1]))
    numeric = all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v, _s, _p in entries)
    mean = sum((Fraction(v) * p for v, _s, p in entries), Fraction(0)) if numeric else None
    return {"outcomes": [dict(value=shown, **_shown(p)) for _v, shown, p in entries],
            "mean": None if mean is None else float(mean)}


def add_exact(summary: dict, prepared, runs: int = O.RUNS, seconds: float = SECONDS) -> None:
    """Put the exact odds beside `summary`'s simulated shares (in place): each expectation's under its
    "exact" key, each tally's under summary["exact"]["tallies"]."""
    question = Joint(prepared)
    try:
        dist = O.exact(question, O.Budget(runs, seconds))
    except O.OverBudget as over:
        summary["exact"] = {"beyond": f"beyond the budget: {over.runs:,} runs of the rules in {over.seconds:.0f} s, "
                                      f"with {over.open:,} branches of the dice still open; grimorio odds "
                                      "with --max-runs or --max-seconds can go further"}
        return
    for x, p in zip(summary["expectations"], dist.expectations):
        x["exact"] = dict(_shown(p), inside=x["low"] <= float(p) <= x["high"])
    fmt = prepared.p.format
    summary["exact"] = {"runs": dist.runs,
                        "tallies": {label: _marginal(dist, j, fmt) for j, label in enumerate(question.labels)}}


def exact_text(summary: dict) -> str:
    """The exact odds as lines of the text summary, after the simulated ones."""
    exact = summary.get("exact")
    if exact is None:
        return ""
    lines = ["exact odds (grimorio odds, from the same rules):"]
    if "beyond" in exact:
        return "\n".join(lines + [f"  {exact['beyond']}"]) + "\n"
    for x in summary["expectations"]:
        e = x["exact"]
        where = "inside" if e["inside"] else "OUTSIDE"
        lines.append(f"  line {x['line']}: {e['fraction']} = {e['share']:.2%} "
                     f"({where} the simulated interval [{x['low']:.2%}, {x['high']:.2%}])")
    for label, t in exact["tallies"].items():
        mean = "" if t["mean"] is None else f"; mean {t['mean']:.4g}"
        shares = ", ".join(f"{o['value']}: {o['share']:.2%}" for o in t["outcomes"][:12])
        lines.append(f"  {label}: {shares}{' ...' if len(t['outcomes']) > 12 else ''}{mean}")
    return "\n".join(lines) + "\n"
