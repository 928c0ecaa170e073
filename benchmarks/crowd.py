"""Cost per combatant-round as an encounter grows: K combatants, half on each side,
for three rounds (`crowd_cost(K)` gives CPU seconds per combatant per round, over
enough runs to reach about 20,000 combatant-rounds; `crowd_steps(K)` the steps of
the run budget per combatant-round, and `crowd_bytecodes(K)` the Python bytecodes
per combatant-round, which measure the work done without a clock).

Two crowds:

- the uniform crowd: K copies of the demo duel's swordsman. By default it fights
  under the frozen copy of the duel's rules (`duelo_referencia`, the rules the
  hand-written twin implements), so the figure measures the engine. With
  `edition="aquelarre"` it fights under the bundled edition, the whole combat
  chapter (distances, Melés, mounts, the tactic that keeps an Action to parry):
  the figure then measures the rules as well.
- the varied crowd (`varied=True`, the bundled Aquelarre only): four kinds of
  fighter in turn, so each side has all four: sword, buckler and gambeson; short
  bow in thick clothes (ranged); short spear in mail (a longer weapon); mace,
  shield and reinforced gambeson. Nobody is scripted: the bundled tactics decide
  everything, as they would in a big battle."""
from __future__ import annotations

import time
from pathlib import Path

from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.diagnostics import GrimorioError
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for

ROUNDS = 3
REFERENCE = "duelo_referencia"
SIZES = (2, 16, 64, 128, 256)      # the varied crowd's sizes in `python -m benchmarks`
FIGHTER = """combatant {name}:
  side {side}
  FUE 14, AGI 12, HAB 13, RES 14, PER 11
  {skills}
  {gear}
"""
# The name of the dodge on each edition's sheet (the frozen copy keeps the old one).
DODGE = {REFERENCE: "Esquivar", "aquelarre": "Esquiva"}
UNIFORM = (("Espadas 60%, {dodge} 35%, Pelea 40%", 'arma "Espada corta"\n  armadura "Gambesón"'),)
VARIED = (
    ("Espadas 60%, Escudos 40%, {dodge} 35%, Pelea 40%",
     'arma "Espada corta"\n  escudo "Rodela"\n  armadura "Gambesón"'),
    ("Arcos 60%, {dodge} 40%, Pelea 30%, Cuchillos 40%", 'arma "Arco corto"\n  armadura "Ropas gruesas"'),
    ("Lanzas 55%, {dodge} 30%, Pelea 35%", 'arma "Lanza corta"\n  armadura "Cota de malla"'),
    ("Mazas 50%, Escudos 45%, {dodge} 25%, Pelea 45%",
     'arma "Maza"\n  escudo "Broquel"\n  armadura "Gambesón reforzado"'),
)


def encounter_text(k: int, edition: str = REFERENCE, varied: bool = False, rounds: int | None = ROUNDS) -> str:
    """The crowd's encounter: fighter i of the kinds in turn, on the side of i's parity (a
    varied crowd of 2 is a swordsman against an archer); `rounds=None`: until the rules end it."""
    kinds = VARIED if varied else UNIFORM
    fighters = []
    for i in range(k):
        skills, gear = kinds[i % len(kinds)]
        fighters.append(FIGHTER.format(name=f"C{i}", side="norte" if i % 2 else "sur",
                                       skills=skills.format(dodge=DODGE[edition]), gear=gear))
    return f"edition {edition}\n" + (f"rounds {rounds}\n" if rounds else "") + "".join(fighters)


def crowd(k: int, edition: str = REFERENCE, varied: bool = False, rounds: int | None = ROUNDS) -> Prepared:
    if varied and edition == REFERENCE:
        raise ValueError("the varied crowd fights under the bundled aquelarre (the frozen rules lack its gear)")
    enc, diags = build_encounter(encounter_text(k, edition, varied, rounds), f"crowd{k}.enc")
    if diags:
        raise GrimorioError(diags)
    roots = [Path(__file__).resolve().parent] if edition == REFERENCE else None
    return Prepared(enc, program_for(edition, roots=roots))


_prepared: dict = {}


def prepared(k: int, edition: str = REFERENCE, varied: bool = False) -> Prepared:
    key = (k, edition, varied)
    return _prepared.get(key) or _prepared.setdefault(key, crowd(k, edition, varied))


def crowd_cost(k: int, edition: str = REFERENCE, varied: bool = False) -> float:
    prepared_k = prepared(k, edition, varied)
    runs = max(1, 20_000 // (k * ROUNDS))
    done = 0
    t = time.process_time()
    for seed in range(runs):
        done += prepared_k.run(seed=seed, record=False).engine.round * k
    return (time.process_time() - t) / done


def crowd_steps(k: int, seed: int = 1, edition: str = REFERENCE, varied: bool = False) -> float:
    eng = prepared(k, edition, varied).run(seed=seed, record=False).engine
    return eng.steps / (k * eng.round)


def crowd_counts(k: int, seeds=(1,), edition: str = REFERENCE, varied: bool = False):
    """The bytecodes of the crowd's runs on these seeds, by code object (benchmarks/bytecodes.py),
    after one untimed run, and the combatant-rounds they fought."""
    from benchmarks.bytecodes import executed
    prepared_k = prepared(k, edition, varied)
    prepared_k.run(seed=seeds[0], record=False)
    engines = []
    counts = executed(lambda s: engines.append(prepared_k.run(seed=s, record=False).engine), seeds)
    return counts, sum(k * e.round for e in engines)


def crowd_bytecodes(k: int, seed: int = 1, edition: str = REFERENCE, varied: bool = False) -> float:
    """Python bytecodes per combatant-round (benchmarks/bytecodes.py): all the work, where the steps
    leave out the calls of rules whose calls are few (their cost is bounded, so the budget need not
    count them), which are much of what does not grow with the crowd."""
    counts, combatant_rounds = crowd_counts(k, (seed,), edition, varied)
    return sum(counts.values()) / combatant_rounds
