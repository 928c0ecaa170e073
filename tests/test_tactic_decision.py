"""A tactic's decision where every part is pure (optimizer.asked_once): a run of preferences that
test the same cost first tests it once, a question a preference's first test asks is named for
the preferences after it, and a value given by the actor alone is tested, not walked
(hoisting.emit_preferences). Each tactic here runs alike plain and optimized, and as written."""
from __future__ import annotations

import pytest

from tests.compiled import counted_runs

# Actions that cost one action, or none, each saying its name: the decisions choose among them.
ACTIONS = """action suave(yo):
  cost acciones 1
  say hace(yo, "suave")

action leve(yo):
  cost acciones 1
  say hace(yo, "leve")

action mirar(yo):
  say hace(yo, "mira")
"""

RULES = """
sheet ficha:
  FUE: int 1..20
  acciones: int = 0

message hace(a, que) "{a} {que}"

rule listo(c):
  return c.FUE > 5

rule cansa(c):
  set c.acciones = 0
  return false

rule blanco(yo):
  return first(enemies(yo))

rule nadie(yo):
  return first([c for c in enemies(yo) if c.FUE > 50])

action fuerte(yo):
  cost acciones 2
  say hace(yo, "fuerte")

""" + ACTIONS + """
action pegar(yo, rival in enemies(yo)):
  cost acciones 1
  say hace(yo, "pega")

action tocar(yo, rival in combatants(), con in combatants()):
  cost acciones 1
  say hace(yo, "toca")

tactic t:
{prefs}

tactic u:
  act: leve when listo(yo)
  act: mirar

round r:
  step s:
    for c in combatants():
      set c.acciones = {acciones}
      act c
"""

ENCOUNTER = ('encounter "x"\nedition prueba\nrounds 1\ncombatant Ana:\n  side a\n  FUE 8\n  tactic t\n'
             'combatant Beto:\n  side b\n  FUE 3\n  tactic t\ncombatant Carla:\n  side b\n  FUE 3\n  tactic u\n')


def runs(tmp_path, prefs: str, acciones: int = 1, counted: str | None = None):
    """The transcript's lines (or the refusal) of one round, plain and optimized; with `counted`,
    each with how many times the rule of that name was called."""
    rules = RULES.replace("{prefs}", prefs).replace("{acciones}", str(acciones))
    return counted_runs(tmp_path, rules, ENCOUNTER, ("Ana", "Beto", "Carla"), counted)


@pytest.mark.parametrize(("prefs", "acciones", "lines"), [
    # the same field, not the same amount: each its own test (one action left: suave, not fuerte)
    ("  act: fuerte when listo(yo)\n  act: suave when listo(yo)\n  act: leve", 1,
     ["Ana suave", "Beto leve"]),
    ("  act: fuerte\n  act: fuerte when listo(yo)\n  act: suave", 2, ["Ana fuerte", "Beto fuerte"]),
    # a run of the same cost after one that fails; the run itself not affordable, then one that is
    ("  act: fuerte when listo(yo)\n  act: fuerte when not listo(yo)\n  act: suave when listo(yo)\n"
     "  act: leve when listo(yo)\n  act: leve", 1, ["Ana suave", "Beto leve"]),
    # a question the run's first test names, read after the run failed: asked again, not read
    ("  act: fuerte when listo(yo)\n  act: fuerte when listo(yo)\n  act: mirar when listo(yo)\n"
     "  act: suave", 1, ["Ana mira", "Beto suave"]),
    # a question asked after a test that failed is not named for the preferences after it
    ("  act: mirar when yo.FUE > 50 and listo(yo)\n  act: mirar when listo(yo)\n  act: suave", 1,
     ["Ana mira", "Beto suave"]),
    ("  act: mirar when not listo(yo) and listo(yo)\n  act: mirar when not listo(yo)\n"
     "  act: suave when listo(yo)\n  act: leve", 1, ["Ana suave", "Beto mira"]),
    # named by the first preference, read by the last: not by the next tactic's decision (u)
    ("  act: mirar when not listo(yo)\n  act: suave when listo(yo)", 1, ["Ana suave", "Beto mira"]),
    # a value of the actor alone, or none: the preference with none is skipped
    ("  act: pegar(rival: nadie(yo))\n  act: pegar(rival: blanco(yo)) when listo(yo)\n  act: leve", 1,
     ["Ana pega", "Beto leve"]),
    # no action left: nothing
    ("  act: suave when listo(yo)\n  act: leve", 0, []),
])
def test_a_pure_decision_runs_as_written(tmp_path, prefs, acciones, lines):
    plain, fast = runs(tmp_path, prefs, acciones)
    assert plain == fast == [*lines, "Carla mira"], (plain, fast)


def test_a_preference_that_spends_before_the_next_one_is_tested_as_written(tmp_path):
    # cansa(yo) sets the actions to 0 (not pure): the next preference, of the same cost, is
    # tested again and finds none left (no run of the same cost under one test).
    plain, fast = runs(tmp_path, "  act: suave when cansa(yo)\n  act: leve\n  act: mirar", 1)
    assert plain == fast == ["Ana mira", "Beto mira", "Carla mira"], (plain, fast)


def test_a_value_of_the_actor_alone_given_after_a_walked_list_is_asked_once(tmp_path):
    # con: blanco(yo) stands after the walk of rival: worked out at each rival's turn, it is asked
    # once a decision all the same (Ana tries rival Ana, then Beto; Beto finds Ana first; Carla has another tactic).
    plain, fast = runs(tmp_path, "  act: tocar(con: blanco(yo)) when con == rival\n  act: mirar", 1, "blanco")
    assert fast == (2, ["Ana toca", "Beto toca", "Carla mira"]), fast
    assert plain[1] == fast[1] and plain[0] > fast[0], (plain, fast)


def test_a_question_asked_twice_in_one_preference_is_asked_once(tmp_path):
    # listo(yo) in the `when` twice: the second reads the first's answer.
    plain, fast = runs(tmp_path, "  act: suave when listo(yo) and yo.FUE > 0 and listo(yo)\n  act: leve", 1, "listo")
    assert fast == (3, ["Ana suave", "Beto leve", "Carla mira"]), fast
    assert plain[1] == fast[1], (plain, fast)
