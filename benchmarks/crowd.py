"""Cost per combatant-round as an encounter grows: K combatants of the demo duel,
half on each side, for three rounds (`crowd_cost(K)` gives CPU seconds per
combatant per round, over enough runs to reach about 20,000 combatant-rounds;
`crowd_steps(K)` the steps of the run budget per combatant-round, and
`crowd_bytecodes(K)` the Python bytecodes per combatant-round, which measure the
work done without a clock).

By default the crowd fights under the frozen copy of the duel's rules
(`duelo_referencia`, the rules the hand-written twin implements), so the figure
measures the engine. With `edition="aquelarre"` it fights under the bundled
edition, the whole combat chapter (distances, Melés, mounts, the tactic that
keeps an Action to parry): the figure then measures the rules as well."""
from __future__ import annotations

import time
from pathlib import Path

from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.diagnostics import GrimorioError
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for

ROUNDS = 3
REFERENCE = "duelo_referencia"
FIGHTER = """combatant {name}:
  side {side}
  FUE 14, AGI 12, HAB 13, RES 14, PER 11
  Espadas 60%, {dodge} 35%, Pelea 40%
  arma "Espada corta"
  armadura "Gambesón"
"""
# The name of the dodge on each edition's sheet (the frozen copy keeps the old one).
DODGE = {REFERENCE: "Esquivar", "aquelarre": "Esquiva"}


def crowd(k: int, edition: str = REFERENCE) -> Prepared:
    text = f"edition {edition}\nrounds {ROUNDS}\n" + "".join(
        FIGHTER.format(name=f"C{i}", side="norte" if i % 2 else "sur", dodge=DODGE[edition]) for i in range(k))
    enc, diags = build_encounter(text, f"crowd{k}.enc")
    if diags:
        raise GrimorioError(diags)
    roots = [Path(__file__).resolve().parent] if edition == REFERENCE else None
    return Prepared(enc, program_for(edition, roots=roots))


_prepared: dict = {}


def prepared(k: int, edition: str = REFERENCE) -> Prepared:
    return _prepared.get((k, edition)) or _prepared.setdefault((k, edition), crowd(k, edition))


def crowd_cost(k: int, edition: str = REFERENCE) -> float:
    prepared_k = prepared(k, edition)
    runs = max(1, 20_000 // (k * ROUNDS))
    done = 0
    t = time.process_time()
    for seed in range(runs):
        done += prepared_k.run(seed=seed, record=False).engine.round * k
    return (time.process_time() - t) / done


def crowd_steps(k: int, seed: int = 1, edition: str = REFERENCE) -> float:
    eng = prepared(k, edition).run(seed=seed, record=False).engine
    return eng.steps / (k * eng.round)


def crowd_bytecodes(k: int, seed: int = 1, edition: str = REFERENCE) -> float:
    """Python bytecodes per combatant-round (benchmarks/bytecodes.py): all the work, where the steps
    leave out the calls of rules whose calls are few (their cost is bounded, so the budget need not
    count them), which are much of what does not grow with the crowd."""
    from benchmarks.bytecodes import executed
    prepared_k = prepared(k, edition)
    prepared_k.run(seed=seed, record=False)
    engines = []
    counts = executed(lambda s: engines.append(prepared_k.run(seed=s, record=False).engine), [seed])
    return sum(counts.values()) / (k * engines[0].round)
