"""A run's setup and the round's helpers on their short paths (issue 19, the sixth round): the
combatants a sheet's fill_sheet makes in one assignment are those the long way (a field at a
time, then the sheet's defaults) makes; a side's kept list is never one made before a side changed."""
from __future__ import annotations

import textwrap
from types import SimpleNamespace

from hypothesis import given, settings, strategies as st

from grimorio.dsl.diagnostics import Sources
from grimorio.dsl.check.front import load_encounter
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.compile.compiler import compile_checked
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.run.engine import Engine
from grimorio.interpreter.run.values import SIDE_CHANGES, Combatant

EDITION = """
edition setup:
  title "Setup"
sheet creature:
  might: int 0..5
  bag: list = []
  hp: int = {hp}
  tags: list = ["t"]
  luck: int = 7
condition herida
message shows(c) "{{c}} {{c.side}} {{c.sheet}} {{c.might}} {{c.hp}} {{len(c.bag)}}"
round r:
  step s:
    for c in combatants():
      say shows(c)
      append c.bag, 1
      add c herida
    stop
"""

ENCOUNTER = """
edition setup
combatant Gob:
  might 1
  side malos
combatant Ana:
  might 3, hp 9
  holds herida
"""


def _prepared(tmp_path, hp: str) -> Prepared:
    folder = tmp_path / "setup"
    folder.mkdir(parents=True)
    (folder / "setup.rules").write_text(textwrap.dedent(EDITION.format(hp=hp)).lstrip(), encoding="utf-8")
    (folder / "x.enc").write_text(textwrap.dedent(ENCOUNTER).lstrip(), encoding="utf-8")
    program = compile_checked(load_edition("setup", roots=[tmp_path]))
    return Prepared(load_encounter(folder / "x.enc", Sources()), program)


def _made(out):
    return [(c.a_name, c.side_, c.tactic, c.a_sheet, c.a_might, c.a_hp, list(c.a_bag), dict(c.cards), c.held,
             list(c.a_tags), c.a_luck) for c in out.engine.cb]


def test_fill_sheet_makes_the_combatants_the_long_way_makes_and_each_run_its_own(tmp_path):
    # hp = 4 + might: defaults worked out once, each combatant filled in one assignment;
    # hp = 4 + might + roll 1D1 - 1 (the same number, rolled): the fields its lines give, then its defaults.
    once, rolled = _prepared(tmp_path / "a", "4 + might"), _prepared(tmp_path / "b", "4 + might + roll 1D1 - 1")
    assert once.defaults_done and not rolled.defaults_done
    runs = [[_made(p.run(seed=s)) for s in (1, 2)] for p in (once, rolled)]
    assert runs[0] == runs[1]
    first, second = runs[0]
    assert first == second                        # nothing a run changed (a list, the cards) leaks to the next
    assert [m[:6] for m in first] == [("Gob", "malos", None, "creature", 1, 5), ("Ana", "Ana", None, "creature", 3, 9)]
    assert [m[6] for m in first] == [[1], [1]] and first[1][7] == {"herida": [None, None]} and first[0][8] == {}
    assert [m[9:] for m in first] == [(["t"], 7), (["t"], 7)]     # (lists among the fields, in their places)
    out = once.run(seed=1)
    again = once.run(seed=1)
    assert all(a.cards is not b.cards and a.held is not b.held and a.a_bag is not b.a_bag and a.a_tags is not b.a_tags
               for a, b in zip(out.engine.cb, again.engine.cb))


def _fighter(side):
    c = Combatant()
    c.side_ = side
    return c


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(st.tuples(st.just("walk"), st.sampled_from(["x", "y", 1, True, ("t",)])),
                          st.tuples(st.just("change"), st.none()),
                          st.tuples(st.just("change inside"), st.sampled_from(["x", "y"]))), max_size=14))
