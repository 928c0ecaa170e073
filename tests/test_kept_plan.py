"""The plan a compiled program keeps for code compiled later against it (optimizer.Plan.kept,
program.py): a program read back from the cache gives an encounter's own code the facts the
optimizer's pass would find again over its ruleset (optimizer.snippet_plan with nothing kept), node
by node, and the slots of the rules' parameters the resolver would give again; an encounter whose own
code breaks one of them still runs on the plain program."""
from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from grimorio.dsl.check.front import load_encounter
from grimorio.dsl.check.resolver import bindings_of, script_bindings
from grimorio.dsl.diagnostics import Sources
from grimorio.dsl.editions.loader import load_edition
from grimorio.dsl.records import replace
from grimorio.dsl.syntax import nodes as n
from grimorio.dsl.syntax.nodes import every_node
from grimorio.interpreter.compile import optimizer
from grimorio.interpreter.compile.compiler import Declared, compile_checked, load
from grimorio.interpreter.compile.optimizer import declared
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.compile.stored import dumps, loads
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.run.transcript import render_text
from tests.compiled import verdicts
from tests.temp_guard import ONE_ROUND, TEST_ENCOUNTER, write_edition

ROOT = Path(__file__).resolve().parent.parent
# The bundled encounters with code of their own (a `do`, expectations, scripted rounds).
WITH_CODE = sorted(p for p in (ROOT / "rulesets").glob("*/*.enc")
                   if re.search(r"^(do:|expect |round )", p.read_text(encoding="utf-8"), re.M))


def read_back(loaded):
    """The program as a warm run reads it from the cache: another ruleset, other node ids."""
    return load(loads(dumps(loaded.program)))


def kept_and_fresh(loaded):
    """The plan a snippet's compiler takes from what the program kept, and the one the optimizer's
    pass works out again over the same ruleset (what a program read back did before)."""
    c = loaded.snippets._compiler()
    rs = loaded.ruleset
    fresh = optimizer.snippet_plan(None, rs, lambda: bindings_of(rs), c.purity, c.counted_by_caller)
    return c.plan, fresh


@cache
def edition_read_back(edition):
    """(the edition's program read back, its kept plan, the same program loaded again running on the
    plan found fresh over the same ruleset, that plan): once per edition."""
    again = read_back(program_for(edition))
    kept, fresh = kept_and_fresh(again)
    other = load(again.program)
    other.snippets._plan = fresh
    return again, kept, other, fresh


def without_index(plan):
    return replace(plan, whole=replace(plan.whole, index=None))


def test_the_bundled_encounters_with_code_are_found():
    assert {p.parent.name for p in WITH_CODE} >= {"aquelarre", "arena", "yokai"}


@pytest.mark.parametrize("edition", sorted({p.parent.name for p in WITH_CODE}))
def test_a_program_read_back_gives_its_code_the_facts_found_fresh(edition):
    again, kept, _other, fresh = edition_read_back(edition)
    assert again.program.plan is not None and kept is not fresh
    assert fresh.whole.fields and fresh.whole.slots       # (facts there are, to compare)
    # Every fact the same, each node keyed as the pass keys it (a local statements bind, by its
    # declaration; the nodes where an event offers a reaction, by their ids in this process).
    assert without_index(kept) == without_index(fresh)
    assert dict(kept.whole.owner) == fresh.whole.owner and kept.combatants.offered == fresh.combatants.offered
    # `c[text]` of a whole field: the same answer at every index of the rules.
    assert (kept.whole.index is None) == (fresh.whole.index is None)
    if fresh.whole.index is not None:
        bound = bindings_of(again.ruleset).of
        decls = [d for space in again.ruleset.spaces.values() for d in space.values()]
        asked = [x for x in every_node(decls) if type(x) is n.Index]
        assert [kept.whole.index(x, bound) for x in asked] == [fresh.whole.index(x, bound) for x in asked]


@pytest.mark.parametrize("edition", sorted({p.parent.name for p in WITH_CODE}))
def test_a_program_read_back_knows_its_parameters_by_the_slots_the_resolver_gives(edition):
    # What an encounter's code breaking a fact is asked by (Snippets.for_code): every rule's and
    # check's parameter and every check's roll, by the slot the program kept for it.
    again = edition_read_back(edition)[0]
    rs, fresh = again.ruleset, bindings_of(again.ruleset)
    view = Declared(script_bindings(rs, (), (), (), again.resolver), declared(again.program.plan, rs))
    asked = [(p, None) for r in rs.all(n.Rule) for p in r.params]
    asked += [(p, None) for c in rs.all(n.Check) for p in c.params] + [(c, "roll") for c in rs.all(n.Check)]
    assert len(asked) > 10
    assert [view.has_slot(x, part) for x, part in asked] == [fresh.has_slot(x, part) for x, part in asked]
    assert [view.slot(x, part) for x, part in asked if fresh.has_slot(x, part)] == \
        [fresh.slot(x, part) for x, part in asked if fresh.has_slot(x, part)]


