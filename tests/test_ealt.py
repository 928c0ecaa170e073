"""Scenario tests of the Estados Alterados clauses (EALT-xx) of Yôkai Sensô."""
from __future__ import annotations

import pytest

from tests.conftest import run_text

PJ = """\
encounter "estados"
edition yokai
combatant Akira:
  FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2
"""


def scene(holds: str = "", do: str = "", expects: str = "", dice: str = "") -> str:
    out = PJ + "".join(f"  holds {h}\n" for h in holds.split(";") if h.strip())
    if dice:
        out += "dice strict:\n" + "".join(f"  {d.strip()}\n" for d in dice.split(";"))
    out += "do:\n" + ("".join(f"  {s.strip()}\n" for s in do.split(";")) if do else "  pass\n")
    out += "".join(f"expect {e.strip()}\n" for e in expects.split(";") if e.strip())
    return out


TIPOS = ["Heridas", "Fatiga", "Shock", "Emoción", "Afección"]


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
    assert r.lines == ["Akira actúa con FUE 3 y Obstáculo -3: 1D12=9 + 0 contra CD 9 -> éxito"]
