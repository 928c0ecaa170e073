"""A decision that asks each question once (optimizer.asked_once) keeps, too, a question asked of
a kept answer (`fuerza(yo, rival(yo))`), and the same question asked inside the body of a rule the
decision asks (`mejor(yo, rival(yo))` asks `fuerza(yo, r)`): compiler.within, expressions.answer_key.
Each tactic runs alike plain and optimized; the optimized one works the question out once."""
from __future__ import annotations

import pytest

from tests.compiled import counted_runs
from tests.test_tactic_decision import ACTIONS

RULES = """
sheet ficha:
  FUE: int 1..20
  acciones: int = 0

message hace(a, que) "{a} {que}"

rule rival(yo):
  let r = first(enemies(yo))
  return r

rule fuerza(yo, r):
  let f = r.FUE
  return f > 2 and yo.FUE > 0

rule mejor(yo, r):
  let ok = fuerza(yo, r)
  return ok and yo.FUE > 5

rule listo(yo, n):
  let ok = n > 2
  return ok and yo.FUE > 0

rule gasta(yo, r):
  let ok = fuerza(yo, r)
  set yo.acciones = 0
  return ok

""" + ACTIONS + """
tactic t:
{prefs}

round r:
  step s:
    for c in combatants():
      set c.acciones = 1
      act c
"""

ENCOUNTER = ('encounter "x"\nedition prueba\nrounds 1\ncombatant Ana:\n  side a\n  FUE 8\n  tactic t\n'
             'combatant Beto:\n  side b\n  FUE 3\n  tactic t\n')


def runs(tmp_path, prefs: str, counted: str):
    """Plain and optimized: how many times rule `counted` was called, and the transcript's lines."""
    return counted_runs(tmp_path, RULES.replace("{prefs}", prefs), ENCOUNTER, ("Ana", "Beto"), counted)


@pytest.mark.parametrize(("prefs", "plain_calls", "fast_calls", "lines"), [
    # asked of a kept answer, twice in one decision: once
    ("  act: mirar when not fuerza(yo, rival(yo))\n  act: suave when fuerza(yo, rival(yo))", 4, 2,
     ["Ana suave", "Beto suave"]),
    # asked by the decision, then again inside mejor's body: once
    ("  act: suave when fuerza(yo, rival(yo)) and mejor(yo, rival(yo))\n  act: leve", 4, 2,
     ["Ana suave", "Beto leve"]),
    # inside mejor's body first, then by the decision
    ("  act: suave when mejor(yo, rival(yo))\n  act: leve when fuerza(yo, rival(yo))", 3, 2,
     ["Ana suave", "Beto leve"]),
    # asked once: no dict, the plain call
    ("  act: suave when fuerza(yo, rival(yo))\n  act: leve", 2, 2, ["Ana suave", "Beto suave"]),
])
def test_a_question_of_a_kept_answer_is_asked_once(tmp_path, prefs, plain_calls, fast_calls, lines):
    plain, fast = runs(tmp_path, prefs, "fuerza")
    assert plain == (plain_calls, lines), plain
    assert fast == (fast_calls, lines), fast


def test_a_decision_that_changes_something_asks_as_written(tmp_path):
    # gasta sets a field: the decision is not asked once (optimizer.asked_once), nothing kept;
    # its action spent, the second preference's cost fails before its `when` is asked.
    prefs = "  act: mirar when not gasta(yo, rival(yo))\n  act: suave when fuerza(yo, rival(yo))\n  act: mirar"
    plain, fast = runs(tmp_path, prefs, "fuerza")
    assert plain == fast == (2, ["Ana mira", "Beto mira"]), (plain, fast)


def test_a_question_of_a_field_of_a_kept_answer_is_asked_once(tmp_path):
    # r.FUE of rival(yo): a field of a kept answer, as an argument
    prefs = ("  act: mirar when not listo(yo, rival(yo).FUE)\n  act: suave when listo(yo, rival(yo).FUE)")
    plain, fast = runs(tmp_path, prefs, "listo")
    assert plain == (4, ["Ana suave", "Beto suave"]), plain
    assert fast == (2, ["Ana suave", "Beto suave"]), fast


def test_two_fields_of_one_answer_are_two_questions(tmp_path):
    # the rival's acciones (0 when asked) and its FUE: two questions, each asked once
    prefs = "  act: mirar when listo(yo, rival(yo).acciones)\n  act: suave when listo(yo, rival(yo).FUE)"
    plain, fast = runs(tmp_path, prefs, "listo")
    assert plain == fast == (4, ["Ana suave", "Beto suave"]), (plain, fast)
