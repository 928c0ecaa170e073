"""House rules as layers: the bundled examples in rulesets/casa/ and the five
house rules a designer first wrote by copying whole declarations
(/work/shared/examples/house-rules-as-written), each now a layer of a few lines
under tests/house_rules/, run with --house and shown changing the transcript."""
from __future__ import annotations

import re

from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
CASA = ROOT / "rulesets" / "casa"
PORTS = ROOT / "tests" / "house_rules"
DEMO = str(ROOT / "rulesets" / "aquelarre" / "duelo.enc")


def run(capsys, enc, *houses, code=0, seed=None):
    args = ["run", "--quiet", str(enc)] + [a for h in houses for a in ("--house", str(h))]    # no header line
    args += ["--seed", str(seed)] if seed is not None else []
    got = main(args)
    out, err = capsys.readouterr()
    assert got == code, err
    return out.splitlines(), err


def diff(capsys, enc, house, seed=None):
    code = main(["diff", str(enc), "--house", str(house)] + (["--seed", str(seed)] if seed is not None else []))
    out = capsys.readouterr().out.splitlines()
    assert code == (0 if out[0].startswith("same transcript") else 1)       # 1: the transcripts differ
    return out


def changed(lines):
    return [ln for ln in lines if ln[:2] in ("- ", "+ ")]


def code_lines(path: Path) -> int:
    """The lines that change the rules: not comments, and not the `extends EDITION` line that names the
    edition the file is written for."""
    return sum(1 for ln in path.read_text(encoding="utf-8").splitlines()
               if ln.strip() and not ln.startswith(("#", "extends ")))


# ---------------------------------------------------------------- rulesets/casa


@pytest.mark.slow
def test_criticals_at_a_fifth_change_only_the_rolls_between_a_tenth_and_a_fifth(capsys):
    out = diff(capsys, DEMO, CASA / "criticos_quinto.rules")
    assert out[2] == "the transcripts part at line 4"
    minus, plus = [ln for ln in changed(out) if ln[0] == "-"], [ln for ln in changed(out) if ln[0] == "+"]
    # The first change: an 11 against 60% was a success and is now a critical (60 / 5 = 12).
    assert "1D100=11 contra 60% -> éxito" in minus[0] and "1D100=11 contra 60% -> crítico" in plus[0]


@pytest.mark.slow
def test_initiative_adds_half_of_perception(capsys):
    out, _ = run(capsys, DEMO, CASA / "iniciativa_percepcion.rules")
    # Rodrigo: PER 11 -> +5; Bandido: PER 10 -> +5.
    assert out[1] == "  Iniciativa: Rodrigo 22 (1D10=5 + AGI 12 + PER/2 5)"
    assert out[2] == "  Iniciativa: el Bandido 17 (1D10=2 + AGI 10 + PER/2 5)"
    # Both add 5, so the order never changes: but for the initiative lines the fight is the base's,
    # round after round (the house rule changes one block; the step still resets what each round resets).
    base, _ = run(capsys, DEMO)
    def others(lines):
        return [ln for ln in lines if not ln.startswith("  Iniciativa:")]
    assert others(out) == others(base) and len(others(base)) > 60


@pytest.mark.slow
def test_hit_location_by_1d20_rolled_apart(capsys):
    base, _ = run(capsys, DEMO)
    out, _ = run(capsys, DEMO, CASA / "localizacion_d20.rules")
    assert out[:8] == base[:8]                              # same dice up to the first damage
    # The 1D20 is rolled apart and shown (issue 20: every roll that decides something is shown).
    assert re.fullmatch(r"  Localización: 1D20=\d+ -> (el|la) .*", out[8]), out[8]
    assert "Abdomen x1" in base[8] and "Gambesón absorbe 2" in out[9] and base[8] != out[9]
    assert any(w in out[9] for w in ("Cabeza", "Brazo", "Pecho", "Abdomen", "Pierna"))


EJEMPLOS = ROOT / "tests" / "house_rules" / "casa"
# The bundled house rules of the Estados Alterados module (tested in tests/test_ealt.py).
YOKAI_CASA = {"heridas_leve_sin_descanso.rules"}


def only_changes(base, out):
    """The lines of `base` missing from `out` and those of `out` missing from `base`, in order."""
    import difflib
    gone, came = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=base, b=out, autojunk=False).get_opcodes():
        gone += base[i1:i2] if tag != "equal" else []
        came += out[j1:j2] if tag != "equal" else []
    return gone, came


