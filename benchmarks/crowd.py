"""Cost per combatant-round as an encounter grows: K combatants of the demo duel,
half on each side, for three rounds (`crowd_cost(K)` gives CPU seconds per
combatant per round, over enough runs to reach about 20,000 combatant-rounds;
`crowd_steps(K)` the steps of the run budget per combatant-round, which measure
the work done without a clock).

The crowd fights under the frozen copy of the duel's rules (`duelo_referencia`, the
rules the hand-written twin implements), so the figure measures the engine, not
the growth of the bundled edition: Aquelarre's full combat chapter walks every
combatant for distances and Melés on each action (see docs/performance.md)."""
from __future__ import annotations

import time
from pathlib import Path

from grimorio.dsl.builder import build_encounter
from grimorio.dsl.diagnostics import GrimorioError
from grimorio.interpreter.encounter import Prepared, program_for

ROUNDS = 3
FIGHTER = """combatant {name}:
  side {side}
  FUE 14, AGI 12, HAB 13, RES 14, PER 11
  Espadas 60%, Esquivar 35%, Pelea 40%
  arma "Espada corta"
  armadura "Gambesón"
"""


def crowd(k: int) -> Prepared:
    text = f"edition duelo_referencia\nrounds {ROUNDS}\n" + "".join(
        FIGHTER.format(name=f"C{i}", side="norte" if i % 2 else "sur") for i in range(k))
    enc, diags = build_encounter(text, f"crowd{k}.enc")
    if diags:
        raise GrimorioError(diags)
    return Prepared(enc, program_for("duelo_referencia", roots=[Path(__file__).resolve().parent]))


_prepared: dict = {}


def crowd_cost(k: int) -> float:
    prepared = _prepared.get(k) or _prepared.setdefault(k, crowd(k))
    runs = max(1, 20_000 // (k * ROUNDS))
    done = 0
    t = time.process_time()
    for seed in range(runs):
        done += prepared.run(seed=seed, record=False).engine.round * k
    return (time.process_time() - t) / done


def crowd_steps(k: int, seed: int = 1) -> float:
    prepared = _prepared.get(k) or _prepared.setdefault(k, crowd(k))
    eng = prepared.run(seed=seed, record=False).engine
    return eng.steps / (k * eng.round)
