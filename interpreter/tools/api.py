"""The Python API behind `grimorio.simulate` and `grimorio.run`: the command
line's machinery (the same preparation, seeds, outcome and summary), with
results as objects a notebook can use. docs/python-api.md shows them."""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from html import escape
from typing import Any

from ...dsl.diagnostics import Sources


def command_line(command: str, encounter: str, edition: str | None, house: Iterable[str],
                 sets: Mapping[str, Any] | None, rules: Iterable[str]) -> list[str]:
    """The arguments of the command line that asks the same."""
    argv = [command, str(encounter)]
    if edition:
        argv += ["--edition", edition]
    for k, v in (sets or {}).items():
        argv += ["--set", f"{k}={str(v).lower() if isinstance(v, bool) else v}"]
    for folder in rules:
        argv += ["--rules", str(folder)]
    for h in house:
        argv += ["--house", str(h)]
    return argv


def _prepare(argv: list[str]):
    from .arguments import CommandLine, _parser
    from .preparing import prepare
    sources = Sources()
    args = _parser(argv[0]).parse_args(argv)
    return args, prepare(args, sources, CommandLine(argv, sources)), sources


# ---------------------------------------------------------------- one run
class Run:
    """One run of an encounter: its outcome, its transcript, its events, its expectations."""

    def __init__(self, engine_outcome, seed: int):
        from ..run.outcome import outcome_of
        from ..run.transcript import render_jsonl, render_text
        self.engine = engine_outcome.engine
        self.seed = seed
        self.outcome = outcome_of(self.engine)
        self.winner: str | None = self.outcome.name if self.outcome.kind == "side" else None
        self.rounds: int = self.engine.round
        self.transcript: list[str] = render_text(self.engine).splitlines()
        self.events: list[dict] = [json.loads(line) for line in render_jsonl(self.engine).splitlines()]
        self.expectations = [(v.ok, v) for v in engine_outcome.expectations]
        self._raw = engine_outcome

    def __getattr__(self, name):          # what grimorio.run gave before (failed, verdicts...)
        return getattr(self.__dict__["_raw"], name)

    def __repr__(self) -> str:
        return f"<grimorio.Run seed={self.seed} outcome={self.outcome.name!r} rounds={self.rounds}>"

    def _repr_html_(self) -> str:
        lines = "\n".join(self.transcript[-12:])
        return (f"<p><b>{escape(self.outcome.name)}</b> ({escape(self.outcome.kind)}) after {self.rounds} rounds, "
                f"seed {self.seed}</p><pre>{escape(lines)}</pre>")


def run(encounter, seed: int | None = None, *, edition: str | None = None, house: Iterable[str] = (),
        sets: Mapping[str, Any] | None = None, rules: Iterable[str] = (), run_index: int | None = None,
        record: bool = True) -> Run:
    from ..run.encounter import Prepared
    from .simulate import run_seed
    if isinstance(encounter, Prepared):
        prepared = encounter
    else:
        _args, prepared, _sources = _prepare(command_line("run", encounter, edition, house, sets, rules))
    base = seed if seed is not None else (prepared.enc.seed or 0)
    seed = run_seed(base, run_index) if run_index is not None else base
    return Run(prepared.run(seed=seed, record=True, json=True), seed)


# ---------------------------------------------------------------- many runs
class Simulation:
    """Many runs of an encounter: the summary (as `grimorio simulate --format json` prints it), one
    record per run (as `--runs FILE.jsonl` writes them), and tables of them."""

    def __init__(self, summary: dict, runs: list[dict]):
        self.summary = summary
        self.runs = runs

    @property
    def outcomes(self) -> dict[str, float]:
        """Each outcome's share of the runs."""
        return {x["outcome"]: x["rate"] for x in self.summary["outcomes"]}

    def rows(self) -> list[dict]:
        """One flat dict per run: index, seed, outcome, kind, rounds, each tally, and each
        combatant's tallies as "NAME.TALLY"."""
        out = []
        for r in self.runs:
            row = {k: r[k] for k in ("index", "seed", "outcome", "kind", "rounds")}
            row.update(r["tallies"])
            for who, values in r["combatants"].items():
                row.update({f"{who}.{k}": v for k, v in values.items()})
            out.append(row)
        return out

    def to_pandas(self):
        """The runs as a pandas DataFrame (pip install "grimorio[dataframes]")."""
        try:
            import pandas
        except ImportError:
            raise ImportError('to_pandas needs pandas: pip install "grimorio[dataframes]"') from None
        return pandas.DataFrame(self.rows())

    def to_polars(self):
        """The runs as a polars DataFrame (pip install "grimorio[dataframes]")."""
        try:
            import polars
        except ImportError:
            raise ImportError('to_polars needs polars: pip install "grimorio[dataframes]"') from None
        return polars.DataFrame(self.rows())

    def text(self) -> str:
        """The summary as `grimorio simulate` prints it."""
        from .summary import render_text
        return render_text(self.summary)

    def __repr__(self) -> str:
        shares = ", ".join(f"{k}: {100 * v:.1f}%" for k, v in self.outcomes.items())
        return f"<grimorio.Simulation {self.summary['runs']} runs, seed {self.summary['seed']}: {shares}>"

    def _repr_html_(self) -> str:
        from .summary import outcome_label
        s = self.summary
        rows = "".join(f"<tr><td>{escape(outcome_label(x))}</td><td>{x['runs']}</td><td>{100 * x['rate']:.1f}%</td>"
                       f"<td>{100 * x['low']:.1f}% – {100 * x['high']:.1f}%</td></tr>" for x in s["outcomes"])
        return (f"<p><b>{escape(s['encounter'] or 'encounter')}</b> (edition {escape(s['edition'])}): {s['runs']} "
                f"runs, seed {s['seed']}; mean rounds {s['rounds'].get('mean', 0):.3g}</p>"
                "<table><tr><th>outcome</th><th>runs</th><th>share</th><th>95% interval</th></tr>"
                f"{rows}</table>")


def simulate(encounter, n: int | None = None, seed: int | None = None, *, edition: str | None = None,
             house: Iterable[str] = (), sets: Mapping[str, Any] | None = None, rules: Iterable[str] = (),
             workers: int = 1, precision: float | None = None) -> Simulation:
    from ..run.outcome import categories
    from . import precision as P
    from .simulate import Job, Spec, keep, simulate_job
    from .simulate_cli import _portable_argv, replay
    from .summary import summarize
    argv = command_line("simulate", encounter, edition, house, sets, rules)
    args, prepared, sources = _prepare(argv)
    seed = seed if seed is not None else (prepared.enc.seed or 0)
    spec = Spec(_portable_argv(args), seed)
    runner = keep(spec, prepared)
    job = Job((spec,), records=True)
    if precision is None:
        counts = simulate_job(job, 0, n or 1000, workers)
    else:
        names = [c for c, _kind in categories(runner.sides(), runner.draws())]
        box: dict = {}

        def step(start, stop):
            box["counts"] = simulate_job(job, start, stop, workers, total=box.get("counts"))
            return P.widths(box["counts"], names)
        P.sequential(step, precision, n or P.CAP)
        counts = box["counts"]
    summary = summarize(counts.tallies[0], runner, seed, sources, replay(args))
    return Simulation(summary, counts.records[0])
