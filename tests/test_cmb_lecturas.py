"""Scenario tests of the lines two game-master readers would not sign in the bundled
Aquelarre transcripts (issue 20): each pins the dice and asserts what the seed says."""
from __future__ import annotations

import pytest

from tests.aquelarre import duel, one_action, trio
from tests.conftest import diagnostics_of, run_text

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


# ---------------------------------------------------------------- CMB-30: several holders
# Rodrigo FUE 14, Bandido FUE 13, Compinche FUE 12 (Pelea 35%).
HELD = "do:\n  situar(Rodrigo, Bandido, 0)\n  add Rodrigo inmovilizado\n  situar(Compinche, Rodrigo, 2)\n"


def test_CMB_30_a_second_captor_joins_the_hold_instead_of_immobilising_again():
    # Rodrigo is already held by Bandido; Compinche launches a Melé to immobilise him: no
    # second FUE x 2 contest, he joins the hold ("varios atacantes pueden sumar sus Fuerzas").
    r = run_text(trio("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Compinche iniciativa 5
    """, """
        round 1:
          Bandido: pass
          Compinche: lanzarse_a_inmovilizar Rodrigo, pass
          Rodrigo: pass
    """, extra=HELD))
    assert "    Compinche se suma a la presa: Rodrigo sigue Inmovilizado, ahora por Bandido y Compinche" \
           " (suman sus Fuerzas: FUE 25)" in r.lines
    assert not any("intenta Inmovilizar" in ln for ln in r.lines)
    assert r.has("Rodrigo", "inmovilizado")


@pytest.mark.parametrize("fuerza, libre", [(51, True), (50, False)])
def test_CMB_30_breaking_free_rolls_against_every_holder_s_fue_named_in_the_line(fuerza, libre):
    # Held by Bandido and Compinche, Rodrigo passes his Pelea roll; the holders roll their
    # FUE together, (13 + 12) x 2 = 50%: 51 fails (he is free), 50 succeeds (he is still held).
    r = run_text(trio(f"""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Compinche iniciativa 1
        Rodrigo pelea 20
        Bandido fuerza {fuerza}
    """, """
        round 1:
          Rodrigo: liberarse Bandido, pass
          Bandido: pass
          Compinche: pass
    """, extra=HELD + "  situar(Compinche, Rodrigo, 0)\n  set Rodrigo.Pelea = 40\n"))
    assert (f"  Rodrigo intenta librarse de Bandido y de Compinche: Pelea 1D100=20 contra 40% -> éxito; "
            f"Bandido y Compinche, FUE x 2 (suman sus Fuerzas: FUE 25): 1D100={fuerza} contra 50%") in r.lines[4]
    assert r.has("Rodrigo", "inmovilizado") is not libre


def test_CMB_30_the_lines_agree_with_a_woman_held():
    # The sheet's "género" (m by default) is what the messages agree with.
    r = run_text(trio("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Compinche iniciativa 5
        Compinche ataque 30
        daño 2 1
        Bandido fuerza 10
        Rodrigo fuerza 90
    """, """
        round 1:
          Bandido: inmovilizar Rodrigo, pass
          Compinche: atacar Rodrigo, pass
          Rodrigo: pass
    """, extra="do:\n  situar(Rodrigo, Bandido, 0)\n  set Rodrigo.género = \"f\"\n"))
    assert "    Rodrigo queda Inmovilizada por Bandido" in r.lines
    assert "    Rodrigo no se defiende: está Inmovilizada" in r.lines


def test_CMB_30_a_launch_to_immobilise_a_woman_says_inmovilizarla():
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Bandido pelea 90
        Rodrigo fuerza 90
        Bandido fuerza 90
    """, """
        round 1:
          Rodrigo: lanzarse_a_inmovilizar Bandido, pass
          Bandido: zafarse, pass
    """, extra="do:\n  set Bandido.género = \"f\"\n  set Rodrigo.Pelea = 40\n", arma_r='"Daga"'))
    assert "  Rodrigo se lanza en Ataque de Melé contra Bandido para Inmovilizarla: actuará el último" in r.lines


# ---------------------------------------------------------------- every roll that decides is shown
RODELA = 'do:\n  set Bandido.escudo = escudos["Rodela"]\n  set Bandido.resistencia_escudo = 80\n  set Bandido.Escudos = 50\n'


def test_CMB_26_the_shield_shows_the_damage_roll_it_absorbs():
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 30
        Bandido parada 20
        daño 5
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: parar, pass
    """, extra=RODELA))
    assert "  La Rodela de Bandido para el golpe de Rodrigo: 1D6+1=6; recibe 6 puntos de daño," \
           " le quedan 74 de Resistencia" in r.lines


