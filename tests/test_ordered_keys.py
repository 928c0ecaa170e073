"""`ordered by` with several keys, each `asc` or `desc`: ties of a key broken by the next, items equal in
every key kept in their order, groups of items equal in every key; both compiler paths alike."""
from __future__ import annotations

from pathlib import Path

import pytest

from grimorio.dsl.syntax.builder import build_rules
from grimorio.interpreter.run import semantics as S
from tests.conftest import diagnostics_of
from tests.test_plain_and_optimized import run as run_both

ROOT = Path(__file__).resolve().parent.parent
FIGHTERS = """
    edition arena
    combatant A:
      might 1, agility 3, skill 0
    combatant B:
      might 2, agility 3, skill 0
    combatant C:
      might 1, agility 5, skill 0
    combatant D:
      might 1, agility 3, skill 0
    do:
"""


def test_the_second_key_breaks_the_ties_of_the_first_and_equal_items_keep_their_order(run):
    run(FIGHTERS + """
      let out = []
      for c in combatants() ordered by it.agility desc, it.might:
        append out, c.name
      expect out == ["C", "A", "D", "B"]
      let back = []
      for c in combatants() ordered by it.agility asc, it.might desc, it.name desc:
        append back, c.name
      expect back == ["B", "D", "A", "C"]
    """)


def test_a_group_holds_the_items_equal_in_every_key(run):
    run(FIGHTERS + """
      let gs = []
      for group g in combatants() ordered by it.agility desc, it.might asc:
        append gs, [c.name for c in g]
      expect gs == [["C"], ["A", "D"], ["B"]]
      let one = []
      for group g in combatants() ordered by it.agility desc:
        append one, len(g)
      expect one == [1, 3]
    """)


def test_where_and_an_empty_list_work_with_several_keys(run):
    run(FIGHTERS + """
      let out = []
      for c in combatants() ordered by it.might desc, it.agility where c.name != "B":
        append out, c.name
      expect out == ["A", "D", "C"]
      for c in [] ordered by it.hp, it.might desc:
        expect false
    """)


def test_a_key_with_no_order_is_E0204_naming_the_value():
    out = diagnostics_of(FIGHTERS + """
      for c in combatants() ordered by it.agility, it.weapon:
        pass
    """)
    assert "error[E0204]: ordered by takes values that have an order, not a record" in out


def test_the_semantics_orders_lexicographically_with_each_direction():
    items = [("b", 1), ("a", 2), ("a", 1), ("b", 2), ("a", 1)]
    got = S.ordered_by_keys(items, lambda it: (it[0], it[1]), (True, False), False)
    assert got == [("b", 1), ("b", 2), ("a", 1), ("a", 1), ("a", 2)]
    assert got[2] is items[2] and got[3] is items[4]          # stable
    groups = S.ordered_by_keys(items, lambda it: (it[0], it[1]), (False, True), True)
    assert groups == [[("a", 2)], [("a", 1), ("a", 1)], [("b", 2)], [("b", 1)]]


def test_asc_and_desc_parse_on_every_key():
    decls, diags = build_rules("rule f(xs):\n  for x in xs ordered by it.a asc, it.b desc, it.c:\n    pass\n", "x.rules")
    assert not diags
    loop = decls[0].body[0]
    assert (loop.desc, [k.desc for k in loop.more]) == (False, [True, False])


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 7, 42])
def test_the_plain_and_the_optimized_program_order_alike(seed):
    """The arena's round orders its fighters by two keys: both compiler paths give the same runs."""
    path = ROOT / "rulesets" / "arena" / "brawl.enc"
    assert run_both(path, seed, False) == run_both(path, seed, True)
