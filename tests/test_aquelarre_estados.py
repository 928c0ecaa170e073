"""The third bundled edition, aquelarre_estados: Aquelarre's combat with the
Estados Alterados module. Each row of its mapping table (estados_por_golpe)
with pinned dice and the cards received; the Obstáculo of the cards on a
percentile check; the edition checks clean; its encounter runs 200 seeds and
has a snapshot transcript (read line by line against both seeds); `grimorio
diff` of the duel between the two editions."""
from __future__ import annotations

from pathlib import Path

import pytest

from grimorio.dsl.syntax import nodes as n
from grimorio.dsl.diagnostics import Sources
from grimorio.dsl.editions.loader import load_edition
from grimorio.dsl.editions.files import bundled_root
from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.run.encounter import Prepared
from grimorio.dsl.check.front import load_encounter
from grimorio.interpreter.compile.programs import program_for
from tests.aquelarre import one_action
from grimorio.interpreter.run.transcript import render_text
from tests.conftest import run_text

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "rulesets" / "aquelarre_estados"


def estados(text: str) -> str:
    return text.replace("edition aquelarre\n", "edition aquelarre_estados\n", 1)


# Rodrigo: Espada corta 60% (crítico <= 6), Gambesón (Protección 2), RES 14.
# Bandido: Garrote (Palo) 45% (crítico <= 5), Ropas gruesas (Protección 1), RES 13.

@pytest.mark.slow
def test_a_blow_through_the_armour_gives_heridas_leve():
    # 44: éxito, Pecho (4) x1; 1D6+1 with the die at 5 = 6, minus Protección 1 -> 5.
    r = run_text(estados(one_action("Rodrigo", "Bandido", "Rodrigo ataque 44\ndaño 5\n")))
    assert "    Bandido: puntos de Resistencia 13 -> 8" in r.lines
    assert "    Bandido sufre E.Alt de Heridas Leve (el golpe le hiere)" in r.lines
    assert "    Bandido: E.Alt de Heridas Leve" in r.lines


def test_a_blow_the_armour_stops_gives_nothing():
    # Garrote 1D6 = 2 against Gambesón 2 on the Abdomen (7): nothing gets through.
    r = run_text(estados(one_action("Bandido", "Rodrigo", "Bandido ataque 37\ndaño 2\n")))
    assert "  Daños de Bandido a Rodrigo: 1D6=2; el Gambesón absorbe 2; Abdomen x1 -> 0" in r.lines
    assert not any("recibe" in line or "E.Alt" in line for line in r.lines)


def test_a_critical_gives_heridas_grave():
    # 03: crítico on the Brazo izquierdo, /2: daño máximo 7 sin armadura -> 3, no herida grave.
    r = run_text(estados(one_action("Rodrigo", "Bandido", "Rodrigo ataque 3\n")))
    assert "  Daños de Rodrigo a Bandido: crítico, daño máximo 7 sin armadura; Brazo izquierdo /2 -> 3" in r.lines
    assert "    Bandido sufre E.Alt de Heridas Grave (golpe crítico)" in r.lines
    assert "    Bandido: E.Alt de Heridas Grave" in r.lines


HERIDA_GRAVE = "    Rodrigo sufre E.Alt de Heridas Grave (herida grave: pierde de un golpe la mitad de su Resistencia)"


def test_a_blow_that_takes_half_the_resistencia_gives_heridas_grave_whatever_the_weapon():
    # The reader's seed 4: Garrote (Palo) 1D6 = 6, Gambesón 2, Cabeza x2 -> 8 of Rodrigo's 14:
    # a herida grave (CMB-50) and a secuela; the old table gave it Fatiga Leve, like a bruise.
    r = run_text(estados(one_action("Bandido", "Rodrigo", "Bandido ataque 21\ndaño 6\nRodrigo secuela 1\n")))
    assert "  Daños de Bandido a Rodrigo: 1D6=6; el Gambesón absorbe 2; Cabeza x2 -> 8" in r.lines
    assert HERIDA_GRAVE in r.lines
    assert "    Rodrigo: E.Alt de Heridas Grave" in r.lines and not any("Fatiga" in line for line in r.lines)


def test_a_herida_grave_by_a_blade_is_heridas_grave_not_a_scratch():
    # 41: Cabeza x2; Espada corta 1D6+1 with 5 = 6, Ropas gruesas 1 -> 10 of the Bandido's 13.
    r = run_text(estados(one_action("Rodrigo", "Bandido", "Rodrigo ataque 41\ndaño 5\nBandido secuela 1\n")))
    assert "    Bandido sufre E.Alt de Heridas Grave (herida grave: pierde de un golpe la mitad de su Resistencia)" in r.lines
    assert "    Bandido sufre E.Alt de Heridas Leve (el golpe le hiere)" not in r.lines


