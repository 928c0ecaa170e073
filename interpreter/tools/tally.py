"""Counts over many runs of one encounter, kept as they come: a `Tally` holds
histograms (value -> how many runs), never one record per run, so its size
depends on how many different values appear, not on how many runs there were.
Two tallies of disjoint runs add up (`merge`), in any order, to the same
counts: the summary does not depend on how the runs were split among workers.
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

Z95 = 1.959963984540054        # the normal quantile of a two-sided 95% interval


def wilson(k: int, n: int) -> tuple[float, float]:
    """The Wilson score interval (95%) of a proportion k/n."""
    if n == 0:
        return 0.0, 1.0
    p, z2 = k / n, Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # At 0 and n the bounds are exactly 0 and 1; the arithmetic would leave them a rounding error away.
    return (0.0 if k == 0 else max(0.0, centre - half)), (1.0 if k == n else min(1.0, centre + half))


def number(v):
    """A value as JSON keeps it: ints stay ints, fractions become floats."""
    if isinstance(v, Fraction):
        return v.numerator if v.denominator == 1 else float(v)
    return v


def bucket(v) -> tuple:
    """The key a value is counted under: (value, whether it is true or false). True equals 1 in Python,
    and would share 1's bucket; in the language it equals no number (callers that count in a loop
    write the same key inline)."""
    return v, v.__class__ is bool


class Histogram:
    """How many runs gave each value; everything a summary says about a measure. Counted by
    `bucket`: true and 1 (false and 0) are counted apart."""

    __slots__ = ("counts",)

    def __init__(self):
        self.counts: Counter = Counter()

    def add(self, v, runs: int = 1) -> None:
        self.counts[bucket(v)] += runs

    def merge(self, other: "Histogram"):
        self.counts.update(other.counts)

    def values(self) -> list:
        """(value, runs) in order: numbers by value, a truth after the number it would equal."""
        return [(v, c) for (v, _truth), c in sorted(self.counts.items())]

    @property
    def truth(self) -> bool:
        """Whether this measures true or false (the runs gave nothing else)."""
        return bool(self.counts) and all(truth for _v, truth in self.counts)

    def total(self) -> int:
        return sum(self.counts.values())

    def percentile(self, q: float, values=None):
        """The nearest-rank percentile: the smallest value with at least q of the runs at or below it."""
        values = values or self.values()
        need, seen = max(1, math.ceil(q * sum(c for _, c in values))), 0
        for v, c in values:
            seen += c
            if seen >= need:
                return number(v)
        return None

    def describe(self) -> dict:
        n = self.total()
        if n == 0:
            return {"kind": "number", "runs": 0}
        if self.truth:
            k = self.counts.get(bucket(True), 0)
            low, high = wilson(k, n)
            return {"kind": "truth", "runs": n, "true": k, "rate": k / n if n else 0.0, "low": low, "high": high}
        values = self.values()
        total = sum(Fraction(v) * c for v, c in values)
        around = mean_interval(n, total, sum(Fraction(v) ** 2 * c for v, c in values))
        return {"kind": "number", "runs": n, "mean": around["mean"], "mean_low": around["low"],
                "mean_high": around["high"], "min": number(values[0][0]),
                "max": number(values[-1][0]),
                **{f"p{q}": self.percentile(q / 100, values) for q in (5, 25, 50, 75, 95)},
                "histogram": [[number(v), c] for v, c in values]}


class Tally:
    """The counts of a set of runs: rounds, outcomes, each ruleset tally,
    conditions held at the end, expectations met, and which run to read for
    each (outcome, rounds): the first by index, with its seed."""

    def __init__(self):
        self.runs = 0
        self.rounds = Histogram()
        self.outcomes: Counter = Counter()     # outcome name (run/outcome.py) -> runs
        self.ends: Counter = Counter()         # (outcome, rounds) -> runs
        self.examples: dict = {}               # (outcome, rounds) -> (index, seed) of its first run
        self.measures: dict = {}               # (combatant name or None, tally name) -> Histogram
        self.held: Counter = Counter()         # (combatant, condition, grade or None) -> runs
        self.expected: Counter = Counter()     # expectation index -> runs where it held

    def count(self, ended) -> None:
        """One run's end (simulate.Ended), counted."""
        self.runs += 1
        self.rounds.add(ended.rounds)
        r = ended.runner
        name = ended.outcome.name
        self.outcomes[name] += 1
        key = (name, ended.rounds)
        self.ends[key] += 1
        if key not in self.examples or self.examples[key][0] > ended.index:
            self.examples[key] = (ended.index, ended.seed)
        for who, up in zip(r.names, ended.up):
            self.histogram(who, "stands").add(up)
        for (d, _fn), v in zip(r.per_run, ended.per_run):
            self.histogram(None, d.name).add(v)
        for (d, _fn), values in zip(r.per_combatant, ended.per_combatant):
            for who, v in zip(r.names, values):
                self.histogram(who, d.name).add(v)
        self.held.update(ended.held)
        self.expected.update(ended.met)

    def histogram(self, who, name) -> Histogram:
        """The histogram of a measure: of a combatant (by name), or of the run (who is None)."""
        h = self.measures.get((who, name))
        if h is None:
            h = self.measures[(who, name)] = Histogram()
        return h

    def merge(self, other: "Tally") -> "Tally":
        self.runs += other.runs
        self.rounds.merge(other.rounds)
        self.outcomes.update(other.outcomes)
        self.ends.update(other.ends)
        for key, (i, seed) in other.examples.items():
            if key not in self.examples or self.examples[key][0] > i:
                self.examples[key] = (i, seed)
        for (who, name), h in other.measures.items():
            self.histogram(who, name).merge(h)
        self.held.update(other.held)
        self.expected.update(other.expected)
        return self


