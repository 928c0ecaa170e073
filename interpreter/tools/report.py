"""A simulation summary as one self-contained HTML page: tables and inline
SVG plots drawn here, nothing loaded from anywhere. Every number shown
carries `data-key`, its path in the JSON summary, so a test can compare."""
from __future__ import annotations

from html import escape

from ...dsl.diagnostics import Diagnostic, GrimorioError
from .summary import bins, expectation_label

BAR_W, ROW_H, LABEL_W = 320, 22, 170
STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; } td, th { padding: .2em .8em; text-align: right; }
td:first-child, th:first-child { text-align: left; }
svg { display: block; margin: .5em 0 1em; } svg text { font: 12px system-ui, sans-serif; fill: #222; }
.bar { fill: #4c78a8; } .whisker { stroke: #222; stroke-width: 1.5; } .axis { stroke: #888; }
"""


def write_report(path: str, summary: dict, span) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(render_report(summary))
    except OSError as exc:
        raise GrimorioError(Diagnostic("E0033", f'the report cannot be written to "{path}" ({exc.strerror})', span,
                                       "name a file in a folder that exists and that you may write to")) from None


def render_report(s: dict) -> str:
    title = escape(s["encounter"] or "encounter")
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title}: simulation</title>",
             f"<style>{STYLE}</style></head><body>",
             f"<h1>{title}</h1><p>Edition {escape(s['edition'])}: {_val('runs', s['runs'])} runs, "
             f"seed {_val('seed', s['seed'])}.</p>"]
    if "sides" in s:
        parts.append("<h2>Side alone standing at the end</h2>")
        rows = [(x["side"], f"sides.{i}", x) for i, x in enumerate(s["sides"])]
        rows.append(("none or several", "undecided", s["undecided"]))
        parts.append(_rate_chart("sides", rows))
        parts.append(_rate_table(rows))
    parts.append("<h2>Rounds</h2>")
    parts.append(_measure("rounds", "rounds", s["rounds"]))
    for i, c in enumerate(s["combatants"]):
        parts.append(f"<h2>{escape(c['name'])} <small>(side {escape(c['side'])})</small></h2>")
        parts += [_measure(f"{c['name']}-{name}", f"combatants.{i}.tallies.{name}", d, name)
                  for name, d in c["tallies"].items()]
        if c["conditions"]:
            rows = [(f"holds {x['condition']} {x['grade'] or ''}".strip(), f"combatants.{i}.conditions.{j}", x)
                    for j, x in enumerate(c["conditions"])]
            parts.append("<h3>Conditions held at the end</h3>")
            parts += [_rate_chart(f"{c['name']}-conditions", rows), _rate_table(rows)]
    if s["tallies"]:
        parts.append("<h2>Each run</h2>")
        parts += [_measure(f"run-{name}", f"tallies.{name}", d, name) for name, d in s["tallies"].items()]
    if s["expectations"]:
        rows = [(expectation_label(x), f"expectations.{i}", x) for i, x in enumerate(s["expectations"])]
        parts += ["<h2>Expectations met</h2>", _rate_chart("expectations", rows), _rate_table(rows)]
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _val(key: str, v, shown: str | None = None) -> str:
    text = shown if shown is not None else (f"{v:.4g}" if isinstance(v, float) else str(v))
    return f"<span data-key='{escape(key)}'>{escape(text)}</span>"


def _pct(key: str, v: float) -> str:
    return _val(key, v, f"{100 * v:.1f}%")


def _rate_table(rows) -> str:
    out = ["<table><tr><th></th><th>runs</th><th>share</th><th>95% interval</th></tr>"]
    for label, key, x in rows:
        out.append(f"<tr><td>{escape(label)}</td><td>{_val(key + '.runs', x['runs'])}</td>"
                   f"<td>{_pct(key + '.rate', x['rate'])}</td>"
                   f"<td>{_pct(key + '.low', x['low'])} – {_pct(key + '.high', x['high'])}</td></tr>")
    return "".join(out) + "</table>"


def _rate_chart(name: str, rows) -> str:
    """Horizontal bars of proportions, with their intervals as whiskers."""
    h = ROW_H * len(rows) + 20
    out = [f"<svg class='plot' data-plot='{escape(name)}' width='{LABEL_W + BAR_W + 60}' height='{h}' "
           f"role='img' xmlns='http://www.w3.org/2000/svg'>"]
    for i, (label, _key, x) in enumerate(rows):
        y = i * ROW_H + 4
        mid = y + (ROW_H - 6) / 2
        lo, hi = LABEL_W + x["low"] * BAR_W, LABEL_W + x["high"] * BAR_W
        out.append(f"<text x='{LABEL_W - 6}' y='{mid + 4}' text-anchor='end'>{escape(label[:28])}</text>"
                   f"<rect class='bar' x='{LABEL_W}' y='{y}' width='{max(1.0, x['rate'] * BAR_W):.1f}' "
                   f"height='{ROW_H - 6}'><title>{escape(label)}: {100 * x['rate']:.1f}%</title></rect>"
                   f"<line class='whisker' x1='{lo:.1f}' x2='{hi:.1f}' y1='{mid}' y2='{mid}'/>"
                   f"<text x='{LABEL_W + BAR_W + 6}' y='{mid + 4}'>{100 * x['rate']:.1f}%</text>")
    axis = ROW_H * len(rows) + 6
    out.append(f"<line class='axis' x1='{LABEL_W}' x2='{LABEL_W + BAR_W}' y1='{axis}' y2='{axis}'/>"
               f"<text x='{LABEL_W}' y='{axis + 13}'>0%</text>"
               f"<text x='{LABEL_W + BAR_W}' y='{axis + 13}' text-anchor='end'>100%</text></svg>")
    return "".join(out)


def _measure(name: str, key: str, d: dict, label: str | None = None) -> str:
    head = f"<h3>{escape(label)}</h3>" if label else ""
    if d["runs"] == 0:
        return head + "<p>no runs</p>"
    if d["kind"] == "truth":
        row = [(label or name, key, {"runs": d["true"], "rate": d["rate"], "low": d["low"], "high": d["high"]})]
        return head + _rate_chart(name, row) + (
            f"<p>true in {_val(key + '.true', d['true'])} runs: {_pct(key + '.rate', d['rate'])} "
            f"({_pct(key + '.low', d['low'])} – {_pct(key + '.high', d['high'])})</p>")
    stats = "".join(f"<td>{_val(f'{key}.{k}', d[k])}</td>" for k in ("mean", "p5", "p25", "p50", "p75", "p95",
                                                                       "min", "max"))
    return (head + _histogram(name, d["histogram"]) +
            "<table><tr><th>mean</th><th>p5</th><th>p25</th><th>median</th><th>p75</th><th>p95</th>"
            f"<th>min</th><th>max</th></tr><tr>{stats}</tr></table>")


def _histogram(name: str, histogram: list) -> str:
    """Vertical bars: how many runs gave each value (or each range of values)."""
    bars = bins(histogram, 30)
    top = max([c for _, c in bars] + [1])
    width, height, pad = max(8, min(40, 600 // max(1, len(bars)))), 160, 36
    out = [f"<svg class='plot' data-plot='{escape(name)}' width='{pad + width * len(bars) + 10}' "
           f"height='{height + 40}' role='img' xmlns='http://www.w3.org/2000/svg'>"
           f"<text x='0' y='12'>{top}</text><text x='0' y='{height + 14}'>0</text>"]
    for i, (label, c) in enumerate(bars):
        h = max(1.0, height * c / top) if c else 0.0
        x = pad + i * width
        out.append(f"<rect class='bar' x='{x}' y='{height + 10 - h:.1f}' width='{width - 2}' height='{h:.1f}'>"
                   f"<title>{escape(label)}: {c} runs</title></rect>")
        if len(bars) <= 12 or i % max(1, len(bars) // 8) == 0:
            out.append(f"<text x='{x + (width - 2) / 2}' y='{height + 26}' text-anchor='middle'>"
                       f"{escape(label)}</text>")
    out.append(f"<line class='axis' x1='{pad}' x2='{pad + width * len(bars)}' y1='{height + 10}' "
               f"y2='{height + 10}'/></svg>")
    return "".join(out)