def test_the_herida_grave_reading_is_an_option():
    r = run_text(estados(one_action("Rodrigo", "Bandido", "Rodrigo ataque 41\ndaño 5\nBandido secuela 1\n",
                                    extra="set herida_grave_da_heridas_grave = false\n")))
    assert "    Bandido sufre E.Alt de Heridas Leve (el golpe le hiere)" in r.lines


def test_a_palo_blow_gives_fatiga_leve():
    # Garrote (Palo) 1D6 = 5 minus Gambesón 2 on the Pecho -> 3.
    r = run_text(estados(one_action("Bandido", "Rodrigo", "Bandido ataque 44\ndaño 5\n")))
    assert "    Rodrigo sufre E.Alt de Fatiga Leve (golpe contundente)" in r.lines
    assert "    Rodrigo: E.Alt de Fatiga Leve" in r.lines


def test_a_critical_palo_blow_gives_fatiga_leve_and_shock_leve():
    # rules_facts.md: "a non-lethal blow gives Fatiga Leve (Shock Leve too on an exceptional
    # success)"; the old table gave Fatiga Grave. 03 <= 5: crítico; Garrote's maximum 6,
    # Brazo izquierdo /2 -> 3 (no herida grave).
    r = run_text(estados(one_action("Bandido", "Rodrigo", "Bandido ataque 3\n")))
    assert "    Rodrigo: puntos de Resistencia 14 -> 11" in r.lines
    at = r.lines.index("    Rodrigo sufre E.Alt de Fatiga Leve (golpe contundente crítico)")
    assert r.lines[at + 1:at + 6] == [
        "    Rodrigo: E.Alt de Fatiga Leve",
        "    Rodrigo: Obstáculo -1 de sus E.Alt (Fatiga): un 10% menos a sus Competencias",
        "    Rodrigo sufre E.Alt de Shock Leve (el golpe contundente crítico le aturde)",
        '    Rodrigo queda "desprevenido" mientras esté en Shock',
        "    Rodrigo: E.Alt de Shock Leve (desprevenido)",
    ]


def test_a_critical_palo_herida_grave_gives_heridas_grave_and_shock_leve():
    # The reader's seed 1: a critical Garrote to the Cabeza, 6 x 2 = 12: Heridas, not Fatiga Grave.
    r = run_text(estados(one_action("Bandido", "Rodrigo", "Bandido ataque 1\nRodrigo secuela 1\n")))
    at = r.lines.index(HERIDA_GRAVE)
    assert r.lines[at + 1:at + 4] == ["    Rodrigo: E.Alt de Heridas Grave",
                                      "    Rodrigo: Obstáculo -3 de sus E.Alt (Heridas): un 30% menos a sus Competencias, "
                                      "salvo las de PER",
                                      "    Rodrigo sufre E.Alt de Shock Leve (el golpe contundente crítico le aturde)"]


def test_a_pelea_blow_gives_fatiga():
    # Pelea 1D3 = 3 minus Gambesón 2 on the Pecho -> 1.
    text = one_action("Bandido", "Rodrigo", "Bandido ataque 34\ndaño 3\n", arma_b="Pelea")
    r = run_text(estados(text.replace("Palo 45%", "Palo 45%, Pelea 45%")))
    assert "    Rodrigo sufre E.Alt de Fatiga Leve (golpe contundente)" in r.lines


def test_fainting_is_shock_persistente():
    # 01: crítico to the Cabeza x2: 7 * 2 = 14 -> 13 - 14 = -1: se desmaya (CMB-51), not dead.
    r = run_text(estados(one_action("Rodrigo", "Bandido", """
        Rodrigo ataque 1
        Bandido duración 2
        Bandido secuela 1
    """)))
    at = r.lines.index("    Bandido se desmaya")
    assert r.lines[0] == "[día 1, 0:00:00]"     # the time stamp before the events it dates: the Asalto's
    assert r.lines[at + 1:at + 5] == [
        "    Bandido sufre E.Alt de Shock Persistente (desmayo)",
        "    Bandido queda inconsciente (Shock Persistente) durante 1D3=2 horas",
        '    Bandido queda "desprevenido" mientras esté en Shock',
        "    Bandido: E.Alt de Shock Persistente (inconsciente, desprevenido)",
    ]
    assert "    Bandido sufre E.Alt de Heridas Grave (herida grave: pierde de un golpe la mitad de su Resistencia)" in r.lines


