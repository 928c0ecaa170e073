"""Scenario tests of the bundled Aquelarre tactics (rulesets/aquelarre/tacticas.rules) where a
game master reading the transcripts found a choice he would not make (issue 20): each pins
the dice and asserts what the tactic chooses."""
from __future__ import annotations

from tests.aquelarre import trio
from tests.conftest import run_text

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
