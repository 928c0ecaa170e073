"""Issue 23, Build 1 (Aquelarre): a clause's decision is a small named rule a layer replaces alone.
Each bundled example is at most 5 lines and shown changing a run."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from grimorio.dsl.diagnostics import Sources
from grimorio.dsl.syntax.builder import build_encounter
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.run.transcript import render_text
from tests.aquelarre import duel

CASA = Path(__file__).resolve().parent.parent / "rulesets" / "casa"
EXAMPLES = ["armadura_tronco.rules", "sin_bono_al_dano.rules"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_each_hook_example_is_at_most_5_lines(name):
    lines = [ln for ln in (CASA / name).read_text(encoding="utf-8").splitlines() if ln.strip()]
    assert len(lines) <= 5, lines


def run(text: str, house: str | None = None):
    """The engine and transcript lines of an encounter, with a house-rule file of rulesets/casa or without."""
    text = textwrap.dedent(text).lstrip("\n")
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    houses = [CASA / house] if house else []
    out = Prepared(enc, program_for(enc.edition, None, Sources({"x.enc": text}), None, houses=houses)).run()
    return out.engine, render_text(out.engine).splitlines()


def pv(engine, name):
    return next(c for c in engine.cb if c.a_name == name).get("pv")


@pytest.mark.slow
@pytest.mark.parametrize("tirada, base, casa", [
    (41, 13 - (6 - 1) * 2, 13 - 6 * 2),      # Cabeza: the house's armour does not cover it
    (44, 13 - (6 - 1), 13 - (6 - 1)),        # Pecho (Tronco): covered in both
])
def test_armour_that_protects_only_the_torso(tirada, base, casa):
    text = duel(f"""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque {tirada}
        daño 5
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: none, pass
    """, strict=False)
    for house, expected in ((None, base), ("armadura_tronco.rules", casa)):
        engine, lines = run(text, house)
        assert pv(engine, "Bandido") == expected, (house, lines)
    engine, lines = run(text, "armadura_tronco.rules")
    if tirada == 41:
        assert any(ln.startswith("  Daños de Rodrigo a Bandido: 1D6+1=6; sin armadura; Cabeza x2 -> 12") for ln in lines)
        assert next(c for c in engine.cb if c.a_name == "Bandido").get("resistencia_armadura") == 30


@pytest.mark.slow
def test_no_damage_bonus_and_no_line_saying_it_is_lost():
    # Rodrigo, FUE 16, fights with Pelea: +1D4 (CMB-39) in the edition, nothing in the house.
    # Bandido's blow leaves him past half his RES: the edition says he loses the bonus
    # (regla_dj off); the house never gave him one, so it says nothing.
    text = duel("""
        Bandido iniciativa 9
        Rodrigo iniciativa 1
        Bandido ataque 30
        daño 6
        Rodrigo ataque 20
    """, """
        round 1:
          Bandido: atacar Rodrigo, pass, none
          Rodrigo: none, atacar Bandido, pass
    """, strict=False, extra="set regla_dj = false\ndo:\n  set Rodrigo.FUE = 16\n  set Rodrigo.Pelea = 50\n"
                             "  set Rodrigo.arma = armas[\"Pelea\"]\n  set Rodrigo.pv = 5\n")
    lost = "  Rodrigo ha perdido más de la mitad de su Resistencia: pierde sus bonus al daño"
    _e, base = run(text)
    _e, casa = run(text, "sin_bono_al_dano.rules")
    assert lost in base and lost not in casa
    assert any(ln.startswith("  Daños de Rodrigo a Bandido: 1D3+1D4=") for ln in base)
    assert any(ln.startswith("  Daños de Rodrigo a Bandido: 1D3=") for ln in casa)
