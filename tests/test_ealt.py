"""Scenario tests of the Estados Alterados clauses (EALT-xx) of Yôkai Sensô."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main
from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.diagnostics import GrimorioError
from grimorio.dsl.editions.files import bundled_root
from grimorio.interpreter.run.encounter import Prepared
from grimorio.dsl.check.front import load_encounter
from grimorio.interpreter.compile.programs import program_for
from grimorio.dsl.diagnostics import Sources
from grimorio.interpreter.run.transcript import render_text
from tests.conftest import run_text

PJ = """\
encounter "estados"
edition yokai
combatant Akira:
  FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2
"""


def scene(holds: str = "", do: str = "", expects: str = "", dice: str = "", sets: str = "", extra: str = "") -> str:
    out = PJ + "".join(f"  holds {h}\n" for h in holds.split(";") if h.strip()) + extra
    out += "".join(f"set {s.strip()}\n" for s in sets.split(";") if s.strip())
    if dice:
        out += "dice strict:\n" + "".join(f"  {d.strip()}\n" for d in dice.split(";"))
    out += "do:\n" + ("".join(f"  {s.strip()}\n" for s in do.split(";")) if do else "  pass\n")
    out += "".join(f"expect {e.strip()}\n" for e in expects.split(";") if e.strip())
    return out


def said(r) -> list[str]:
    """The transcript without the clock's time stamps."""
    return [ln for ln in r.lines if not ln.startswith("[día")]
TIPOS = ["Heridas", "Fatiga", "Shock", "Emoción", "Afección"]


@pytest.mark.slow
def test_EALT_01_five_types_each_in_three_grades():
    # The rules see exactly five graded conditions, and each orders its grades by severity
    # (EALT-06: Leve < Persistente < Grave), whatever order the file declares them in.
    expects = ["len(conditions()) == 5"] + [f"{t} in conditions()" for t in TIPOS]
    expects += [f"{t}.Leve < {t}.Persistente and {t}.Persistente < {t}.Grave" for t in TIPOS]
    r = run_text(scene(expects=";".join(expects)))
    assert len(r.outcome.expectations) == 11 and all(v.ok for v in r.outcome.expectations)
    # A grade out of order is seen: the severity is the rules', not the test's.
    with pytest.raises(AssertionError, match="expectations failed"):
        run_text(scene(expects="Heridas.Grave < Heridas.Leve"))
    # Each type can be received in each grade by a character who holds none of it.
    for tipo in TIPOS:
        for grado in ("Leve", "Persistente", "Grave"):
            r = run_text(scene(do=f"receive Akira {tipo} {grado}"))
            assert r.grades("Akira", tipo) == [grado]


@pytest.mark.parametrize("tipo", ["Heridas", "Fatiga"])
@pytest.mark.parametrize("held, incoming, after", [
    ("Leve", "Leve", ["Grave"]),                        # the text's own example: the Leve card becomes Grave
    ("Leve", "Persistente", ["Grave"]),
    ("Persistente", "Leve", ["Persistente", "Grave"]),  # the Persistente stays; a Grave instead of the Leve
    ("Persistente", "Persistente", ["Persistente", "Grave"]),
])
def test_EALT_04_leve_or_persistente_on_leve_or_persistente_gives_grave(tipo, held, incoming, after):
    r = run_text(scene(holds=f"{tipo} {held}", do=f"receive Akira {tipo} {incoming}"))
    assert sorted(r.grades("Akira", tipo)) == sorted(after)


@pytest.mark.parametrize("tipo", ["Heridas", "Fatiga", "Shock"])
def test_EALT_04_with_leve_and_persistente_the_leve_becomes_grave(tipo):
    r = run_text(scene(holds=f"{tipo} Leve; {tipo} Persistente", do=f"receive Akira {tipo} Leve"))
    assert sorted(r.grades("Akira", tipo)) == ["Grave", "Persistente"]


def test_EALT_04_another_type_is_not_escalated():
    r = run_text(scene(holds="Heridas Leve", do="receive Akira Fatiga Leve"))
    assert r.grades("Akira", "Heridas") == ["Leve"]
    assert r.grades("Akira", "Fatiga") == ["Leve"]


def test_EALT_13_heridas_on_heridas_grave_gives_incapacitado():
    r = run_text(scene(holds="Heridas Grave", do="receive Akira Heridas Leve"))
    assert r.has("Akira", "incapacitado")
    assert r.grades("Akira", "Heridas") == ["Grave"]
    # Heridas Grave while holding any Heridas: incapacitado too.
    r = run_text(scene(holds="Heridas Persistente", do="receive Akira Heridas Grave"))
    assert r.has("Akira", "incapacitado")
    assert sorted(r.grades("Akira", "Heridas")) == ["Grave", "Persistente"]


def test_EALT_18_more_fatiga_on_fatiga_grave():
    # Fatiga Persistente and Shock Leve together ...
    r = run_text(scene(holds="Fatiga Grave", do="receive Akira Fatiga Leve"))
    assert sorted(r.grades("Akira", "Fatiga")) == ["Grave", "Persistente"]
    assert r.grades("Akira", "Shock") == ["Leve"]
    # ... unless already at Fatiga Persistente: only Heridas of the incoming grade.
    r = run_text(scene(holds="Fatiga Grave; Fatiga Persistente", do="receive Akira Fatiga Leve"))
    assert sorted(r.grades("Akira", "Fatiga")) == ["Grave", "Persistente"]
    assert r.grades("Akira", "Heridas") == ["Leve"]
    assert r.grades("Akira", "Shock") == []


@pytest.mark.parametrize("holds, atributo, expected", [
    ("Heridas Leve", "FUE", -1),
    ("Heridas Leve; Heridas Persistente", "FUE", -2),     # only the worst of a type (not -3)
    ("Heridas Persistente; Heridas Grave", "AGI", -3),
    ("Heridas Leve", "PER", 0),                           # Heridas hinder FUE, AGI, DES only
    ("Heridas Leve; Fatiga Leve", "FUE", -2),             # different types add up
    ("Heridas Leve; Fatiga Leve", "PER", -1),             # Fatiga hinders every action
    ("Fatiga Leve; Emoción Leve", "INT", -2),
])
def test_EALT_06_worst_per_type_and_types_add_up(holds, atributo, expected):
    run_text(scene(holds=holds, expects=f'obstáculo(Akira, "{atributo}") == {expected}'))


@pytest.mark.parametrize("holds", [
    "Heridas Grave; Fatiga Leve",
    "Heridas Persistente; Fatiga Persistente",
    "Heridas Grave; Fatiga Grave; Emoción Grave",
])
def test_EALT_07_all_obstaculos_together_never_worse_than_minus_3(holds):
    run_text(scene(holds=holds, expects='obstáculo(Akira, "FUE") == -3'))


def test_EALT_07_the_capped_obstaculo_is_what_an_action_rolls_with():
    # FUE 3, Obstáculo capped at -3 (not -4): 1d12=9 + 3 - 3 = 9 >= CD 9 -> éxito.
    r = run_text(scene(holds="Heridas Grave; Fatiga Leve", dice="Akira acción 9",
                       do='actuar(Akira, "FUE", 9)'))
    assert said(r) == ["Akira actúa con FUE: 1D12=9 + FUE 3 - 3 (Obstáculos) = 9 contra CD 9 -> éxito"]
    # The query line says why -4 became -3; at -3 or above it says nothing more.
    r = run_text(scene(holds="Heridas Grave; Fatiga Leve", do='consultar(Akira, "FUE", "otra", none)'))
    assert said(r) == ["Akira, Acción de FUE: Obstáculos -4, Facilidades +0 -> -3 (nunca peor que -3)"]
    r = run_text(scene(holds="Heridas Grave", do='consultar(Akira, "FUE", "otra", none)'))
    assert said(r) == ["Akira, Acción de FUE: Obstáculos -3, Facilidades +0 -> -3"]


def mod(atributo: str, propósito: str = "otra", objeto: str = "none") -> str:
    """The modifier query of an action, as an expression."""
    obj = objeto if objeto == "none" else f'"{objeto}"'
    return f'modificador(Akira, "{atributo}", "{propósito}", {obj}, 0)'


# ---------------------------------------------------------------- general

def test_EALT_03_special_states_are_separate_named_states():
    prog = program_for("yokai")
    states = {name for name, c in prog.conditions.items() if not c.grades}
    assert {"incapacitado", "desprevenido", "derribado", "inconsciente", "infección"} <= states
    # They come and go by the rules of the E.Alt, as cards of their own.
    r = run_text(scene(holds="Heridas Grave", do="receive Akira Heridas Leve; receive Akira Shock Leve"))
    assert r.has("Akira", "incapacitado") and r.has("Akira", "desprevenido")
    assert r.grades("Akira", "incapacitado") == []          # a state has no grade


@pytest.mark.parametrize("tipo", ["Shock", "Emoción", "Afección"])
def test_EALT_04_two_leve_give_one_grave_for_every_type(tipo):
    # Regression: Shock, Emoción and Afección had no rules on receiving, so two
    # Leve gave two Leve cards.
    r = run_text(scene(do=f"receive Akira {tipo} Leve; receive Akira {tipo} Leve"))
    assert r.grades("Akira", tipo) == ["Grave"]


def test_EALT_04_shock_persistente_then_leve_gives_grave():
    r = run_text(scene(holds="Shock Persistente", do="receive Akira Shock Leve"))
    assert sorted(r.grades("Akira", "Shock")) == ["Grave", "Persistente"]