def test_a_faint_on_shock_leve_is_shock_persistente_not_grave():
    # Found re-reading seed 1: a critical Garrote to the Cabeza (6 x 2 = 12 of 14) stuns
    # (Shock Leve) and, at the RES x 4 roll (CMB-47), he faints: the module's EALT-04 made it
    # Shock Grave, an unconscious man in Shock Grave. The faint replaces his Shock.
    r = run_text(estados(one_action("Bandido", "Rodrigo", """
        Bandido ataque 1
        Rodrigo secuela 1
        Rodrigo aguante 90
        Rodrigo duración 2
    """, extra="set regla_dj = false\n")))
    at = r.lines.index("    Rodrigo se desmaya")
    assert "    Rodrigo: E.Alt de Shock Leve (desprevenido)" in r.lines[:at]
    assert r.lines[at + 1:at + 3] == ["    Rodrigo: el desmayo sustituye el Shock que tenía",
                                      "    Rodrigo sufre E.Alt de Shock Persistente (desmayo)"]
    assert "    Rodrigo: E.Alt de Shock Persistente (inconsciente, desprevenido)" in r.lines
    assert not any("Shock Grave" in line for line in r.lines)


def test_fainting_at_the_resistance_roll_is_shock_persistente():
    # 41: éxito to the Cabeza x2: (6 - 1) * 2 = 10 -> 13 - 10 = 3; more than 2/3 lost: RES x 4 (CMB-47), failed.
    r = run_text(estados(one_action("Rodrigo", "Bandido", """
        Rodrigo ataque 41
        daño 5
        Bandido secuela 1
        Bandido aguante 90
        Bandido duración 1
    """, extra="set regla_dj = false\n")))           # the RES x 4 roll is CMB-47, which the Regla del D.J. ignores
    at = r.lines.index("  Bandido no aguanta (Resistencia x 4): 1D100=90 contra 52% -> fallo")
    assert r.lines[at + 1:at + 3] == ["    Bandido se desmaya", "    Bandido sufre E.Alt de Shock Persistente (desmayo)"]
    assert "    Bandido: E.Alt de Shock Persistente (inconsciente, desprevenido)" in r.lines


@pytest.mark.slow
def test_a_row_of_the_mapping_is_edition_data_a_layer_changes(tmp_path, capsys):
    casa = tmp_path / "casa.rules"
    casa.write_text('change estados_por_golpe["atraviesa"].grado = Persistente\n', encoding="utf-8")
    enc = tmp_path / "golpe.enc"
    enc.write_text(estados(one_action("Rodrigo", "Bandido", "Rodrigo ataque 44\ndaño 5\n")), encoding="utf-8")
    assert main(["run", str(enc), "--house", str(casa)]) == 0
    assert "    Bandido: E.Alt de Heridas Persistente" in capsys.readouterr().out


# ---------------------------------------------------------------- the Obstáculo on percentile checks

def _garrote(extra: str = "") -> str:
    """Bandido, holding Heridas Leve and Fatiga Persistente, attacks Rodrigo with his Garrote (Palo 45%)."""
    text = one_action("Bandido", "Rodrigo", "Bandido ataque 50\n", extra=extra)
    return estados(text.replace('  armadura "Ropas gruesas"\n',
                                '  armadura "Ropas gruesas"\n  holds Heridas Leve\n  holds Fatiga Persistente\n'))


def test_the_obstaculo_lowers_a_percentile_check_by_ten_a_point():
    # Palo is of AGI: Heridas Leve -1 and Fatiga Persistente -2 -> -3 (EALT-07's cap), -30%.
    r = run_text(_garrote("expect competencia(Bandido, \"Palo\") == 15\n"))
    assert "  Bandido ataca a Rodrigo con el Garrote: 1D100=50 contra 15% -> fallo" in r.lines


def test_the_percent_a_point_is_an_option():
    r = run_text(_garrote("set obstáculo_porcentaje = 5\n"))
    assert "  Bandido ataca a Rodrigo con el Garrote: 1D100=50 contra 30% -> fallo" in r.lines


def test_ts_is_a_characteristic_roll_and_accion_a_percentile_roll():
    # ts: 1D100 against the value x 5; acción: against (value + 9 - CD) x 5.
    run_text(estados(one_action("Rodrigo", "Bandido", "Rodrigo ataque 80\n")) + """
expect (check ts(14, tirada: 70)).resultado == éxito
expect (check ts(14, tirada: 71)).resultado == fallo
expect (check acción(13, 9, tirada: 65)).resultado == éxito
expect (check acción(13, 11, tirada: 56)).resultado == fallo
expect (check acción(13, 11, tirada: 55)).resultado == éxito
""")


# ---------------------------------------------------------------- the edition, its encounter, diff

