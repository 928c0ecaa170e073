"""`simulate --sweep OPTION=A..B:STEP`: every value of an option (several
sweeps: every combination, a grid) run on the same dice, and the outcomes and
tallies by value, each point's difference from the first with its paired
interval."""
from __future__ import annotations

import itertools
import re
from fractions import Fraction

from ...dsl.diagnostics import Diagnostic, GrimorioError

MOST = 200           # points of a grid at most

_RANGE = re.compile(r"\s*([^=\s]+)\s*=\s*([+-]?\d+(?:\.\d+)?)\s*\.\.\s*([+-]?\d+(?:\.\d+)?)\s*(?::\s*(\d+(?:\.\d+)?))?\s*")
_LIST = re.compile(r"\s*([^=\s]+)\s*=\s*(.+)")


def parse(text: str, span) -> tuple[str, list]:
    """OPTION=A..B:STEP (STEP 1 by default) or OPTION=X,Y,Z: the option and its values."""
    m = _RANGE.fullmatch(text)
    if m:
        name, a, b, step = m.group(1), _num(m.group(2)), _num(m.group(3)), _num(m.group(4) or "1")
        if step <= 0 or b < a:
            raise _bad(text, span, "the range runs up from A to B by a STEP above 0")
        values, v = [], a
        while v <= b and len(values) <= MOST:
            values.append(int(v) if v.denominator == 1 else float(v))
            v += step
        return name, values
    m = _LIST.fullmatch(text)
    if m and "," in m.group(2):
        return m.group(1), [v.strip() for v in m.group(2).split(",") if v.strip()]
    name = text.split("=", 1)[0].strip() or "OPTION"
    raise _bad(text, span, f"write OPTION=A..B:STEP (such as {name}=0..20:5), or OPTION=X,Y,Z")


def _num(text: str) -> Fraction:
    return Fraction(text)


def _bad(text, span, why):
    return GrimorioError(Diagnostic("E0041", f'"--sweep {text}" is not a sweep', span, why))


def grid(sweeps: list[tuple[str, list]], span) -> list[dict]:
    """Every combination of the sweeps' values, the first sweep's varying slowest."""
    names = [name for name, _values in sweeps]
    if len(set(names)) < len(names):
        raise GrimorioError(Diagnostic("E0041", "an option is swept twice", span, "sweep each option once"))
    points = [dict(zip(names, combo)) for combo in itertools.product(*(values for _n, values in sweeps))]
    if len(points) > MOST:
        raise GrimorioError(Diagnostic("E0041", f"the sweep has {len(points)} points, more than {MOST}", span,
                                       "sweep fewer values (a larger STEP) or fewer options"))
    return points


def set_args(point: dict) -> list[str]:
    """The --set arguments of a point of the sweep."""
    out = []
    for name, v in point.items():
        out += ["--set", f"{name}={str(v).lower() if type(v) is bool else v}"]
    return out


# ---------------------------------------------------------------- the table
def summarize_sweep(points: list[dict], summaries: list[dict], counts) -> dict:
    """Each point's values and summary, and its outcomes' and measures' differences from the first."""
    from .paired import measure_differences, outcome_differences
    first = summaries[0]
    rows = []
    for k, (point, s) in enumerate(zip(points, summaries)):
        row = {"values": point, "summary": s}
        if k:
            paired = counts.paired[k - 1]
            row["outcomes_from_first"] = outcome_differences(paired.joint, paired.runs, first["outcomes"],
                                                             s["outcomes"])
            row["measures_from_first"] = measure_differences(paired)
        rows.append(row)
    return {"sweep": list(points[0]), "encounter": first["encounter"], "edition": first["edition"],
            "house": first["house"], "runs": first["runs"], "seed": first["seed"],
            "outcome_rule": first["outcome_rule"], "points": rows, "warnings": first["warnings"]}


def _pct(x) -> str:
    return f"{100 * x:.1f}"


def render_text(s: dict) -> str:
    from .summary import outcome_label
    names = s["sweep"]
    lines = [f"{s['encounter'] or 'encounter'} (edition {s['edition']}): sweep of {', '.join(names)} on common "
             f"dice, {s['runs']} runs per value, seed {s['seed']}"]
    lines += [f"warning: {w}" for w in s.get("warnings", [])]
    heads = [outcome_label(x) for x in s["points"][0]["summary"]["outcomes"]]
    for row in s["points"][1:]:
        heads += [h for h in (outcome_label(x) for x in row["summary"]["outcomes"]) if h not in heads]
    lines.append(f"outcome share by value, % [95% interval] ({s['outcome_rule']})")
    key = "  ".join(f"{name:>12}" for name in names)
    cells = [[_cell(row["summary"]["outcomes"], h) for h in heads] for row in s["points"]]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(heads)]
    lines.append(f"  {key}  " + "  ".join(f"{h:>{w}}" for h, w in zip(heads, widths)))
    for row, cs in zip(s["points"], cells):
        values = "  ".join(f"{str(row['values'][name]):>12}" for name in names)
        lines.append(f"  {values}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cs, widths)))
    measures = ["rounds"] + list(s["points"][0]["summary"]["tallies"])
    lines.append("rounds and tallies of each run by value, mean [95% interval]:")
    mcells = [[_mean(row["summary"]["rounds"] if m == "rounds" else row["summary"]["tallies"].get(m, {}))
               for m in measures] for row in s["points"]]
    mw = [max(len(m), *(len(c[i]) for c in mcells)) for i, m in enumerate(measures)]
    lines.append(f"  {key}  " + "  ".join(f"{m:>{w}}" for m, w in zip(measures, mw)))
    for row, cs in zip(s["points"], mcells):
        values = "  ".join(f"{str(row['values'][name]):>12}" for name in names)
        lines.append(f"  {values}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cs, mw)))
    return "\n".join(lines) + "\n"


def _cell(outcomes: list, head: str) -> str:
    from .summary import outcome_label
    x = next((x for x in outcomes if outcome_label(x) == head), None)
    if x is None:
        return "-"
    return f"{_pct(x['rate'])} [{_pct(x['low'])}, {_pct(x['high'])}]"


def _mean(d: dict) -> str:
    if not d or d.get("runs", 0) == 0:
        return "-"
    if d["kind"] == "truth":
        return f"{_pct(d['rate'])}% [{_pct(d['low'])}, {_pct(d['high'])}]"
    if d.get("mean_low") is None:
        return f"{d['mean']:.3g}"
    return f"{d['mean']:.3g} [{d['mean_low']:.3g}, {d['mean_high']:.3g}]"
