"""The Python API (docs/python-api.md): grimorio.run and grimorio.simulate, their results,
the examples of the page (each run here), and the typing marker that ships with the package."""
from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

import grimorio
from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.tools.simulate import run_seed

ROOT = Path(__file__).resolve().parent.parent
DUELO = str(ROOT / "rulesets" / "aquelarre" / "duelo.enc")
PAGE = ROOT / "docs" / "python-api.md"

pytestmark = pytest.mark.slow      # each runs or simulates an encounter


def examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("k", range(len(examples())))
def test_every_example_of_the_page_runs(k, monkeypatch):
    if "to_pandas" in examples()[k]:
        pytest.importorskip("pandas")
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(examples()[k], f"python-api.md example {k + 1}", "exec"), {})  # noqa: S102 - the doc's code
    assert out.getvalue().strip()


def test_a_run_has_the_outcome_the_transcript_ends_with(capsys):
    r = grimorio.run(DUELO, seed=3)
    assert r.seed == 3 and r.rounds >= 1
    assert main(["run", DUELO, "--seed", "3", "--quiet"]) == 0         # the lines alone, without the header line
    assert r.transcript == capsys.readouterr().out.splitlines()
    assert r.transcript[-1] == "Fin del combate. En pie: " + (", ".join(r.outcome.standing) or "-")
    assert (r.winner is None) == (r.outcome.kind != "side")
    assert grimorio.transcript(r) == r.transcript and grimorio.events(r) == r.events


def test_run_index_opens_a_run_of_a_simulation():
    sim = grimorio.simulate(DUELO, n=30, seed=5)
    for i in (0, 7, 29):
        r = grimorio.run(DUELO, seed=5, run_index=i)
        assert r.seed == run_seed(5, i) == sim.runs[i]["seed"]
        assert (r.outcome.name, r.rounds) == (sim.runs[i]["outcome"], sim.runs[i]["rounds"])


def test_a_simulation_is_the_command_lines(capsys):
    sim = grimorio.simulate(DUELO, n=40, seed=2, sets={"regla_dj": True})
    assert main(["simulate", DUELO, "-n", "40", "--seed", "2", "--set", "regla_dj=true", "--format", "json"]) == 0
    import json
    printed = json.loads(capsys.readouterr().out)
    assert sim.summary["outcomes"] == printed["outcomes"] and sim.summary["rounds"] == printed["rounds"]
    assert [r["index"] for r in sim.runs] == list(range(40))
    assert sum(sim.outcomes.values()) == pytest.approx(1.0)
    rows = sim.rows()
    assert rows[0]["Rodrigo.puntos_perdidos"] == sim.runs[0]["combatants"]["Rodrigo"]["puntos_perdidos"]
    html = sim._repr_html_()
    assert "<table>" in html and "cristianos" in html and "40" in html
    assert "Simulation 40 runs" in repr(sim)


def test_data_frames():
    pandas = pytest.importorskip("pandas")
    sim = grimorio.simulate(DUELO, n=25, seed=1)
    frame = sim.to_pandas()
    assert isinstance(frame, pandas.DataFrame) and len(frame) == 25
    assert list(frame["outcome"]) == [r["outcome"] for r in sim.runs]
    polars = pytest.importorskip("polars")
    assert sim.to_polars().shape == (25, frame.shape[1]) and isinstance(sim.to_polars(), polars.DataFrame)


def test_without_pandas_the_message_says_what_to_install(monkeypatch):
    import builtins
    real = builtins.__import__

    def no_pandas(name, *args, **kwargs):
        if name in ("pandas", "polars"):
            raise ImportError(name)
        return real(name, *args, **kwargs)
    sim = grimorio.simulate(DUELO, n=3, seed=1)
    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(ImportError, match=r'pip install "grimorio\[dataframes\]"'):
        sim.to_pandas()
    with pytest.raises(ImportError, match=r'pip install "grimorio\[dataframes\]"'):
        sim.to_polars()


def test_precision_from_python():
    sim = grimorio.simulate(DUELO, seed=4, precision=0.04, n=5000)
    # The 95% interval of every share is at most ±4% (half its width: Wilson's is not symmetric).
    assert all((x["high"] - x["low"]) / 2 <= 0.04 for x in sim.summary["outcomes"])
    assert len(sim.runs) == sim.summary["runs"] < 5000


def test_a_mistake_is_a_grimorio_error():
    with pytest.raises(grimorio.GrimorioError) as caught:
        grimorio.simulate(DUELO, n=3, sets={"no_such_option": 1})
    assert caught.value.diagnostics[0].code == "E0201"


def test_the_package_is_typed():
    assert (Path(grimorio.__file__).parent / "py.typed").is_file()
    import inspect
    hints = inspect.signature(grimorio.simulate).parameters
    assert hints["n"].annotation and hints["precision"].annotation
    assert os.path.basename(grimorio.__file__) == "__init__.py"


def test_the_installed_package_ships_its_typing_marker(tmp_path):
    import subprocess
    import sys
    where = subprocess.run([sys.executable, "-c", "import grimorio, os; print(os.path.dirname(grimorio.__file__))"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()
    assert (Path(where) / "py.typed").is_file()
