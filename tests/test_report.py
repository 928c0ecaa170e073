"""The HTML report of grimorio simulate, opened in headless Chromium: its plots
render with titled axes and ticks, the rounds use the text's bins, the page
says what made it, and the numbers it shows are those of the JSON summary; the
same for a comparison and a sweep."""
from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.tools.report import nice_ticks
from grimorio.interpreter.tools.summary import bins

from .test_simulate import DUELO, ROOT, needed

pytestmark = pytest.mark.slow      # a browser, and a simulation of many runs (tests/conftest.py)

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
QUINTO = str(ROOT / "rulesets" / "casa" / "criticos_quinto.rules")


def chromium() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        needed("a_chromium_executable")       # skipped here, a failure in CI
    return path


def make(tmp_path_factory, name, *args):
    page = tmp_path_factory.mktemp("report") / f"{name}.html"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["simulate", DUELO, *args, "--format", "json", "--report", str(page)]) == 0
    return page, json.loads(out.getvalue())


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return make(tmp_path_factory, "duelo", "-n", "300", "--seed", "4")


@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    return make(tmp_path_factory, "compare", "-n", "200", "--seed", "4", "--compare", "--house", QUINTO)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    return make(tmp_path_factory, "sweep", "-n", "100", "--seed", "4", "--sweep", "distancia_inicial=1..4")


@pytest.fixture(scope="module")
def browser():
    sync_api = needed("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def test_the_report_is_self_contained(report):
    html = report[0].read_text(encoding="utf-8")
    assert "<svg" in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html and "<script" not in html


def test_axis_ticks_cover_what_they_mark():
    assert nice_ticks(0, 106) == [0, 25, 50, 75, 100, 125]
    assert nice_ticks(0, 9.48) == [0, 2, 4, 6, 8, 10]
    assert nice_ticks(-0.085, 0.085, 7) == [-0.1, -0.05, 0, 0.05, 0.1]


def resolve(summary, key: str):
    value = summary
    for part in key.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def opened(browser, path):
    page = browser.new_page()
    page.goto(path.as_uri())
    return page


def check_plots(page) -> list:
    """Every plot is drawn, has both axes titled, and marks its axes with ticks."""
    plots = page.query_selector_all("svg.plot")
    for plot in plots:
        name = plot.get_attribute("data-plot")
        box = plot.bounding_box()
        assert box and box["width"] > 50 and box["height"] > 20, name
        titles = {t.get_attribute("data-axis"): t.text_content() for t in plot.query_selector_all("text.axis-title")}
        assert set(titles) == {"x", "y"} and all(titles.values()), name
        for t in plot.query_selector_all("text.axis-title"):
            b = t.bounding_box()
            assert b and b["width"] > 5 and b["height"] > 5, name        # rendered, not only written
        assert len(plot.query_selector_all("text.tick")) >= 3, name
        marks = plot.query_selector_all("rect.bar, polyline.curve")
        shown = [m.bounding_box() for m in marks]
        assert any(b and (b["width"] > 0 or b["height"] > 0) for b in shown), name
    return plots


def check_numbers(page, summary):
    shown = page.eval_on_selector_all("[data-key]", "els => els.map(e => [e.dataset.key, e.textContent])")
    for key, text in shown:
        want = resolve(summary, key)
        if text.endswith("%"):
            assert abs(float(text[:-1]) - 100 * want) <= 0.05, key
        elif isinstance(want, float):
            assert abs(float(text) - want) <= 0.0005 * max(1, abs(want)), key
        else:
            assert text == str(want), key
    return {k for k, _ in shown}


def check_provenance(page, command_has):
    prov = dict(page.eval_on_selector_all("[data-prov]", "els => els.map(e => [e.dataset.prov, e.textContent])"))
    assert set(prov) == {"command", "edition", "house layers", "seed", "grimorio", "date"}
    assert prov["command"].startswith("grimorio simulate ") and command_has in prov["command"]
    assert prov["edition"] == "aquelarre" and prov["seed"] == "4"
    assert prov["grimorio"] and prov["grimorio"] != "-" and len(prov["date"]) >= 10
    box = page.query_selector("dl.provenance").bounding_box()
    assert box and box["height"] > 20
    return prov


def test_the_report_renders_in_headless_chromium(report, browser):
    page_path, summary = report
    page = opened(browser, page_path)
    plots = check_plots(page)
    names = [p.get_attribute("data-plot") for p in plots]
    assert {"outcomes", "rounds", "over-by-round"} <= set(names)
    # The rounds: the text summary's bins, bar for bar, with a y axis of several ticks.
    rounds = page.query_selector("svg[data-plot='rounds']")
    assert len(rounds.query_selector_all("rect.bar")) == len(bins(summary["rounds"]["histogram"]))
    assert len(rounds.query_selector_all("text.tick[data-axis='y']")) >= 4
    labels = [t.text_content() for t in rounds.query_selector_all("text.tick[data-axis='x']")]
    assert labels[0] == bins(summary["rounds"]["histogram"])[0][0]
    # The fight-over curve ends at 100%.
    assert page.query_selector("svg[data-plot='over-by-round'] polyline.curve")
    # In a duel what one loses the other caused: drawn once, and the second named, not drawn again.
    same = page.query_selector_all("[data-same]")
    assert [s.get_attribute("data-same") for s in same] == ["Rodrigo's puntos_causados", "Rodrigo's puntos_perdidos"]
    assert "Bandido-puntos_perdidos" not in names
    keys = check_numbers(page, summary)
    assert {"runs", "outcomes.0.runs", "outcomes.1.rate", "outcomes.0.examples.typical.seed", "rounds.mean",
            "rounds.p95", "combatants.0.tallies.puntos_perdidos.mean", "tallies.muertos.max"} <= keys
    check_provenance(page, "--report")


def test_a_comparison_report(comparison, browser):
    page_path, summary = comparison
    page = opened(browser, page_path)
    names = [p.get_attribute("data-plot") for p in check_plots(page)]
    assert {"outcomes", "differences", "over-by-round", "rounds-A", "rounds-B"} <= set(names)
    curves = page.query_selector_all("svg[data-plot='over-by-round'] polyline.curve")
    assert [c.get_attribute("data-curve") for c in curves] == ["A", "B"]
    keys = check_numbers(page, summary)
    assert {"outcomes.0.difference", "outcomes.0.low", "measures.0.mean", "parted"} <= keys
    prov = check_provenance(page, "--compare")
    assert "criticos_quinto" in prov["house layers"]


def test_a_sweep_report(sweep, browser):
    page_path, summary = sweep
    page = opened(browser, page_path)
    names = [p.get_attribute("data-plot") for p in check_plots(page)]
    assert names == ["sweep-outcomes", "sweep-rounds"]
    plot = page.query_selector("svg[data-plot='sweep-outcomes']")
    assert plot.query_selector("text.axis-title[data-axis='x']").text_content() == "distancia_inicial"
    curves = plot.query_selector_all("polyline.curve")
    assert [c.get_attribute("data-curve") for c in curves] == [
        "side cristianos", "side bandidos", "draw caen_todos"][:len(curves)]
    points = plot.query_selector_all("circle")
    assert len(points) == len(curves) * 4
    keys = check_numbers(page, summary)
    assert {"points.0.summary.outcomes.0.rate", "points.3.summary.rounds.mean"} <= keys
    check_provenance(page, "--sweep")