@pytest.mark.slow
def test_without_the_gm_rule_the_effects_of_cmb_46_to_49_come_back(capsys):
    # The bundled edition follows the Regla del D.J. (CMB-54): the demo duel under it. Seed 8 is one where
    # a blow takes more than two thirds of the Bandido's Resistencia (the demo's own seed has none since
    # the tactics changed in this session).
    enc, house = EJEMPLOS / "duelo_regla_dj.enc", CASA / "sin_regla_dj.rules"
    base, _ = run(capsys, enc, seed=8)
    out, _ = run(capsys, enc, house, seed=8)
    gone, came = only_changes(base, out)
    # On common dice the fight is the same; the house rule only adds the effects' lines.
    assert gone == []
    # (Neither has a damage bonus with his weapon: nobody is told he loses one, CMB-46.)
    assert came == ["  El Bandido aguanta (Resistencia x 4): 1D100=7 contra 52% -> éxito"]
    # And it is the demo duel, which turns the rule off itself to show the effects.
    demo, _ = run(capsys, DEMO, seed=8)
    assert out == demo
    d = diff(capsys, enc, house, seed=8)
    assert d[2].startswith("the transcripts part at line ")
    assert [ln.split("    [")[0] for ln in changed(d)] == ["+ " + ln for ln in came]


@pytest.mark.slow
def test_a_tenth_off_per_extra_enemy_parried_instead_of_a_quarter(capsys):
    enc, house = EJEMPLOS / "dos_contra_uno.enc", CASA / "malus_parada_10.rules"
    base, _ = run(capsys, enc)
    out, _ = run(capsys, enc, house)
    gone, came = only_changes(base, out)
    # Espada corta 60%: 60 - 25 = 35% in the edition, 60 - 10 = 50% in the house; the 40 now parries.
    assert gone == ["    Rodrigo intenta parar con la Espada corta: 1D100=40 contra 35% (malus por varios enemigos) -> fallo",
                    "  Daños de Compinche a Rodrigo: 2D3=5 (3+2); Gambesón absorbe 2; Pierna izquierda /2 -> 1",
                    "    Rodrigo: puntos de Resistencia 14 -> 13"]
    assert came == ["    Rodrigo para con la Espada corta: 1D100=40 contra 50% (malus por varios enemigos) -> éxito"]
    assert base[:7] == out[:7] and base[-1] == out[-1]
    d = diff(capsys, enc, house)
    assert d[2] == "the transcripts part at line 8"
    assert [ln.split("    [")[0] for ln in changed(d)] == ["- " + ln for ln in gone] + ["+ " + ln for ln in came]


def test_the_bundled_house_rules_are_a_few_lines_each():
    for f in sorted(CASA.glob("*.rules")):
        assert code_lines(f) <= 17, f      # localizacion_d20: a 20-row table, and its roll shown


# ---------------------------------------------------------------- the designer's five


@pytest.mark.slow
def test_critico5(capsys):
    enc, house = PORTS / "critico5" / "critico.enc", PORTS / "critico5" / "critico5.rules"
    run(capsys, enc, code=1)                               # the bundled rules: a success, 2 points
    out, _ = run(capsys, enc, house)                        # the layer: a critical, 3 points
    assert any("1D100=10 contra 50% -> crítico" in ln for ln in out)
    assert code_lines(house) == 2


@pytest.mark.slow
def test_armeria(capsys):
    house = PORTS / "armeria" / "armeria.rules"
    _, err = run(capsys, PORTS / "armeria" / "duelo_hacha.enc", code=2)
    assert 'there is no "Hacha de guerra" in table "armas"' in err
    out, _ = run(capsys, PORTS / "armeria" / "duelo_hacha.enc", house)
    assert any("con el Hacha de guerra" in ln for ln in out)
    assert all("Cota de malla absorbe 6" not in ln for ln in out)
    # FUE 10 cannot wield the Hacha de guerra (FUE mín. 14): the Escudero never attacks.
    out, _ = run(capsys, PORTS / "armeria" / "debil.enc", house)
    assert not any(ln.startswith("  Escudero ataca") for ln in out)
    assert any(ln.startswith("  Bandido ataca") for ln in out)
    assert code_lines(house) == 5