def test_CMB_26_a_critical_on_the_shield_shows_the_maximum_it_absorbs():
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 2
        Bandido parada 20
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: parar, pass
    """, extra=RODELA))
    assert "  La Rodela de Bandido para el golpe de Rodrigo: crítico, daño máximo 7; recibe 7 puntos de daño," \
           " le quedan 73 de Resistencia" in r.lines


CABALLO = """\
combatant Caballo:
  side cristianos
  FUE 25, AGI 12, HAB 5, RES 25, PER 10
  es_montura true
  tactic montura
"""


def test_CMB_34_the_charge_shows_the_roll_and_its_doubling():
    text = duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 34
        daño 4
        Bandido secuela 1
    """, """
        round 1:
          Rodrigo: cargar Bandido
          Bandido: none, pass
    """, extra='do:\n  set Rodrigo.montura = "Caballo"\n  set Rodrigo.Cabalgar = 70\n  situar(Rodrigo, Bandido, 30)\n')
    head, _, rest = text.partition("dice")
    r = run_text(head + CABALLO + "dice" + rest)
    assert "  Daños de Rodrigo a Bandido: 1D6+1=5 x 2 por la Carga = 10; las Ropas gruesas absorben 1; Pecho x1 -> 9" in r.lines


def test_CMB_38_the_missing_fue_is_shown_with_its_sum():
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 34
        daño 2
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: none, pass
    """, extra="do:\n  set Rodrigo.FUE = 6\n"))       # Espada corta: FUE 8, 2 missing
    assert "  Daños de Rodrigo a Bandido: 1D6+1=3 - 2 por la FUE que le falta = 1; las Ropas gruesas absorben 1; Pecho x1 -> 0" in r.lines


def test_CMB_50_the_secuela_roll_is_shown():
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 31
        daño 6
        Bandido secuela 5
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: none, pass
    """))
    # 1D6+1=7 - 1 (Ropas gruesas) = 6 x2 at the Cabeza = 12: half of RES 13 or more.
    assert "    Herida grave en la Cabeza: Bandido sufre una secuela (1D10=5), aturdimiento" in r.lines


# ---------------------------------------------------------------- Pelea parries only in a Melé
def test_CMB_22_pelea_does_not_parry_a_sword_outside_a_mele():
    # "Parada. Consiste en detener el golpe del contrario ... con un Arma o un Escudo": bare
    # hands are no Arma; the text lets Pelea defend only "una vez en Melé" (CMB-16).
    out = diagnostics_of(one_action("Rodrigo", "Bandido", """
        Rodrigo ataque 30
        Bandido parada 20
    """, "parar", arma_b='"Pelea"', strict=False, extra="do:\n  set Bandido.Pelea = 45\n"))
    assert "E0504" in out or "do not allow" in out, out
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 30
        Bandido esquiva 20
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
    """, arma_b='"Pelea"', extra="do:\n  set Bandido.Pelea = 45\n", strict=False))
    assert "    Bandido esquiva: 1D100=20 contra 30% -> éxito" in r.lines     # his tactic dodges instead


def test_CMB_16_in_a_mele_pelea_still_parries_a_weapon():
    r = run_text(one_action("Bandido", "Rodrigo", """
        Bandido ataque 30
        Rodrigo parada 20
    """, "parar", arma_b='"Daga"', extra="do:\n  situar(Rodrigo, Bandido, 0)\n  set Rodrigo.Pelea = 40\n"))
    assert "    Rodrigo para con Pelea: 1D100=20 contra 40% -> éxito" in r.lines


# ---------------------------------------------------------------- one unit: metres
@pytest.mark.parametrize("arma, metros, banda", [
    ('"Arco corto"', 12, "Corta"), ('"Arco corto"', 13, "Media"), ('"Arco corto"', 50, "Larga"),
    ('"Ballesta"', 25, "Corta"), ('"Ballesta"', 26, "Media"), ('"Ballesta"', 100, "Larga"),
    ('"Daga"', 11, "Corta"), ('"Daga"', 12, "Media"), ('"Daga"', 23, "Media"), ('"Daga"', 24, "Larga"),
])
def test_CMB_11_range_bands_are_in_metres(arma, metros, banda):
    # Arco corto 15/40/60 varas of edition data, at 0,84 m a vara: 12/33/50 m; a thrown Daga,
    # FUE 14, 28 and 42 varas: 11, 23 and 35 m. The old rules turned metres into varas by 6/5.
    r = run_text(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
    """, "round 1:\n  Rodrigo: pass\n  Bandido: pass\n", arma_r=arma, extra=f"do:\n  situar(Rodrigo, Bandido, {metros})\n"
                                  f"expect banda(Rodrigo, Rodrigo.arma, Bandido).nombre == \"{banda}\"\n"
                                  f"expect distancia(Rodrigo, Bandido) == {metros}\n", strict=False))
    assert r.lines