@pytest.mark.parametrize("tipo, holds, extra, after", [
    ("Heridas", "Heridas Grave", [("incapacitado", True)], ["Grave"]),                       # EALT-13
    ("Fatiga", "Fatiga Grave", [("Shock", ["Leve"])], ["Grave", "Persistente"]),              # EALT-18
    ("Shock", "Shock Grave", [], ["Grave", "Persistente"]),                                   # EALT-24
    ("Emoción", "Emoción Grave", [("abatimiento", True)], ["Grave", "Persistente"]),          # EALT-28
    ("Afección", "Afección Grave", [], ["Persistente"]),                                      # EALT-35
])
def test_EALT_05_any_state_on_its_grave_has_the_type_consequence(tipo, holds, extra, after):
    r = run_text(scene(holds=holds, do=f"receive Akira {tipo} Leve", dice="Akira duración 3"
                       if tipo == "Shock" else ""))
    assert sorted(r.grades("Akira", tipo)) == after
    for name, want in extra:
        if want is True:
            assert r.has("Akira", name)
        else:
            assert r.grades("Akira", name) == want


def test_EALT_06_an_afeccion_card_does_not_stop_the_obstaculo_query():
    # Regression: obstáculo() stopped with `Leve has no field "?"` (Afección had no data table).
    run_text(scene(holds="Afección Leve; Heridas Leve", expects=f'obstáculo(Akira, "FUE") == -1; {mod("FUE")}.total == -1'))


def test_EALT_06_emocion_grave_applies_before_persistente():
    # The most severe card of a type is the one applied: terror's Facilidad to flee
    # its cause, not abatimiento's -2.
    r = run_text(scene(do='sentir(Akira, "miedo", "oni"); sentir(Akira, "miedo", "oni"); receive Akira Emoción Leve',
                       expects=f'{mod("FUE", "huir", "oni")}.total == 1; {mod("PER")}.total == -3'))
    assert sorted(r.grades("Akira", "Emoción")) == ["Grave", "Persistente"]


def test_EALT_07_facilidades_are_summed_before_the_cap():
    # Heridas Grave -3, Fatiga Leve -1, miedo +1 to flee with FUE: -4 + 1 = -3
    # (a cap before the Facilidad would give -2, the "compensation" the text rules out).
    run_text(scene(holds="Heridas Grave; Fatiga Leve", do='sentir(Akira, "miedo", "oni")',
                   expects=f'{mod("FUE", "huir")}.obstáculos == -4; {mod("FUE", "huir")}.facilidades == 1; '
                           f'{mod("FUE", "huir")}.total == -3'))
    # With one type only, the Facilidad lifts the action: Fatiga Leve -1 + 1 = 0.
    run_text(scene(holds="Fatiga Leve", do='sentir(Akira, "miedo", "oni")', expects=f'{mod("FUE", "huir")}.total == 0'))


def test_EALT_07_other_obstaculos_count_in_the_cap():
    run_text(scene(holds="Fatiga Leve", expects='modificador(Akira, "PER", "otra", none, -3).total == -3'))


def test_EALT_08_emocion_may_grant_facilidades():
    r = run_text(scene(do=f'sentir(Akira, "euforia", "oni"); consultar(Akira, "VOL", "combatir", "oni")',
                       expects=f'{mod("VOL", "combatir")}.facilidades == 1'))
    assert "Akira, Acción de VOL para combatir a oni: Obstáculos 0, Facilidades +1 -> +1" in said(r)


# ---------------------------------------------------------------- recovery terms

def _two(do: str, holds: str = "", dice: str = "", expects: str = "", strict: bool = True) -> str:
    """A scene with Akira and Hana (INT 3), who can treat him."""
    out = PJ + "".join(f"  holds {h}\n" for h in holds.split(";") if h.strip())
    out += "combatant Hana:\n  FUE 2, AGI 2, DES 2, PER 2, INT 3, VOL 2\n"
    if dice:
        out += f"dice{' strict' if strict else ''}:\n" + "".join(f"  {d.strip()}\n" for d in dice.split(";"))
    out += "do:\n" + "".join(f"  {s.strip()}\n" for s in do.split(";"))
    out += "".join(f"expect {e.strip()}\n" for e in expects.split(";") if e.strip())
    return out


def test_EALT_09_curacion_by_someone_else_never_oneself():
    r = run_text(_two("curar(Akira, Akira)", holds="Heridas Grave"))
    assert r.grades("Akira", "Heridas") == ["Grave"]
    assert "Akira no puede aplicar Curación a Akira: nadie puede curarse a sí mismo" in said(r)
    r = run_text(_two("curar(Hana, Akira)", holds="Heridas Grave"))
    assert r.grades("Akira", "Heridas") == ["Leve"]


def test_EALT_09_not_twice_before_a_descanso_or_new_heridas():
    r = run_text(_two("curar(Hana, Akira); curar(Hana, Akira)", holds="Heridas Grave"))
    assert r.grades("Akira", "Heridas") == ["Leve"]          # the second did nothing
    assert r.grades("Akira", "Fatiga") == []
    # A new Heridas allows it again: Grave -> Leve, a new Leve makes it Grave, treated again.
    r = run_text(_two("curar(Hana, Akira); receive Akira Heridas Leve; curar(Hana, Akira)", holds="Heridas Grave"))
    assert r.grades("Akira", "Heridas") == ["Leve"]
    # So does a Descanso (pinned: Hana's and Akira's TS of the night do not matter here).
    r = run_text(_two("curar(Hana, Akira); descansar(Akira, 8); curar(Hana, Akira)", holds="Heridas Grave",
                      dice="Akira ts 6"))
    assert r.grades("Akira", "Heridas") == [] and r.grades("Akira", "Fatiga") == ["Leve"]


def test_EALT_10_asleep_is_shock_persistente_and_one_descanso_a_day():
    r = run_text(scene(holds="Fatiga Persistente", do="descansar(Akira, 8)",
                       expects="not has(Akira, Shock); not has(Akira, Fatiga)"))
    assert "Akira duerme 8 horas (Shock Persistente mientras duerme)" in said(r)
    events = [e for e in r.engine.events if e[0] == "card" and e[1]["condition"] == "Shock"]
    assert [(e[1]["op"], e[1]["grade"]) for e in events] == [("add", "Persistente"), ("remove", "Persistente")]
    # Two sleeps in one day: only one Descanso.
    r = run_text(scene(holds="Fatiga Persistente", do="descansar(Akira, 6); receive Akira Fatiga Persistente; descansar(Akira, 6)"))
    assert r.grades("Akira", "Fatiga") == ["Persistente"]
    assert "Akira ya hizo un Descanso hoy: no puede hacer otro" in said(r)
    # Less than 6 hours is no Descanso; nor is sleeping unfed.
    r = run_text(scene(holds="Fatiga Persistente", do="descansar(Akira, 5)"))
    assert r.grades("Akira", "Fatiga") == ["Persistente"]
    r = run_text(scene(holds="Fatiga Persistente", do="dormir(Akira, 8, false)"))
    assert r.grades("Akira", "Fatiga") == ["Persistente"]


def test_EALT_10_a_day_without_descanso():
    # Day 1 without Descanso: Fatiga Persistente and a TS VOL (passed).
    # Day 2: no second Fatiga Persistente (not cumulative); the TS VOL fails:
    # unconscious 1d6 hours (pinned 2): not 6 hours, so no Descanso.
    r = run_text(scene(do='pasar(2, "días"); pasar(2, "horas")', dice="Akira ts 1; Akira ts 5; Akira duración 2"))
    assert r.grades("Akira", "Fatiga") == ["Persistente"]
    assert "Akira lleva 2 días sin Descanso" in said(r)
    assert "Akira queda inconsciente (Shock Persistente) durante 1D6=2 horas" in said(r)
    assert r.grades("Akira", "Shock") == [] and r.has("Akira", "derribado")
    # Not cumulative: who already held a Fatiga Persistente gets no other (nor a Grave).
    r = run_text(scene(holds="Fatiga Persistente", do='pasar(1, "días")', dice="Akira ts 1"))
    assert r.grades("Akira", "Fatiga") == ["Persistente"]


def test_EALT_10_six_hours_of_that_sleep_count_as_descanso():
    r = run_text(scene(do='pasar(1, "días"); pasar(6, "horas")', dice="Akira ts 6; Akira duración 6"))
    assert "Akira hace un Descanso" in said(r)
    assert r.grades("Akira", "Fatiga") == []                 # the Descanso took the Fatiga Persistente


def test_EALT_10_woken_by_force_before_six_hours():
    r = run_text(scene(do='pasar(1, "días"); pasar(2, "horas"); despertar(Akira)', dice="Akira ts 6; Akira duración 5"))
    assert r.grades("Akira", "Shock") == ["Grave"]
    assert not r.has("Akira", "inconsciente")
    assert "Akira hace un Descanso" not in said(r)


@pytest.mark.parametrize("modo, minutos, reposo", [
    ("a pie", 10, False), ("a caballo", 10, False), ("conduciendo", 10, False),
    ("paseo lento", 2, True), ("paseo lento", 30, False), ("pasajero", 10, True),
])
def test_EALT_11_what_is_reposo(modo, minutos, reposo):
    r = run_text(scene(holds="Fatiga Leve", do=f'viajar(Akira, {minutos}, "minutos", "{modo}")'))
    assert r.grades("Akira", "Fatiga") == ([] if reposo else ["Leve"])


@pytest.mark.parametrize("respiro", [False, True])
def test_EALT_12_dame_un_respiro_option(respiro):
    r = run_text(scene(sets=f"dame_un_respiro = {str(respiro).lower()}", holds="Fatiga Leve",
                       do="calma(); receive Akira Fatiga Leve; receive Akira Shock Leve; receive Akira Heridas Leve"))
    if respiro:
        # Outside the action scene the Leves that recover in minutes are ignored ...
        assert r.grades("Akira", "Fatiga") == [] and r.grades("Akira", "Shock") == []
    else:
        assert r.grades("Akira", "Fatiga") == ["Grave"] and r.grades("Akira", "Shock") == ["Leve"]
    assert r.grades("Akira", "Heridas") == ["Leve"]          # ... but not Heridas Leve (days)
    # In an action scene nothing is ignored, with the option or without.
    r = run_text(scene(sets=f"dame_un_respiro = {str(respiro).lower()}", do="receive Akira Fatiga Leve"))
    assert r.grades("Akira", "Fatiga") == ["Leve"]


