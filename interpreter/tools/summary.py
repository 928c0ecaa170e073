"""A simulation's counts as a summary: a JSON-ready dict, and its text form.

Every measure comes from the rules or the encounter: the sides are the
combatants' `side`; each run's outcome is what run/outcome.py makes of the
ruleset's `stands` and `draw` declarations (the one notion the transcript's
`standing()` reads too); the measures are the ruleset's `tally`
declarations, the conditions are the cards held when the run ended, the
expectations are the encounter's. Each outcome names the runs to read: a
typical one (the median of its rounds) and its shortest and longest.
"""
from __future__ import annotations

from ..run.outcome import categories
from ..run.values import json_text
from .tally import Histogram, Tally, wilson

EXPLAINED = "a side alone standing wins; else the first draw the rules declare that holds; " \
            "else nobody, or several sides, still standing"


def share(k: int, n: int) -> dict:
    low, high = wilson(k, n)
    return {"runs": k, "rate": k / n if n else 0.0, "low": low, "high": high}


def outcome_rows(tally: Tally, runner) -> list[dict]:
    """Each outcome: the sides and the declared draws always, "nobody" and "several" when some run
    ended so; with its share and the runs to read."""
    n = tally.runs
    people = [(b[1], b[2]) for b in runner.prepared.blueprints]
    rows = []
    for name, kind in categories(runner.sides(), runner.draws()):
        k = tally.outcomes.get(name, 0)
        if kind in ("nobody", "several") and k == 0:
            continue
        row = {"outcome": name, "kind": kind, **share(k, n)}
        if kind == "side":
            row["combatants"] = [c for c, s in people if s == name]
        row["examples"] = examples(tally, name)
        rows.append(row)
    return rows


def examples(tally: Tally, outcome: str) -> dict:
    """The runs to read of an outcome: typical (its median rounds), shortest and longest."""
    ends = sorted((r, k) for (o, r), k in tally.ends.items() if o == outcome)
    if not ends:
        return {}
    total, seen, median = sum(k for _r, k in ends), 0, ends[-1][0]
    for r, k in ends:
        seen += k
        if 2 * seen >= total:
            median = r
            break

    def run(r):
        i, seed = tally.examples[(outcome, r)]
        return {"index": i, "seed": seed, "rounds": r}
    return {"typical": run(median), "shortest": run(ends[0][0]), "longest": run(ends[-1][0])}


def over_by_round(rounds: dict) -> list[list]:
    """[round N, share of the runs over by round N], for every round some run ended on."""
    n, seen, out = rounds.get("runs", 0), 0, []
    for r, k in rounds.get("histogram", []):
        seen += k
        out.append([r, seen / n if n else 0.0])
    return out


def summarize(tally: Tally, runner, seed: int, sources, replay: str = "") -> dict:
    prepared = runner.prepared
    enc, n = prepared.enc, tally.runs
    people = [(name, side) for _i, name, side, *_rest in prepared.blueprints]
    out = {"encounter": enc.title or "", "edition": prepared.p.ruleset.edition.name,
           "house": [layer.name for layer in prepared.p.ruleset.layers if layer.house],
           "runs": n, "seed": seed, "replay": replay, "outcome_rule": EXPLAINED,
           "outcomes": outcome_rows(tally, runner), "rounds": tally.rounds.describe()}
    out["over_by_round"] = over_by_round(out["rounds"])
    top = max(out["outcomes"], key=lambda r: r["runs"], default=None)
    out["typical"] = dict(outcome=top["outcome"], **top["examples"]["typical"]) if top and top["runs"] else None
    tallies = [d for d, _fn in runner.per_run + runner.per_combatant]
    out["combatants"] = [_combatant(tally, name, side, tallies, n) for name, side in people]
    out["tallies"] = {d.name: _described(tally, None, d.name) for d, _fn in runner.per_run}
    out["expectations"] = [dict(text=lead + _text(sources, span), line=span.line, **share(tally.expected.get(i, 0), n))
                           for i, (span, lead) in enumerate(prepared.expectation_spans)]
    out["warnings"] = []
    return out


def _described(tally, who, name):
    return tally.measures.get((who, name), Histogram()).describe()


def _combatant(tally, name, side, tallies, n):
    held = sorted(((cond, grade), k) for (who, cond, grade), k in tally.held.items() if who == name)
    return {"name": name, "side": side,
            "tallies": {"stands": _described(tally, name, "stands"),
                        **{d.name: _described(tally, name, d.name) for d in tallies if d.param is not None}},
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


def outcome_label(x: dict) -> str:
    """An outcome as the summary names it."""
    return {"side": f"side {x['outcome']}", "draw": f"draw {x['outcome']}"}.get(x["kind"], x["outcome"])


def _run(x: dict) -> str:
    return f"run {x['index']} (seed {x['seed']}, {x['rounds']} round{'s' if x['rounds'] != 1 else ''})"


def _examples(ex: dict) -> str:
    """An outcome's runs to read, each once: typical, shortest, longest."""
    seen, out = {}, []
    for k in ("typical", "shortest", "longest"):
        i = ex[k]["index"]
        if i in seen:
            out[seen[i]] = out[seen[i]].replace(" run ", f", {k} run ", 1)
            continue
        seen[i] = len(out)
        out.append(f"{k} {_run(ex[k])}")
    return "; ".join(out)


def render_text(s: dict) -> str:
    lines = [f"{s['encounter'] or 'encounter'} (edition {s['edition']}"
             f"{''.join(' + ' + h for h in s.get('house', []))}): {s['runs']} runs, seed {s['seed']}"]
    lines += [f"warning: {w}" for w in s.get("warnings", [])]
    lines.append(f"outcome of each run: runs, share, 95% interval ({s['outcome_rule']})")
    width = max([len(outcome_label(x)) for x in s["outcomes"]] + [14])
    lines += [f"  {outcome_label(x):<{width}} {_rate(x)}" for x in s["outcomes"]]
    seen = [x for x in s["outcomes"] if x["examples"]]
    if seen:
        lines.append(f"runs to read, each with: {s.get('replay') or 'grimorio run ENCOUNTER'} --seed SEED")
        lines += [f"  {outcome_label(x):<{width}} {_examples(x['examples'])}" for x in seen]
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
    return json_text(s, ensure_ascii=False, indent=2) + "\n"