# ---------------------------------------------------------------- CMB-32: a rider's Pelea
# "Un combatiente a Caballo no puede tener su Competencia del Arma, que este usando, superior
# a su Competencia de Cabalgar. En caso de ser superior se le restara momentaneamente." Getting
# free of a Melé, or keeping out of one, he uses Pelea: capped by his Cabalgar (50), the value
# his tactic already decides with. Dice between the two (55): a failure, not a success at 60%.
def _a_caballo(dice, script, extra="", arma_b='"Garrote"'):
    from tests.test_cmb import jinete
    return jinete(dice, script, arma_b=arma_b, strict=False,
                  extra="  set Rodrigo.Cabalgar = 50\n  set Rodrigo.Pelea = 60\n" + extra)


def test_CMB_32_a_rider_breaks_free_of_a_melé_with_pelea_capped_by_cabalgar():
    r = run_text(_a_caballo("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo pelea 55
    """, """
        round 1:
          Rodrigo: librarse Bandido, pass
          Bandido: pass
    """, extra="  situar(Rodrigo, Bandido, 0)\nexpect distancia(Rodrigo, Bandido) == 0\n"))
    assert "  Rodrigo intenta librarse de la Melé con Bandido: 1D100=55 contra 50% -> fallo" in r.lines, r.text


def test_CMB_32_a_rider_keeps_out_of_a_melé_with_pelea_capped_by_cabalgar():
    r = run_text(_a_caballo("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Rodrigo pelea 55
        Bandido ataque 90
    """, """
        round 1:
          Bandido: lanzarse Rodrigo, pass
          Rodrigo: pass, zafarse
    """, arma_b='"Daga"', extra="expect distancia(Rodrigo, Bandido) == 0\n"))
    assert "  Rodrigo intenta zafarse de la embestida de Bandido: 1D100=55 contra 50% -> fallo" in r.lines, r.text