# ---------------------------------------------------------------- Heridas

def test_EALT_14_heridas_leve_recovers_with_descanso_or_becomes_fatiga_with_curacion():
    run_text(scene(holds="Heridas Leve", expects=f'{mod("AGI")}.total == -1; {mod("DES")}.total == -1; {mod("INT")}.total == 0'))
    # A day of Descanso: TS FUE 3 with a 3: recovered.
    r = run_text(scene(holds="Heridas Leve", do="descansar(Akira, 8)", dice="Akira ts 3"))
    assert r.grades("Akira", "Heridas") == []
    # Failed: it stays.
    r = run_text(scene(holds="Heridas Leve", do="descansar(Akira, 8)", dice="Akira ts 4"))
    assert r.grades("Akira", "Heridas") == ["Leve"]
    # With another Heridas, no TS at all (strict dice: none rolled).
    r = run_text(scene(holds="Heridas Leve; Heridas Persistente", do="descansar(Akira, 8)"))
    assert sorted(r.grades("Akira", "Heridas")) == ["Leve", "Persistente"]
    # Curación: Heridas Leve becomes Fatiga Leve.
    r = run_text(_two("curar(Hana, Akira)", holds="Heridas Leve"))
    assert r.grades("Akira", "Heridas") == [] and r.grades("Akira", "Fatiga") == ["Leve"]


def test_EALT_15_heridas_grave_needs_curacion_and_risks_infeccion():
    run_text(scene(holds="Heridas Grave", expects=f'{mod("FUE")}.total == -3; {mod("VOL")}.total == 0'))
    # A Descanso does not lower it; a day without Curación: TS FUE failed (5 > 3): infección.
    r = run_text(scene(holds="Heridas Grave", do='pasar(1, "días")', dice="Akira ts 5; Akira ts 1"))
    assert r.grades("Akira", "Heridas") == ["Grave"]
    assert r.grades("Akira", "Afección") == ["Leve"] and r.has("Akira", "infección")
    assert "Akira hace una TS FUE por infección: 1D6=5 contra FUE 3 -> fallo" in said(r)
    # Passed: no infección. Cured before the day ends: no TS at all.
    r = run_text(scene(holds="Heridas Grave", do='pasar(1, "días")', dice="Akira ts 2; Akira ts 1"))
    assert not r.has("Akira", "Afección")
    r = run_text(_two('curar(Hana, Akira); pasar(23, "horas")', holds="Heridas Grave"))
    assert r.grades("Akira", "Heridas") == ["Leve"] and not r.has("Akira", "Afección")


def test_EALT_16_heridas_persistente_monthly_ts_weekly_after_cirugia():
    run_text(scene(holds="Heridas Persistente", expects=f'{mod("FUE")}.total == -2'))
    nights = "; ".join(["descansar(Akira, 8); pasar(16, \"horas\")"] * 7)
    # Seven Descansos without cirugía: no TS yet (strict: nothing pinned).
    r = run_text(scene(holds="Heridas Persistente", do=nights))
    assert r.grades("Akira", "Heridas") == ["Persistente"]
    # Thirty: one TS FUE, passed: Leve.
    r = run_text(scene(holds="Heridas Persistente", do="; ".join([nights] * 4 + ["descansar(Akira, 8); pasar(16, \"horas\")"] * 2),
                       dice="Akira ts 2"))
    assert r.grades("Akira", "Heridas") == ["Leve"]
    # After a successful cirugía (INT 3 + 1d12 11 >= 9), after a week.
    r = run_text(_two("medicina(Hana, Akira, \"cirugía\", 9); " + nights, holds="Heridas Persistente",
                      dice="Hana medicina 11; Akira ts 3", strict=False))   # Hana's own nights are not pinned
    assert r.grades("Akira", "Heridas") == ["Leve"]


NIGHT = 'descansar(Akira, 8); pasar(16, "horas")'


def test_EALT_16_a_month_with_days_without_descanso_is_not_complete():
    # "una vez por cada mes completo de Descanso": 29 nights, 3 days without rest (each a
    # TS VOL for sleep, pinned to pass), then 1 night: no TS FUE yet (strict: none pinned).
    # Regression: the 30th Descanso gave the TS.
    do = "; ".join([NIGHT] * 29 + ['pasar(3, "días")', "descansar(Akira, 8)"])
    r = run_text(scene(holds="Heridas Persistente", do=do, dice="Akira ts 1; Akira ts 1; Akira ts 1"))
    assert not any("por Heridas Persistente" in line for line in r.lines)
    assert "Persistente" in r.grades("Akira", "Heridas")
    # Thirty nights in a row after the gap: the TS (2 <= FUE 3: Leve).
    do = "; ".join([NIGHT] * 29 + ['pasar(3, "días")'] + [NIGHT] * 30)
    r = run_text(scene(holds="Heridas Persistente", do=do, dice="Akira ts 1; Akira ts 1; Akira ts 1; Akira ts 2"))
    assert "Akira hace una TS FUE por Heridas Persistente: 1D6=2 contra FUE 3 -> éxito" in said(r)


def test_EALT_16_the_week_after_a_cirugia_counts_from_the_cirugia():
    # "si es atendido con Éxito mediante Medicina: 'cirugía', puede realizar este intento
    # una vez por cada semana completa de Descanso": 5 nights, the cirugía, 2 nights: no
    # TS (strict). Regression: the nights before the cirugía counted, and 7 gave the TS.
    nights = lambda k: "; ".join([NIGHT] * k)
    r = run_text(_two(nights(5) + '; medicina(Hana, Akira, "cirugía", 9); ' + nights(2), holds="Heridas Persistente",
                      dice="Hana medicina 11", strict=False))
    assert not any("por Heridas Persistente" in line for line in r.lines)
    r = run_text(_two(nights(5) + '; medicina(Hana, Akira, "cirugía", 9); ' + nights(7), holds="Heridas Persistente",
                      dice="Hana medicina 11; Akira ts 3", strict=False))
    assert "Akira hace una TS FUE por Heridas Persistente: 1D6=3 contra FUE 3 -> éxito" in said(r)
    assert r.grades("Akira", "Heridas") == ["Leve"]


@pytest.mark.parametrize("específicos", [False, True])
def test_EALT_17_esp_especificos_with_heridas_persistente(específicos):
    r = run_text(scene(sets=f"esp_específicos = {str(específicos).lower()}",
                       do='herir_con(Akira, Heridas.Persistente, "lesión")'))
    assert r.grades("Akira", "Heridas") == ["Persistente"]
    assert r.has("Akira", "lesión") == específicos
    # Only when the Persistente is suffered: a Leve wound never brings it.
    r = run_text(scene(sets=f"esp_específicos = {str(específicos).lower()}", do='herir_con(Akira, Heridas.Leve, "lesión")'))
    assert not r.has("Akira", "lesión")


# ---------------------------------------------------------------- Fatiga

def test_EALT_19_fatiga_leve_one_minute_of_reposo():
    run_text(scene(holds="Fatiga Leve", expects=f'{mod("PER")}.total == -1; {mod("VOL")}.total == -1'))
    r = run_text(scene(holds="Fatiga Leve", do='reposar(Akira, 9, "rondas")'))
    assert r.grades("Akira", "Fatiga") == ["Leve"]            # 54 seconds: not yet
    r = run_text(scene(holds="Fatiga Leve", do='reposar(Akira, 1, "minutos")'))
    assert r.grades("Akira", "Fatiga") == []
    # Time without Reposo does nothing.
    r = run_text(scene(holds="Fatiga Leve", do='pasar(10, "minutos")'))
    assert r.grades("Akira", "Fatiga") == ["Leve"]


@pytest.mark.parametrize("reposos", [['reposar(Akira, 5, "rondas")', 'reposar(Akira, 5, "rondas")'],
                                     ['reposar(Akira, 9, "rondas")', 'reposar(Akira, 1, "rondas")']])
def test_EALT_19_reposos_in_a_row_add_up_to_the_minute(reposos):
    # "Fatiga Leve: ... se recupera con 1 minuto de Reposo": 5 + 5 rondas of 6 s are that
    # minute. Regression: each reposar started the count again.
    r = run_text(scene(holds="Fatiga Leve", do="; ".join(reposos)))
    assert r.grades("Akira", "Fatiga") == []


def test_EALT_19_time_without_reposo_between_breaks_the_count():
    r = run_text(scene(holds="Fatiga Leve", do='reposar(Akira, 5, "rondas"); pasar(1, "rondas"); reposar(Akira, 5, "rondas")'))
    assert r.grades("Akira", "Fatiga") == ["Leve"]
    r = run_text(scene(holds="Fatiga Leve", do='reposar(Akira, 5, "rondas"); viajar(Akira, 1, "minutos", "a pie"); '
                                                'reposar(Akira, 5, "rondas")'))
    assert r.grades("Akira", "Fatiga") == ["Leve"]


@pytest.mark.parametrize("reposos", [('30 minutos', '30 minutos'), ('59 minutos', '2 minutos')])
def test_EALT_20_reposos_in_a_row_add_up_to_the_hour(reposos):
    # "Fatiga Grave: ... Se recupera con 1 hora de Reposo". Regression: 30 + 30 and
    # 59 + 2 minutes of Reposo in a row left the Fatiga Grave.
    do = "; ".join(f'reposar(Akira, {r.split()[0]}, "{r.split()[1]}")' for r in reposos)
    r = run_text(scene(holds="Fatiga Grave", do=do))
    assert r.grades("Akira", "Fatiga") == []
    assert "Akira se recupera de Fatiga Grave (Reposo)" in said(r)


