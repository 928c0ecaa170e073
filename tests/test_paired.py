"""grimorio simulate of two rule sets: win rates under each, and the paired
difference on common dice, with an interval far tighter than independent runs."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.tools.preparing import prepare_from_argv
from grimorio.interpreter.tools.paired import difference

ROOT = Path(__file__).resolve().parent.parent
DUELO = str(ROOT / "rulesets" / "aquelarre" / "duelo.enc")
QUINTO = str(ROOT / "rulesets" / "casa" / "criticos_quinto.rules")


def compare_json(capsys, *args) -> dict:
    assert main(["simulate", DUELO, *args, "--format", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def by_side(s: dict) -> dict:
    return {x["outcome"]: x for x in s["outcomes"]}


def test_the_paired_difference_of_two_rates():
    # 100 runs: 50 won under both, 10 only under a, 20 only under b.
    d = difference(50, 10, 20, 100)
    assert d["difference"] == pytest.approx(0.10)
    # The per-run differences: 20 of +1, 10 of -1, 70 of 0; sample variance (0.30 - 0.01) * 100 / 99.
    half = 1.959963984540054 * math.sqrt(0.29 / 99)
    assert d["half_width"] == pytest.approx(half) and d["low"] == pytest.approx(0.10 - half)
    # Apart: 0.60 and 0.70, each with its binomial variance.
    assert d["independent_half_width"] == pytest.approx(1.959963984540054 * math.sqrt((0.24 + 0.21) / 100))
    assert d["narrower"] == pytest.approx(d["independent_half_width"] / half)


@pytest.mark.slow
def test_one_run_gives_the_whole_range(capsys):
    d = difference(0, 1, 0, 1)
    assert (d["difference"], d["low"], d["high"]) == (-1.0, -1.0, 1.0)
    s = compare_json(capsys, "-n", "1", "--compare", "--house", QUINTO)
    assert all(-1 <= x["low"] <= x["high"] <= 1 for x in s["outcomes"])


@pytest.mark.slow
def test_a_rule_set_against_itself_differs_in_nothing(capsys):
    s = compare_json(capsys, "-n", "40", "--edition", "aquelarre", "--edition", "aquelarre")
    assert s["runs"] == 40 and s["parted"] == 0 and s["common_dice"]
    for x in s["outcomes"]:
        assert x["difference"] == 0 and x["low"] == 0 and x["high"] == 0
        assert x["a"] == x["b"]
    assert [x["outcome"] for x in s["outcomes"]] == ["cristianos", "bandidos", "caen_todos"]
    assert all(m["mean"] == 0 for m in s["measures"])


@pytest.mark.slow
def test_the_second_rule_set_carries_the_house_files(capsys):
    s = compare_json(capsys, "-n", "60", "--compare", "--house", QUINTO)
    assert s["a"] == "aquelarre" and s["b"] == f"aquelarre + {QUINTO}"
    # The first rate is the plain simulation's.
    assert main(["simulate", DUELO, "-n", "60", "--format", "json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert [x["rate"] for x in plain["outcomes"]] == [x["a"]["rate"] for x in s["outcomes"]]
    # And the second is the simulation with the house rule.
    assert main(["simulate", DUELO, "-n", "60", "--format", "json", "--house", QUINTO]) == 0
    house = json.loads(capsys.readouterr().out)
    assert [x["rate"] for x in house["outcomes"]] == [x["b"]["rate"] for x in s["outcomes"]]
    assert 0 < s["parted"] < 60


@pytest.mark.slow
def test_the_same_seed_gives_the_same_comparison_on_any_number_of_workers(capsys):
    args = ("-n", "48", "--compare", "--house", QUINTO, "--seed", "3")
    assert compare_json(capsys, *args) == compare_json(capsys, *args, "--workers", "2")


@pytest.mark.slow
def test_common_dice_give_a_narrower_interval_than_independent_runs(capsys):
    # Criticals at a fifth: a small change, so most runs end alike on common dice.
    common = compare_json(capsys, "-n", "300", "--compare", "--house", QUINTO)
    apart = compare_json(capsys, "-n", "300", "--compare", "--house", QUINTO, "--independent-dice")
    assert not apart["common_dice"]
    for side in ("cristianos", "bandidos"):
        c, a = by_side(common)[side], by_side(apart)[side]
        assert c["half_width"] < c["independent_half_width"]
        # Measured, not only by formula: the same estimator on independent dice is wider.
        assert c["half_width"] < a["half_width"]
    assert common["parted"] < apart["parted"]


@pytest.mark.slow
def test_the_text_form(capsys):
    assert main(["simulate", DUELO, "-n", "20", "--compare", "--house", QUINTO]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Duelo en el camino: 20 runs of each rule set on common dice, seed 7"
    assert out[1] == "  A: aquelarre" and out[2] == f"  B: aquelarre + {QUINTO}"
    assert out[4].startswith("  side cristianos ") and "B - A" in out[4] and "independent runs: ±" in out[4]
    assert any(line.startswith("runs whose outcome differs between A and B: ") for line in out)
    assert re.search(r"^  Rodrigo: puntos_perdidos +[+-][\d.]+", "\n".join(out), re.M)


@pytest.mark.slow
def test_a_worker_prepares_the_house_rules_from_the_spec():
    # The spec a worker prepares from keeps the --house files (it used to drop them: a spawned
    # or Dask worker simulated the bare edition, and a comparison's two sides shared one runner).
    from grimorio.interpreter.tools.arguments import _parser
    from grimorio.interpreter.tools.simulate import Runner, run_seed
    from grimorio.interpreter.tools.simulate_cli import _portable_argv
    from grimorio.interpreter.tools.tally import Tally

    def standing(argv):
        argv = _portable_argv(_parser().parse_args(argv))
        tally = Tally()
        Runner(prepare_from_argv(list(argv))).run_all(tally, ((i, run_seed(7, i)) for i in range(60)))
        return argv, tally.outcomes

    argv, house = standing(["simulate", DUELO, "--house", QUINTO])
    assert argv[-2:] == ("--house", str(Path(QUINTO).resolve()))
    _, base = standing(["simulate", DUELO])
    assert house != base


@pytest.mark.parametrize("args, message, at", [
    (["--edition", "aquelarre", "--edition", "aquelarre", "--edition", "aquelarre"],
     "grimorio simulate compares two rule sets", None),
    (["--compare"], "grimorio simulate compares two rule sets", None),
    (["--compare", "--house", QUINTO, "--sweep", "malus_parada=0..10:5"],
     "a sweep runs one rule set: it does not go with a comparison", "malus_parada=0..10:5"),
    (["--compare", "--house", QUINTO, "--backend", "dask"],
     "a comparison of two rule sets does not take --backend", "--backend"),
    (["--independent-dice"], "--independent-dice goes with a comparison of two rule sets", "--independent-dice"),
    (["--edition", "aquelarre", "--edition", "nada"], 'no edition "nada"', "nada"),
])
def test_bad_command_lines_are_located(capsys, args, message, at):
    assert main(["simulate", DUELO, "-n", "5", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and "E0003" not in err
    assert "--> <command line>:1:" in err
    if at is not None:
        line = next(ln for ln in err.splitlines() if ln.startswith("1 | "))
        marks = next(ln for ln in err.splitlines() if "^" in ln)
        col = marks.index("^")          # both lines start with a 4-character gutter
        assert line[col:].startswith(at)