def test_a_sides_kept_list_is_the_list_the_rule_gives_now(ops):
    # Engine.side_walked keeps a list per (rule, side that is a text) until a side changes anywhere
    # (SIDE_CHANGES): whatever the order of walks and changes, even a change made by the rule itself,
    # what it gives is what a walk made after the last change gave, never a list made before it.
    e = Engine(SimpleNamespace(options={}), [])
    inside = []

    def rule(_e, c):
        if inside:
            inside.pop()
            SIDE_CHANGES[0] += 1                  # the rule sets a side as it works
        return [c.side_, SIDE_CHANGES[0]]
    last = {}
    for op, side in ops:
        if op == "change":
            SIDE_CHANGES[0] += 1
            continue
        if op == "change inside":
            inside[:] = [True]
            continue
        got = e.side_walked(rule, _fighter(side))
        assert got[0] == side and type(got[0]) is type(side)
        key = (type(side), side)
        if key in last and last[key][1] == SIDE_CHANGES[0]:
            assert got == last[key]               # kept while no side changed
        # Made since the last change (the rule's own change included: it gives the stamp after it).
        assert got[1] == SIDE_CHANGES[0]
        last[key] = got
        if got[1] == SIDE_CHANGES[0] and not inside:
            assert e.side_walked(rule, _fighter(side)) == got


def test_a_change_of_sides_drops_the_kept_list_of_every_text_side():
    # Walked x and y, then a side changes: walking x again makes x's list anew, and y's, made
    # before the change, is not given either (the hypothesis above may draw this too, or not).
    e = Engine(SimpleNamespace(options={}), [])

    def rule(_e, c):
        return [c.side_, SIDE_CHANGES[0]]
    for side in ("x", "y", 1, True):
        e.side_walked(rule, _fighter(side))
    SIDE_CHANGES[0] += 1
    now = SIDE_CHANGES[0]
    assert [e.side_walked(rule, _fighter(s)) for s in ("x", "y", 1, True, "x")] == \
        [["x", now], ["y", now], [1, now], [True, now], ["x", now]]


RECORDS = """
edition recs:
  title "Records"
rule pair(x):
  let r = {a: x, b: x + 1}
  return r
rule swapped(x):
  let r = {a: x, b: x * 2}
  for i in [1, 2]:
    let s = {a: r.b + i, b: r.a}
    set r = s
  return r
rule turned(x):
  let r = {a: x, b: x * 2}
  set r = {a: r.b, b: r.a}
  return {a: r.b, b: r.a + r.b}
var kept = {a: 0, b: 0}
rule kept_again(x):
  set kept = {a: kept.b + x, b: kept.a}
  return kept
rule broken(x):
  let r = {a: x, b: 10 / x}
  return r.b
round r:
  step s:
    stop
"""


def test_a_record_made_in_place_by_let_set_or_return_is_the_one_its_call_makes(tmp_path):
    # `let r = {..}`, `set r = {..}`, `return {..}` set the fields of a record made in place; the
    # record, its class and its equality are those of {..} anywhere else, on both compiler paths;
    # each value may read the name's old record; a field that fails is told at its statement.
    import pytest
    from grimorio.dsl.diagnostics import GrimorioError
    from grimorio.interpreter.run.engine import guarded
    from tests.compiled import engine, function
    folder = tmp_path / "recs"
    folder.mkdir()
    (folder / "recs.rules").write_text(textwrap.dedent(RECORDS).lstrip(), encoding="utf-8")
    for optimize in (False, True):
        p = compile_checked(load_edition("recs", roots=[tmp_path]), optimize=optimize)
        made = function(p, "rule", "pair")(engine(p), 3)
        assert (made.a_a, made.a_b) == (3, 4) and made._names == ("a", "b")
        assert made == p.structs[("a", "b")]._new(3, 4)
        r = function(p, "rule", "swapped")(engine(p), 5)
        assert (r.a_a, r.a_b) == (7, 11)           # {a: 10 + 1, b: 5}, then {a: 5 + 2, b: 11}: each reads the old r
        with pytest.raises(GrimorioError) as err:
            guarded(p, function(p, "rule", "broken"), engine(p), 0)
        assert err.value.diagnostics[0].span.line == 21            # the let of broken
        assert (lambda t: (t.a_a, t.a_b))(function(p, "rule", "turned")(engine(p), 3)) == (3, 9)
        e = engine(p)
        p.init_vars(e)
        function(p, "rule", "kept_again")(e, 2)
        again = function(p, "rule", "kept_again")(e, 5)
        assert (again.a_a, again.a_b) == (5, 2) and e.v.a_kept is again