def test_EALT_20_fatiga_grave_one_hour_of_reposo():
    run_text(scene(holds="Fatiga Grave", expects=f'{mod("INT")}.total == -3'))
    r = run_text(scene(holds="Fatiga Grave", do='reposar(Akira, 59, "minutos")'))
    assert r.grades("Akira", "Fatiga") == ["Grave"]
    r = run_text(scene(holds="Fatiga Grave", do='reposar(Akira, 1, "horas")'))
    assert r.grades("Akira", "Fatiga") == []


def test_EALT_21_fatiga_persistente_recovers_with_a_descanso():
    run_text(scene(holds="Fatiga Persistente", expects=f'{mod("DES")}.total == -2'))
    r = run_text(scene(holds="Fatiga Persistente", do='reposar(Akira, 5, "horas")'))
    assert r.grades("Akira", "Fatiga") == ["Persistente"]
    r = run_text(scene(holds="Fatiga Persistente", do="descansar(Akira, 7)"))
    assert r.grades("Akira", "Fatiga") == []


@pytest.mark.parametrize("prolongado", [False, True])
def test_EALT_22_esfuerzo_fisico_prolongado_option(prolongado):
    # FUE 3: three minutes free, then a TS FUE per minute (4: failed; 2: passed).
    r = run_text(scene(sets=f"esfuerzo_prolongado = {str(prolongado).lower()}", do="esforzarse(Akira, 5)",
                       dice="Akira ts 4; Akira ts 2" if prolongado else ""))
    assert r.grades("Akira", "Fatiga") == (["Leve"] if prolongado else [])


# ---------------------------------------------------------------- Shock

def test_EALT_23_no_action_in_any_shock_and_desprevenido():
    for grado in ("Leve", "Grave"):
        r = run_text(scene(do=f'receive Akira Shock {grado}; actuar(Akira, "FUE", 9)', dice="Akira duración 1" if grado == "Persistente" else ""))
        assert "Akira no puede realizar ninguna Acción (Shock)" in said(r)
        assert r.has("Akira", "desprevenido")
    # Out of Shock, desprevenido goes with it.
    r = run_text(scene(do='receive Akira Shock Persistente; pasar(1, "horas")', dice="Akira duración 1"))
    assert not r.has("Akira", "Shock") and not r.has("Akira", "desprevenido")


def test_EALT_24_more_shock_on_shock_grave():
    r = run_text(scene(holds="Shock Grave", do="receive Akira Shock Leve", dice="Akira duración 4"))
    assert sorted(r.grades("Akira", "Shock")) == ["Grave", "Persistente"]
    assert "Akira queda inconsciente (Shock Persistente) durante 1D6=4 minutos" in said(r)
    r = run_text(scene(holds="Shock Grave; Shock Persistente", do="receive Akira Shock Grave"))
    assert sorted(r.grades("Akira", "Shock")) == ["Grave", "Persistente"]
    assert r.grades("Akira", "Fatiga") == ["Grave"]          # Fatiga of the incoming Shock's grade


def test_EALT_25_shock_leve_takes_one_round():
    text = scene(do="receive Akira Shock Leve", dice="Akira acción 8",
                 extra="").replace("do:", "rounds 2\nround 2:\n  Akira: actuar_en_ronda FUE otra nada\ndo:")
    r = run_text(text)
    lines = said(r)
    assert lines.index("Akira: ya no sufre E.Alt de Shock") < lines.index(
        "Akira actúa con FUE: 1D12=8 + FUE 3 = 11 contra CD 9 -> éxito")
    assert not r.has("Akira", "desprevenido")


def test_EALT_26_shock_grave_ts_vol_at_the_end_of_its_turn():
    # Round 1: TS VOL 5 fails (VOL 2), stays Grave; round 2: 1 passes: Shock Leve;
    # round 3: no action (the Leve), it goes at the end of that turn.
    text = scene(holds="Shock Grave", dice="Akira ts 5; Akira ts 1").replace("do:\n  pass\n", "rounds 3\n")
    r = run_text(text)
    lines = said(r)
    lost = "Akira pierde su turno: no puede realizar ninguna Acción (Shock)"
    assert lines == [
        lost,
        "Akira hace una TS VOL por Shock Grave: 1D6=5 contra VOL 2 -> fallo",
        lost,
        "Akira hace una TS VOL por Shock Grave: 1D6=1 contra VOL 2 -> éxito",
        "Akira: supera la TS: Shock Grave pasa a Shock Leve",
        "Akira: E.Alt de Shock Leve",
        lost,
        "Akira se recupera de Shock Leve (1 Ronda sin actuar)",
        "Akira: ya no sufre E.Alt de Shock",
    ]


def test_EALT_27_shock_persistente_durations_and_derribado():
    # Reached by piling up: 1d6 minutes (4): still out after 3 minutes, back after 4.
    r = run_text(scene(holds="Shock Grave", do='receive Akira Shock Leve; pasar(3, "minutos")', dice="Akira duración 4"))
    assert r.has("Akira", "inconsciente")
    r = run_text(scene(holds="Shock Grave", do='receive Akira Shock Leve; pasar(4, "minutos")', dice="Akira duración 4"))
    assert not r.has("Akira", "Shock") and not r.has("Akira", "inconsciente") and r.has("Akira", "derribado")
    # Received directly: 1d3 hours (2).
    r = run_text(scene(do='receive Akira Shock Persistente; pasar(119, "minutos")', dice="Akira duración 2"))
    assert r.has("Akira", "Shock")
    assert "Akira queda inconsciente (Shock Persistente) durante 1D3=2 horas" in said(r)
    r = run_text(scene(do='receive Akira Shock Persistente; pasar(2, "horas")', dice="Akira duración 2"))
    assert not r.has("Akira", "Shock") and r.has("Akira", "derribado")
    # The source may say otherwise: 2d6 rounds (3 + 4 = 7 rounds).
    r = run_text(scene(do='inconsciente_durante(Akira, 2D6, "rondas"); pasar(7, "rondas")', dice="Akira duración 3 4"))
    assert not r.has("Akira", "Shock")


# ---------------------------------------------------------------- Emoción

def test_EALT_28_any_emocion_on_emocion_grave_gives_abatimiento():
    for other in ('sentir(Akira, "euforia", "fiesta")', "receive Akira Emoción Leve", "receive Akira Emoción Grave"):
        r = run_text(scene(do=f'sentir(Akira, "terror", "oni"); {other}'))
        assert sorted(r.grades("Akira", "Emoción")) == ["Grave", "Persistente"]
        assert r.has("Akira", "abatimiento")


def test_EALT_29_emocion_leve_facilidad_to_flee_or_fight_with_fue_or_vol():
    for nombre in ("miedo", "euforia"):
        run_text(scene(do=f'sentir(Akira, "{nombre}", "oni")', expects=(
            f'{mod("FUE", "huir")}.total == 1; {mod("VOL", "combatir")}.total == 1; '
            f'{mod("FUE", "combatir", "otro")}.total == 1; '       # indistintamente
            f'{mod("AGI", "huir")}.total == -1; {mod("FUE")}.total == -1; {mod("INT")}.total == -1')))
    # Recovery: away from the stress, a minute of Reposo. Not without leaving it.
    r = run_text(scene(do='sentir(Akira, "miedo", "oni"); reposar(Akira, 5, "minutos")'))
    assert r.grades("Akira", "Emoción") == ["Leve"]
    r = run_text(scene(do='sentir(Akira, "miedo", "oni"); alejarse(Akira); reposar(Akira, 1, "minutos")'))
    assert r.grades("Akira", "Emoción") == [] and not r.has("Akira", "miedo")


def test_EALT_30_same_emotion_worsens_the_opposite_one_swaps():
    r = run_text(scene(do='sentir(Akira, "miedo", "oni"); sentir(Akira, "miedo", "oni")'))
    assert r.grades("Akira", "Emoción") == ["Grave"] and r.has("Akira", "terror") and not r.has("Akira", "miedo")
    r = run_text(scene(do='sentir(Akira, "euforia", "duelo"); sentir(Akira, "euforia", "duelo")'))
    assert r.grades("Akira", "Emoción") == ["Grave"] and r.has("Akira", "ira")
    r = run_text(scene(do='sentir(Akira, "miedo", "oni"); sentir(Akira, "euforia", "victoria")'))
    assert r.grades("Akira", "Emoción") == ["Leve"] and r.has("Akira", "euforia") and not r.has("Akira", "miedo")


def test_EALT_31_emocion_grave_facilidad_only_about_its_cause():
    run_text(scene(do='sentir(Akira, "terror", "oni")', expects=(
        f'{mod("FUE", "huir", "oni")}.total == 1; {mod("VOL", "huir", "oni")}.total == 1; '
        f'{mod("FUE", "huir", "lobo")}.total == -3; {mod("FUE", "combatir", "oni")}.total == -3; '
        f'{mod("DES", "huir", "oni")}.total == -3')))
    run_text(scene(do='sentir(Akira, "ira", "bandido")', expects=(
        f'{mod("FUE", "combatir", "bandido")}.total == 1; {mod("FUE", "huir", "bandido")}.total == -3')))
    # No longer exposed, and aware of it: back to miedo / euforia.
    r = run_text(scene(do='sentir(Akira, "terror", "oni"); alejarse(Akira)'))
    assert r.grades("Akira", "Emoción") == ["Leve"] and r.has("Akira", "miedo") and not r.has("Akira", "terror")
    r = run_text(scene(do='sentir(Akira, "ira", "bandido"); alejarse(Akira)'))
    assert r.has("Akira", "euforia")