@pytest.mark.slow
def test_the_edition_checks_with_no_warning(capsys):
    assert main(["check", str(FOLDER)]) == 0
    out, err = capsys.readouterr()
    assert "warning" not in out + err and out.strip() == "ok"
    rs = load_edition("aquelarre_estados", [bundled_root()])
    assert rs.warnings == [] and list(rs.modules) == ["estados"]


def test_the_module_s_unconscious_state_is_aquelarre_s():
    rs = load_edition("aquelarre_estados", [bundled_root()])
    assert rs.origin[("value", "inconsciente")] == "aquelarre_estados"
    [sheet] = rs.all(n.Sheet)
    fields = {f.name: f for f in sheet.fields}
    assert {"FUE", "AGI", "HAB", "RES", "PER", "DES", "INT", "VOL"} <= set(fields)


def test_the_attributes_the_module_expects_default_to_aquelarre_s_characteristics():
    r = run_text(estados(one_action("Rodrigo", "Bandido", "Rodrigo ataque 80\n")) +
                 "expect Rodrigo.DES == 13\nexpect Rodrigo.INT == 11\nexpect Rodrigo.VOL == 14\n")
    assert r.lines


@pytest.mark.slow
def test_the_duel_runs_to_its_end_for_200_seeds():
    prepared = Prepared(load_encounter(FOLDER / "duelo.enc", Sources()), program_for("aquelarre_estados"))
    for seed in range(200):
        engine = prepared.run(seed=seed, record=False).engine
        standing = {c.a_side for c in engine.cb if not any(
            c.cards.get(k) for k in ("inconsciente", "muerto", "huido", "inmovilizado", "incapacitado"))}
        assert len(standing) <= 1 or engine.round == 100, seed


