"""Scenario tests of the lines two game-master readers would not sign in the bundled
Aquelarre transcripts (issue 20): each pins the dice and asserts what the seed says."""
from __future__ import annotations

import pytest

from tests.aquelarre import duel, trio
from tests.conftest import run_text

# Rodrigo: AGI 12, Espadas 60, Esquiva 40; Bandido: AGI 10, Palo 45 (Garrote), Esquiva 30;
# Compinche: AGI 9, Daga (Cuchillos 40%), Esquiva 25, Pelea 35.

TIED_EXCHANGE = """
Rodrigo iniciativa 4
Bandido iniciativa {ini_b}
Rodrigo ataque 30
Bandido parada 20
Bandido ataque 20
"""


def test_CMB_04_a_tie_leaves_the_first_listed_his_parry():
    # Both at 16, playing their own tactics: Rodrigo, first listed, attacks; Bandido
    # parries and answers; Rodrigo still has his second Acción and parries.
    r = run_text(duel(TIED_EXCHANGE.format(ini_b=6) + "Rodrigo parada 30\n"))
    assert r.lines[3:7] == [
        "  Rodrigo ataca a Bandido con la Espada corta: 1D100=30 contra 60% -> éxito",
        "    Bandido para con el Garrote: 1D100=20 contra 45% -> éxito",
        "  Bandido ataca a Rodrigo con el Garrote: 1D100=20 contra 45% -> éxito",
        "    Rodrigo para con la Espada corta: 1D100=30 contra 60% -> éxito"]
    assert r.field("Rodrigo", "acciones") == 0 and r.field("Bandido", "acciones") == 0


def test_CMB_04_one_point_apart_the_first_may_spend_both_actions():
    # Rodrigo 16, Bandido 15: not a tie. Rodrigo acts whole first (two attacks); Bandido
    # parries both with one Parada and answers; Rodrigo has nothing left to parry with.
    r = run_text(duel(TIED_EXCHANGE.format(ini_b=5) + "Rodrigo ataque 80\nBandido daño 3\n"))
    assert r.lines[3:8] == [
        "  Rodrigo ataca a Bandido con la Espada corta: 1D100=30 contra 60% -> éxito",
        "    Bandido para con el Garrote: 1D100=20 contra 45% -> éxito",
        "  Rodrigo ataca a Bandido con la Espada corta: 1D100=80 contra 60% -> fallo",
        "  Bandido ataca a Rodrigo con el Garrote: 1D100=20 contra 45% -> éxito",
        "    Rodrigo no se defiende: no le quedan Acciones"]


def test_CMB_04_a_three_way_tie_takes_one_action_each_in_turn():
    # All three at 16. Rodrigo (a Daga, Cuchillos 50%) launches a Melé at Bandido; then
    # Bandido and Compinche attack him in turn, one Acción each, not Bandido twice first.
    # Rodrigo, first listed, still has his second Acción: one Parada against Bandido,
    # extended to Compinche with the malus (-25%).
    r = run_text(trio("""
Rodrigo iniciativa 4
Bandido iniciativa 6
Compinche iniciativa 7
Bandido ataque 20
Rodrigo parada 20
Compinche ataque 20
Rodrigo parada 20
Bandido ataque 86
Compinche ataque 8
Rodrigo parada 91
Rodrigo ataque 30
Rodrigo desarme 65
Compinche daño 2 1
Rodrigo daño 1 1
""", arma_r='"Daga"'))
    assert [ln for ln in r.lines if not ln.startswith("    ")][4:9] == [
        "  Rodrigo se lanza en Ataque de Melé contra Bandido: actuará el último",
        "  Bandido ataca a Rodrigo con el Garrote: 1D100=20 contra 45% -> éxito",
        "  Compinche ataca a Rodrigo con la Daga: 1D100=20 contra 40% -> éxito",
        "  Bandido ataca a Rodrigo con el Garrote: 1D100=86 contra 45% -> fallo",
        "  Compinche ataca a Rodrigo con la Daga: 1D100=8 contra 40% -> éxito"]
    assert "    Rodrigo para con la Daga: 1D100=20 contra 50% -> éxito" in r.lines
    assert "    Rodrigo para con la Daga: 1D100=20 contra 25% (malus por varios enemigos) -> éxito" in r.lines
    assert not any("Rodrigo no se defiende" in ln for ln in r.lines)
