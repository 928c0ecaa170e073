"""Scenario tests of the bundled Aquelarre tactics (rulesets/aquelarre/tacticas.rules) where a
game master reading the transcripts found a choice he would not make (issue 20): each pins
the dice and asserts what the tactic chooses."""
from __future__ import annotations

import pytest

from tests.aquelarre import duel, trio
from tests.conftest import run_text
from tests.test_cmb import jinete

# A rider caught in a Melé by Bandido (who launched it), with Cabalgar 50, Lanzas 60, Pelea 60.
MELÉ_JINETE = ("  situar(Bandido, Rodrigo, 0)\n  append Bandido.se_lanzó_a, Rodrigo\n"
               "  set Rodrigo.Cabalgar = 50\n  set Rodrigo.Lanzas = 60\n  set Rodrigo.Pelea = 60\n")

# Rodrigo: AGI 12, Espadas 60, Esquiva 40; Bandido: AGI 10, Palo 45 (Garrote), Esquiva 30;
# Compinche: AGI 9, Daga (Cuchillos 40%), Esquiva 25, Pelea 35.


def test_CMB_28_no_action_left_the_tactic_does_not_extend_a_parada_it_cannot_win():
    # Unscripted Rodrigo (Espadas 20, Esquiva 10) keeps his last Action against two enemies and
    # parries Bandido with it. Against Compinche, with no Action left, extending that Parada
    # would be 20 - 25 = -5%: a roll a GM does not make. He takes the blow undefended.
    r = run_text(trio("""
        Rodrigo iniciativa 9
        Bandido iniciativa 5
        Compinche iniciativa 1
        Rodrigo ataque 95
        Bandido ataque 20
        Rodrigo parada 10
        Compinche ataque 30
    """, """
        round 1:
          Bandido: atacar Rodrigo, pass
          Compinche: atacar Rodrigo, pass
    """, extra="do:\n  set Rodrigo.Espadas = 20\n  set Rodrigo.Esquiva = 10\n", strict=False))
    assert "    Rodrigo para con la Espada corta: 1D100=10 contra 20% -> éxito" in r.lines
    assert not any("contra -" in ln for ln in r.lines), r.text
    assert not any("malus por varios enemigos" in ln for ln in r.lines), r.text


def test_CMB_18_a_rider_caught_in_a_melé_breaks_free_to_use_his_lance():
    # CMB-32 caps a rider's every weapon at his Cabalgar (50), the fist too: his Lanza corta
    # (Lanzas 60 -> 50) is no worse than his Pelea in the Melé (60 -> 50, the roll too) and hits harder (1D6+1
    # against 1D3). Caught in a Melé (CMB-16: there he could only punch), unscripted Rodrigo
    # breaks free (CMB-18) and strikes with the lance, instead of punching Asalto after Asalto
    # (carga.enc under the old rules: 23 Asaltos of Pelea).
    r = run_text(jinete("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo pelea 20
        Rodrigo ataque 95
    """, """
        round 1:
          Bandido: pass
    """, arma_r='"Lanza corta"', extra=MELÉ_JINETE, strict=False))
    assert "  Rodrigo se libra de la Melé con Bandido: 1D100=20 contra 50% -> éxito" in r.lines, r.text
    assert "  Rodrigo ataca a Bandido con la Lanza corta: 1D100=95 contra 50% -> pifia" in r.lines, r.text
    assert not any("con Pelea" in ln for ln in r.lines), r.text


@pytest.mark.parametrize("metros, recorre", [(30, 28), (4, 2), (12, 10)])
def test_CMB_34_the_charge_says_how_far_it_galloped(metros, recorre):
    # "Cuando Caballo y jinete se lanzan al galope contra un enemigo ... la primera Acción de
    # Combate deberá ser obligatoriamente de Movimiento": the seed gives no horse speed, so the
    # charge ends 2 m from the target from any distance; the line says the ground it covered.
    r = run_text(jinete("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 95
    """, """
        round 1:
          Rodrigo: cargar Bandido
          Bandido: none, pass
    """, extra=f"  situar(Rodrigo, Bandido, {metros})\n  set Rodrigo.Cabalgar = 70\n", strict=False))
    assert f"  Rodrigo carga a caballo contra Bandido: recorre {recorre} m al galope y queda a 2 m de él" in r.lines, r.text
    assert r.field("Rodrigo", "acciones") == 0


