"""Scenario tests of the Aquelarre combat clauses (CMB-xx): each pins the dice it
needs and asserts the outcome the seed text demands."""
from __future__ import annotations

import pytest

from tests.aquelarre import duel, scene, trio
from tests.conftest import diagnostics_of, run_text

# Rodrigo: AGI 12, Espadas 60 (crítico <= 6), Esquivar 40, Gambesón (Protección 2, Resistencia 50), RES 14.
# Bandido: AGI 10, Mazas 45 (crítico <= 5), Esquivar 30, Ropas gruesas (Protección 1, Resistencia 30), RES 13.


def test_CMB_01_round_is_initiative_then_actions_then_damage_in_resolution_order():
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 2
        Rodrigo ataque 14
        Bandido ataque 25
        daño 5
        daño 3
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass, none
          Bandido: none, atacar Rodrigo, pass
    """))
    lines = r.lines
    assert lines[0] == "Asalto 1"
    assert lines[1].startswith("  Iniciativa: Rodrigo") and lines[2].startswith("  Iniciativa: Bandido")
    # Both attacks resolve before any damage is determined ...
    ataque_r = lines.index("  Rodrigo ataca a Bandido con Espada corta: d100=14 contra 60% -> éxito")
    ataque_b = lines.index("  Bandido ataca a Rodrigo con Garrote: d100=25 contra 45% -> éxito")
    danos = [i for i, ln in enumerate(lines) if ln.startswith("  Daños de")]
    assert ataque_r < ataque_b < danos[0]
    # ... and damage is determined in the order the hits resolved.
    assert lines[danos[0]].startswith("  Daños de Rodrigo a Bandido")
    assert lines[danos[1]].startswith("  Daños de Bandido a Rodrigo")
    assert r.field("Bandido", "pv") == 13 - (5 + 1 - 1)  # 1D6+1, Ropas gruesas absorb 1, Pecho x1
    assert r.field("Rodrigo", "pv") == 14 - (3 - 2)     # Pecho x1, Gambesón absorbs 2


def test_CMB_02_initiative_is_1d10_plus_agilidad_every_round():
    r = run_text(duel("""
        Rodrigo iniciativa 7
        Bandido iniciativa 4
        Rodrigo iniciativa 1
        Bandido iniciativa 10
    """, """
        round 1:
          Rodrigo: pass
          Bandido: pass
        round 2:
          Rodrigo: pass
          Bandido: pass
    """, rounds=2))
    assert "  Iniciativa: Rodrigo 19 (1D10=7 + AGI 12)" in r.lines
    assert "  Iniciativa: Bandido 14 (1D10=4 + AGI 10)" in r.lines
    assert "  Iniciativa: Rodrigo 13 (1D10=1 + AGI 12)" in r.lines
    assert "  Iniciativa: Bandido 20 (1D10=10 + AGI 10)" in r.lines
    assert r.field("Bandido", "iniciativa") == 20


def test_CMB_03_highest_initiative_acts_first():
    # Bandido 10+9 = 19 beats Rodrigo 12+1 = 13, although Rodrigo is listed first.
    r = run_text(duel("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Bandido ataque 80
        Rodrigo ataque 70
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: atacar Rodrigo, pass
    """))
    first = next(ln for ln in r.lines if " ataca a " in ln)
    assert first.startswith("  Bandido ataca a Rodrigo")


# Both at 16 (4 + AGI 12, 6 + AGI 10); Rodrigo's head critical (01) would fell Bandido.
TIE_DICE = """
        Rodrigo iniciativa 4
        Bandido iniciativa 6
        Rodrigo ataque 1
        Bandido ataque 24
        daño 6
        Bandido secuela 1
"""
TIE_SCRIPT = """
        round 1:
          Rodrigo: atacar Bandido, pass, none
          Bandido: none, atacar Rodrigo, pass
"""


