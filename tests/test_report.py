"""The HTML report of grimorio simulate, opened in headless Chromium: its plots
render, and the numbers it shows are those of the JSON summary."""
from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.tools.summary import bins

from .test_simulate import DUELO, needed

pytestmark = pytest.mark.slow      # a browser, and a simulation of many runs (tests/conftest.py)

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def chromium() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        needed("a_chromium_executable")       # skipped here, a failure in CI
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    page = tmp_path_factory.mktemp("report") / "duelo.html"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["simulate", DUELO, "-n", "300", "--seed", "4", "--format", "json", "--report", str(page)]) == 0
    return page, json.loads(out.getvalue())


def test_the_report_is_self_contained(report):
    html = report[0].read_text(encoding="utf-8")
    assert "<svg" in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html and "<script" not in html


def resolve(summary, key: str):
    value = summary
    for part in key.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def test_the_report_renders_in_headless_chromium(report):
    sync_api = needed("playwright.sync_api")
    page_path, summary = report
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(page_path.as_uri())
            plots = page.query_selector_all("svg.plot")
            # sides, rounds, and per combatant: stands, two tallies, conditions; and the per-run tally.
            assert len(plots) >= 10
            for plot in plots:
                box = plot.bounding_box()
                assert box and box["width"] > 50 and box["height"] > 20, plot.get_attribute("data-plot")
                bars = [b.bounding_box() for b in plot.query_selector_all("rect.bar")]
                assert bars and any(b and b["width"] > 0 and b["height"] > 0 for b in bars)
            rounds = page.query_selector("svg[data-plot='rounds']")
            # One bar per value, or per range of values once there are more than 30 (the full CMB
            # duel lasts up to some 40 rounds): as many bars as the summary's bins.
            assert len(rounds.query_selector_all("rect.bar")) == len(bins(summary["rounds"]["histogram"], 30))
            shown = page.eval_on_selector_all("[data-key]", "els => els.map(e => [e.dataset.key, e.textContent])")
        finally:
            browser.close()
    keys = {k for k, _ in shown}
    assert {"runs", "sides.0.runs", "sides.1.rate", "undecided.runs", "rounds.mean", "rounds.p95",
            "combatants.0.tallies.puntos_perdidos.mean", "tallies.muertos.max"} <= keys
    for key, text in shown:
        want = resolve(summary, key)
        if text.endswith("%"):
            assert abs(float(text[:-1]) - 100 * want) <= 0.05, key
        elif isinstance(want, float):
            assert abs(float(text) - want) <= 0.0005 * max(1, abs(want)), key
        else:
            assert text == str(want), key
