"""simulate --exact (interpreter/tools/odds_beside.py): the exact odds of the encounter's expectations and
tallies beside the simulated shares, in the text, the JSON and the report, equal to what grimorio odds says."""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main

pytestmark = pytest.mark.slow          # each simulates and enumerates: about a second

ENC = str(Path(__file__).resolve().parent.parent / "docs" / "odds" / "golpe_expect.enc")


def simulate(capsys, *args):
    assert main(["simulate", ENC, "-n", "400", "--seed", "3", "--exact", *args]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_the_exact_odds_stand_beside_the_simulated_shares(capsys):
    out = json.loads(simulate(capsys, "--format", "json"))
    [x] = out["expectations"]
    assert x["exact"]["fraction"] == "19/60" and x["exact"]["inside"] is True
    assert x["low"] <= 19 / 60 <= x["high"]
    lost = out["exact"]["tallies"]["puntos_perdidos(Bandido)"]
    # The mean of the exact distribution, reckoned again from the shares shown.
    assert abs(lost["mean"] - sum(int(o["value"]) * o["share"] for o in lost["outcomes"])) < 1e-9
    assert abs(sum(o["share"] for o in lost["outcomes"]) - 1) < 1e-9
    simulated = next(c for c in out["combatants"] if c["name"] == "Bandido")["tallies"]["puntos_perdidos"]
    assert abs(simulated["mean"] - lost["mean"]) < 0.4          # 400 runs: within a few standard errors
    assert out["exact"]["tallies"]["stands(Rodrigo)"]["outcomes"] == [{"value": "true", "fraction": "1/1", "share": 1.0}]


def test_the_text_and_the_report_show_them(capsys, tmp_path):
    report = tmp_path / "r.html"
    text = simulate(capsys, "--report", str(report))
    assert "line 20: 19/60 = 31.67% (inside the simulated interval" in text
    html = report.read_text(encoding="utf-8")
    assert "<h2>Exact odds</h2>" in html and ">19/60<" in html


def test_the_same_odds_as_grimorio_odds(capsys):
    assert main(["odds", ENC, "--format", "json"]) == 0
    odds = json.loads(capsys.readouterr().out)
    out = json.loads(simulate(capsys, "--format", "json"))
    said = odds["expectations"][0]
    assert Fraction(said["fraction"] if "fraction" in said else said["probability"]) == Fraction(19, 60)
    assert out["expectations"][0]["exact"]["fraction"] == "19/60"


def test_past_the_budget_it_says_so_and_gives_no_number(capsys, monkeypatch):
    from grimorio.interpreter.tools import odds_beside
    monkeypatch.setattr(odds_beside.O, "RUNS", 5)
    monkeypatch.setattr(odds_beside.add_exact, "__defaults__", (5, 20.0))
    out = json.loads(simulate(capsys, "--format", "json"))
    assert "beyond the budget" in out["exact"]["beyond"] and "exact" not in out["expectations"][0]


def test_exact_goes_with_one_rule_set(capsys):
    assert main(["simulate", ENC, "-n", "10", "--exact", "--edition", "aquelarre", "--edition", "aquelarre"]) == 2
    assert "error[E0044]" in capsys.readouterr().err