def test_CMB_04_equal_initiatives_act_simultaneously():
    # Both at 16. Rodrigo's critical would fell Bandido (7 x2 at the head = 14 >= 13),
    # yet Bandido, tied with him, still attacks in the same round and hits.
    r = run_text(duel(TIE_DICE, TIE_SCRIPT))
    assert "  Iniciativa: Rodrigo 16 (1D10=4 + AGI 12)" in r.lines
    assert "  Iniciativa: Bandido 16 (1D10=6 + AGI 10)" in r.lines
    assert "  Bandido ataca a Rodrigo con Garrote: d100=24 contra 45% -> éxito" in r.lines
    assert r.field("Bandido", "pv") == 13 - 14
    assert r.has("Bandido", "inconsciente")
    assert r.field("Rodrigo", "pv") == 14 - (6 - 2)


def test_CMB_07_two_actions_per_round_of_any_type():
    # Bandido parries (one action) and then has one attack left; Rodrigo attacks twice.
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 20
        Bandido parada 10
        Rodrigo ataque 70
        Bandido ataque 90
    """, """
        round 1:
          Rodrigo: atacar Bandido, atacar Bandido
          Bandido: parar, none, atacar Rodrigo
    """))
    assert r.field("Rodrigo", "acciones") == 0
    assert r.field("Bandido", "acciones") == 0
    assert sum(" ataca a " in ln for ln in r.lines) == 3


def test_CMB_07_a_third_action_is_refused_with_the_script_line():
    text = duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 90
        Rodrigo ataque 90
    """, """
        round 1:
          Rodrigo: atacar Bandido, atacar Bandido, atacar Bandido
          Bandido: pass
    """)
    out = diagnostics_of(text)
    assert 'error[E0504]: Rodrigo never got to "atacar Bandido" in round 1' in out
    assert "--> scenario.enc:23:44" in out
    assert "23 |   Rodrigo: atacar Bandido, atacar Bandido, atacar Bandido" in out


def test_CMB_19_defence_answers_the_attack_at_once_whatever_the_initiative():
    # Bandido has the lower initiative but parries right after Rodrigo's attack.
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 30
        Bandido parada 12
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: parar, pass
    """))
    i = r.lines.index("  Rodrigo ataca a Bandido con Espada corta: d100=30 contra 60% -> éxito")
    assert r.lines[i + 1] == "    Bandido para con Garrote: d100=12 contra 45% -> éxito"
    assert r.field("Bandido", "acciones") == 1


def test_CMB_20_dodge_rolls_esquivar_halved_against_a_critical():
    # Normal hit: Esquivar 30 in full; a 28 dodges.
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 40
        Bandido esquiva 28
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: esquivar, pass
    """))
    assert "    Bandido esquiva: d100=28 contra 30% -> éxito" in r.lines
    assert r.field("Bandido", "pv") == 13
    # Critical hit (03 <= 6): the chance is halved to 15%, so the same 28 fails.
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 3
        Bandido esquiva 28
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: esquivar, pass
    """))
    assert "  Rodrigo ataca a Bandido con Espada corta: d100=3 contra 60% -> crítico" in r.lines
    assert "    Bandido intenta esquivar: d100=28 contra 15% -> fallo" in r.lines
    assert r.field("Bandido", "pv") < 13


def test_CMB_22_parry_uses_the_weapon_skill_and_stops_even_a_critical():
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 2
        Bandido parada 40
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: parar, pass
    """))
    assert "  Rodrigo ataca a Bandido con Espada corta: d100=2 contra 60% -> crítico" in r.lines
    assert "    Bandido para con Garrote: d100=40 contra 45% -> éxito" in r.lines
    assert r.field("Bandido", "pv") == 13
    assert not any(ln.startswith("  Daños") for ln in r.lines)


def test_CMB_22_a_stiletto_cannot_parry():
    text = duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 30
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: parar
    """, arma_b='"Estilete"')
    out = diagnostics_of(text)
    assert 'error[E0504]: the rules do not allow Bandido to "parar" now' in out
    assert "allowed: esquivar" in out
    # Unscripted, the ruleset's tactic dodges instead.
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 30
        Bandido esquiva 99
        daño 4
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: pass
    """, arma_b='"Estilete"'))
    assert "    Bandido intenta esquivar: d100=99 contra 30% -> pifia" in r.lines