def test_CMB_32_an_immobilized_rider_struggles_with_pelea_capped_by_cabalgar():
    r = run_text(_a_caballo("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo pelea 55
        Bandido fuerza 90
    """, """
        round 1:
          Rodrigo: liberarse Bandido, pass
          Bandido: pass
    """, extra="  situar(Rodrigo, Bandido, 0)\n  add Rodrigo inmovilizado\n"))
    assert r.has("Rodrigo", "inmovilizado"), r.text
    assert any(ln.startswith("  Rodrigo intenta librarse de Bandido: Pelea 1D100=55 contra 50% -> fallo")
               for ln in r.lines), r.text


# ---------------------------------------------------------------- CMB-28: no Parada at 0% or less
# "Se usa, para esta Acción, el mismo porcentaje que tengamos en la Competencia del Arma": the
# malus for more enemies (CMB-28) and the Ataque's bonus (CMB-31) can eat it all. The tactic never
# rolls a Parada at 0% or less; a script that asks for one is refused too, at its line, naming
# the rule's requires (the roll "contra -5%" it made before was a line no GM writes).
DOS_CONTRA_UNO = """
Rodrigo iniciativa 1
Bandido iniciativa 9
Compinche iniciativa 5
Bandido ataque 20
Rodrigo parada 10
Compinche ataque 30
Rodrigo parada 3
"""
AMPLÍA = """
round 1:
  Bandido: atacar Rodrigo, pass
  Compinche: atacar Rodrigo, pass
  Rodrigo: parar, ampliar_parada, pass
"""


@pytest.mark.parametrize("espadas, permitida", [(20, False), (25, False), (26, True), (40, True)])
def test_CMB_28_a_scripted_ampliar_parada_at_0_or_less_is_refused(espadas, permitida):
    # Extending his Parada to Compinche costs 25%: at Espadas 25 that is 0%, at 26 it is 1%.
    text = trio(DOS_CONTRA_UNO, AMPLÍA, extra=f"do:\n  set Rodrigo.Espadas = {espadas}\n", strict=False)
    if permitida:
        r = run_text(text)
        assert (f"    Rodrigo para con la Espada corta: 1D100=3 contra {espadas - 25}% (malus por varios "
                "enemigos) -> éxito") in r.lines, r.text
        return
    out = diagnostics_of(text)
    assert 'error[E0504]: the rules do not allow Rodrigo to "ampliar_parada" now' in out, out
    assert '"requires option parada_sin_porcentaje or porcentaje_ampliada(yo, e) > 0" is not met' in out, out
    assert "--> scenario.enc:33:19" in out and "33 |   Rodrigo: parar, ampliar_parada, pass" in out, out
    assert "that is written at rulesets/aquelarre/defensas.rules:" in out.replace("\\", "/"), out
    # He may still declare a new Parada against Compinche (his second Acción) or dodge.
    assert "allowed now: parar, esquivar" in out, out


@pytest.mark.parametrize("palo, modificador, permitida", [(0, 0, False), (15, 20, False), (20, 20, False),
                                                            (21, 20, True)])
def test_CMB_28_a_scripted_parar_at_0_or_less_is_refused(palo, modificador, permitida):
    # Bandido's Palo, less Rodrigo's bonus to the Ataque (CMB-31: a malus to its Defensa).
    text = one_action("Rodrigo", "Bandido", "Rodrigo ataque 30\nBandido parada 3\n", "parar", strict=False,
                      extra=f"do:\n  set Bandido.Palo = {palo}\n  set Rodrigo.modificador = {modificador}\n")
    if permitida:
        r = run_text(text)
        assert ("    Bandido para con el Garrote: 1D100=3 contra 1% (-20% por el modificador del Ataque) "
                "-> éxito") in r.lines, r.text
        return
    out = diagnostics_of(text)
    assert 'error[E0504]: the rules do not allow Bandido to "parar" now' in out, out
    assert ('"requires option parada_sin_porcentaje or parada_con(yo, e, medio_de_parada(yo, e)) > 0" '
            'is not met') in out, out
    assert "allowed now: esquivar" in out, out


@pytest.mark.parametrize("tirada, linea", [(3, "para con el Garrote: 1D100=3 contra 0% -> éxito"),
                                           (6, "intenta parar con el Garrote: 1D100=6 contra 0% -> fallo")])
def test_CMB_28_with_parada_sin_porcentaje_a_scripted_parar_at_0_rolls_and_only_01_to_05_save_it(tirada, linea):
    # The named option's reading: the Parada at 0% is rolled, and only the 01-05 row saves it.
    text = one_action("Rodrigo", "Bandido", f"Rodrigo ataque 30\nBandido parada {tirada}\n", "parar", strict=False,
                      extra="set parada_sin_porcentaje = true\ndo:\n  set Bandido.Palo = 0\n")
    r = run_text(text)
    assert f"    Bandido {linea}" in r.lines, r.text


# ---------------------------------------------------------------- damage after the blow
# The Daños come at the end of the Asalto, "por orden de Resolución" (CMB-01, CMB-55): between a
# blow and its damage its striker may have lost the weapon it was struck with (a Parada that
# drops or breaks it, CMB-23 to CMB-25, settled in the same step), fainted, died or fled. The
# damage line says so, in agreement with the weapon, instead of reading as a blow struck with a
# weapon he no longer holds, or by a man on the ground.
# Rodrigo (first) attacks Bandido, who parries with `arma` and then strikes back undefended.
PARA_Y_GOLPEA = """
Rodrigo iniciativa 9
Bandido iniciativa 1
Rodrigo ataque 30
Bandido parada 10
Bandido ataque 24
Bandido desarme {desarme}
"""
PARA_Y_GOLPEA_GUION = """
round 1:
  Rodrigo: atacar Bandido, none
  Bandido: parar, atacar Rodrigo
"""


@pytest.mark.parametrize("arma, arma_r, competencia, pierde, nota", [
    ('"Cuchillo"', '"Espada corta"', "", "se le escapa de las manos a Bandido", "con el Cuchillo antes de perderlo"),
    ('"Daga"', '"Espada corta"', "", "se le escapa de las manos a Bandido", "con la Daga antes de perderla"),
    ('"Hacha"', '"Montante"', "  set Bandido.Hachas = 50\n  set Rodrigo.Espadones = 60\n",
     "se le escapa de las manos a Bandido", "con el Hacha antes de perderla"),
    ('"Hoz"', '"Espada corta"', "", "de Bandido se rompe", "con la Hoz antes de romperse"),
])
def test_CMB_55_damage_of_a_blow_struck_before_the_weapon_was_lost_says_so(arma, arma_r, competencia, pierde,
                                                                          nota):
    r = run_text(duel(PARA_Y_GOLPEA.format(desarme=10), PARA_Y_GOLPEA_GUION, arma_r=arma_r, arma_b=arma,
                      extra="do:\n" + competencia if competencia else "", strict=False))
    perdida = next(i for i, ln in enumerate(r.lines) if pierde in ln)
    daños = next(i for i, ln in enumerate(r.lines) if ln.startswith("  Daños de Bandido a Rodrigo"))
    assert perdida < daños, r.text
    assert r.lines[daños].startswith(f"  Daños de Bandido a Rodrigo (golpe asestado {nota}): "), r.text


def test_CMB_55_a_blow_whose_damage_comes_before_the_loss_has_no_note():
    # Bandido strikes first (his damage is settled first), then parries and loses the Cuchillo.
    r = run_text(duel("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Bandido ataque 24
        Rodrigo ataque 30
        Bandido parada 10
        Bandido desarme 10
    """, """
        round 1:
          Bandido: atacar Rodrigo, parar, pass
          Rodrigo: none, atacar Bandido, pass
    """, arma_b='"Cuchillo"', strict=False))
    assert "    El Cuchillo se le escapa de las manos a Bandido" in r.lines, r.text
    assert not any("golpe asestado" in ln for ln in r.lines), r.text
    # The weapon that holds (desarme 90) gives no note either.
    r = run_text(duel(PARA_Y_GOLPEA.format(desarme=90), PARA_Y_GOLPEA_GUION, arma_b='"Cuchillo"', strict=False))
    assert "    Bandido no suelta el Cuchillo" in r.lines, r.text
    assert not any("golpe asestado" in ln for ln in r.lines), r.text


