"""`not has(c, A) and not has(c, B) ...` read as one (interpreter/compile/cardtests.py): where the
tests name every condition the rules declare, "holds no condition"; else each test, asked only
of a combatant holding some. Both give what the plain program gives, for combatants holding
nothing, one of the conditions named, one not named, a graded one, cards added and removed, and
cards a saved state gives (a condition given no card there is none held); tests among other
sides of an `and`, split by one, and of two combatants."""
from __future__ import annotations

import json

import pytest

from grimorio.dsl.check.front import load_encounter
from grimorio.dsl.diagnostics import Sources
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.run.state import StateFile
from grimorio.interpreter.tools.cli import main
from tests.temp_guard import TEST_ENCOUNTER, small_edition

RULES = """
sheet ficha:
  FUE: int = 3

condition herido
condition caido
condition Miedo grades Leve < Grave

rule libre(c):
  return not has(c, herido) and not has(c, caido) and not has(c, Miedo)

rule sano(c):
  return not has(c, herido) and not has(c, caido)

rule sereno(c):
  return not has(c, Miedo) and not has(c, herido)

rule mixto(c):
  return c.FUE > 3 and not has(c, herido) and not has(c, caido) and not has(c, Miedo)

rule partido(c):
  return not has(c, herido) and c.FUE > 3 and not has(c, caido)

rule ambos(a, b):
  return not has(a, caido) and not has(b, caido)

rule tres(a, b):
  return not has(a, herido) and not has(a, caido) and not has(b, caido)

rule libres():
  return [c.name for c in combatants() if not has(c, caido) and not has(c, Miedo) and not has(c, herido)]
"""

ENCOUNTER = TEST_ENCOUNTER + """combatant Ana:
  side rojos
combatant Beto:
  side azules
  holds {holds}
do:
  set Ana.FUE = 4
  set Beto.FUE = 5
{do}
  expect [libre(Ana), sano(Ana), sereno(Ana), libre(Beto), sano(Beto), sereno(Beto), libres(),
          mixto(Ana), mixto(Beto), partido(Beto), ambos(Ana, Beto), tres(Ana, Beto)] == none
"""


folder, program = small_edition("grimorio-cards-", RULES)


def answers(holds: str, do: str, optimize: bool, state=None):
    path = folder() / f"x{abs(hash((holds, do)))}.enc"
    path.write_text(ENCOUNTER.format(holds=holds, do=do), encoding="utf-8")
    made = Prepared(load_encounter(path, Sources()), program(optimize), state=state)
    out = made.run(seed=1, record=True, setup=made.state_setup())
    assert made.p.optimized == optimize
    (verdict,) = out.expectations
    return verdict.left


CASES = [
    ("herido", "  pass", [True, True, True, False, False, False, ["Ana"], True, False, False, True, True]),
    ("caido", "  pass", [True, True, True, False, False, True, ["Ana"], True, False, False, False, False]),
    # Beto holds only the condition `sano` does not name: sano, not libre.
    ("Miedo Leve", "  pass", [True, True, True, False, True, False, ["Ana"], True, False, True, True, True]),
    ("Miedo Grave", "  add Ana herido\n  remove Beto Miedo Grave",
     [False, False, False, True, True, True, ["Beto"], False, True, True, True, False]),
    ("herido", "  add Ana Miedo Leve\n  add Ana Miedo Grave\n  remove Ana Miedo Leve",
     [False, True, False, False, False, False, [], False, False, False, True, True]),
    ("caido", "  add Ana caido\n  remove Ana caido\n  remove Beto caido",
     [True, True, True, True, True, True, ["Ana", "Beto"], True, True, True, True, True]),
]


@pytest.mark.parametrize("holds, do, want", CASES)
def test_conditions_not_held_read_at_once_answer_as_each_test_does(holds, do, want):
    assert answers(holds, do, True) == answers(holds, do, False) == want


def test_a_saved_states_cards_are_held_as_its_conditions_say(tmp_path):
    # Ana keeps a condition sano does not name; a condition given no card is none held.
    enc = folder() / "guardado.enc"
    enc.write_text(ENCOUNTER.format(holds="caido", do="  pass").split("  expect")[0], encoding="utf-8")
    saved = tmp_path / "s.json"
    assert main(["run", str(enc), "--rules", str(folder().parent), "--quiet", "--save-state", str(saved)]) == 0
    enc.write_text(ENCOUNTER.format(holds="caido", do="  pass"), encoding="utf-8")
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["combatants"]["Ana"]["cards"] = {"Miedo": ["Grave"]}
    data["combatants"]["Beto"]["cards"] = {"caido": [], "herido": []}
    saved.write_text(json.dumps(data), encoding="utf-8")
    for optimize in (True, False):
        state = StateFile(saved, program(optimize), Sources(), load_encounter(enc, Sources()).span, ["Ana", "Beto"])
        assert answers("caido", "  pass", optimize, state) == [False, True, False, True, True, True, ["Beto"],
                                                               False, True, True, True, True]