def test_an_encounter_calling_rules_resolves_no_ruleset_read_back(monkeypatch):
    """Whether its code breaks a fact is told by what the program kept: the ruleset read back is not
    resolved again (a third of a warm run of an encounter with code, before)."""
    from grimorio.dsl.check import resolver
    path = ROOT / "rulesets" / "aquelarre" / "emboscada.enc"
    enc = load_encounter(path, Sources())
    again = read_back(program_for(enc.edition))

    def refuse(_rs):
        raise AssertionError("the ruleset read back was resolved again")
    monkeypatch.setattr(resolver, "resolve_ruleset", refuse)
    made = Prepared(enc, again)
    assert made.p is again and any(type(x) is n.Call for x in every_node(enc.do))
    assert render_text(made.run(seed=1, record=True).engine)


@pytest.mark.parametrize("path", WITH_CODE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_encounter_read_back_runs_as_on_the_facts_found_fresh(path):
    """Its code runs on the same program (shared, or plain where it breaks a fact) and tells the same."""
    enc = load_encounter(path, Sources())
    again, _kept, fresh_program, _fresh = edition_read_back(enc.edition)
    kept, fresh = Prepared(enc, again), Prepared(enc, fresh_program)
    assert (kept.p is again) == (fresh.p is fresh_program)
    shown = [render_text(p.run(seed=s, record=True).engine) for p in (kept, fresh) for s in (1, 2)]
    assert shown[:2] == shown[2:] and shown[0]


RULES = """
sheet ficha:
  FUE: int 1..20
  gastos: int = 0

rule doble(x):
  let x = x * 2
  return x

rule usa(c):
  set c.gastos = doble(c.FUE)
  return c.gastos
"""
ENCOUNTER = TEST_ENCOUNTER + """combatant Ana:
  FUE 12
do:
{do}
expect usa(Ana) > 0
"""


def prepared_read_back(tmp_path, do):
    folder = write_edition(tmp_path / "prueba", RULES + ONE_ROUND)
    (folder / "x.enc").write_text(ENCOUNTER.format(do=do), encoding="utf-8")
    again = read_back(compile_checked(load_edition("prueba", roots=[folder.parent])))
    return again, Prepared(load_encounter(folder / "x.enc", Sources()), again)


def test_a_parameter_a_let_gives_again_is_whole_by_its_rule_read_back_too(tmp_path):
    # doble's x: a parameter its body lets again, one local keyed by its declaration (wholes.Owners).
    again, _made = prepared_read_back(tmp_path, "  pass")
    kept = again.snippets._compiler().plan
    x = again.ruleset.space("rule")["doble"].params[0]
    assert kept.whole.key(x, bindings_of(again.ruleset).slot(x)) in kept.whole.slots


@pytest.mark.parametrize("do", ["  let r = doble(none)", "  let r = doble(1 / 2)", '  set Ana.gastos = "x"'])
def test_code_breaking_a_kept_fact_runs_on_the_plain_program(tmp_path, do):
    again, made = prepared_read_back(tmp_path, do)
    assert made.p is not again and not made.p.optimized
    assert "E0003" not in verdicts(made)             # (grimorio's own bug: a fact that did not hold)


def test_code_keeping_the_kept_facts_runs_on_the_program_read_back(tmp_path):
    again, made = prepared_read_back(tmp_path, "  let r = doble(Ana.FUE)")
    assert made.p is again
    assert [v.ok for v in made.run(seed=7, record=False).expectations] == [True]


def test_within_scanning_each_walk_is_made_once_and_is_that_of_its_arguments(tmp_path, monkeypatch):
    # optimizer.optimize asks wholes.scan of every fact: within wholes.scanning() it walks the same
    # declarations once, and other declarations (or bindings) are walked for themselves.
    from grimorio.interpreter.compile import wholes as W
    rs = load_edition("prueba", roots=[write_edition(tmp_path / "prueba", RULES + ONE_ROUND).parent])
    b = bindings_of(rs)
    decls = [d for space in rs.spaces.values() for d in space.values()]
    rules = list(rs.all(n.Rule))
    alone = [W.scan(rs, decls, b), W.scan(rs, rules, b)]
    walks = []
    monkeypatch.setattr(W, "_scan", lambda *a: walks.append(a[1]) or alone[0 if a[1] is decls else 1])
    with W.scanning():
        found = [W.scan(rs, decls, b), W.scan(rs, rules, b), W.scan(rs, decls, b), W.scan(rs, list(rules), b)]
    assert found[:3] == [alone[0], alone[1], alone[0]] and walks[:2] == [decls, rules] and len(walks) == 3
    assert W.scan(rs, decls, b) is alone[0] and len(walks) == 4      # (outside: walked each time)