def test_the_duel_s_transcript(capsys, snapshot):
    assert main(["run", str(FOLDER / "duelo.enc")]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out == snapshot


@pytest.mark.slow
def test_the_duel_on_seeds_1_to_20_dates_each_asalto_and_grades_each_herida_grave():
    # The second reader (issue 20): 6 of 9 "herida grave" lines followed by a lighter state;
    # 49 of 51 stamps after the lines they date, Asaltos with no state unstamped.
    prepared = Prepared(load_encounter(FOLDER / "duelo.enc", Sources()), program_for("aquelarre_estados"))
    graves = 0
    for seed in range(1, 21):
        lines = render_text(prepared.run(seed=seed).engine).splitlines()
        for i, line in enumerate(lines):
            if line.startswith("Asalto "):
                assert lines[i - 1].startswith("[día "), (seed, line)
            if line.startswith("    [día"):
                raise AssertionError((seed, "a stamp inside an Asalto", line))
            if line.lower().startswith("    herida grave en "):
                graves += 1
                who = line.split(": ")[1].split(" sufre una secuela")[0].lower()
                rest = [ln for ln in lines[i + 1:i + 3] if ln.lower().startswith(f"    {who} sufre e.alt de ")]
                assert rest and "E.Alt de Heridas Grave" in rest[0], (seed, line, lines[i + 1:i + 3])
    assert graves >= 5


def test_diff_of_the_duel_between_the_two_editions(capsys):
    duelo = ROOT / "rulesets" / "aquelarre" / "duelo.enc"
    assert main(["diff", str(duelo), "--edition", "aquelarre", "--edition", "aquelarre_estados"]) == 1   # they differ
    out = capsys.readouterr().out
    assert "+++ aquelarre_estados" in out
    assert "\n+     Rodrigo sufre E.Alt de Fatiga Leve (golpe contundente)    [rule dar_estado" in out


@pytest.mark.slow
@pytest.mark.parametrize("name", ["a_muerte", "emboscada", "carga", "inmovilizacion"])
def test_aquelarre_s_encounters_run_under_the_new_edition(name, tmp_path):
    text = (ROOT / "rulesets" / "aquelarre" / f"{name}.enc").read_text(encoding="utf-8")
    enc = tmp_path / f"{name}.enc"
    enc.write_text(estados(text), encoding="utf-8")
    prepared = Prepared(load_encounter(enc, Sources()), program_for("aquelarre_estados"))
    for seed in range(20):
        prepared.run(seed=seed, record=False)


# ---------------------------------------------------------------- the module's turns inside the Asalto
# Aquelarre's Asalto drives the module (rulesets/aquelarre_estados/turnos.rules):
# at each fighter's turn, pierde_el_turno; at the end of the Asalto, fin_de_ronda.

def _asaltos(rodrigo: str, dice: str, script: str, rounds: int, extra: str = "") -> str:
    """duel() under aquelarre_estados, Rodrigo holding `rodrigo` (holds lines),
    initiatives pinned to 9 (Rodrigo, first) and 1 (Bandido) by the caller."""
    from tests.aquelarre import duel
    text = estados(duel(dice, script, rounds=rounds, extra=extra))
    return text.replace('  armadura "Gambesón"\n', '  armadura "Gambesón"\n' + rodrigo, 1)


def test_EALT_26_shock_grave_loses_the_turn_and_rolls_ts_vol_at_its_end_inside_the_asalto():
    # Asalto 1: TS VOL 80 > 70 (VOL = RES 14, x 5): stays in Shock Grave, and cannot parry
    # Bandido's blow; Asalto 2: 20 <= 70: Shock Leve; Asalto 3: loses that turn too
    # (EALT-25), and the Shock ends at its end; Asalto 4: he attacks again.
    r = run_text(_asaltos("  holds Shock Grave\n  holds desprevenido\n", """
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ts 80
        Bandido ataque 20
        daño 4
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ts 20
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 90
    """, """
        round 1:
          Bandido: atacar Rodrigo, pass
        round 2:
          Bandido: pass
        round 3:
          Bandido: pass
        round 4:
          Rodrigo: atacar Bandido, pass
          Bandido: pass
    """, 4))
    lost = "  Rodrigo pierde su turno: no puede realizar ninguna Acción (Shock)"
    assert r.lines.count(lost) == 3
    at = r.lines.index(lost)
    assert r.lines[at + 1] == "    Rodrigo hace una TS VOL por Shock Grave: 1D100=80 contra 70% (VOL 14 x 5) -> fallo"
    assert "    Rodrigo no se defiende: no puede realizar ninguna Acción (Shock)" in r.lines
    assert "    Rodrigo hace una TS VOL por Shock Grave: 1D100=20 contra 70% (VOL 14 x 5) -> éxito" in r.lines
    assert "    Rodrigo: E.Alt de Shock Leve (desprevenido)" in r.lines
    assert "    Rodrigo: ya no sufre E.Alt de Shock" in r.lines
    # Fatiga Leve from the blow: -1, -10% (EALT-06 on a percentile check).
    assert "  Rodrigo ataca a Bandido con la Espada corta: 1D100=90 contra 50% -> fallo" in r.lines
    assert not any(line.startswith("  Rodrigo ataca") for line in r.lines[:r.lines.index("Asalto 4")])


@pytest.mark.parametrize("rodrigo_first", [True, False])
def test_EALT_25_shock_leve_lasts_the_whole_asalto_he_loses_whatever_the_initiative(rodrigo_first):
    # "no podrá realizar ninguna Acción durante 1 Ronda" (1 Asalto) and "desprevenido"
    # "mientras permanezca en cualquier E.Alt de Shock": when Bandido strikes later in
    # that Asalto (or earlier), Rodrigo is still in Shock and cannot parry *for the
    # Shock*; the Shock ends at the end of the Asalto; in Asalto 2 he parries.
    # The old rules ended it at his own turn (duelo.enc seeds 2, 6, 18): "se recupera"
    # and "deja de estar desprevenido" printed before the blow, then "no le quedan Acciones".
    first, second = ("9", "1") if rodrigo_first else ("1", "9")
    r = run_text(_asaltos("  holds Shock Leve\n  holds desprevenido\n", f"""
        Rodrigo iniciativa {first}
        Bandido iniciativa {second}
        Bandido ataque 20
        daño 3
        Rodrigo iniciativa {first}
        Bandido iniciativa {second}
        Bandido ataque 20
        Rodrigo parada 30
    """, """
        round 1:
          Bandido: atacar Rodrigo, pass
        round 2:
          Rodrigo: pass
          Bandido: atacar Rodrigo, pass
    """, 2))
    asalto_2 = r.lines.index("Asalto 2")
    lost = r.lines.index("  Rodrigo pierde su turno: no puede realizar ninguna Acción (Shock)")
    hit = r.lines.index("  Bandido ataca a Rodrigo con el Garrote: 1D100=20 contra 45% -> éxito")
    recovered = r.lines.index("    Rodrigo se recupera de Shock Leve (1 Asalto sin actuar)")
    free = r.lines.index('    Rodrigo deja de estar "desprevenido"')
    assert (lost < hit) == rodrigo_first
    assert r.lines[hit + 1] == "    Rodrigo no se defiende: no puede realizar ninguna Acción (Shock)"
    assert max(lost, hit) < recovered < free < asalto_2
    assert "    Rodrigo no se defiende: no le quedan Acciones" not in r.lines
    assert not any(line.startswith("  Rodrigo ataca") for line in r.lines)
    assert not any("pierde su turno" in line for line in r.lines[asalto_2:])
    assert "    Rodrigo para con la Espada corta: 1D100=30 contra 60% -> éxito" in r.lines[asalto_2:]


def test_EALT_23_in_shock_he_neither_parries_nor_attacks_and_is_desprevenido():
    # "Mientras permanezca en cualquier E.Alt de Shock, el PJ no puede realizar ningún
    # tipo de Acción y se le aplica el E.Esp: 'desprevenido'". Bandido (9) acts first
    # and hits Rodrigo, in Shock Leve: no parry, for the Shock; then Rodrigo's turn goes.
    # The failing sub-case: "a fighter in Shock Leve or Grave keeps attacking and parrying".
    r = run_text(_asaltos("  holds Shock Leve\n  holds desprevenido\n", """
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Bandido ataque 20
        daño 3
    """, """
        round 1:
          Bandido: atacar Rodrigo, pass
    """, 1))
    hit = r.lines.index("  Bandido ataca a Rodrigo con el Garrote: 1D100=20 contra 45% -> éxito")
    assert r.lines[hit + 1] == "    Rodrigo no se defiende: no puede realizar ninguna Acción (Shock)"
    assert "  Rodrigo pierde su turno: no puede realizar ninguna Acción (Shock)" in r.lines[hit:]
    assert not any(line.startswith("  Rodrigo ataca") for line in r.lines)
    assert r.lines.index('    Rodrigo deja de estar "desprevenido"') > hit


def test_the_module_s_clock_runs_one_ronda_of_twelve_seconds_an_asalto():
    # Bandido unconscious for 1D6 = 2 rondas (24 s) from the start, while Rodrigo
    # and Compinche pass: he wakes at the end of Asalto 2 (0:00:24, when Asalto 3
    # begins), "derribado";
    # he spends his turn in Asalto 3 getting up (EALT-03, levantarse_cuesta_el_turno)
    # and attacks in Asalto 4.
    from tests.aquelarre import trio
    r = run_text(estados(trio("""
        Bandido duración 2
        Rodrigo iniciativa 9
        Compinche iniciativa 5
        Rodrigo iniciativa 9
        Compinche iniciativa 5
        Rodrigo iniciativa 9
        Compinche iniciativa 5
        Bandido iniciativa 1
        Rodrigo iniciativa 9
        Compinche iniciativa 5
        Bandido iniciativa 1
        Bandido ataque 90
    """, """
        round 1:
          Rodrigo: pass
          Compinche: pass
        round 2:
          Rodrigo: pass
          Compinche: pass
        round 3:
          Rodrigo: pass
          Compinche: pass
        round 4:
          Rodrigo: pass
          Compinche: pass
          Bandido: atacar Rodrigo, pass
    """, rounds=4, extra="""
        do:
          inconsciente_durante(Bandido, 1D6, "rondas")
    """)))
    assert "    Bandido queda inconsciente (Shock Persistente) durante 1D6=2 Asaltos" in r.lines   # a Ronda is an Asalto
    at = r.lines.index("[día 1, 0:00:24]")
    assert r.lines[at + 1] == ("    Bandido despierta: se recupera de todo su Shock, deja de estar \"desprevenido\" "
                               "y queda \"derribado\"")
    assert r.lines[at + 2] == "Asalto 3"            # the stamp dates the waking and the Asalto it opens
    assert r.lines[r.lines.index("Asalto 3"):].index("  Bandido gasta su turno en levantarse (estaba \"derribado\")")
    # Every Asalto opens with its time (issue 20: stamps after what they date, none without a state).
    assert r.lines[0] == "[día 1, 0:00:00]"       # before the do: block's faint, and so Asalto 1's too
    assert [r.lines[r.lines.index(f"Asalto {n}") - 1] for n in (2, 4)] == ["[día 1, 0:00:12]", "[día 1, 0:00:36]"]
    assert "  Bandido ataca a Rodrigo con el Garrote: 1D100=90 contra 45% -> fallo" in r.lines


def _incapacitado(extra: str = "", bandido: str = "pass") -> str:
    from tests.aquelarre import duel
    text = estados(duel("""
        Rodrigo iniciativa 1
        Bandido iniciativa 9
        Rodrigo ataque 20
        daño 3
    """, """
        round 1:
          Bandido: BANDIDO
          Rodrigo: atacar Bandido, pass
    """.replace("BANDIDO", bandido), rounds=2, extra=extra, strict=False))
    return text.replace('  armadura "Ropas gruesas"\n', '  armadura "Ropas gruesas"\n  holds Heridas Grave\n  holds incapacitado\n')


def test_EALT_03_an_incapacitado_neither_attacks_nor_parries_and_leaves_the_fight():
    # Bandido acts first (9) but is incapacitado: he loses his turn, cannot parry
    # Rodrigo's blow, and the combat ends with the Asalto (his side has nobody in the fight).
    r = run_text(_incapacitado().replace("          Bandido: pass\n", ""))
    assert "  Bandido pierde su turno: no puede realizar ninguna Acción (incapacitado)" in r.lines
    assert not any(line.startswith("  Bandido ataca") for line in r.lines)
    assert "    Bandido no se defiende: no puede realizar ninguna Acción (incapacitado)" in r.lines
    assert "Asalto 2" not in r.lines
    assert r.lines[-1].startswith("Fin del combate.")


def test_EALT_03_incapacitado_without_effect_is_the_option_s_other_reading():
    r = run_text(_incapacitado("set incapacitado_sin_acciones = false\n", "atacar Rodrigo, pass"))
    assert not any("pierde su turno" in line for line in r.lines)
    assert any(line.startswith("  Bandido ataca a Rodrigo") for line in r.lines)


def test_the_module_s_accion_reads_as_a_percentile_roll():
    # Medicina is the module's Acción of INT (here PER 11): 1D100 against (11 + modificador +
    # 9 - CD) x 5; the Bandido's Afección Leve is -1 to whoever treats him: 50%.
    from tests.aquelarre import duel
    text = estados(duel("Rodrigo medicina 50\n", rounds=1, extra="""
        do:
          medicina(Rodrigo, Bandido, "primeros auxilios", 9)
    """, strict=False)).replace("rounds 1\n", "")
    text = text.replace('  armadura "Ropas gruesas"\n', '  armadura "Ropas gruesas"\n  holds Heridas Grave\n  holds Afección Leve\n')
    r = run_text(text)
    assert "Rodrigo actúa con INT: 1D100=50 contra 50% (INT 11 - 1, CD 9) -> éxito" in r.lines
    assert "    Bandido: E.Alt de Heridas Leve" in r.lines


@pytest.mark.slow
def test_EALT_03_simulate_counts_an_incapacitado_as_out(tmp_path, capsys):
    # The Bandido, incapacitado from the start, loses the fight: simulate gives it to the cristianos.
    import json
    enc = tmp_path / "incapacitado.enc"
    enc.write_text(_incapacitado().replace("          Bandido: pass\n", ""), encoding="utf-8")
    assert main(["simulate", str(enc), "-n", "1", "--format", "json"]) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    stands = {c["name"]: c["tallies"]["stands"]["true"] for c in out["combatants"]}
    assert stands == {"Rodrigo": 1, "Bandido": 0}


def test_a_fighter_who_fled_is_not_standing_at_the_end():
    # Found re-reading duelo seeds 2 and 6: Rodrigo fled in the last Asalto and the final
    # line said "Siguen en pie: Rodrigo, Bandido" (the edition's own stands read en_pie,
    # which a fugitive still is); aquelarre's stands, en_lucha, leaves him out.
    from tests.aquelarre import duel
    r = run_text(estados(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
    """, """
        round 1:
          Rodrigo: huir
          Bandido: pass
    """)))
    assert "  Rodrigo huye del combate" in r.lines
    assert r.lines[-1] == "Fin del combate. En pie: Bandido"


# ---------------------------------------------------------------- the Obstáculo said where it changes
# The GM reader (issue 20): "the -10% per Obstáculo is applied on the roll lines but never
# shown". Each change of a fighter's E.Alt Obstáculo is said with its cause and its percent
# (as Aquelarre says "sus Competencias de Agilidad quedan a la mitad", CMB-48); the rolls
# after it carry it.

def test_the_obstaculo_is_said_with_its_cause_and_percent_when_it_changes():
    # Bandido: Heridas Leve (44, Pecho) -> -1; Heridas Leve again (45, Pecho) -> Grave, -3;
    # Palo is AGI: in Asalto 2 (before its Daños) 45% - 10% = 35% on his parry and attack.
    from tests.aquelarre import duel
    r = run_text(estados(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 44
        Bandido parada 90
        daño 5
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 44
        Bandido parada 90
        daño 5
        Bandido ataque 90
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: pass
        round 2:
          Rodrigo: atacar Bandido, pass
          Bandido: atacar Rodrigo, pass
    """, rounds=2)))
    said = [ln for ln in r.lines if "Obstáculo" in ln]
    assert said == [
        "    Bandido: Obstáculo -1 de sus E.Alt (Heridas): un 10% menos a sus Competencias, salvo las de PER",
        "    Bandido: Obstáculo -3 de sus E.Alt (Heridas): un 30% menos a sus Competencias, salvo las de PER",
    ]
    assert r.lines.index(said[0]) == r.lines.index("    Bandido: E.Alt de Heridas Leve") + 1
    asalto_2 = r.lines[r.lines.index("Asalto 2"):]
    assert "    Bandido intenta parar con el Garrote: 1D100=90 contra 35% -> fallo" in asalto_2
    assert "  Bandido ataca a Rodrigo con el Garrote: 1D100=90 contra 35% -> fallo" in asalto_2