@pytest.mark.parametrize("defence, pins, hit", [
    ("none", "", True),                       # no defence declared
    ("parar", "Bandido parada 80", True),     # defence failed
    ("parar", "Bandido parada 20", False),    # defence succeeded
])
def test_CMB_36_a_blow_hits_when_the_defence_fails_or_none_was_declared(defence, pins, hit):
    dice = f"""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 35
        {pins}
        {"daño 4" if hit else ""}
    """
    r = run_text(duel(dice, f"""
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: {defence}, pass
    """))
    assert (r.field("Bandido", "pv") < 13) is hit
    if defence == "none":
        assert "    Bandido no se defiende" in r.lines


def test_CMB_37_a_critical_deals_maximum_damage_ignoring_armour():
    # 04 <= 6 is a critical; the units digit 4 is the Pecho (x1). Espada corta 1D6+1: 7.
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 4
        Bandido secuela 1
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: none, pass
    """))
    assert r.field("Bandido", "pv") == 13 - 7
    assert r.field("Bandido", "resistencia_armadura") == 30      # armour ignored, untouched
    assert "  Daños de Rodrigo a Bandido: crítico, daño máximo 7 sin armadura; Pecho x1 -> 7" in r.lines


def test_CMB_42_armour_loses_resistance_equal_to_damage_and_stops_its_proteccion():
    r = run_text(duel("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Bandido ataque 44
        daño 5
    """, """
        round 1:
          Bandido: atacar Rodrigo, pass
          Rodrigo: none, pass
    """))
    assert r.field("Rodrigo", "resistencia_armadura") == 50 - 5
    assert r.field("Rodrigo", "pv") == 14 - (5 - 2)


@pytest.mark.parametrize("roll, lugar, expected", [
    (41, "Cabeza", 8),            # 1: x2 -> (6-2)*2
    (32, "Brazo derecho", 2),     # 2: /2 -> 4/2
    (43, "Brazo izquierdo", 2),   # 3: /2
    (25, "Pecho", 4),             # 4-6: x1
    (38, "Abdomen", 4),           # 7-8: x1
    (19, "Pierna derecha", 2),    # 9: /2
    (30, "Pierna izquierda", 2),  # 0 counts as 10: /2
])
def test_CMB_44_units_digit_gives_location_applied_after_armour(roll, lugar, expected):
    # Bandido's Garrote 1D6 = 6 against Rodrigo's Gambesón (2): 4 get through.
    # 8 at the head is more than half Rodrigo's RES 14: a Secuelas roll (CMB-50).
    r = run_text(duel(f"""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Bandido ataque {roll}
        daño 6
        {"Rodrigo secuela 1" if expected * 2 >= 14 else ""}
    """, """
        round 1:
          Bandido: atacar Rodrigo, pass
          Rodrigo: none, pass
    """))
    assert r.field("Rodrigo", "pv") == 14 - expected
    assert any(f"; {lugar} " in ln and ln.endswith(f"-> {expected}") for ln in r.lines)


def test_CMB_44_location_divides_rounding_down():
    # 5 through the armour at an arm: 5/2 = 2.5 -> 2 (the seed: round down).
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 22
        daño 6
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: none, pass
    """))
    # Espada corta 1D6+1: 6+1 = 7, Ropas gruesas absorb 1 -> 6 through, Brazo derecho /2 -> 3.
    assert r.field("Bandido", "pv") == 13 - 3
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 22
        daño 5
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: none, pass
    """))
    assert r.field("Bandido", "pv") == 13 - 2     # 5 through /2 = 2.5 -> 2


def test_CMB_51_at_zero_resistance_the_combatant_faints_and_stops_acting():
    # A head critical: 7 x2 = 14 >= Bandido's 13 -> PV -1: fainted, not dead.
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 1
        Bandido secuela 1
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: none, pass
    """, rounds=2))
    assert r.field("Bandido", "pv") == -1
    assert r.has("Bandido", "inconsciente") and not r.has("Bandido", "muerto")
    assert "    Bandido se desmaya" in r.lines
    # The fight is over: only one side stands, and Bandido rolls no initiative again.
    assert r.lines[-1] == "Fin del combate. En pie: Rodrigo"
    assert r.engine.round == 1


def test_CMB_52_at_minus_its_resistance_the_combatant_dies():
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 1
        Rodrigo ataque 1
        Bandido secuela 1
    """, """
        round 1:
          Rodrigo: atacar Bandido, atacar Bandido
          Bandido: none, none, pass
    """))
    # Two head criticals: 14 + 14 = 28 -> PV -15 <= -13.
    assert r.field("Bandido", "pv") == 13 - 28
    assert r.has("Bandido", "muerto") and not r.has("Bandido", "inconsciente")
    assert "    Bandido muere" in r.lines


