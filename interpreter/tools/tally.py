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
        mean = sum(Fraction(v) * c for v, c in values) / n if n else 0
        return {"kind": "number", "runs": n, "mean": float(mean), "min": number(values[0][0]),
                "max": number(values[-1][0]),
                **{f"p{q}": self.percentile(q / 100, values) for q in (5, 25, 50, 75, 95)},
                "histogram": [[number(v), c] for v, c in values]}


class Tally:
    """The counts of a set of runs: rounds, which sides still stood, each
    ruleset tally, conditions held at the end, expectations met."""

    def __init__(self):
        self.runs = 0
        self.rounds = Histogram()
        self.standing: Counter = Counter()     # tuple of the sides still standing -> runs
        self.measures: dict = {}               # (combatant name or None, tally name) -> Histogram
        self.held: Counter = Counter()         # (combatant, condition, grade or None) -> runs
        self.expected: Counter = Counter()     # expectation index -> runs where it held

    def histogram(self, who, name) -> Histogram:
        """The histogram of a measure: of a combatant (by name), or of the run (who is None)."""
        h = self.measures.get((who, name))
        if h is None:
            h = self.measures[(who, name)] = Histogram()
        return h

    def merge(self, other: "Tally") -> "Tally":
        self.runs += other.runs
        self.rounds.merge(other.rounds)
        self.standing.update(other.standing)
        for (who, name), h in other.measures.items():
            self.histogram(who, name).merge(h)
        self.held.update(other.held)
        self.expected.update(other.expected)
        return self