@pytest.mark.slow
def test_localizacion20(capsys):
    house = PORTS / "localizacion20" / "localizacion20.rules"
    out, _ = run(capsys, PORTS / "localizacion20" / "cabeza.enc", house)
    assert "Cabeza x2 -> 12" in out[7] and "Abdomen x1 -> 4" in out[10]    # a 2 and a 16 on 1D20 (a sequel between)
    run(capsys, PORTS / "localizacion20" / "duelo20.enc", house)


@pytest.mark.slow
def test_aturdido(capsys):
    house = PORTS / "aturdido" / "aturdido.rules"
    out, _ = run(capsys, PORTS / "aturdido" / "golpe_cabeza.enc", house)
    assert "    Bandido queda aturdido por el golpe en la cabeza" in out
    two = out.index("Asalto 2")
    assert out[two + 3] == "  Bandido está aturdido: pierde una Acción (le quedan 1)"
    assert sum(ln.startswith("  Bandido ataca") for ln in out[two:]) == 1
    run(capsys, PORTS / "aturdido" / "libre.enc", house)
    assert code_lines(house) <= 16


@pytest.mark.slow
def test_yokai_casa(capsys):
    # The designer wrote this when the base kept two Shock, Emoción or Afección Leves as two cards;
    # the base now follows EALT-04 for every type, so it meets the same expectations on its own.
    run(capsys, PORTS / "yokai_casa" / "base_dos_leves.enc")
    out, _ = run(capsys, PORTS / "yokai_casa" / "casa_dos_leves.enc", PORTS / "yokai_casa" / "yokai_casa.rules")
    assert "Kenji: segunda Shock Leve -> Shock Grave" in out
    # Shock Grave now keeps Kenji from acting at all (EALT-25/26 in the base), so the roll is never made.
    assert out[-1] == "Kenji no puede realizar ninguna Acción (Shock)"


@pytest.mark.slow
@pytest.mark.parametrize("house", sorted(PORTS.glob("*/*.rules")) + sorted(CASA.glob("*.rules")), ids=lambda p: p.name)
def test_every_house_rule_checks_clean_over_its_edition(capsys, house):
    edition = "yokai" if "yokai" in house.parent.name or house.name in YOKAI_CASA else "aquelarre"
    assert main(["check", str(ROOT / "rulesets" / edition), "--house", str(house)]) == 0, capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("pierna, alcanza", [(18, "Abdomen"), (20, "Abdomen")])
def test_the_1d20_table_keeps_cmb_45_a_blow_from_above_never_reaches_the_legs(capsys, tmp_path, pierna, alcanza):
    # Regression: the rule that redirects an unreachable blow named row 7 of the location table, which in a
    # 1D20 table is Brazo izquierdo; the house rule now says where that blow lands in its own table.
    from tests.aquelarre import duel
    enc = tmp_path / "alto.enc"
    enc.write_text(duel(f"""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 30
        Rodrigo localización {pierna}
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: none, pass
    """, extra="do:\n  set Rodrigo.altura = 3\n", strict=False), encoding="utf-8")
    out, _ = run(capsys, enc, CASA / "localizacion_d20.rules")
    hit = [ln for ln in out if ln.startswith("  Daños de Rodrigo a Bandido:")]
    assert hit and f"; {alcanza} " in hit[0], out


@pytest.mark.slow
def test_a_preference_added_to_tactic_directa_bandages_before_fleeing(capsys):
    enc, house = EJEMPLOS / "malherido.enc", CASA / "vendar.rules"
    base, _ = run(capsys, enc)
    out, _ = run(capsys, enc, house)
    assert "  Rodrigo huye del combate" in base                 # malherido: the edition's tactic flees
    assert "  Rodrigo huye del combate" not in out
    assert out[3] == "  Rodrigo se venda las heridas y recupera 1 punto de Resistencia: 3 -> 4"  # one Action, +1
    assert out[4].startswith("  Rodrigo ataca a Bandido")          # no longer malherido: back to the tactic


def test_the_vendar_preference_is_at_most_six_lines():
    # The action, its cost, what it does, its line in the transcript (who bandages whom
    # and how much: issue 20), and the tactic's preference.
    assert code_lines(CASA / "vendar.rules") <= 6


@pytest.mark.slow
def test_every_bundled_house_file_names_its_edition_and_checks_alone(capsys):
    for f in sorted(CASA.glob("*.rules")):
        edition = "yokai" if f.name in YOKAI_CASA else "aquelarre"
        assert f"\nextends {edition}\n" in f.read_text(encoding="utf-8"), f
        assert main(["check", str(f)]) == 0, capsys.readouterr()
    capsys.readouterr()
