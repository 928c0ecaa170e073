"""A simulation summary as one self-contained HTML page: tables and inline SVG
plots drawn here, nothing loaded from anywhere, no script.

Every plot has titled axes with ticks; histograms use the text summary's bins
(summary.bins, at most 20 bars); a measure whose histogram is the same as one
already drawn (in a duel, what one side lost is what the other caused) is
named, not drawn again. The page says what made it (the command, edition,
house layers, seed, grimorio's version, the date), and every number shown
carries `data-key`, its path in the JSON summary, so a test can compare.
Hand-made SVG rather than a plotting library: the page needs no runtime
dependency and no script, and its bars are exactly the text's.
"""
from __future__ import annotations

import math
from html import escape

from ...dsl.diagnostics import Diagnostic, GrimorioError
from .summary import bins, expectation_label, outcome_label

W, H = 560, 220                  # a plot's drawing area
LEFT, BOTTOM, TOP, RIGHT = 64, 46, 12, 20
COLOURS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#9d755d", "#bab0ac")
STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 62em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; } td, th { padding: .2em .8em; text-align: right; }
td:first-child, th:first-child { text-align: left; }
dl.provenance { display: grid; grid-template-columns: max-content auto; gap: .1em 1em; font-size: .9em; }
dl.provenance dt { color: #555; } dl.provenance dd { margin: 0; font-family: monospace; }
svg { display: block; margin: .5em 0 1em; } svg text { font: 12px system-ui, sans-serif; fill: #222; }
svg text.axis-title { font-weight: 600; } .bar { fill: #4c78a8; } .whisker { stroke: #222; stroke-width: 1.5; }
.axis { stroke: #888; } .grid { stroke: #eee; } .curve { fill: none; stroke-width: 2; } .band { opacity: .18; }
.note { color: #555; font-size: .9em; }
"""


def write_report(path: str, summary: dict, span, provenance: dict | None = None) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(render_report(summary, provenance or {}))
    except OSError as exc:
        raise GrimorioError(Diagnostic("E0033", f'the report cannot be written to "{path}" ({exc.strerror})', span,
                                       "name a file in a folder that exists and that you may write to")) from None


def render_report(s: dict, provenance: dict | None = None) -> str:
    provenance = provenance or {}
    kind = "comparison" if s.get("comparison") else "sweep" if "sweep" in s else "simulation"
    title = escape(s.get("encounter") or "encounter")
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title}: {kind}</title>",
             f"<style>{STYLE}</style></head><body>", f"<h1>{title} <small>({kind})</small></h1>",
             _provenance(provenance)]
    parts += [f"<p class='warning'><strong>Warning:</strong> {escape(w)}</p>" for w in s.get("warnings", [])]
    if "precision" in s:
        p = s["precision"]
        parts.append(f"<p>Precision: ±{100 * p['target']:g}% asked; the widest interval is "
                     f"±{100 * p['widest']:.2f}% after {p['runs']} runs ({'met' if p['met'] else 'NOT met: the cap'}"
                     f"; {escape(p['method'])}).</p>")
    body = {"comparison": _comparison, "sweep": _sweep, "simulation": _simulation}[kind](s)
    return "\n".join(parts + body + ["</body></html>\n"])


def _provenance(p: dict) -> str:
    rows = [("command", p.get("command")), ("edition", p.get("edition")),
            ("house layers", ", ".join(p.get("house", [])) or "none"), ("seed", p.get("seed")),
            ("grimorio", p.get("version")), ("date", p.get("date"))]
    return "<dl class='provenance'>" + "".join(
        f"<dt>{k}</dt><dd data-prov='{k}'>{escape(str(v if v is not None else '-'))}</dd>" for k, v in rows) + "</dl>"


# ---------------------------------------------------------------- one rule set
def _simulation(s: dict, key: str = "", name: str = "") -> list[str]:
    parts = [f"<p>Edition {escape(s['edition'])}: {_val(key + 'runs', s['runs'])} runs, "
             f"seed {_val(key + 'seed', s['seed'])}. Outcome of a run: {escape(s['outcome_rule'])}.</p>",
             "<h2>Outcome of each run</h2>"]
    rows = [(outcome_label(x), f"{key}outcomes.{i}", x) for i, x in enumerate(s["outcomes"])]
    parts += [_rate_chart(name + "outcomes", rows), _rate_table(rows), _runs_to_read(s, key)]
    parts.append("<h2>Rounds</h2>")
    parts.append(_measure(name + "rounds", key + "rounds", s["rounds"], "rounds", "rounds"))
    parts.append("<h2>Runs over by round N</h2>")
    parts.append(_over_by_round(name + "over-by-round", [("", s["over_by_round"])]))
    drawn: dict = {}
    for i, c in enumerate(s["combatants"]):
        parts.append(f"<h2>{escape(c['name'])} <small>(side {escape(c['side'])})</small></h2>")
        for tally, d in c["tallies"].items():
            parts.append(_once(drawn, f"{c['name']}'s {tally}", d, lambda d=d, tally=tally, c=c, i=i: _measure(
                f"{name}{c['name']}-{tally}", f"{key}combatants.{i}.tallies.{tally}", d, tally, tally)))
        if c["conditions"]:
            rows = [(f"holds {x['condition']} {x['grade'] or ''}".strip(), f"{key}combatants.{i}.conditions.{j}", x)
                    for j, x in enumerate(c["conditions"])]
            parts += ["<h3>Conditions held at the end</h3>", _rate_chart(f"{name}{c['name']}-conditions", rows, "condition"),
                      _rate_table(rows)]
    if s["tallies"]:
        parts.append("<h2>Each run</h2>")
        parts += [_measure(f"{name}run-{t}", f"{key}tallies.{t}", d, t, t) for t, d in s["tallies"].items()]
    if s["expectations"]:
        rows = [(expectation_label(x), f"{key}expectations.{i}", x) for i, x in enumerate(s["expectations"])]
        parts += ["<h2>Expectations met</h2>", _rate_chart(name + "expectations", rows, "expectation"),
                  _rate_table(rows)]
    if s.get("exact"):
        parts.append(_exact(s, key))
    return parts


def _exact(s: dict, key: str) -> str:
    """The exact odds (simulate --exact) beside the shares the runs gave."""
    out = ["<h2>Exact odds</h2><p class='note'>Reckoned by <code>grimorio odds</code> from the same rules, "
           "every roll enumerated.</p>"]
    exact = s["exact"]
    if "beyond" in exact:
        return out[0] + f"<p data-key='{escape(key)}exact.beyond'>{escape(exact['beyond'])}</p>"
    rows = [x for x in s["expectations"] if "exact" in x]
    if rows:
        out.append("<table><tr><th>expectation</th><th>exact</th><th>simulated</th><th>inside its interval</th></tr>")
        for i, x in enumerate(rows):
            e = x["exact"]
            out.append(f"<tr><td>{escape(expectation_label(x))}</td>"
                       f"<td>{_val(f'{key}expectations.{i}.exact.fraction', e['fraction'])} "
                       f"({_pct(f'{key}expectations.{i}.exact.share', e['share'])})</td>"
                       f"<td>{_pct(f'{key}expectations.{i}.rate', x['rate'])}</td>"
                       f"<td>{'yes' if e['inside'] else 'NO'}</td></tr>")
        out.append("</table>")
    out.append("<table><tr><th>tally</th><th>exact mean</th><th>exact distribution</th></tr>")
    for label, t in exact["tallies"].items():
        mean = "-" if t["mean"] is None else _val(f"{key}exact.tallies.{label}.mean", t["mean"])
        shares = ", ".join(f"{o['value']}: {100 * o['share']:.2f}%" for o in t["outcomes"])
        out.append(f"<tr><td>{escape(label)}</td><td>{mean}</td><td>{escape(shares)}</td></tr>")
    return "".join(out) + "</table>"


def _once(drawn: dict, label: str, d: dict, draw) -> str:
    """A measure's plot, or, when an earlier one has the same histogram, a line that says so."""
    same = drawn.get(repr(d.get("histogram"))) if d.get("kind") == "number" and d.get("runs") else None
    if same is not None:
        return f"<p class='note' data-same='{escape(same)}'>{escape(label)}: the same as {escape(same)}, above.</p>"
    if d.get("kind") == "number" and d.get("runs"):
        drawn[repr(d.get("histogram"))] = label
    return draw()


def _runs_to_read(s: dict, key: str) -> str:
    rows = [x for x in s["outcomes"] if x.get("examples")]
    if not rows:
        return ""
    out = [f"<p>Runs to read, each with <code>{escape(s.get('replay') or 'grimorio run ENCOUNTER')} "
           "--seed SEED</code>:</p><table><tr><th>outcome</th><th>typical</th><th>shortest</th><th>longest</th></tr>"]
    for i, x in enumerate(s["outcomes"]):
        if not x.get("examples"):
            continue
        cells = "".join(f"<td>run {x['examples'][k]['index']}, {x['examples'][k]['rounds']} rounds, seed "
                        f"{_val(f'{key}outcomes.{i}.examples.{k}.seed', x['examples'][k]['seed'])}</td>"
                        for k in ("typical", "shortest", "longest"))
        out.append(f"<tr><td>{escape(outcome_label(x))}</td>{cells}</tr>")
    return "".join(out) + "</table>"


# ---------------------------------------------------------------- comparisons and sweeps
def _comparison(s: dict) -> list[str]:
    parts = [f"<p>A: {escape(s['a'])}<br>B: {escape(s['b'])}<br>{_val('runs', s['runs'])} runs of each, "
             f"{'on common dice' if s['common_dice'] else 'on independent dice'}, seed {_val('seed', s['seed'])}. "
             f"Runs whose outcome differs: {_val('parted', s['parted'])}.</p>", "<h2>Outcome of each run, A and B</h2>"]
    rows = []
    for i, x in enumerate(s["outcomes"]):
        rows += [(f"A: {outcome_label(x)}", f"outcomes.{i}.a", x["a"]), (f"B: {outcome_label(x)}", f"outcomes.{i}.b",
                                                                        x["b"])]
    parts += [_rate_chart("outcomes", rows), "<h2>B − A, paired run by run</h2>",
              _difference_chart("differences", [(outcome_label(x), f"outcomes.{i}", x)
                                                for i, x in enumerate(s["outcomes"])])]
    parts.append("<table><tr><th></th><th>B − A</th><th>95% interval</th><th>independent runs</th></tr>" + "".join(
        f"<tr><td>{escape(outcome_label(x))}</td><td>{_pct(f'outcomes.{i}.difference', x['difference'])}</td>"
        f"<td>{_pct(f'outcomes.{i}.low', x['low'])} – {_pct(f'outcomes.{i}.high', x['high'])}</td>"
        f"<td>±{100 * x['independent_half_width']:.1f}%</td></tr>" for i, x in enumerate(s["outcomes"])) + "</table>")
    parts.append("<h2>Rounds and tallies, B − A</h2><table><tr><th></th><th>mean difference</th>"
                 "<th>95% interval</th></tr>" + "".join(
                     f"<tr><td>{escape((x['combatant'] + ': ' if x['combatant'] else '') + x['measure'])}</td>"
                     f"<td>{_val(f'measures.{i}.mean', x['mean'])}</td><td>{_interval(f'measures.{i}', x)}</td></tr>"
                     for i, x in enumerate(s["measures"])) + "</table>")
    parts.append("<h2>Runs over by round N</h2>")
    parts.append(_over_by_round("over-by-round", [("A", s["summaries"][0]["over_by_round"]),
                                                  ("B", s["summaries"][1]["over_by_round"])]))
    for side, sub in zip("AB", s["summaries"]):
        parts.append(f"<h2>Rounds under {side}</h2>")
        parts.append(_measure(f"rounds-{side}", f"summaries.{'AB'.index(side)}.rounds", sub["rounds"], "rounds",
                              "rounds"))
    return parts


def _sweep(s: dict) -> list[str]:
    names = s["sweep"]
    labels = [", ".join(f"{k}={v}" for k, v in p["values"].items()) for p in s["points"]]
    numeric = len(names) == 1 and all(isinstance(p["values"][names[0]], (int, float)) and
                                      not isinstance(p["values"][names[0]], bool) for p in s["points"])
    xs = [p["values"][names[0]] for p in s["points"]] if numeric else list(range(len(labels)))
    parts = [f"<p>Sweep of {escape(', '.join(names))} on common dice: {_val('runs', s['runs'])} runs per value, "
             f"seed {_val('seed', s['seed'])}. Outcome of a run: {escape(s['outcome_rule'])}.</p>",
             "<h2>Outcome share by value</h2>"]
    outcomes = list(dict.fromkeys(outcome_label(x) for p in s["points"] for x in p["summary"]["outcomes"]))
    curves = []
    for label in outcomes:
        pts = []
        for x, p in zip(xs, s["points"]):
            row = next((o for o in p["summary"]["outcomes"] if outcome_label(o) == label), None)
            if row is not None:
                pts.append((x, row["rate"], row["low"], row["high"]))
        curves.append((label, pts))
    ticks = None if numeric else list(zip(xs, labels))
    parts.append(_curves("sweep-outcomes", curves, names[0] if numeric else "value", "share of runs (%)",
                         (0.0, 1.0), ticks, percent=True))
    means = [(x, p["summary"]["rounds"]["mean"], p["summary"]["rounds"].get("mean_low"),
              p["summary"]["rounds"].get("mean_high")) for x, p in zip(xs, s["points"])]
    top = max([m[3] or m[1] for m in means] + [1])
    parts += ["<h2>Rounds by value</h2>", _curves("sweep-rounds", [("mean rounds", means)],
                                                  names[0] if numeric else "value", "rounds (mean)", (0, top), ticks)]
    parts.append("<table><tr><th>" + "</th><th>".join(escape(n) for n in names) + "</th>" +
                 "".join(f"<th>{escape(o)}</th>" for o in outcomes) + "<th>rounds</th></tr>")
    for i, p in enumerate(s["points"]):
        cells = "".join(f"<td>{escape(str(p['values'][n]))}</td>" for n in names)
        for label in outcomes:
            j = next((j for j, o in enumerate(p["summary"]["outcomes"]) if outcome_label(o) == label), None)
            cells += ("<td>-</td>" if j is None else
                      f"<td>{_pct(f'points.{i}.summary.outcomes.{j}.rate', p['summary']['outcomes'][j]['rate'])}</td>")
        cells += f"<td>{_val(f'points.{i}.summary.rounds.mean', p['summary']['rounds']['mean'])}</td>"
        parts.append(f"<tr>{cells}</tr>")
    parts.append("</table>")
    return parts


# ---------------------------------------------------------------- pieces
def _val(key: str, v, shown: str | None = None) -> str:
    text = shown if shown is not None else (f"{v:.4g}" if isinstance(v, float) else str(v))
    return f"<span data-key='{escape(key)}'>{escape(text)}</span>"


def _pct(key: str, v: float) -> str:
    return _val(key, v, f"{100 * v:.1f}%")


def _interval(key: str, x: dict) -> str:
    if x.get("low") is None:
        return "-"
    return f"{_val(key + '.low', x['low'])} – {_val(key + '.high', x['high'])}"


def _rate_table(rows) -> str:
    out = ["<table><tr><th></th><th>runs</th><th>share</th><th>95% interval</th></tr>"]
    for label, key, x in rows:
        out.append(f"<tr><td>{escape(label)}</td><td>{_val(key + '.runs', x['runs'])}</td>"
                   f"<td>{_pct(key + '.rate', x['rate'])}</td>"
                   f"<td>{_pct(key + '.low', x['low'])} – {_pct(key + '.high', x['high'])}</td></tr>")
    return "".join(out) + "</table>"


def nice_ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Round values at an even step, about `most` of them, from at or below `low` to at or above
    `high`: the marks of an axis that holds both."""
    if high <= low:
        high = low + 1
    raw = (high - low) / max(1, most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.floor(low / step + 1e-9) * step
    out, v = [], first
    while True:
        out.append(round(v, 10))
        if v >= high - step * 1e-9:
            return out
        v += step


def _tick_label(v: float, percent: bool = False) -> str:
    if percent:
        return f"{100 * v:g}%"
    return f"{int(v)}" if float(v).is_integer() else f"{v:g}"


def _svg(name: str, width: int, height: int, body: list[str], xtitle: str, ytitle: str,
         xmid: float | None = None) -> str:
    """A plot: its body, and its axes' titles."""
    xmid = LEFT + (width - LEFT - RIGHT) / 2 if xmid is None else xmid
    return (f"<svg class='plot' data-plot='{escape(name)}' width='{width}' height='{height}' role='img' "
            f"aria-label='{escape(ytitle)} by {escape(xtitle)}' xmlns='http://www.w3.org/2000/svg'>"
            + "".join(body) +
            f"<text class='axis-title' data-axis='x' x='{xmid}' y='{height - 6}' "
            f"text-anchor='middle'>{escape(xtitle)}</text>"
            f"<text class='axis-title' data-axis='y' transform='translate(14 {TOP + (height - TOP - BOTTOM) / 2}) "
            f"rotate(-90)' text-anchor='middle'>{escape(ytitle)}</text></svg>")


def _y_axis(top_value: float, height: int, width: int, percent: bool = False, low: float = 0.0) -> list[str]:
    out = [f"<line class='axis' x1='{LEFT}' x2='{LEFT}' y1='{TOP}' y2='{TOP + height}'/>"]
    for v in nice_ticks(low, top_value):
        y = TOP + height - (v - low) / (top_value - low or 1) * height
        out.append(f"<line class='grid' x1='{LEFT}' x2='{LEFT + width}' y1='{y:.1f}' y2='{y:.1f}'/>"
                   f"<text class='tick' data-axis='y' x='{LEFT - 6}' y='{y + 4:.1f}' text-anchor='end'>"
                   f"{_tick_label(v, percent)}</text>")
    return out


def _histogram(name: str, histogram: list, xtitle: str) -> str:
    """Vertical bars: how many runs gave each value (or each range of values), binned as the text is."""
    bars = bins(histogram)
    top = max([c for _, c in bars] + [1])
    ticks = nice_ticks(0, top)
    top = max(top, ticks[-1])
    step = W / max(1, len(bars))
    body = _y_axis(top, H, W)
    for i, (label, c) in enumerate(bars):
        h = max(1.0, H * c / top) if c else 0.0
        x = LEFT + i * step
        body.append(f"<rect class='bar' x='{x + 1:.1f}' y='{TOP + H - h:.1f}' width='{max(1.0, step - 2):.1f}' "
                    f"height='{h:.1f}'><title>{escape(label)}: {c} runs</title></rect>")
        if len(bars) <= 12 or i % max(1, len(bars) // 8) == 0:
            body.append(f"<text class='tick' data-axis='x' x='{x + step / 2:.1f}' y='{TOP + H + 16}' "
                        f"text-anchor='middle'>{escape(label)}</text>")
    body.append(f"<line class='axis' x1='{LEFT}' x2='{LEFT + W}' y1='{TOP + H}' y2='{TOP + H}'/>")
    return _svg(name, LEFT + W + RIGHT, TOP + H + BOTTOM, body, xtitle, "runs")


def _rate_chart(name: str, rows, ytitle: str = "outcome") -> str:
    """Horizontal bars of shares, with their intervals as whiskers; the x axis in percent."""
    row_h, label_w = 24, 200
    height = row_h * len(rows)
    body = []
    for v in (0, .25, .5, .75, 1):
        x = label_w + v * W
        body.append(f"<line class='grid' x1='{x}' x2='{x}' y1='{TOP}' y2='{TOP + height}'/>"
                    f"<text class='tick' data-axis='x' x='{x}' y='{TOP + height + 16}' text-anchor='middle'>"
                    f"{100 * v:g}%</text>")
    for i, (label, _key, x) in enumerate(rows):
        y = TOP + i * row_h + 3
        mid = y + (row_h - 6) / 2
        colour = COLOURS[i % len(COLOURS)]
        body.append(f"<text class='tick' data-axis='y' x='{label_w - 6}' y='{mid + 4}' text-anchor='end'>"
                    f"{escape(label[:32])}</text>"
                    f"<rect class='bar' style='fill:{colour}' x='{label_w}' y='{y}' "
                    f"width='{max(1.0, x['rate'] * W):.1f}' height='{row_h - 6}'>"
                    f"<title>{escape(label)}: {100 * x['rate']:.1f}%</title></rect>"
                    f"<line class='whisker' x1='{label_w + x['low'] * W:.1f}' x2='{label_w + x['high'] * W:.1f}' "
                    f"y1='{mid}' y2='{mid}'/>")
    body.append(f"<line class='axis' x1='{label_w}' x2='{label_w + W}' y1='{TOP + height}' y2='{TOP + height}'/>")
    return _svg(name, label_w + W + RIGHT + 20, TOP + height + BOTTOM, body,
                "share of runs (bar) and its 95% interval (line)", ytitle, label_w + W / 2)


def _difference_chart(name: str, rows) -> str:
    """Each difference as a dot with its interval, around a line at 0; the x axis in percentage points."""
    row_h, label_w = 24, 200
    reach = max([abs(x["low"]) for _l, _k, x in rows] + [abs(x["high"]) for _l, _k, x in rows] + [0.01])
    reach = max(abs(t) for t in nice_ticks(-reach, reach, 7))
    ticks = nice_ticks(-reach, reach, 7)
    lo, hi = ticks[0], ticks[-1]
    height = row_h * len(rows)

    def at(v):
        return label_w + (v - lo) / (hi - lo) * W
    body = []
    for v in ticks:
        body.append(f"<line class='{'axis' if v == 0 else 'grid'}' x1='{at(v):.1f}' x2='{at(v):.1f}' y1='{TOP}' "
                    f"y2='{TOP + height}'/><text class='tick' data-axis='x' x='{at(v):.1f}' y='{TOP + height + 16}' "
                    f"text-anchor='middle'>{100 * v:+g}</text>")
    for i, (label, _key, x) in enumerate(rows):
        mid = TOP + i * row_h + row_h / 2
        body.append(f"<text class='tick' data-axis='y' x='{label_w - 6}' y='{mid + 4}' text-anchor='end'>"
                    f"{escape(label[:32])}</text>"
                    f"<line class='whisker' x1='{at(x['low']):.1f}' x2='{at(x['high']):.1f}' y1='{mid}' y2='{mid}'/>"
                    f"<rect class='bar' x='{at(x['difference']) - 4:.1f}' y='{mid - 4}' width='8' height='8'>"
                    f"<title>{escape(label)}: {100 * x['difference']:+.1f} points</title></rect>")
    return _svg(name, label_w + W + RIGHT + 20, TOP + height + BOTTOM, body,
                "B − A, percentage points (dot) and its paired 95% interval (line)", "outcome", label_w + W / 2)


def _curves(name: str, curves, xtitle: str, ytitle: str, yrange, xticks=None, percent: bool = False) -> str:
    """Lines through (x, y), each with its interval as a band; a legend names them."""
    xs = [p[0] for _label, pts in curves for p in pts] or [0, 1]
    x0, x1 = min(xs), max(xs)
    if x1 == x0:
        x1 = x0 + 1
    y0, y1 = yrange
    y1 = nice_ticks(y0, y1)[-1] if not percent else y1

    def at(x, y):
        return LEFT + (x - x0) / (x1 - x0) * W, TOP + H - (y - y0) / ((y1 - y0) or 1) * H
    body = _y_axis(y1, H, W, percent, y0)
    for x in ([t for t, _l in xticks] if xticks else nice_ticks(x0, x1)):
        if x0 <= x <= x1:
            px, _ = at(x, y0)
            label = dict(xticks).get(x) if xticks else _tick_label(x)
            body.append(f"<text class='tick' data-axis='x' x='{px:.1f}' y='{TOP + H + 16}' text-anchor='middle'>"
                        f"{escape(str(label))}</text>")
    body.append(f"<line class='axis' x1='{LEFT}' x2='{LEFT + W}' y1='{TOP + H}' y2='{TOP + H}'/>")
    for i, (label, pts) in enumerate(curves):
        colour = COLOURS[i % len(COLOURS)]
        banded = [p for p in pts if p[2] is not None and p[3] is not None]
        if len(banded) > 1:
            upper = [at(x, hi) for x, _y, _lo, hi in banded]
            lower = [at(x, lo) for x, _y, lo, _hi in reversed(banded)]
            body.append(f"<polygon class='band' style='fill:{colour}' points='"
                        + " ".join(f"{a:.1f},{b:.1f}" for a, b in upper + lower) + "'/>")
        line = " ".join(f"{a:.1f},{b:.1f}" for a, b in (at(x, y) for x, y, _lo, _hi in pts))
        body.append(f"<polyline class='curve' data-curve='{escape(label)}' style='stroke:{colour}' "
                    f"points='{line}'><title>{escape(label)}</title></polyline>")
        body += [f"<circle cx='{a:.1f}' cy='{b:.1f}' r='3' style='fill:{colour}'/>"
                 for a, b in (at(x, y) for x, y, _lo, _hi in pts)]
        if label:
            body.append(f"<text class='legend' x='{LEFT + 10}' y='{TOP + 14 + 15 * i}' style='fill:{colour}'>"
                        f"{escape(label)}</text>")
    return _svg(name, LEFT + W + RIGHT, TOP + H + BOTTOM, body, xtitle, ytitle)


def _over_by_round(name: str, series) -> str:
    """The share of runs over by round N, for each rule set given: a step up to 100%."""
    curves = []
    for label, points in series:
        pts = [(0, 0.0, None, None)] + [(r, share, None, None) for r, share in points]
        curves.append((label or "runs over", pts))
    return _curves(name, curves, "round N", "share of runs over by round N", (0.0, 1.0), percent=True)


def _measure(name: str, key: str, d: dict, label: str | None, xtitle: str) -> str:
    head = f"<h3>{escape(label)}</h3>" if label and label != "rounds" else ""
    if d["runs"] == 0:
        return head + "<p>no runs</p>"
    if d["kind"] == "truth":
        row = [(label or name, key, {"runs": d["true"], "rate": d["rate"], "low": d["low"], "high": d["high"]})]
        return head + _rate_chart(name, row, "tally") + (
            f"<p>true in {_val(key + '.true', d['true'])} runs: {_pct(key + '.rate', d['rate'])} "
            f"({_pct(key + '.low', d['low'])} – {_pct(key + '.high', d['high'])})</p>")
    stats = "".join(f"<td>{_val(f'{key}.{k}', d[k])}</td>" for k in ("mean", "p5", "p25", "p50", "p75", "p95",
                                                                       "min", "max"))
    return (head + _histogram(name, d["histogram"], xtitle) +
            "<table><tr><th>mean</th><th>p5</th><th>p25</th><th>median</th><th>p75</th><th>p95</th>"
            f"<th>min</th><th>max</th></tr><tr>{stats}</tr></table>")
