"""Nested comprehensions: `[e for a in A if p for b in B if q]`, each clause seeing the variables of those
before it, each list paid for from the step budget as a loop's is, kinds known to the checker; both
compiler paths alike."""
from __future__ import annotations

import textwrap

import pytest

from grimorio.dsl.diagnostics import GrimorioError
from grimorio.dsl.syntax.builder import build_encounter
from grimorio.interpreter.run.encounter import Prepared
from tests.conftest import diagnostics_of
from tests.test_plain_and_optimized import program

HEAD = """
    edition arena
    combatant Kira:
      side red
      might 1, agility 2, skill 0
    combatant Rook:
      side blue
      might 3, agility 1, skill 0, weapon Axe
    do:
"""
VALUES = HEAD + """
      expect [a * b for a in [1, 2] for b in [10, 20]] == [10, 20, 20, 40]
      expect [[a.name, b.name] for a in combatants() for b in combatants() if a != b] == [["Kira", "Rook"], ["Rook", "Kira"]]
      expect [x for xs in [[1, 2], [3]] for x in xs if x > 1] == [2, 3]
      expect [a + b for a in [1, 2, 3] if a != 2 for b in range(1, a)] == [2, 4, 5, 6]
      expect [g.loss for c in [Bleeding] for g in grades(c)] == [1, 2]
      expect [w.damage for c in combatants() for w in [c.weapon]] == [1D2, 1D8]
      expect [[x, y, z] for x in [1] for y in [x + 1] for z in [x + y]] == [[1, 2, 3]]
      expect [a for a in [] for b in [1]] == [] and [a for a in [1] for b in []] == []
      let a = "outer"
      expect [a for a in [1] for b in [2]] == [1] and a == "outer"
"""


def test_every_clause_walks_each_item_of_the_clauses_before_it(run):
    run(VALUES)


def test_each_inner_list_is_paid_for_each_time_it_is_walked():
    # 30 outer items, each walking 30: 30 + 30 * 30 steps, past a budget of 500.
    text = textwrap.dedent(HEAD + "      let xs = [a + b for a in range(1, 30) for b in range(1, 30)]\n").lstrip("\n")
    enc, diags = build_encounter(text, "budget.enc")
    assert not diags
    compiled = program("arena", (), True)
    Prepared(enc, compiled).run(budget=1000)          # 29 + 29 * 29 = 870 elements: within
    with pytest.raises(GrimorioError) as exc:
        Prepared(enc, compiled).run(budget=800)
    assert exc.value.diagnostics[0].code == "E0502"


def test_the_checker_knows_the_kind_of_an_inner_variable():
    out = diagnostics_of(HEAD + "      let xs = [b.might for a in combatants() for b in [1, 2]]\n")
    assert "error[E0203]" in out and "b.might" in out, out


def test_an_inner_clause_sees_the_outer_variable_and_not_the_other_way():
    out = diagnostics_of(HEAD + "      let xs = [a for a in [b] for b in [1]]\n")
    assert 'error[E0201]: unknown name "b"' in out, out


def test_an_inner_list_that_is_no_list_is_E0204():
    out = diagnostics_of(HEAD + "      let xs = [b for a in [1] for b in 3]\n")
    assert "error[E0204]" in out, out


@pytest.mark.slow
def test_the_plain_and_the_optimized_program_give_the_same():
    text = textwrap.dedent(VALUES).lstrip("\n")
    enc, _ = build_encounter(text, "nested.enc")
    for compiled in (program("arena", (), False), program("arena", (), True)):
        out = Prepared(enc, compiled).run(record=True)
        assert not out.failed and len(out.expectations) == 9