def test_EALT_32_abatimiento():
    r = run_text(scene(do='sentir(Akira, "terror", "oni"); sentir(Akira, "miedo", "oni"); alejarse(Akira); '
                          'alejarse(Akira); reposar(Akira, 1, "minutos"); descansar(Akira, 8)',
                       expects=f'{mod("FUE", "huir", "oni")}.total == -2; {mod("PER")}.total == -2'))
    assert r.grades("Akira", "Emoción") == ["Persistente"]    # a Descanso does not end it by itself
    r = run_text(scene(do='sentir(Akira, "terror", "oni"); receive Akira Emoción Leve; estímulo_positivo(Akira)'))
    assert r.grades("Akira", "Emoción") == ["Grave"] and not r.has("Akira", "abatimiento")


@pytest.mark.parametrize("específicos", [False, True])
def test_EALT_33_esp_especificos_instead_of_abatimiento(específicos):
    r = run_text(scene(sets=f"esp_específicos = {str(específicos).lower()}",
                       do='sentir(Akira, "terror", "oni"); sentir_con(Akira, "miedo", "oni", "fobia")'))
    if específicos:
        assert r.grades("Akira", "Emoción") == ["Grave"] and r.has("Akira", "fobia") and not r.has("Akira", "abatimiento")
    else:
        assert sorted(r.grades("Akira", "Emoción")) == ["Grave", "Persistente"] and not r.has("Akira", "fobia")


def test_EALT_17_the_specific_state_a_source_names_by_its_text():
    """dar_especial looks the condition up by the text (condition_named): every E.Esp of the module, the
    one written with a space too; a text that names none stops the run where it is given (E0280)."""
    especiales = ["enfermedad", "veneno", "infección", "desangramiento", "lesión", "ceguera", "sordera", "fobia",
                  "paranoia", "compulsión", "amnesia", "bloqueo empático", "catatonia"]
    r = run_text(scene(do=";".join(f'dar_especial(Akira, "{e}")' for e in especiales)))
    assert all(r.has("Akira", e.replace(" ", "_")) for e in especiales)
    from tests.conftest import diagnostics_of
    out = diagnostics_of(scene(do='herir_con(Akira, Heridas.Persistente, "lesion")', sets="esp_específicos = true"))
    assert 'error[E0280]: no condition is named "lesion"' in out and 'did you mean "lesión"?' in out, out
    assert "actividades.rules" in out


# ---------------------------------------------------------------- Afección

def test_EALT_34_diseases_and_poisons_share_one_counter():
    r = run_text(scene(do='enfermar(Akira, Afección.Leve, "enfermedad"); enfermar(Akira, Afección.Leve, "veneno")'))
    assert r.grades("Akira", "Afección") == ["Grave"]        # one card: the counter
    assert r.has("Akira", "enfermedad") and r.has("Akira", "veneno")
    assert "Akira: E.Alt de Afección Grave (enfermedad, veneno)" in said(r)


def test_EALT_35_afeccion_advances_in_phases():
    r = run_text(scene(do='enfermar(Akira, Afección.Leve, "enfermedad"); avanzar_afección(Akira)'))
    assert r.grades("Akira", "Afección") == ["Grave"]
    r = run_text(scene(do='enfermar(Akira, Afección.Leve, "enfermedad"); avanzar_afección(Akira); avanzar_afección(Akira)'))
    assert r.grades("Akira", "Afección") == ["Persistente"]
    # Persistente is the last phase of a disease's course: advancing leaves it there.
    r = run_text(scene(holds="Afección Persistente", do='avanzar_afección(Akira)'))
    assert r.grades("Akira", "Afección") == ["Persistente"]


@pytest.mark.parametrize("grado", ["Leve", "Persistente"])
def test_EALT_04_a_new_afeccion_on_afeccion_persistente_gives_grave(grado):
    # The general rule ("Si el PJ ya tiene marcado un E.Alt Leve o Persistente ... y sufre
    # nuevamente el mismo E.Alt Leve o Persistente, en su lugar recibirá un E.Alt Grave"),
    # with no exception in the Afección section. Regression: it stayed Persistente.
    r = run_text(scene(holds="Afección Persistente", do=f'enfermar(Akira, Afección.{grado}, "veneno")'))
    assert r.grades("Akira", "Afección") == ["Grave"]
    assert "Akira: E.Alt de Afección Grave (veneno)" in said(r)


@pytest.mark.parametrize("grado, obstáculo, resultado", [
    ("Leve", -1, "éxito"), ("Persistente", -2, "fallo"), ("Grave", -3, "fallo"),
])
def test_EALT_36_medicina_takes_the_patients_afeccion_as_obstaculo(grado, obstáculo, resultado):
    # Hana INT 3, 1d12 = 7: 7 + 3 + obstáculo against CD 9.
    r = run_text(_two('medicina(Hana, Akira, "primeros auxilios", 9)', holds=f"Afección {grado}; Heridas Grave",
                      dice="Hana medicina 7"))
    assert f"Hana actúa con INT: 1D12=7 + INT 3 - {-obstáculo} (Obstáculos) = {10 + obstáculo} contra CD 9 -> {resultado}" in said(r)
    assert r.grades("Akira", "Heridas") == (["Leve"] if resultado == "éxito" else ["Grave"])


# ---------------------------------------------------------------- bundled scripts

BUNDLED = Path(__file__).resolve().parent.parent / "rulesets" / "yokai"