# Rodrigo's critical to the Cabeza (1D100=1: 7 x 2 = 14) resolves before Bandido's blow.
GOLPE_Y_RESPUESTA = """
Rodrigo iniciativa 9
Bandido iniciativa 1
Rodrigo ataque 1
Bandido ataque 24
"""


@pytest.mark.parametrize("pv, suceso, nota", [
    (13, "    Bandido se desmaya", "golpe asestado antes de desmayarse"),
    (1, "    Bandido muere", "golpe asestado antes de morir"),
    (20, None, None),
])
def test_CMB_01_damage_of_a_blow_struck_before_fainting_says_so(pv, suceso, nota):
    r = run_text(duel(GOLPE_Y_RESPUESTA, """
        round 1:
          Rodrigo: atacar Bandido, none, pass
          Bandido: none, atacar Rodrigo, pass
    """, extra=f"do:\n  set Bandido.pv = {pv}\n", strict=False))
    daños = next(i for i, ln in enumerate(r.lines) if ln.startswith("  Daños de Bandido a Rodrigo"))
    if suceso is None:                       # 20 - 14 = 6: still standing
        assert r.lines[daños].startswith("  Daños de Bandido a Rodrigo: "), r.text
        return
    assert r.lines.index(suceso) < daños, r.text
    assert r.lines[daños].startswith(f"  Daños de Bandido a Rodrigo ({nota}): "), r.text


def test_CMB_01_a_fleeing_fighter_s_damage_says_it_was_struck_before_he_fled():
    # Bandido strikes, then flees with his second Acción; his blow's damage comes after.
    r = run_text(duel("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Bandido ataque 24
    """, """
        round 1:
          Bandido: atacar Rodrigo, huir
          Rodrigo: none
    """, strict=False))
    daños = next(i for i, ln in enumerate(r.lines) if ln.startswith("  Daños de Bandido a Rodrigo"))
    assert r.lines.index("  Bandido huye del combate") < daños, r.text
    assert r.lines[daños].startswith("  Daños de Bandido a Rodrigo (golpe asestado antes de huir): "), r.text