IMMEDIATE = "set daños_al_final = false\n"


def test_CMB_01_option_damage_as_each_attack_resolves():
    # With the option off, damage is determined right after each attack: Bandido,
    # felled by Rodrigo's earlier blow, does not get to attack later in the round.
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 2
        Rodrigo ataque 1
        Bandido secuela 1
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: none
    """, extra=IMMEDIATE))
    i = r.lines.index("  Rodrigo ataca a Bandido con Espada corta: d100=1 contra 60% -> crítico")
    assert r.lines[i + 2].startswith("  Daños de Rodrigo a Bandido: crítico")
    assert r.has("Bandido", "inconsciente")
    assert not any(ln.startswith("  Bandido ataca") for ln in r.lines)


def test_CMB_04_ties_act_simultaneously_even_with_damage_as_attacks_resolve():
    # Damage lands at once, yet Bandido, tied with Rodrigo at 16, was standing when
    # their shared turn began: he still attacks, though Rodrigo's blow felled him.
    r = run_text(duel(TIE_DICE, TIE_SCRIPT, extra=IMMEDIATE))
    assert r.has("Bandido", "inconsciente")
    assert "  Bandido ataca a Rodrigo con Garrote: d100=24 contra 45% -> éxito" in r.lines
    assert r.field("Rodrigo", "pv") == 14 - (6 - 2)
    # One point lower, Bandido acts after Rodrigo and, felled, does not attack.
    r = run_text(duel("""
        Rodrigo iniciativa 4
        Bandido iniciativa 5
        Rodrigo ataque 1
        Bandido secuela 1
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: none
    """, extra=IMMEDIATE))
    assert r.has("Bandido", "inconsciente")
    assert not any(ln.startswith("  Bandido ataca") for ln in r.lines)


# ---------------------------------------------------------------- readings fixed
# Compinche: AGI 9, Daga (Cuchillos 40%), Esquiva 25%, on Bandido's side.


def test_CMB_28_one_action_covers_every_parry_of_the_round_one_roll_each():
    # Rodrigo attacks twice; Bandido parries both with ONE action (a roll for
    # each) and still has an action to attack. Under the old reading each parry
    # took an action and Bandido could not attack.
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 20
        Bandido parada 10
        Rodrigo ataque 30
        Bandido parada 70
        Bandido ataque 90
        daño 3
    """, """
        round 1:
          Rodrigo: atacar Bandido, atacar Bandido
          Bandido: parar, parar, atacar Rodrigo
    """))
    assert "    Bandido para con Garrote: d100=10 contra 45% -> éxito" in r.lines
    assert "    Bandido intenta parar con Garrote: d100=70 contra 45% -> fallo" in r.lines
    assert "  Bandido ataca a Rodrigo con Garrote: d100=90 contra 45% -> fallo" in r.lines
    assert r.field("Bandido", "acciones") == 0
    # The failed parry let the second blow through: 3+1, Ropas gruesas 1, 30 is Pierna izquierda /2.
    assert r.field("Bandido", "pv") == 13 - (3 + 1 - 1) // 2