@pytest.mark.slow
@pytest.mark.parametrize("script", ["recuperacion.enc", "combate.enc", "afeccion.enc"])
def test_bundled_scripts_transcripts(script, capsys, snapshot):
    """Each read line by line against the seed (see the comment atop each script)."""
    code = main(["run", str(BUNDLED / script)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out == snapshot


# Phrases a game master stopped at in the bundled transcripts (issue 20): false
# ("fails to flee" followed by getting away is checked apart) or ungrammatical, and
# no table key ("contundente_crítico") where the story needs words.
BAD_PHRASES = ["ya fue tratado", "una nueva Heridas", "(Afección del paciente", " + 0 contra", "y modificador",
               " 1 horas", " 1 minutos", " 1 rondas", " 1 días", "=1 horas", "=1 minutos", "=1 rondas",
               # the second reader (issue 20): jargon, an object in brackets, "a el", a subject that
               # switches, "con" for whom one treats, an unlabelled zero
               "golpe que pasa", "para combatir (", "para huir (", "lo que le alteraba (", " a el ", " de el ",
               "ya la recibió, y", "la nueva Heridas", '" con ', "(0 por", " 0 por los E.Alt",
               # the third reading (issue 20): a count that does not agree, the seed's "Ronda" in
               # lower case, a list of cards read as "Grave, Persistente", a Facilidad without its sign
               " 1 Rondas", " 1 Asaltos", "=1 Rondas", "=1 Asaltos", "=1 días", " 1 semanas", " 1 meses",
               " ronda", "Leve, Grave", "Leve, Persistente", "Grave, Persistente",
               "Facilidades +1 -> 1", "1 días sin", "En pie: -", "Obstáculo 0 de",
               # the GM's reading of 160 transcripts (issue 20): no clause ID in the story (it is in
               # the rule's comment); the seed writes "sufrir E.Alt de Fatiga Leve", not "recibe Fatiga Leve"
               "EALT-", "CMB-", "recibe Heridas", "recibe Fatiga", "recibe Shock"]
ENCOUNTERS = sorted(BUNDLED.glob("*.enc")) + sorted((BUNDLED.parent / "aquelarre_estados").glob("*.enc"))


@pytest.mark.slow
@pytest.mark.parametrize("enc", ENCOUNTERS, ids=lambda p: p.name)
def test_no_bundled_transcript_says_what_a_game_master_would_not_sign(enc):
    prepared = Prepared(load_encounter(enc, Sources()), program_for(
        "yokai" if enc.parent.name == "yokai" else "aquelarre_estados"))
    for seed in range(1, 21):
        lines = render_text(prepared.run(seed=seed).engine).splitlines()
        for line in lines:
            assert not any(p in line for p in BAD_PHRASES) and "_" not in line, (enc.name, seed, line)
            assert not line.lstrip()[:1].islower(), ("a line is a sentence: a capital first", enc.name, seed, line)
        for i, line in enumerate(lines):
            if " se aleja de " in line:
                flights = [ln for ln in lines[:i] if "para huir" not in ln and " actúa con " in ln]
                assert not flights or flights[-1].endswith("-> éxito"), (enc.name, seed, flights[-1])


def test_medicina_says_whose_obstaculo_it_is():
    # Regression: "Obstáculos -2 -> -2 (Afección del paciente...)" when the -2 was the
    # healer's own Fatiga Persistente.
    r = run_text(_two('medicina(Hana, Akira, "primeros auxilios", 9)', holds="Heridas Grave",
                      dice="Hana medicina 9").replace(
        "combatant Hana:\n  FUE 2, AGI 2, DES 2, PER 2, INT 3, VOL 2\n",
        "combatant Hana:\n  FUE 2, AGI 2, DES 2, PER 2, INT 3, VOL 2\n  holds Fatiga Persistente\n"))
    # Regression (issue 20): "(0 por la Afección de Akira, ...)", an unlabelled zero; "con Akira".
    assert 'Hana intenta aplicar a Akira Medicina: "primeros auxilios": Obstáculos -2 por los E.Alt de Hana -> -2' in said(r)
    assert "Hana actúa con INT: 1D12=9 + INT 3 - 2 (Obstáculos) = 10 contra CD 9 -> éxito" in said(r)


def test_a_second_curacion_is_refused_in_words_that_fit_any_patient():
    r = run_text(_two("curar(Hana, Akira); curar(Hana, Akira)", holds="Heridas Grave"))
    # Regression (issue 20): "...: ya la recibió, y no puede..." switched its subject.
    assert ("Hana no puede aplicar Curación a Akira: Akira ya recibió una y no puede recibir otra hasta que haga "
            "un Descanso o sufra un nuevo E.Alt de Heridas") in said(r)


@pytest.mark.parametrize("do, line", [
    ('inconsciente_durante(Akira, 1D6, "horas")', "Akira queda inconsciente (Shock Persistente) durante 1D6=1 hora"),
    ('inconsciente_durante(Akira, 1D6, "minutos")', "Akira queda inconsciente (Shock Persistente) durante 1D6=1 minuto"),
    ('viajar(Akira, 1, "horas", "a pie")', "Akira viaja 1 hora (a pie): no es Reposo"),
    ("esforzarse(Akira, 1)", "Akira hace un esfuerzo físico intenso durante 1 minuto"),
    ("dormir(Akira, 1, false)", "Akira duerme 1 hora (Shock Persistente mientras duerme)"),
])
def test_one_of_a_unit_is_singular(do, line):
    r = run_text(scene(do=do, dice="Akira duración 1" if "inconsciente" in do else ""))
    assert line in said(r)


@pytest.mark.parametrize("do, line", [
    ('pasar(1, "rondas")', "Pasa 1 Ronda"),                       # the seed's "durante 1 Ronda"
    ('pasar(2, "rondas")', "Pasan 2 Rondas"),
    ('pasar(1, "meses")', "Pasa 1 mes"),
    ('pasar(2, "meses")', "Pasan 2 meses"),                       # not "mess": the table's own plural
    ('inconsciente_durante(Akira, 1D3, "horas")', "Akira queda inconsciente (Shock Persistente) durante 1D3=1 hora"),
])
def test_a_count_agrees_with_its_noun_by_the_language_s_plural(do, line):
    # The GM reader (issue 20): "1D3=1 horas". The unit's word is agree(n, singular, plural).
    r = run_text(scene(do=do, dice="Akira duración 1" if "inconsciente" in do else ""))
    assert line in said(r)


def test_two_days_without_descanso_say_dias_and_one_says_dia():
    r = run_text(scene(do='pasar(50, "horas")', dice="Akira ts 1; Akira ts 1"))
    assert "Akira lleva 1 día sin Descanso" in said(r) and "Akira lleva 2 días sin Descanso" in said(r)


@pytest.mark.parametrize("holds, line", [
    ("Fatiga Grave; Fatiga Persistente", "Akira: E.Alt de Fatiga Grave y Persistente"),
    ("Heridas Leve; Heridas Persistente; Heridas Grave", "Akira: E.Alt de Heridas Leve, Persistente y Grave"),
    ("Heridas Grave", "Akira: E.Alt de Heridas Grave"),
])
def test_the_cards_of_a_type_read_as_a_list_with_y(holds, line):
    # Regression (the third reading): "E.Alt de Fatiga Grave, Persistente".
    r = run_text(scene(holds=holds, do="decir_estado(Akira, Heridas if has(Akira, Heridas) else Fatiga)"))
    assert line in said(r)


def test_the_bad_phrase_list_catches_the_old_lines():
    old = ["Pasa 1 ronda", "Pasan 3 rondas", "    Rodrigo: E.Alt de Fatiga Grave, Persistente",
           "    Bandido: E.Alt de Heridas Leve, Grave",
           "Akira, Acción de FUE para huir de Oni: Obstáculos 0, Facilidades +1 -> 1",
           "    Bandido queda inconsciente (Shock Persistente) durante 1D3=1 horas",
           "    Bandido queda inconsciente (Shock Persistente) durante 1D6=1 Asaltos",
           "Akira se recupera de Shock Leve (1 Ronda sin actuar, EALT-25)",
           "Akira: ya tenía Fatiga Grave y Persistente: en su lugar recibe Heridas Leve (EALT-18)",
           "    Bandido recibe Heridas Leve (el golpe le hiere)"]
    assert all(any(p in line for p in BAD_PHRASES) for line in old)


@pytest.mark.slow
def test_a_loaded_session_reads_as_a_game_master_would_sign(tmp_path, capsys):
    # The loaded-session case of tests/test_state.py, read as the bundled transcripts are.
    from tests.test_state import SESSION_1, SESSION_2
    s1, s2, state = tmp_path / "s1.enc", tmp_path / "s2.enc", tmp_path / "estado.json"
    s1.write_text(SESSION_1 + '  sentir(Hana, "ira", "el oni")\n', encoding="utf-8")
    s2.write_text(SESSION_2.replace("  pass\n", '  sentir(Hana, "miedo", "el oni")\n  pasar(5, "horas")\n'),
                  encoding="utf-8")
    assert main(["run", str(s1), "--quiet", "--save-state", str(state)]) == 0
    capsys.readouterr()
    assert main(["run", str(s2), "--quiet", "--load-state", str(state)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == ["[día 1, 1:00:00]", 'Hana recibe "miedo" (causa: el oni)',
                         'Hana: ya tenía Emoción Grave: se añade Emoción Persistente, "abatimiento"',
                         "Hana: E.Alt de Emoción Grave y Persistente (ira, abatimiento)"]
    assert lines[-2:] == ["[día 1, 5:00:00]", WAKES]          # unconscious 1D6=5 hours from 0:00
    assert not any(p in line for p in BAD_PHRASES for line in lines)


WAKES = 'Akira despierta: se recupera de todo su Shock, deja de estar "desprevenido" y queda "derribado"'


def test_a_time_stamp_comes_before_the_events_it_dates():
    # A day without Descanso, the TS VOL failed (6 > VOL 2): unconscious 1 hour. Each
    # stamp before its events; regression: the faint's stamp came after it.
    r = run_text(scene(do='pasar(30, "horas")', dice="Akira ts 6; Akira duración 1"))
    at = r.lines.index("[día 2, 0:00:00]")
    assert r.lines[at + 1:at + 6] == [
        "Akira lleva 1 día sin Descanso",
        "Akira: E.Alt de Fatiga Persistente",
        "Akira hace una TS VOL por sueño: 1D6=6 contra VOL 2 -> fallo",
        "Akira queda inconsciente (Shock Persistente) durante 1D6=1 hora",
        'Akira queda "desprevenido" mientras esté en Shock',
    ]
    assert r.lines[at + 6:at + 9] == ["Akira: E.Alt de Shock Persistente (inconsciente, desprevenido)", "[día 2, 1:00:00]", WAKES]


# ---------------------------------------------------------------- hooks (issue 23, Build 1)

CASA = BUNDLED.parent / "casa"


def _code_lines(path: Path) -> int:
    return sum(1 for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.startswith("#"))


@pytest.mark.slow
@pytest.mark.parametrize("edition", ["yokai", "aquelarre_estados"])
def test_house_rule_heridas_leve_does_not_heal_by_descanso_in_two_lines(edition, tmp_path):
    # The designer's task copied the 29-line descanso; each recovery path is now a rule of its own.
    house = CASA / "heridas_leve_sin_descanso.rules"
    assert _code_lines(house) <= 5          # with its "extends yokai" line
    enc = tmp_path / "descanso.enc"
    head = PJ if edition == "yokai" else (PJ.replace("edition yokai", "edition aquelarre_estados").replace(
        "FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2", "FUE 12, AGI 10, HAB 10, RES 12, PER 10"))
    enc.write_text(head + "  holds Heridas Leve\ndice strict:\n  Akira ts 1\ndo:\n  descansar(Akira, 8)\n", encoding="utf-8")
    if edition != "yokai":        # the same module: the line that names the edition is the only change
        text = house.read_text(encoding="utf-8").replace("extends yokai", f"extends {edition}")
        house = tmp_path / house.name
        house.write_text(text, encoding="utf-8")
    base = Prepared(load_encounter(enc, Sources()), program_for(edition)).run()
    assert "Akira se recupera de Heridas Leve (Descanso)" in render_text(base.engine)
    enc.write_text(head + "  holds Heridas Leve\ndo:\n  descansar(Akira, 8)\n", encoding="utf-8")  # no TS: strict, none pinned
    casa = Prepared(load_encounter(enc, Sources()), program_for(edition, houses=[house])).run()
    out = render_text(casa.engine)
    assert "Akira hace un Descanso" in out and "Heridas Leve" not in out.split("Akira hace un Descanso")[1]
    akira = next(c for c in casa.engine.cb if c.a_name == "Akira")
    assert [g.name for g in akira.cards["Heridas"]] == ["Leve"]


@pytest.mark.slow
def test_the_house_rule_runs_over_the_bundled_encounter_its_comment_names(capsys):
    # The second reader (issue 20): over recuperacion.enc it printed a right transcript and
    # exited 2 with five "E0505: this pinned roll was never made" (the encounter's dice were
    # strict, and the rule removes those TS).
    house = CASA / "heridas_leve_sin_descanso.rules"
    assert "grimorio run rulesets/yokai/recuperacion.enc --house rulesets/casa/heridas_leve_sin_descanso.rules" in (
        house.read_text(encoding="utf-8"))
    assert main(["run", str(BUNDLED / "recuperacion.enc"), "--house", str(house)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "TS FUE por Heridas Leve" not in out
    assert out.splitlines()[-1] == "Akira, Acción de AGI: Obstáculos -1, Facilidades +0 -> -1"   # still Heridas Leve


# Each recovery path and each escalation of the module: a rule a layer replaces alone.
HOOKS = {
    "recovery": ["fatiga_persistente_con_descanso", "heridas_leve_con_descanso", "heridas_persistente_con_descanso",
                 "fatiga_leve_con_reposo", "fatiga_grave_con_reposo", "emoción_leve_con_reposo",
                 "heridas_grave_con_curación", "heridas_leve_con_curación", "emoción_grave_al_alejarse",
                 "estímulo_positivo", "ts_de_shock_grave", "fin_de_shock_persistente", "sueño_como_descanso"],
    "escalation": ["incapacitar", "heridas_grave_sobre_heridas", "heridas_a_grave", "fatiga_sobre_grave", "fatiga_a_grave",
                   "shock_sobre_grave", "shock_grave", "emoción_a_grave", "abatir", "emoción_sobre_leve", "afección_a"],
}


def test_each_recovery_and_escalation_is_a_small_named_rule():
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.dsl.syntax import nodes as n
    rules = {r.name: r for r in load_edition("yokai", [bundled_root()]).all(n.Rule)}
    for name in HOOKS["recovery"] + HOOKS["escalation"]:
        rule = rules[name]
        assert ("/" + rule.span.file.replace("\\", "/")).split("/rulesets/")[-1].startswith("estados/"), name
        assert len(rule.body) <= 8, name


# ---------------------------------------------------------------- the clock

def test_timed_events_fire_in_order_at_their_moment():
    # Unconscious 2 hours (1d3 = 2), a Heridas Grave whose daily TS comes at 24 h,
    # a day without Descanso at 24 h too: each at its time, in the order they came.
    r = run_text(scene(holds="Heridas Grave", do='receive Akira Shock Persistente; pasar(1, "días")',
                       dice="Akira duración 2; Akira ts 1; Akira ts 1"))
    stamped = [ln for ln in r.lines if ln.startswith("[") or "despierta" in ln or "TS" in ln]
    assert stamped == [
        "[día 1, 0:00:00]",
        "[día 1, 2:00:00]",
        WAKES,
        "[día 2, 0:00:00]",
        "Akira hace una TS FUE por infección: 1D6=1 contra FUE 3 -> éxito",
        "Akira hace una TS VOL por sueño: 1D6=1 contra VOL 2 -> éxito",
    ]


def test_a_wait_in_pieces_is_a_wait_in_one():
    one = run_text(scene(holds="Fatiga Grave", do='receive Akira Shock Persistente; reposar(Akira, 3, "horas")',
                         dice="Akira duración 2"))
    pieces = run_text(scene(holds="Fatiga Grave", do='receive Akira Shock Persistente; '
                            + "; ".join(['reposar(Akira, 1, "horas")'] * 3), dice="Akira duración 2"))
    for r in (one, pieces):
        assert r.grades("Akira", "Fatiga") == [] and not r.has("Akira", "Shock")
    assert [ln for ln in one.lines if "despierta" in ln] == [ln for ln in pieces.lines if "despierta" in ln]


@pytest.mark.slow
def test_the_estados_module_can_be_included_by_another_edition(tmp_path):
    """Another edition with its own sheet, outcomes and checks includes the bundled module by name."""
    folder = tmp_path / "otra"
    folder.mkdir()
    (folder / "propio.rules").write_text(textwrap.dedent("""\
        sheet ficha:
          FUE: int 0..9
          AGI: int 0..9
          DES: int 0..9
          PER: int 0..9
          INT: int 0..9
          VOL: int 0..9
          suerte: int = 3
        outcomes resultado: pifia < fallo < éxito < crítico
        check ts(atributo) rolls tirada = 1D10:
          | tirada      | resultado |
          |-------------|-----------|
          | <= atributo | éxito     |
          | any         | fallo     |
        check acción(valor, cd) rolls tirada = 2D6:
          | tirada + valor | resultado |
          |----------------|-----------|
          | >= cd          | éxito     |
          | any            | fallo     |
        """), encoding="utf-8")
    (folder / "edicion.rules").write_text(
        'edition otra:\n  title "Otra"\n  include "propio.rules", module estados\n',
        encoding="utf-8")
    text = textwrap.dedent("""\
        edition otra
        combatant Mio:
          FUE 7, AGI 5, DES 5, PER 5, INT 5, VOL 5
        dice strict:
          Mio ts 9
        do:
          receive Mio Shock Leve
          receive Mio Shock Leve
          pasar(1, "rondas")
          sentir(Mio, "miedo", "el lobo")
        expect cards(Mio, Shock) == [Shock.Grave]
        expect modificador(Mio, "FUE", "huir", none, 0).total == 1
        """)
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    out = Prepared(enc, program_for("otra", roots=[tmp_path, bundled_root()])).run()
    assert not out.failed


def test_EALT_30_unless_the_causing_rule_says_otherwise():
    # The source names what the opposite emotion does: "agrava" (euforia over miedo gives ira),
    # "ignora" (miedo stays), "reemplaza" (what the text says when the source is silent).
    r = run_text(scene(do='sentir(Akira, "miedo", "oni"); sentir_según(Akira, "euforia", "victoria", none, "agrava")'))
    assert r.grades("Akira", "Emoción") == ["Grave"] and r.has("Akira", "ira") and not r.has("Akira", "miedo")
    r = run_text(scene(do='sentir(Akira, "miedo", "oni"); sentir_según(Akira, "euforia", "victoria", none, "ignora")'))
    assert r.grades("Akira", "Emoción") == ["Leve"] and r.has("Akira", "miedo") and not r.has("Akira", "euforia")
    r = run_text(scene(do='sentir(Akira, "miedo", "oni"); sentir_según(Akira, "euforia", "victoria", none, "reemplaza")'))
    assert r.grades("Akira", "Emoción") == ["Leve"] and r.has("Akira", "euforia") and not r.has("Akira", "miedo")
    # The same emotion still worsens whatever the source says of the opposite one.
    r = run_text(scene(do='sentir(Akira, "miedo", "oni"); sentir_según(Akira, "miedo", "oni", none, "ignora")'))
    assert r.grades("Akira", "Emoción") == ["Grave"] and r.has("Akira", "terror")
    # A misspelt choice is a located error, never a silent default.
    with pytest.raises(GrimorioError, match="ante_la_contraria\" has no row for \"agraba\""):
        run_text(scene(do='sentir(Akira, "miedo", "oni"); sentir_según(Akira, "euforia", "victoria", none, "agraba")'))


ONI = "combatant Oni:\n  side yokai\n  FUE 5, AGI 3, DES 1, PER 2, INT 1, VOL 4\n"


@pytest.mark.parametrize("causa, objeto", [("Oni", "Oni"), ("Oni", '"Oni"'), ('"Oni"', "Oni"), ('"Oni"', '"Oni"')])
def test_EALT_31_terror_caused_by_a_combatant_gives_facilidad_to_flee_it(causa, objeto):
    # The seed: Emoción Grave, "Facilidad +1 a las Acciones relacionadas con FUE o VOL
    # siempre que sean para huir de aquello que causó su 'terror'". Regression: a cause
    # given as the combatant (sentir(Akira, "terror", Oni)) gave -3 to flee it, +1 only
    # when both were the same text.
    text = scene(do=f'sentir(Akira, "terror", {causa})', extra=ONI, expects=(
        f'modificador(Akira, "FUE", "huir", {objeto}, 0).total == 1; '
        f'modificador(Akira, "FUE", "combatir", {objeto}, 0).total == -3; '
        f'modificador(Akira, "FUE", "huir", "lobo", 0).total == -3'))
    run_text(text)


def test_EALT_31_fleeing_a_combatant_in_a_round_uses_the_facilidad():
    # In the yokai round the object is the combatant's name: +1 for FUE 3 + 1 = 4, 1D12=5: 9 vs CD 9.
    text = scene(do='sentir(Akira, "terror", Oni)', extra=ONI, dice="Akira acción 5").replace(
        "do:", "rounds 1\nround 1:\n  Akira: actuar_en_ronda FUE huir Oni\n  Oni: pass\ndo:")
    r = run_text(text)
    assert "Akira actúa con FUE: 1D12=5 + FUE 3 + 1 (Facilidades) = 9 contra CD 9 -> éxito" in said(r)


@pytest.mark.parametrize("cuesta", [True, False])
def test_EALT_03_derribado_is_left_by_getting_up_in_his_turn(cuesta):
    # The seed names "derribado" (EALT-27) but leaves its effect to "Estados Especiales",
    # which the chapter does not bring. GM's reading (option levantarse_cuesta_el_turno):
    # he spends his next turn getting up; with false he gets up and acts in the same turn.
    # Regression: derribado was never removed, and announced again on every wake-up.
    ronda = 2 if cuesta else 1
    text = scene(holds="derribado", sets=f"levantarse_cuesta_el_turno = {str(cuesta).lower()}",
                 dice="Akira acción 8").replace(
        "do:\n  pass\n", f"rounds 2\nround {ronda}:\n  Akira: actuar_en_ronda FUE otra nada\n")
    r = run_text(text)
    lines = said(r)
    assert not r.has("Akira", "derribado")
    if cuesta:
        assert lines[0] == 'Akira gasta su turno en levantarse (estaba "derribado")'
    else:
        assert lines[:2] == ['Akira se levanta (estaba "derribado")',
                             "Akira actúa con FUE: 1D12=8 + FUE 3 = 11 contra CD 9 -> éxito"]


def test_EALT_03_incapacitado_cannot_act_by_the_gm_s_reading():
    r = run_text(scene(holds="Heridas Grave; incapacitado", do='actuar_para(Akira, "FUE", "otra", none, 9)'))
    assert "Akira no puede realizar ninguna Acción (incapacitado)" in said(r)
    r = run_text(scene(holds="Heridas Grave; incapacitado", sets="incapacitado_sin_acciones = false",
                       do='actuar_para(Akira, "FUE", "otra", none, 9)', dice="Akira acción 8"))
    assert "Akira actúa con FUE: 1D12=8 + FUE 3 - 3 (Obstáculos) = 8 contra CD 9 -> fallo" in said(r)


def test_EALT_27_waking_up_while_derribado_says_he_stays_down():
    r = run_text(scene(holds="derribado", do='inconsciente_durante(Akira, 1D6, "minutos"); pasar(2, "minutos")',
                       dice="Akira duración 1"))
    assert 'Akira despierta: se recupera de todo su Shock, deja de estar "desprevenido" y sigue "derribado"' in said(r)


def test_EALT_03_a_script_gets_a_derribado_character_up():
    r = run_text(scene(holds="derribado", do="levantarse(Akira); levantarse(Akira)"))
    assert said(r) == ['Akira se levanta (estaba "derribado")']          # once: the second finds him up
    assert not r.has("Akira", "derribado")


# ---------------------------------------------------------------- every change says its cards (issue 20)
# clauses.md's reading note: "make every transition say explicitly which cards it adds,
# replaces or removes". The second reader: Fatiga Leve, then a bare "E.Alt de Shock Leve
# (desprevenido)" with no word of EALT-18; Leve -> Grave shown only as a state line;
# "desprevenido" never said to end.

def test_EALT_18_the_transcript_says_fatiga_persistente_and_shock_leve_come_together():
    r = run_text(scene(holds="Fatiga Grave", do="receive Akira Fatiga Leve"))
    assert said(r) == [
        "Akira: ya tenía Fatiga Grave: se añade Fatiga Persistente y sufre E.Alt de Shock Leve",
        "Akira: E.Alt de Fatiga Grave y Persistente",
        'Akira queda "desprevenido" mientras esté en Shock',
        "Akira: E.Alt de Shock Leve (desprevenido)",
    ]                                   # (its Fatiga said once: it said it twice, found on seed 2)


def test_EALT_18_on_fatiga_persistente_too_it_says_the_heridas_come_instead():
    r = run_text(scene(holds="Fatiga Grave; Fatiga Persistente", do="receive Akira Fatiga Leve"))
    assert said(r) == ["Akira: ya tenía Fatiga Grave y Persistente: en su lugar sufre E.Alt de Heridas Leve",
                       "Akira: E.Alt de Heridas Leve"]


@pytest.mark.parametrize("tipo", ["Heridas", "Fatiga", "Shock"])
def test_EALT_04_the_transcript_says_the_leve_card_becomes_grave(tipo):
    r = run_text(scene(holds=f"{tipo} Leve", do=f"receive Akira {tipo} Leve"))
    assert f"Akira: {tipo} sobre {tipo} Leve: la carta Leve pasa a Grave" in said(r)
    assert r.grades("Akira", tipo) == ["Grave"]


def test_EALT_04_on_a_persistente_card_it_says_the_grave_is_added_beside_it():
    r = run_text(scene(holds="Heridas Persistente", do="receive Akira Heridas Leve"))
    assert "Akira: Heridas sobre Heridas Persistente: se añade una carta Grave y la Persistente se queda" in said(r)
    assert r.grades("Akira", "Heridas") == ["Persistente", "Grave"]


def test_EALT_13_and_EALT_24_say_what_happens_on_a_grave_card():
    r = run_text(scene(holds="Heridas Grave", do="receive Akira Heridas Leve"))
    assert said(r)[:2] == ["Akira: ya tenía Heridas Grave: el nuevo E.Alt de Heridas no añade carta",
                           'Akira sufre el E.Esp "incapacitado"']
    r = run_text(scene(holds="Shock Grave; Shock Persistente; desprevenido", do="receive Akira Shock Leve"))
    assert said(r)[0] == "Akira: ya tenía Shock Grave y Persistente: en su lugar sufre E.Alt de Fatiga Leve"


def test_EALT_23_desprevenido_is_said_to_come_and_to_go():
    r = run_text(scene(do='receive Akira Shock Leve; pasar(1, "rondas")'))
    assert said(r) == [
        'Akira queda "desprevenido" mientras esté en Shock',
        "Akira: E.Alt de Shock Leve (desprevenido)",
        "Pasa 1 Ronda",
        "Akira se recupera de Shock Leve (1 Ronda sin actuar)",
        "Akira: ya no sufre E.Alt de Shock",
        'Akira deja de estar "desprevenido"',
    ]
    assert not r.has("Akira", "desprevenido")


def test_EALT_30_and_EALT_35_say_how_the_emocion_and_the_afeccion_change():
    r = run_text(scene(do='sentir(Akira, "miedo", "Oni"); sentir(Akira, "euforia", "Oni"); sentir(Akira, "euforia", "Oni")'))
    assert 'Akira: "euforia" reemplaza a "miedo"' in said(r)
    assert 'Akira: "euforia" sobre "euforia": la carta Leve pasa a Grave, "ira"' in said(r)
    r = run_text(scene(holds="Afección Grave", do="avanzar_afección(Akira)"))
    assert said(r)[0] == "Akira: su Afección avanza de fase: Afección Grave pasa a Persistente"


def test_EALT_31_the_object_of_an_accion_reads_with_its_preposition():
    # Regression (issue 20): "para combatir (el oni)", "para huir (el oni)", "se aleja de lo que
    # le alteraba (el oni)".
    r = run_text(scene(do='sentir(Akira, "terror", "Oni"); consultar(Akira, "FUE", "huir", "Oni"); '
                          'consultar(Akira, "FUE", "combatir", "Oni"); alejarse(Akira)'))
    assert "Akira, Acción de FUE para huir de Oni: Obstáculos 0, Facilidades +1 -> +1" in said(r)
    assert "Akira, Acción de FUE para combatir a Oni: Obstáculos -3, Facilidades +0 -> -3" in said(r)
    assert "Akira se aleja de Oni, que le alteraba, y de toda situación estresante" in said(r)
    assert "Akira: lejos de su causa, Emoción Grave pasa a Emoción Leve" in said(r)



def test_EALT_23_a_shock_with_a_cause_says_it_before_desprevenido():
    # combate.enc printed 'Akira queda "desprevenido"' with no line saying he suffered
    # any Shock (a bare receive); aturdir names the cause first, as aquelarre_estados does.
    r = run_text(scene(do='aturdir(Akira, Shock.Leve, "un golpe del oni le aturde")'))
    lines = said(r)
    cause = lines.index("Akira sufre E.Alt de Shock Leve (un golpe del oni le aturde)")
    assert lines[cause + 1] == 'Akira queda "desprevenido" mientras esté en Shock'
    assert lines[cause + 2] == "Akira: E.Alt de Shock Leve (desprevenido)"

# ---------------------------------------------------------------- transcripts a GM would sign
# Issue 20: lines a GM reader of the bundled Estados Alterados transcripts found false or
# unclear. Each pattern is an old phrase; none may come back on seeds 1-20.
EALT_BAD_PHRASES = {
    r"la enfermedad o el veneno avanza": "EALT-35: says 'or' when he has both; 'su Afección avanza de fase'",
}
EALT_ENCOUNTERS = sorted((ROOT_RULESETS := Path(__file__).resolve().parent.parent / "rulesets").glob("yokai/*.enc")) \
    + sorted(ROOT_RULESETS.glob("aquelarre_estados/*.enc"))


def _transcripts(seeds=range(1, 21)):
    for path in EALT_ENCOUNTERS:
        enc = load_encounter(path, Sources())
        prepared = Prepared(enc, program_for(enc.edition))
        for seed in seeds:
            yield path.stem, seed, render_text(prepared.run(seed=seed, record=True).engine).splitlines()


def _shock_without_cause(lines):
    """'queda "desprevenido"' printed with no line before it saying he suffers (or has) Shock."""
    return [i for i, line in enumerate(lines) if 'queda "desprevenido"' in line
            and not any("Shock" in earlier for earlier in lines[max(0, i - 2):i])]


def _recovered_before_the_blow(lines):
    """EALT-25/EALT-23 inside the Asalto: once X loses his turn for Shock, nobody in that
    Asalto finds X without Acciones for any reason but the Shock."""
    bad, lost = [], set()
    for i, line in enumerate(lines):
        if line.startswith("Asalto "):
            lost = set()
        elif "pierde su turno: no puede realizar ninguna Acción (Shock)" in line:
            lost.add(line.split(" pierde su turno")[0].strip())
        elif "no se defiende: no le quedan Acciones" in line and line.split(" no se defiende")[0].strip() in lost:
            bad.append(i)
    return bad


def test_the_checks_of_the_gm_reading_catch_the_old_lines():
    assert _shock_without_cause(["Akira actúa con FUE: ... -> éxito",
                                 'Akira queda "desprevenido" mientras esté en Shock'])
    assert not _shock_without_cause(["Akira sufre E.Alt de Shock Leve (un golpe del oni le aturde)",
                                     'Akira queda "desprevenido" mientras esté en Shock'])
    old = ["Asalto 2", "  Rodrigo pierde su turno: no puede realizar ninguna Acción (Shock)",
           "    Rodrigo se recupera de Shock Leve (1 Asalto sin actuar)",
           "  El Bandido ataca a Rodrigo con el Garrote: 1D100=3 contra 45% -> crítico",
           "    Rodrigo no se defiende: no le quedan Acciones"]
    assert _recovered_before_the_blow(old) == [4]
    assert not _recovered_before_the_blow(old[:1] + ["Asalto 3"] + old[4:])


@pytest.mark.slow
def test_no_bundled_estados_transcript_has_a_false_or_causeless_line_on_seeds_1_to_20():
    import re
    found = []
    for stem, seed, lines in _transcripts():
        found += [(stem, seed, line, why) for line in lines
                  for p, why in EALT_BAD_PHRASES.items() if re.search(p, line)]
        found += [(stem, seed, lines[i], "EALT-23: desprevenido before the Shock that causes it")
                  for i in _shock_without_cause(lines)]
        found += [(stem, seed, lines[i], "EALT-25: Shock Leve ended before the Asalto he lost")
                  for i in _recovered_before_the_blow(lines)]
    assert not found, found[:5]