class Paired:
    """Two rule sets' runs of the same indices, side by side: (outcome under the first, outcome
    under the second) -> runs, and for the rounds and each number a tally gives, the count, sum
    and sum of squares of the per-run differences (second - first): a paired estimate."""

    def __init__(self):
        self.runs = 0
        self.joint: Counter = Counter()
        self.diffs: dict = {}                  # (combatant name or None, measure) -> [n, sum, sum of squares]

    def count(self, a, b) -> None:
        """Run i's end under both rule sets (simulate.Ended)."""
        self.runs += 1
        self.joint[(a.outcome.name, b.outcome.name)] += 1
        self._add((None, "rounds"), b.rounds - a.rounds)
        ra = a.runner
        for (d, _fn), va, vb in zip(ra.per_run, a.per_run, b.per_run):
            self._add((None, d.name), vb - va)
        for (d, _fn), xs, ys in zip(ra.per_combatant, a.per_combatant, b.per_combatant):
            for who, va, vb in zip(ra.names, xs, ys):
                self._add((who, d.name), vb - va)

    def _add(self, key, d) -> None:
        acc = self.diffs.get(key)
        if acc is None:
            acc = self.diffs[key] = [0, 0, 0]
        acc[0] += 1
        acc[1] += d
        acc[2] += d * d

    def merge(self, other: "Paired") -> "Paired":
        self.runs += other.runs
        self.joint.update(other.joint)
        for key, (k, s, ss) in other.diffs.items():
            acc = self.diffs.setdefault(key, [0, 0, 0])
            acc[0] += k
            acc[1] += s
            acc[2] += ss
        return self


def mean_interval(k: int, s, ss) -> dict:
    """The mean of k values from their sum and sum of squares, with its 95% interval (normal)."""
    if k == 0:
        return {"mean": 0.0, "low": None, "high": None, "half_width": None}
    mean = Fraction(s) / k
    m = float(mean)
    if k == 1:                                  # one run tells nothing of the spread (JSON has no infinity)
        return {"mean": m, "low": None, "high": None, "half_width": None}
    var = (Fraction(ss) - k * mean * mean) / (k - 1)
    half = Z95 * math.sqrt(max(0.0, float(var)) / k)
    return {"mean": m, "low": m - half, "high": m + half, "half_width": half}
