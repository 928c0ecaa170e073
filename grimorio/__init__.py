"""grimorio: a rules language and its interpreter for tabletop role-playing games.

The small public API (docs/python-api.md); everything else lives in
`grimorio.dsl` (the language) and `grimorio.interpreter` (the runtime)::

    import grimorio
    result = grimorio.run("duelo.enc", seed=7)
    print(result.outcome.name, result.rounds)
    sim = grimorio.simulate("duelo.enc", n=500, seed=1)
    print(sim.outcomes)

Imports are lazy, so `import grimorio` costs next to nothing.
"""
from __future__ import annotations

import os as _os

TYPE_CHECKING = False          # typing is not imported at run time: the console script imports this first
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from .interpreter.tools.api import Run, Simulation

__all__ = ["GrimorioError", "load_edition", "prepare", "run", "simulate", "transcript", "events"]

# Installed, the subpackages sit inside this folder. In the source tree they
# are the project's top-level folders dsl/, interpreter/ and rulesets/, beside it.
# (os.path, not pathlib: the console script imports this before it can handle Ctrl-C, so it stays tiny.)
_here = _os.path.dirname(_os.path.realpath(__file__))
if not _os.path.isdir(_os.path.join(_here, "dsl")) and _os.path.isdir(_os.path.join(_here, _os.pardir, "dsl")):
    __path__.append(_os.path.dirname(_here))  # noqa: F821 - a package's own __path__


def __getattr__(name):
    if name == "__version__":          # read when asked: importlib.metadata costs an import
        from ._version import version
        return version()
    if name == "GrimorioError":
        from .dsl.diagnostics import GrimorioError
        return GrimorioError
    raise AttributeError(name)


def load_edition(name: str, rules=()):
    """The compiled program of an edition, looked for in the folders `rules`, then among the bundled ones."""
    from pathlib import Path

    from .dsl.editions.files import bundled_root
    from .interpreter.compile.programs import program_for
    return program_for(name, roots=[Path(r) for r in rules] + [bundled_root()])


def prepare(encounter, edition: str | None = None, rules=()):
    """An encounter (a path to a .enc file) checked and compiled, ready to run many times."""
    from .dsl.diagnostics import Sources
    from .interpreter.run.encounter import Prepared
    from .dsl.check.front import load_encounter, roots_for
    from .interpreter.compile.programs import program_for
    sources = Sources()
    enc = load_encounter(encounter, sources)
    program = program_for(edition or enc.edition, enc.edition_span, sources, roots_for(encounter, rules))
    return Prepared(enc, program)


def run(encounter, seed: int | None = None, *, edition: str | None = None, house: Iterable[str] = (),
        sets: Mapping[str, Any] | None = None, rules: Iterable[str] = (), run_index: int | None = None,
        record: bool = True) -> "Run":
    """One run of an encounter (a path to a .enc file, or what `prepare` gave): its `outcome` (the
    rules' one notion of it: `.name`, `.kind`, `.standing`), `winner` (the side, or None), `rounds`,
    `transcript` (lines), `events` (dicts) and `expectations`. With `run_index`, run I of
    `simulate(..., seed=seed)`: the same dice."""
    from .interpreter.tools.api import run as run_
    return run_(encounter, seed, edition=edition, house=house, sets=sets, rules=rules, run_index=run_index,
                record=record)


def simulate(encounter, n: int | None = None, seed: int | None = None, *, edition: str | None = None,
             house: Iterable[str] = (), sets: Mapping[str, Any] | None = None, rules: Iterable[str] = (),
             workers: int = 1, precision: float | None = None) -> "Simulation":
    """Many runs of an encounter, as `grimorio simulate`: n runs (1000 by default), or, with
    `precision` (a half-width such as 0.01), batches until every outcome's share is that precise
    (n then the most, 100000 by default). The result has `summary`, `runs` (one record per run),
    `outcomes`, `to_pandas()`, `to_polars()` and shows itself in a notebook."""
    from .interpreter.tools.api import simulate as simulate_
    return simulate_(encounter, n, seed, edition=edition, house=house, sets=sets, rules=rules, workers=workers,
                     precision=precision)


def transcript(outcome) -> list[str]:
    """The transcript lines of a run, in the ruleset's words."""
    from .interpreter.run.transcript import render_text
    return render_text(outcome.engine).splitlines()


def events(outcome) -> list[dict]:
    """The structured events of a run (rolls, checks, lines said, conditions), as dicts."""
    import json

    from .interpreter.run.transcript import render_jsonl
    return [json.loads(line) for line in render_jsonl(outcome.engine).splitlines()]