def test_the_obstaculo_held_from_the_start_is_said_in_the_first_asalto_and_per_apart():
    # Heridas Grave and Fatiga Leve: -4, never worse than -3; the PER Competencias only
    # suffer the Fatiga (-1). Said once, after "Asalto 1", not again in Asalto 2.
    from tests.aquelarre import duel
    text = estados(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo iniciativa 9
        Bandido iniciativa 1
    """, """
        round 1:
          Rodrigo: pass
          Bandido: pass
        round 2:
          Rodrigo: pass
          Bandido: pass
    """, rounds=2)).replace('  armadura "Gambesón"\n', '  armadura "Gambesón"\n  holds Heridas Grave\n  holds Fatiga Leve\n', 1)
    r = run_text(text)
    line = ("    Rodrigo: Obstáculo -3 de sus E.Alt (Heridas y Fatiga, nunca peor que -3): un 30% menos a sus "
            "Competencias; a las de PER, un 10% menos")
    assert r.lines.count(line) == 1 and r.lines.index(line) == r.lines.index("Asalto 1") + 1
    assert not any("Bandido: Obstáculo" in ln for ln in r.lines)


def test_an_obstaculo_that_goes_away_is_said_too():
    # Said when it comes (-1, Fatiga Leve) and when it goes (the card removed by the script).
    r = run_text(estados(one_action("Rodrigo", "Bandido", "Rodrigo ataque 80\n", extra="""
do:
  receive Bandido Fatiga Leve
  decir_obstáculo(Bandido)
  remove Bandido Fatiga
  decir_obstáculo(Bandido)
  decir_obstáculo(Bandido)
""")))
    assert [ln for ln in r.lines if "Obstáculo" in ln] == [
        "    Bandido: Obstáculo -1 de sus E.Alt (Fatiga): un 10% menos a sus Competencias",
        "    Bandido: sus E.Alt ya no le dan Obstáculo: sus Competencias vuelven a su valor"]


def test_nobody_in_the_fight_at_the_end_reads_nadie():
    # The GM reader's seed 1 of duelo.enc: Rodrigo unconscious, Bandido incapacitado: "En pie: -".
    text = _incapacitado().replace("round 1:\n  Bandido: pass\n  Rodrigo: atacar Bandido, pass\n", "")
    r = run_text(text.replace('armadura "Gambesón"\n', 'armadura "Gambesón"\n  holds Shock Persistente\n  holds inconsciente\n', 1))
    assert r.lines[-1] == "Fin del combate. No queda nadie en pie"      # (the edition's own line for it)


@pytest.mark.slow
def test_the_next_session_says_the_obstaculo_again_in_its_first_asalto(tmp_path, capsys):
    # What was said belongs to the session (a session var): a loaded state's Fatiga Leve is
    # said again when the next session's first Asalto opens.
    from tests.aquelarre import duel
    text = estados(duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
    """, """
        round 1:
          Rodrigo: pass
          Bandido: pass
    """)).replace('  armadura "Gambesón"\n', '  armadura "Gambesón"\n  holds Fatiga Leve\n', 1)
    line = "    Rodrigo: Obstáculo -1 de sus E.Alt (Fatiga): un 10% menos a sus Competencias"
    enc, state = tmp_path / "s.enc", tmp_path / "estado.json"
    enc.write_text(text, encoding="utf-8")
    assert main(["run", str(enc), "--quiet", "--save-state", str(state)]) == 0
    assert line in capsys.readouterr().out.splitlines()
    head, _, rest = text.partition("combatant Rodrigo:")
    enc.write_text(head + "combatant Rodrigo:\ncombatant Bandido:\ndice" + rest.partition("\ndice")[2], encoding="utf-8")
    assert main(["run", str(enc), "--quiet", "--load-state", str(state)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[out.index("Asalto 1") + 1] == line


@pytest.mark.slow
def test_aquelarre_s_list_of_bad_phrases_holds_for_this_edition_s_duel_too():
    # tests/test_aquelarre_encuentros.py keeps Aquelarre's bad phrases (el Rodela, d100, 1 Asaltos...)
    # out of the aquelarre folder; this edition prints Aquelarre's lines too, seeds 1-20.
    import re
    from tests.test_aquelarre_encuentros import BAD_PHRASES
    prepared = Prepared(load_encounter(FOLDER / "duelo.enc", Sources()), program_for("aquelarre_estados"))
    for seed in range(1, 21):
        for line in render_text(prepared.run(seed=seed).engine).splitlines():
            assert not [why for p, why in BAD_PHRASES.items() if re.search(p, line)], (seed, line)