@pytest.mark.parametrize("metros, linea", [
    (6, "  Bandido arroja la Daga a Rodrigo a distancia Corta (+20%): 1D100=80 contra 70% -> fallo"),
    (12, "  Bandido arroja la Daga a Rodrigo a distancia Corta (+20%): 1D100=80 contra 70% -> fallo"),
    (2, "  Bandido se lanza en Melé contra Rodrigo con la Daga: 1D100=80 contra 50% -> fallo"),
])
def test_CMB_09_a_knifeman_throws_his_daga_only_beyond_cuerpo_a_cuerpo(metros, linea):
    # emboscada.enc's Navajero never throws: he starts 2 m from Rodrigo and stays within 3 m
    # (or in a Melé) while he stands, and there "el Ataque es Cuerpo a Cuerpo" (CMB-09): a
    # Daga strikes in the hand (against a longer weapon, he launches a Melé). Beyond 3 m and within Corta range (FUE 13: 10 m) a GM throws it
    # (+20%); from 12 m he walks 6 m first (CMB-08), then throws.
    r = run_text(duel("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Bandido ataque 80
    """, """
        round 1:
          Rodrigo: pass
    """, arma_b='"Daga"', extra=f"do:\n  situar(Bandido, Rodrigo, {metros})\n", strict=False))
    assert linea in r.lines, r.text
    if metros == 12:
        assert "  Bandido avanza 6 m hacia Rodrigo y queda a 6 m de él" in r.lines, r.text


def test_CMB_18_the_tactic_does_not_roll_zafarse_without_pelea():
    # Keeping an enemy out of a Melé is a Pelea roll (CMB-18): Rodrigo has no Pelea (0%), and a
    # GM does not spend an Action on a roll that cannot succeed; Bandido's launch goes ahead.
    r = run_text(duel("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Bandido ataque 80
    """, """
        round 1:
          Rodrigo: pass
    """, arma_b='"Daga"', extra="do:\n  situar(Bandido, Rodrigo, 2)\n", strict=False))
    assert "  Bandido se lanza en Melé contra Rodrigo con la Daga: 1D100=80 contra 50% -> fallo" in r.lines
    assert not any("zafarse" in ln for ln in r.lines), r.text


def test_the_opposite_number_counted_once_follows_a_rule_that_changes_sides():
    # tacticas.rules reads each fighter's opposite number from what was counted with the places
    # (distancias.rules, "contrarios"), not walking the enemies each decision. A rule (a house
    # rule, a layer) may still change a side: then the one counted may be an ally now, and the
    # tactic takes the one of his place among his enemies of now, as when it counted them each
    # time, instead of an ally it could not attack (C0 stood idle against C1, who joined him).
    from benchmarks.crowd import encounter_text
    from grimorio.dsl.syntax.builder import build_encounter
    from grimorio.interpreter.compile.programs import program_for
    from grimorio.interpreter.run.encounter import Prepared
    text = encounter_text(4, "aquelarre", varied=True, rounds=1) + (
        "do:\n  colocar()\n  expect blanco(C0) == C1\n  set C1.side = \"sur\"\n"
        "  expect blanco(C0) == C3\n  expect blanco(C2) == C3\n")
    enc, diags = build_encounter(text, "bandos.enc")
    assert not diags
    out = Prepared(enc, program_for("aquelarre")).run(seed=1)
    assert [v.ok for v in out.expectations] == [True] * 3, [(v.ok, v.left, v.right) for v in out.expectations]
