"""A simulation's counts as a summary: a JSON-ready dict, and its text form.

Every measure comes from the rules or the encounter: the sides are the
combatants' `side`, a side wins a run when it is the only one with a
combatant the ruleset's `stands` declaration says still stands, the
measures are the ruleset's `tally` declarations, the conditions are the
cards held when the run ended, the expectations are the encounter's.
"""
from __future__ import annotations

import json

from .tally import Histogram, Tally, wilson


def share(k: int, n: int) -> dict:
    low, high = wilson(k, n)
    return {"runs": k, "rate": k / n if n else 0.0, "low": low, "high": high}


def summarize(tally: Tally, runner, seed: int, sources) -> dict:
    prepared = runner.prepared
    enc, n = prepared.enc, tally.runs
    people = [(name, side) for _i, name, side, *_rest in prepared.blueprints]
    sides = list(dict.fromkeys(side for _name, side in people))
    out = {"encounter": enc.title or "", "edition": prepared.p.ruleset.edition.name, "runs": n, "seed": seed,
           "rounds": tally.rounds.describe()}
    if runner.stands is not None:
        out["sides"] = [dict(side=s, combatants=[c for c, cs in people if cs == s],
                             **share(tally.standing.get((s,), 0), n)) for s in sides]
        alone = sum(tally.standing.get((s,), 0) for s in sides)
        out["undecided"] = share(n - alone, n)
    tallies = [d for d, _fn in prepared.p.tallies]
    out["combatants"] = [_combatant(tally, name, side, tallies, n) for name, side in people]
    out["tallies"] = {d.name: _described(tally, None, d.name) for d in tallies if d.param is None}
    out["expectations"] = [dict(text=lead + _text(sources, span), line=span.line, **share(tally.expected.get(i, 0), n))
                           for i, (span, lead) in enumerate(prepared.expectation_spans)]
    return out


def _described(tally, who, name):
    return tally.measures.get((who, name), Histogram()).describe()


def _combatant(tally, name, side, tallies, n):
    held = sorted(((cond, grade), k) for (who, cond, grade), k in tally.held.items() if who == name)
    return {"name": name, "side": side,
            "tallies": {d.name: _described(tally, name, d.name) for d in tallies if d.param is not None},
            "conditions": [dict(condition=cond, grade=grade, **share(k, n)) for (cond, grade), k in held]}


def expectation_label(x: dict) -> str:
    """An expectation of the summary as its text and line: two may read the same."""
    return f"{x['text']} (line {x['line']})"


def _text(sources, span) -> str:
    """What is written at a span (of one line), else its whole first line."""
    line = sources.line(span.file, span.line) if span is not None else None
    if not line:
        return f"{span}"
    if span.end_line == span.line and span.end_col > span.col:
        return line[span.col - 1:span.end_col - 1].strip()
    return line.strip()


# ---------------------------------------------------------------- text
def bins(histogram: list, most: int = 20) -> list[tuple[str, int]]:
    """A histogram's [value, runs] pairs as at most `most` labelled bars of equal width."""
    if len(histogram) <= most:
        return [(_num(v), c) for v, c in histogram]
    lo, hi = histogram[0][0], histogram[-1][0]
    width = (hi - lo) / most
    whole = all(isinstance(v, int) for v, _ in histogram)
    if whole:
        width = max(1, -(-(hi - lo + 1) // most))
    counts = [0] * most
    for v, c in histogram:
        counts[min(most - 1, int((v - lo) // width))] += c
    out = []
    for i, c in enumerate(counts):
        a = lo + i * width
        label = f"{a}-{a + width - 1}" if whole and width > 1 else _num(a)
        if whole and a > hi:
            break
        out.append((label, c))
    return out


def _num(v) -> str:
    return f"{v:.3g}" if isinstance(v, float) else str(v)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rate(d: dict) -> str:
    return f"{d['runs']:>7}  {_pct(d['rate']):>6}  [{_pct(d['low'])}, {_pct(d['high'])}]"


def _measure(d: dict) -> str:
    if d["runs"] == 0:
        return "no runs"
    if d["kind"] == "truth":
        return f"true in {d['true']} runs, {_pct(d['rate'])} [{_pct(d['low'])}, {_pct(d['high'])}]"
    return (f"mean {d['mean']:.3g}; p5 {_num(d['p5'])}, p25 {_num(d['p25'])}, median {_num(d['p50'])}, "
            f"p75 {_num(d['p75'])}, p95 {_num(d['p95'])}; min {_num(d['min'])}, max {_num(d['max'])}")


def render_text(s: dict) -> str:
    lines = [f"{s['encounter'] or 'encounter'} (edition {s['edition']}): {s['runs']} runs, seed {s['seed']}"]
    if "sides" in s:
        lines.append("side alone standing at the end (runs, share, 95% interval):")
        width = max([len(x["side"]) for x in s["sides"]] + [14])
        lines += [f"  {x['side']:<{width}} {_rate(x)}" for x in s["sides"]]
        lines.append(f"  {'none or several':<{width}} {_rate(s['undecided'])}")
    else:
        lines.append("the rules declare no \"stands\": no side is counted as standing")
    lines.append(f"rounds: {_measure(s['rounds'])}")
    bars = bins(s["rounds"].get("histogram", []))
    top = max([c for _, c in bars] + [1])
    width = max([len(label) for label, _ in bars] + [1])
    lines += [f"  {label:>{width}} {'#' * max(1 if c else 0, round(40 * c / top)):<40} {c}" for label, c in bars]
    for c in s["combatants"]:
        lines.append(f"{c['name']} (side {c['side']}):")
        width = max([len(k) for k in c["tallies"]] + [len(f"holds {x['condition']} {x['grade'] or ''}")
                                                        for x in c["conditions"]] + [1])
        lines += [f"  {k:<{width}}  {_measure(d)}" for k, d in c["tallies"].items()]
        for x in c["conditions"]:
            lines.append(f"  {('holds ' + x['condition'] + ' ' + (x['grade'] or '')).strip():<{width}}  "
                         f"at the end of {x['runs']} runs, {_pct(x['rate'])} [{_pct(x['low'])}, {_pct(x['high'])}]")
    if s["tallies"]:
        lines.append("each run:")
        width = max(len(k) for k in s["tallies"])
        lines += [f"  {k:<{width}}  {_measure(d)}" for k, d in s["tallies"].items()]
    if s["expectations"]:
        lines.append("expectations met:")
        lines += [f"  {expectation_label(x)}: {_rate(x).strip()}" for x in s["expectations"]]
    return "\n".join(lines) + "\n"


def render_json(s: dict) -> str:
    return json.dumps(s, ensure_ascii=False, indent=2) + "\n"
