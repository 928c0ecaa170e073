"""The encounters bundled with the Aquelarre ruleset: each runs to its end for
200 seeds without an error, and each has a snapshot transcript (read line by
line against the seed before it was accepted)."""
from __future__ import annotations

from pathlib import Path

import pytest

from grimorio.dsl.diagnostics import Sources
from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.run.encounter import Prepared
from grimorio.dsl.check.front import load_encounter
from grimorio.interpreter.compile.programs import program_for

FOLDER = Path(__file__).resolve().parent.parent / "rulesets" / "aquelarre"

# Each encounter, and lines its snapshot must hold: what it is there to show.
ENCOUNTERS = {
    "duelo": ["Fin del combate. En pie: Rodrigo"],
    "emboscada": ["  Navajero se lanza en Ataque de Melé contra Rodrigo: actuará el último",
                  "  Daños a Rodrigo: el proyectil da en Abdomen y lo para el escudo",
                  "    el golpe fallido de Arquero va a la Melé: d100=44 contra 50%, da a Navajero"],
    "carga": ["  Caballero carga a caballo contra Salteador"],
    "inmovilizacion": ["    Ladrón queda Inmovilizado por Alguacil"],
    "a_muerte": ["    Bandido se desmaya", "    Bandido muere", "    Soldado se desmaya", "    Soldado muere"],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ENCOUNTERS))
def test_a_bundled_encounter_runs_to_its_end_for_200_seeds(name):
    prepared = Prepared(load_encounter(FOLDER / f"{name}.enc", Sources()), program_for("aquelarre"))
    limit = prepared.enc.rounds or 100
    for seed in range(200):
        engine = prepared.run(seed=seed, record=False).engine
        sides = {c.a_side for c in engine.cb if _en_lucha(c)}
        assert len(sides) <= 1 or engine.round == limit, (name, seed)


def _en_lucha(c):
    cards = c.cards
    return not any(cards.get(k) for k in ("inconsciente", "muerto", "huido", "inmovilizado")) and not c.get("es_montura")


@pytest.mark.parametrize("name", sorted(ENCOUNTERS))
def test_a_bundled_encounter_s_transcript(name, capsys, snapshot):
    code = main(["run", str(FOLDER / f"{name}.enc")])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    lines = out.splitlines()
    for line in ENCOUNTERS[name]:
        assert line in lines
    assert out == snapshot
