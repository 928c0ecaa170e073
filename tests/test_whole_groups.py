"""`for group g in LIST ordered by it.F` where the optimizer proves F whole (S.whole_groups): the
groups S.groups makes, in its order, ties kept in the list's order; a key that may be no whole
number keeps S.groups (and its ordering of texts and mixed keys)."""
from __future__ import annotations

from operator import attrgetter

from hypothesis import given, strategies as st

from grimorio.dsl.check.front import load_encounter
from grimorio.dsl.diagnostics import Sources
from grimorio.interpreter.run import semantics as S
from grimorio.interpreter.run.encounter import Prepared
from tests.temp_guard import TEST_ENCOUNTER, small_edition


class Item:
    def __init__(self, k, i):
        self.k, self.i = k, i

    def __repr__(self):
        return f"Item({self.k}, {self.i})"


@given(st.lists(st.integers(-3, 3), max_size=12), st.booleans())
def test_whole_groups_are_the_groups_in_their_order(keys, reverse):
    items = [Item(k, i) for i, k in enumerate(keys)]
    key = attrgetter("k")
    assert S.whole_groups(items, key, reverse) == S.groups(items, key, reverse)


def test_ties_keep_the_lists_order_either_way():
    items = [Item(k, i) for i, k in enumerate([2, 5, 2, 7, 5, 2])]
    key = attrgetter("k")
    assert [[x.i for x in g] for g in S.whole_groups(items, key, True)] == [[3], [1, 4], [0, 2, 5]]
    assert [[x.i for x in g] for g in S.whole_groups(items, key, False)] == [[0, 2, 5], [1, 4], [3]]


RULES = """
sheet ficha:
  INI: int = 0
  PESO: int = 0
  APODO: text = "x"

rule orden():
  let out = []
  for group g in combatants() ordered by it.INI desc:
    append out, [c.name for c in g]
  return out

rule por_peso():
  let out = []
  for group g in combatants() ordered by it.PESO:
    append out, [c.name for c in g]
  return out

rule por_apodo():
  let out = []
  for group g in combatants() ordered by it.APODO:
    append out, [c.name for c in g]
  return out

rule aligera(c):
  set c.PESO = c.PESO / 2
  return c.PESO
"""

ENCOUNTER = TEST_ENCOUNTER + """combatant Ana:
  INI 3, PESO 3, APODO "bote"
combatant Beto:
  INI 7, PESO 2, APODO "Beatriz"
combatant Ciro:
  INI 3, PESO 1, APODO "álamo"
combatant Dora:
  INI 9, PESO 4, APODO "bote"
do:
  aligera(Ciro)
  aligera(Dora)
  expect [orden(), por_peso(), por_apodo()] == none
"""


folder, program = small_edition("grimorio-groups-", RULES)


def answer(optimize: bool):
    path = folder() / "x.enc"
    path.write_text(ENCOUNTER, encoding="utf-8")
    made = Prepared(load_encounter(path, Sources()), program(optimize))
    (verdict,) = made.run(seed=1, record=True).expectations
    return made.p.optimized, verdict.left


def test_groups_by_a_whole_field_and_by_one_that_may_hold_a_fraction_agree_with_the_plain_program():
    fast, plain = answer(True), answer(False)
    assert fast[0] and not plain[0]
    # INI is whole (S.whole_groups): Dora 9, Beto 7, then Ana and Ciro tied at 3 in their order.
    # PESO may hold a fraction (Ciro 1/2, Dora 2), APODO is a text: S.groups orders them (texts
    # as a dictionary does, not as Python does: "álamo" < "Beatriz" < "bote").
    assert fast[1] == plain[1] == [[["Dora"], ["Beto"], ["Ana", "Ciro"]],
                                   [["Ciro"], ["Beto", "Dora"], ["Ana"]],
                                   [["Ciro"], ["Beto"], ["Ana", "Dora"]]]