def test_CMB_28_a_parry_extended_to_a_second_enemy_carries_the_malus():
    # Rodrigo parries Bandido (one action), then extends that Parada to
    # Compinche without a new action: 60% - 25% (edition data) = 35%.
    r = run_text(trio("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Compinche iniciativa 5
        Bandido ataque 20
        Rodrigo parada 10
        Compinche ataque 30
        Rodrigo parada 30
    """, """
        round 1:
          Bandido: atacar Rodrigo, pass
          Compinche: atacar Rodrigo, pass
          Rodrigo: parar, ampliar_parada, pass
    """))
    assert "    Rodrigo para con Espada corta: d100=10 contra 60% -> éxito" in r.lines
    assert "    Rodrigo para con Espada corta: d100=30 contra 35% (malus por varios enemigos) -> éxito" in r.lines
    assert r.field("Rodrigo", "acciones") == 1


def test_CMB_28_two_paradas_each_against_its_own_enemy_spend_both_actions():
    r = run_text(trio("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Compinche iniciativa 5
        Bandido ataque 20
        Rodrigo parada 10
        Compinche ataque 30
        Rodrigo parada 50
        Bandido ataque 25
        Rodrigo parada 40
    """, """
        round 1:
          Bandido: atacar Rodrigo
          Compinche: atacar Rodrigo, pass
          Bandido: atacar Rodrigo
          Rodrigo: parar, parar, parar, pass
    """))
    # No malus: each Parada covers one enemy; Bandido's second attack is covered
    # by the first Parada, without a third action.
    assert "    Rodrigo para con Espada corta: d100=50 contra 60% -> éxito" in r.lines
    assert "    Rodrigo para con Espada corta: d100=40 contra 60% -> éxito" in r.lines
    assert r.field("Rodrigo", "acciones") == 0
    assert r.field("Rodrigo", "pv") == 14


def test_CMB_21_one_dodge_serves_against_every_attack_of_one_enemy():
    # One Esquiva roll (20 against 30) and one action cover both of Rodrigo's
    # attacks; the old reading rolled and paid again.
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 20
        Bandido esquiva 20
        Rodrigo ataque 30
        Bandido ataque 90
    """, """
        round 1:
          Rodrigo: atacar Bandido, atacar Bandido
          Bandido: esquivar, esquivar, atacar Rodrigo
    """))
    assert "    Bandido esquiva: d100=20 contra 30% -> éxito" in r.lines
    assert "    Bandido esquiva con la misma tirada: d100=20 contra 30% -> éxito" in r.lines
    assert r.field("Bandido", "pv") == 13 and r.field("Bandido", "acciones") == 0


def test_CMB_21_the_same_dodge_roll_is_halved_against_a_later_critical():
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 20
        Bandido esquiva 20
        Rodrigo ataque 2
    """, """
        round 1:
          Rodrigo: atacar Bandido, atacar Bandido
          Bandido: esquivar, esquivar, pass
    """))
    assert "    Bandido intenta esquivar con la misma tirada: d100=20 contra 15% -> fallo" in r.lines
    assert r.field("Bandido", "pv") == 13 - 7 // 2      # critical 7 at Brazo derecho /2


def test_CMB_21_dodging_two_enemies_costs_two_actions():
    r = run_text(trio("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Compinche iniciativa 5
        Bandido ataque 20
        Rodrigo esquiva 10
        Compinche ataque 30
        Rodrigo esquiva 15
    """, """
        round 1:
          Bandido: atacar Rodrigo, pass
          Compinche: atacar Rodrigo, pass
          Rodrigo: esquivar, esquivar
    """))
    assert r.field("Rodrigo", "acciones") == 0
    assert sum("Rodrigo esquiva: d100=" in ln for ln in r.lines) == 2
    assert not any("Rodrigo ataca" in ln for ln in r.lines)


def test_CMB_53_an_unconscious_combatant_attacked_dies_and_the_hit_is_automatic():
    # No attack roll is pinned (dice strict): the hit is automatic. Under the
    # old rules the unconscious could not be attacked at all.
    r = run_text(duel("""
        Rodrigo iniciativa 9
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
    """, extra="do:\n  add Bandido inconsciente\n"))
    assert "  Rodrigo ataca a Bandido, que está inconsciente: impacta de manera automática" in r.lines
    assert "    Bandido muere" in r.lines
    assert r.has("Bandido", "muerto") and not r.has("Bandido", "inconsciente")


@pytest.mark.parametrize("arma", ['"Garrote"', '"Palo"'])
def test_weapons_the_palo_skill_serves_palo_and_garrote(arma):
    # Bandido has Palo 45% and no Mazas: both weapons roll against 45%
    # (the old sheet rolled the Garrote with Mazas).
    r = run_text(duel("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Bandido ataque 80
    """, """
        round 1:
          Bandido: atacar Rodrigo, pass
          Rodrigo: pass
    """, arma_b=arma))
    nombre = arma.strip('"')
    assert f"  Bandido ataca a Rodrigo con {nombre}: d100=80 contra 45% -> fallo" in r.lines
    assert r.field("Bandido", "Mazas") == 0
