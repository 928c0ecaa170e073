"""grimorio: a rules language and its interpreter for tabletop role-playing games.

The small public API; everything else lives in `grimorio.dsl` (the language)
and `grimorio.interpreter` (the runtime)::

    import grimorio
    program = grimorio.load_edition("aquelarre")
    encounter = grimorio.prepare("duelo.enc")
    outcome = grimorio.run(encounter, seed=7)
    for line in grimorio.transcript(outcome):
        print(line)

Imports are lazy, so `import grimorio` costs next to nothing.
"""
from __future__ import annotations

import os as _os

__all__ = ["GrimorioError", "load_edition", "prepare", "run", "transcript", "events"]

# Installed, the subpackages sit inside this folder. In the source tree they
# are the project's top-level folders dsl/, interpreter/ and rulesets/, beside it.
# (os.path, not pathlib: the console script imports this before it can handle Ctrl-C, so it stays tiny.)
_here = _os.path.dirname(_os.path.realpath(__file__))
if not _os.path.isdir(_os.path.join(_here, "dsl")) and _os.path.isdir(_os.path.join(_here, _os.pardir, "dsl")):
    __path__.append(_os.path.dirname(_here))  # noqa: F821 - a package's own __path__


def __getattr__(name):
    if name == "GrimorioError":
        from .dsl.diagnostics import GrimorioError
        return GrimorioError
    raise AttributeError(name)


def load_edition(name: str, rules=()):
    """The compiled program of an edition, looked for in the folders `rules`, then among the bundled ones."""
    from pathlib import Path

    from .dsl.editions.loader import bundled_root
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


def run(prepared, seed: int | None = None, record: bool = True):
    """Run a prepared encounter; the outcome holds the engine's events and the expectations' results."""
    return prepared.run(seed=seed, record=record, json=True)


def transcript(outcome) -> list[str]:
    """The transcript lines of a run, in the ruleset's words."""
    from .interpreter.run.transcript import render_text
    return render_text(outcome.engine).splitlines()


def events(outcome) -> list[dict]:
    """The structured events of a run (rolls, checks, lines said, conditions), as dicts."""
    import json

    from .interpreter.run.transcript import render_jsonl
    return [json.loads(line) for line in render_jsonl(outcome.engine).splitlines()]
