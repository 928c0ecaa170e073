"""The hot path keeps what a run does not change: lists of combatants filtered by
side are worked out once per run and side (interpreter/compile/invariant.py), and a rule
setting a side makes them be worked out again. Timings stay out of the suite:
the work a run does is measured in steps, which do not depend on the machine."""
from __future__ import annotations

import pytest

from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.diagnostics import Sources
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for
from tests.test_crowd import FILA
from tests.test_prelude import arena  # noqa: F401 - the tutorial edition, as a fixture

TRIO = ('encounter "x"\nedition arena\ncombatant Ana:\n  side rojos\n  FUE 8, AGI 12\n'
        'combatant Carla:\n  side rojos\n  FUE 7, AGI 10\ncombatant Beto:\n  side azules\n  FUE 6, AGI 9\n'
        "do:\n{do}")


def run(text, roots):
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    out = Prepared(enc, program_for(enc.edition, None, Sources({"x.enc": text}), roots)).run()
    return [(v.ok, v.left, v.right) for v in out.expectations]


def test_enemies_follow_a_side_set_by_a_rule(arena):  # noqa: F811 - the fixture
    do = ("  expect enemies(Ana) == [Beto]\n  expect allies(Beto) == []\n"
          '  set Carla.side = "azules"\n'
          "  expect enemies(Ana) == [Carla, Beto]\n  expect enemies(Beto) == [Ana]\n"
          "  expect allies(Beto) == [Carla]\n  expect allies(Ana) == []\n")
    got = run(TRIO.format(do=do), [arena])
    assert [ok for ok, _l, _r in got] == [True] * 6, got


def test_a_list_kept_for_the_run_is_not_changed_by_its_callers(arena):  # noqa: F811 - the fixture
    do = ("  let mine = enemies(Ana)\n  append mine, Carla\n  expect mine == [Beto, Carla]\n"
          "  expect enemies(Ana) == [Beto]\n  expect enemies(Carla) == [Beto]\n")
    got = run(TRIO.format(do=do), [arena])
    assert [ok for ok, _l, _r in got] == [True] * 3, got


def steps_per_combatant_round(k: int) -> float:
    from benchmarks.crowd import crowd
    eng = crowd(k).run(seed=1, record=False).engine
    return eng.steps / (k * eng.round)


@pytest.mark.slow
def test_the_work_per_combatant_round_does_not_grow_with_the_crowd():
    # Each action of the bundled tactic asks for enemies(c): walked afresh each time, the
    # work per combatant-round grew with the crowd (35 steps at 16, 260 at 128).
    small, large = steps_per_combatant_round(16), steps_per_combatant_round(128)
    assert large < 1.5 * small, (small, large)


def test_a_list_walked_as_the_run_holds_it_is_the_same_list(arena):  # noqa: F811 - the fixture
    # A for or a comprehension walks the combatants and a kept list without copying them:
    # what the loop's body does to the lists it is given leaves the walk and the run's lists alone.
    do = ("  let seen = []\n  for e in enemies(Ana):\n    let again = enemies(Ana)\n    append again, Carla\n"
          "    let everyone = combatants()\n    append everyone, Ana\n    append seen, len(again) + len(everyone)\n"
          "  expect seen == [6]\n  expect [c for c in enemies(Ana) if c != Ana] == [Beto]\n"
          "  expect [c for c in combatants() if c != Ana] == [Carla, Beto]\n  expect len(combatants()) == 3\n")
    got = run(TRIO.format(do=do), [arena])
    assert [ok for ok, _l, _r in got] == [True] * 4, got


def test_a_written_whole_number_is_not_asked_its_type(tmp_path):
    # The guard of whole-number arithmetic asks only the sides that are not written numbers
    # (`type(x) is int is type(1)` worked type(1) out on every call): x - 1 costs less than x - y.
    # On whole numbers none of these asks the semantics, computed code beside a written number
    # ((x - 1) % 10 + 1) included; on a fraction the semantics answer.
    from fractions import Fraction
    from grimorio.interpreter.run import semantics as S
    from tests.compiled import bytecodes, calls_into, engine, function
    from tests.test_checker import write_edition
    write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\nrule menos(x):\n  return x - 1\n"
                            "rule resta(x, y):\n  return x - y\nrule techo(x):\n  return ceil(x / 10)\n"
                            "rule lugar(x):\n  return (x - 1) % 10 + 1\n")
    program = program_for("prueba", roots=[tmp_path])
    e = engine(program)
    f = {name: function(program, "rule", name) for name in ("menos", "resta", "techo", "lugar")}
    assert bytecodes(f["menos"], e, 7) < bytecodes(f["resta"], e, 7, 1)
    for name, args, want in (("menos", (7,), 6), ("resta", (7, 1), 6), ("techo", (71,), 8), ("lugar", (20,), 10)):
        assert f[name](e, *args) == want and calls_into(S, f[name], e, *args) == [], name
        assert f[name](e, *map(Fraction, args)) == want and calls_into(S, f[name], e, *map(Fraction, args)), name


@pytest.mark.slow
def test_a_dice_table_finds_the_same_row_by_its_dict_of_rolls_as_by_its_ranges():
    # A dice table covering few rolls keeps a dict by roll; what it finds (or refuses) for any
    # key is what the walk of its ranges finds, overlapping rows and rolls it does not cover included.
    from fractions import Fraction
    from hypothesis import given, strategies as st
    from grimorio.interpreter.compile.data import Table
    from grimorio.interpreter.run.runtime_helpers import RuleFailure

    def found(table, key):
        try:
            return ("row", table.lookup(key))
        except RuleFailure as exc:
            return ("refused", exc.message)
        except TypeError:
            return ("type", None)

    spans = st.lists(st.tuples(st.integers(-3, 12), st.integers(0, 4)), min_size=1, max_size=5)
    keys = st.one_of(st.integers(-5, 20), st.fractions(-5, 20), st.booleans(), st.none(), st.text(max_size=2),
                     st.just([1]), st.just(Fraction(4)))

    @given(spans, keys)
    def same(rows, key):
        ranges = tuple((lo, lo + width, f"row{i}") for i, (lo, width) in enumerate(rows))
        indexed = Table("t", [], {}, object(), 1, 10, ranges)
        walked = Table("t", [], {}, object(), 1, 10, ranges)
        walked.rolls = None
        assert indexed.rolls is not None
        assert found(indexed, key) == found(walked, key)
    same()


def test_a_record_is_made_without_a_python_init():
    # Records are made on every check and event: their class takes no values (no __init__
    # called from C); `_new` fills the fields, and `record` makes either kind from its values.
    from grimorio.interpreter.run.values import make_struct, record
    cls = make_struct("r", ["a", "b c"])
    assert "__init__" not in vars(cls)
    made = cls._new(1, [2])
    assert (made.get("a"), made.get("b c"), type(made)) == (1, [2], cls)
    assert str(record(cls, (1, "x"))) == "{a: 1, b c: x}"
    row = make_struct("t", ["x"], frozen=True)
    assert record(row, (5,)).get("x") == 5


def test_a_computed_sort_key_of_a_filtered_for_compiles(arena):  # noqa: F811 - the fixture
    # Regression: a key that names a computed value once (first([...]) in place) put `:=` in the
    # sort's lambda, inside the comprehension of the where: Python refuses that (E0106).
    do = ("  let seen = []\n  for c in combatants() ordered by first([it.FUE]) desc where c != Beto:\n"
          "    append seen, c\n  expect seen == [Ana, Carla]\n"
          "  let again = []\n  for c in combatants() ordered by -(first([it.FUE])) where c != Beto:\n"
          "    append again, c\n  expect again == [Ana, Carla]\n")
    got = run(TRIO.format(do=do), [arena])
    assert [ok for ok, _l, _r in got] == [True] * 2, got


def test_a_round_is_one_function_and_a_step_that_returns_ends_only_itself(tmp_path):
    # The round's loop is compiled with its steps' statements in place; a step that returns is a
    # function of its own, so its return ends that step and the next steps still run.
    from grimorio.dsl.syntax.builder import build_encounter
    from tests.test_checker import write_edition
    write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\nvar antes = 0\nvar después = 0\nvar otra = 0\n"
                            "round asalto:\n  step corta:\n    set antes = antes + 1\n    if antes > 0:\n"
                            "      return\n    set después = 1\n  step sigue:\n    set otra = otra + 1\n"
                            "  until round_number() >= 3\n")
    program = program_for("prueba", roots=[tmp_path])
    from tests.compiled import has_function
    steps = [key for key, value in program.ns.items() if key.startswith("step") and callable(value)]
    assert len(steps) == 1 and has_function(program, "r_round"), steps
    text = 'encounter "x"\nedition prueba\ncombatant Ana:\n  FUE 3\nexpect antes == 3\nexpect después == 0\n' \
           'expect otra == 3\nexpect round_number() == 3\n'
    enc, diags = build_encounter(text, "x.enc")
    out = Prepared(enc, program).run()
    assert [v.ok for v in out.expectations] == [True] * 4, [(v.left, v.right) for v in out.expectations]


def test_groups_are_runs_of_equal_keys_in_sorted_order():
    # `for group` (ties act together, CMB-04): the groups of S.groups, made by itertools.groupby,
    # are what walking the sorted items and starting a group at each new key makes.
    from hypothesis import given, strategies as st
    from grimorio.interpreter.run.semantics import groups

    def walked(items, key, reverse):
        out = []
        for x in sorted(items, key=key, reverse=reverse):
            if out and key(x) == key(out[-1][0]):
                out[-1].append(x)
            else:
                out.append([x])
        return out

    @given(st.lists(st.tuples(st.integers(0, 4), st.integers())), st.booleans())
    def same(items, reverse):
        def key(t):
            return t[0]
        assert groups(items, key, reverse) == walked(items, key, reverse)
    same()


def _events(program, path, seed):
    from pathlib import Path
    text = Path(path).read_text(encoding="utf-8")
    enc, diags = build_encounter(text, str(path))
    assert not diags
    out = Prepared(enc, program).run(seed=seed)
    return [(e[0], str(e[1:])) for e in out.engine.events]


@pytest.mark.slow      # compiles every bundled edition twice (about 5 s); the small cases below stay in the fast profile
def test_a_reaction_chosen_lazily_is_the_one_chosen_from_the_list_of_those_allowed(monkeypatch):
    # A reactor the script does not answer tests each reaction as its tactic comes to it (rt_
    # functions, and RF_ without a preference: compiler.chooses_lazily) instead of listing every
    # reaction allowed first; with pure requirements (all the bundled ones) the choice is the
    # same. Every bundled encounter, on several seeds, says and rolls the same with and without.
    from pathlib import Path
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.interpreter.compile.compiler import Compiler, compile_checked
    root = Path(__file__).resolve().parent.parent / "rulesets"
    editions = {p.parent.name for p in root.glob("*/*.enc")}
    lazy = {ed: compile_checked(load_edition(ed)) for ed in editions}
    from tests.compiled import has_function
    assert has_function(lazy["aquelarre"], "rt_") and has_function(lazy["aquelarre"], "RF_")   # the shortcut is taken
    monkeypatch.setattr(Compiler, "chooses_lazily", staticmethod(lambda single: False))     # every reaction listed
    listed = {ed: compile_checked(load_edition(ed)) for ed in editions}
    assert not any(has_function(p, "rt_") or has_function(p, "RF_") for p in listed.values())
    for path in sorted(root.glob("*/*.enc")):
        for seed in range(4):
            ed = path.parent.name
            assert _events(lazy[ed], path, seed) == _events(listed[ed], path, seed), (path, seed)


LAZY = """event golpe(atacante, defensor)
var tiradas = 0
rule tira(c):
  set tiradas = tiradas + 1
  return true
action golpear(yo, objetivo in enemies(yo)):
  emit golpe(atacante: yo, defensor: objetivo)
reaction cubrirse(yo, e) to golpe:
  by e.defensor
  requires tira(yo)
  pass
reaction agacharse(yo, e) to golpe:
  by e.defensor
  pass
tactic {tactic}
round asalto:
  step uno:
    for c in combatants():
      act(c)
"""


@pytest.mark.parametrize("prefs, rolled", [("agacharse, cubrirse", 0), ("cubrirse, agacharse", 2),
                                            ("cubrirse when false, agacharse when false, cubrirse", 2)])
def test_a_reaction_whose_requirement_changes_the_run_is_tested_when_the_tactic_comes_to_it(tmp_path, prefs, rolled):
    # A requirement that changes something (here a var) is tested when the tactic's preferences
    # reach its reaction, once per choice however often they name it, never when a reaction
    # before it is taken: each of the two blows tests it once, or not at all.
    from tests.test_checker import write_edition
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.interpreter.compile.compiler import compile_checked
    write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\n" + LAZY.format(tactic=f"t:\n  act: golpear\n  react golpe: {prefs}"))
    text = ('encounter "x"\nedition prueba\nrounds 1\ncombatant Ana:\n  side a\n  FUE 3\n'
            'combatant Beto:\n  side b\n  FUE 3\nexpect tiradas == {rolled}\n').format(rolled=rolled)
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    for optimize in (True, False):
        out = Prepared(enc, compile_checked(load_edition("prueba", roots=[tmp_path]), optimize=optimize)).run()
        assert [v.ok for v in out.expectations] == [True], [(v.left, v.right) for v in out.expectations]


@pytest.mark.parametrize("script, rolled", [("  Ana: golpear Beto\n", 0), ("  Ana: golpear Beto\n  Beto: agacharse\n", 1)])
def test_only_a_reactor_the_script_answers_has_every_reaction_tested_first(tmp_path, script, rolled):
    # In a run with a script, a reactor the script does not answer still chooses as its tactic
    # comes to each reaction (agacharse first: cubrirse never tested); Beto, whose reaction the
    # script names, has every reaction tested first (tira once), to know agacharse is allowed.
    from tests.test_checker import write_edition
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.interpreter.compile.compiler import compile_checked
    write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\n" +
                  LAZY.format(tactic="t:\n  act: golpear\n  react golpe: agacharse, cubrirse"))
    text = ('encounter "x"\nedition prueba\nrounds 1\ncombatant Ana:\n  side a\n  FUE 3\n'
            f'combatant Beto:\n  side b\n  FUE 3\nround 1:\n{script}expect tiradas == {rolled}\n')
    enc, diags = build_encounter(text, "x.enc")
    assert not diags, diags
    for optimize in (True, False):
        out = Prepared(enc, compile_checked(load_edition("prueba", roots=[tmp_path]), optimize=optimize)).run()
        assert [v.ok for v in out.expectations] == [True], [(v.left, v.right) for v in out.expectations]


DRAWN = """sheet ficha:
  FUE: int 1..9
  acciones: int = 0
outcomes res: fallo < éxito
check tirada(v) rolls d = 1D10:
  | d      | res   |
  |--------|-------|
  | <= v   | éxito |
  | any    | fallo |
event golpe(atacante, defensor, fuerza, parado = false)
message dice(c, que) "  {c}: {que}"
action golpear(yo, objetivo in enemies(yo)):
  requires not objetivo.name == yo.name
  cost acciones 1
  let t = check tirada(yo.FUE) by yo as "golpe"
  if t.res == éxito:
    let e = emit golpe(atacante: yo, defensor: objetivo, fuerza: yo.FUE)
    say dice(objetivo, e.parado)
reaction cubrirse(yo, e) to golpe:
  by e.defensor
  requires yo.FUE >= 3
  cost acciones 1
  set e.parado = true
  say dice(yo, "se cubre")
reaction agacharse(yo, e) to golpe:
  by e.defensor
  requires e.fuerza < 7
  say dice(yo, "se agacha")
reaction replicar(yo, e) to golpe:
  by e.defensor
  requires yo.acciones > 1 and e.atacante.FUE <= yo.FUE
  cost acciones 2
  say dice(yo, "replica")
tactic t:
  act: golpear
  react golpe: {prefs}
round asalto:
  step uno:
    for c in combatants():
      set c.acciones = 2
    for c in combatants():
      while c.acciones > 0 and act(c):
        pass
"""
WHENS = ["", " when yo.FUE > 4", " when e.fuerza > 5", " when yo.acciones >= 2", " when not (e.fuerza == yo.FUE)"]


@pytest.mark.slow
def test_a_lazy_reaction_choice_equals_the_listed_one_on_drawn_tactics(tmp_path_factory):
    # Drawn preferences (a reaction may come again, each with or without a `when`) over reactions
    # with costs and requirements: the lazy choice (rt_) and the listed one say and roll the same.
    from hypothesis import given, settings, strategies as st
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.interpreter.compile import compiler as C
    from tests.test_checker import write_edition

    prefs = st.lists(st.tuples(st.sampled_from(["cubrirse", "agacharse", "replicar"]), st.sampled_from(WHENS)),
                     min_size=1, max_size=5)
    fue = st.integers(1, 9)

    @settings(max_examples=40, deadline=None)
    @given(prefs, st.lists(fue, min_size=2, max_size=3), st.integers(0, 10_000))
    def same(drawn, strengths, seed):
        root = tmp_path_factory.mktemp("drawn")
        write_edition(root, DRAWN.replace("{prefs}", ", ".join(f"{r}{w}" for r, w in drawn)))
        lazy = C.compile_checked(load_edition("prueba", roots=[root]))
        from tests.compiled import has_function
        assert has_function(lazy, "rt_")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(C.Compiler, "chooses_lazily", staticmethod(lambda single: False))    # every reaction listed
            listed = C.compile_checked(load_edition("prueba", roots=[root]))
        people = "".join(f"combatant P{i}:\n  side s{i}\n  FUE {f}\n" for i, f in enumerate(strengths))
        enc = root / "x.enc"
        enc.write_text(f'encounter "x"\nedition prueba\nrounds 3\n{people}', encoding="utf-8")
        assert _events(lazy, enc, seed) == _events(listed, enc, seed)

    same()


def test_a_for_copies_a_stored_list_only_when_its_body_could_change_a_list(tmp_path):
    # A `for` walks the list as it was when the loop began: a body that appends to it (or calls
    # what could) walks a copy; a body that changes nothing walks the list itself (no copy made).
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.interpreter.compile.compiler import compile_checked
    from tests.test_checker import write_edition
    write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\n  l: list = []\n"
                            "rule busca(c, x):\n  for v in c.l:\n    if v == x:\n      return true\n  return false\n"
                            "rule crece(c):\n  let n = 0\n  for v in c.l:\n    append c.l, v\n    set n = n + 1\n"
                            "  return n\n")
    program = compile_checked(load_edition("prueba", roots=[tmp_path]))
    import dis
    from tests.compiled import function
    slices = {name: any(i.opname in ("BUILD_SLICE", "BINARY_SLICE") for i in dis.get_instructions(function(program, "rule", name)))
              for name in ("busca", "crece")}
    assert slices == {"busca": False, "crece": True}, slices
    text = ('encounter "x"\nedition prueba\ncombatant Ana:\n  FUE 3\n'
            "do:\n  append Ana.l, 1\n  append Ana.l, 2\n  expect crece(Ana) == 2\n  expect Ana.l == [1, 2, 1, 2]\n"
            "  expect busca(Ana, 2)\n  expect not busca(Ana, 5)\n")
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    out = Prepared(enc, program).run()
    assert [v.ok for v in out.expectations] == [True] * 4, [(v.left, v.right) for v in out.expectations]


def test_an_event_with_two_reactors_lists_the_reactions_allowed(tmp_path):
    # lazy_choice needs one reactor: with reactions by two different people, each reactor is offered
    # only its own reactions from the list (rt_ code tests no "by"), so no rt_ is compiled, and
    # the defender covers itself while the attacker ducks, each only with its own reaction.
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.interpreter.compile.compiler import compile_checked
    from tests.test_checker import write_edition
    rules = DRAWN.replace("{prefs}", "cubrirse, agacharse").replace(
        "reaction agacharse(yo, e) to golpe:\n  by e.defensor", "reaction agacharse(yo, e) to golpe:\n  by e.atacante")
    write_edition(tmp_path, rules)
    program = compile_checked(load_edition("prueba", roots=[tmp_path]))
    from tests.compiled import has_function
    assert not has_function(program, "rt_") and not has_function(program, "RF_")
    enc = tmp_path / "x.enc"
    enc.write_text('encounter "x"\nedition prueba\nrounds 1\ncombatant A:\n  side a\n  FUE 5\n'
                   'combatant B:\n  side b\n  FUE 9\n', encoding="utf-8")
    said = " ".join(e[1] for seed in range(12) for e in _events(program, enc, seed) if e[0] == "say")
    assert "A: se agacha" in said and "B: se cubre" in said, said
    assert "A: se cubre" not in said and "B: se agacha" not in said, said


# The edition of tests/test_crowd.py (a sheet, two messages, preparado calling listo), everyone ready.
UNA_VEZ = FILA.split("action golpear")[0].replace("edition fila:", "edition una_vez:").replace(
    "listo: bool = false", "listo: bool = true") + """\
rule mirar(yo):
  say mira(yo)
  return true

action golpear(yo, rival in enemies(yo)):
  requires preparado(yo)
  requires rival.FUE > 20
  cost acciones 1
  say golpe(yo, rival)

action empujar(yo, rival in enemies(yo)):
  requires preparado(yo)
  requires rival.FUE > 10
  cost acciones 1
  say golpe(yo, rival)

tactic t:
  act: golpear when preparado(yo)
  act: empujar when preparado(yo){extra}

round r:
  step s:
    for c in combatants():
      set c.acciones = 1
      act c
"""


def calls_of_preparado(tmp_path, extra: str, optimize: bool = True, rules: str = UNA_VEZ,
                       counted: str = "preparado"):
    """How many times a run of two combatants calls the rule preparado (or `counted`: its
    generated function), under `rules`."""
    import sys
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.interpreter.compile.compiler import compile_checked
    from grimorio.interpreter.run.transcript import render_text
    folder = tmp_path / "una_vez"
    folder.mkdir(exist_ok=True)
    (folder / "edicion.rules").write_text(rules.replace("{extra}", extra), encoding="utf-8")
    from unittest import mock
    from grimorio.interpreter.compile import optimizer
    with mock.patch.object(optimizer, "INLINE_NODES", 0):     # every question a call, to be counted
        program = compile_checked(load_edition("una_vez", [tmp_path]), optimize=optimize)
    text = "edition una_vez\nrounds 1\n" + "".join(
        f"combatant C{i}:\n  side {'a' if i % 2 else 'b'}\n  FUE 15\n" for i in range(2))
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    prepared = Prepared(enc, program)
    name = program.gids[("rule", counted)]
    calls = []
    sys.setprofile(lambda frame, event, _arg: calls.append(1) if event == "call" and frame.f_code.co_name == name
                   else None)
    try:
        out = prepared.run(seed=1)
    finally:
        sys.setprofile(None)
    return len(calls), render_text(out.engine).splitlines()


def test_a_tactic_asks_each_question_of_the_actor_once_per_decision(tmp_path):
    # Issue 25: preparado(yo) is asked by both preferences, in each `when` and each `requires`:
    # nothing changes until the chosen action runs, so it is asked once per decision (two
    # combatants, one decision each), not three times as on the plain path (four before, hoisted).
    once, lines = calls_of_preparado(tmp_path, "")
    plain, plain_lines = calls_of_preparado(tmp_path, "", optimize=False)
    assert once == 2 and plain == 6, (once, plain)
    assert lines == plain_lines and lines[:2] == ["C0 golpea a C1", "C1 golpea a C0"], lines


def test_a_tactic_with_a_question_that_says_something_asks_each_as_written(tmp_path):
    # A preference whose `when` says something (mirar) may change what the next one sees: every
    # question is asked where it is written.
    asked, lines = calls_of_preparado(tmp_path, "\n  act: empujar when mirar(yo)")
    plain, plain_lines = calls_of_preparado(tmp_path, "\n  act: empujar when mirar(yo)", optimize=False)
    assert asked > 2 and lines == plain_lines, (asked, plain, lines)


# Both preferences take their rival from blanco(yo), a value of the actor alone, and ask
# listo_contra(yo, rival) of it; the first one's `when` fails after it, so both are tried.
UN_BLANCO = UNA_VEZ.replace("tactic t:\n  act: golpear when preparado(yo)\n  act: empujar when preparado(yo){extra}", """\
rule blanco(yo):
  return first(enemies(yo))

rule listo_contra(yo, rival):
  return rival.FUE > 10

tactic t:
  act: empujar(rival: blanco(yo)) when listo_contra(yo, rival) and yo.FUE > rival.FUE + 20
  act: empujar(rival: blanco(yo)) when listo_contra(yo, rival){extra}""")


@pytest.mark.parametrize("counted", ["blanco", "listo_contra"])
def test_a_question_of_the_actor_and_a_value_of_the_actor_alone_is_asked_once(tmp_path, counted):
    # Issue 19: blanco(yo) gives both preferences their rival, and listo_contra(yo, rival) is asked
    # of it by both: nothing changes until the chosen action runs, so each is asked once per
    # decision (two combatants, one decision each), not once per preference as on the plain path.
    once, lines = calls_of_preparado(tmp_path, "", rules=UN_BLANCO, counted=counted)
    plain, plain_lines = calls_of_preparado(tmp_path, "", optimize=False, rules=UN_BLANCO, counted=counted)
    assert once == 2 and plain == 4, (once, plain)
    assert lines == plain_lines and lines[:2] == ["C0 golpea a C1", "C1 golpea a C0"], lines


def test_a_value_of_the_actor_alone_is_worked_out_again_after_a_question_that_says_something(tmp_path):
    # A `when` that says something (mirar) may change what blanco(yo) gives: asked as written.
    extra = "\n  act: empujar(rival: blanco(yo)) when mirar(yo) and listo_contra(yo, rival)"
    asked, lines = calls_of_preparado(tmp_path, extra, rules=UN_BLANCO, counted="blanco")
    plain, plain_lines = calls_of_preparado(tmp_path, extra, optimize=False, rules=UN_BLANCO, counted="blanco")
    assert asked == plain == 4 and lines == plain_lines, (asked, plain, lines)


IN_PLACE = """sheet ficha:
  FUE: int 1..20
var pasos = 0
rule entre(x):
  return x > 2 and x < 5
rule fuerte(c):
  return c.FUE > 5 and c.FUE < 30
rule usa(c):
  return fuerte(c)
rule cuenta(c):
  set pasos = pasos + 1
  return c.FUE > 5
rule usa_cuenta(c):
  return cuenta(c)
"""


@pytest.mark.parametrize("optimize", [False, True])
def test_a_rule_compiled_in_place_works_its_arguments_out_once(tmp_path, optimize):
    # A small pure rule is compiled in place of its calls (inplace.inlined), only for arguments
    # that are read, never worked out: `entre(roll ...)` rolls once, as the plain path does.
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.interpreter.compile.compiler import compile_checked
    from tests.test_checker import write_edition
    write_edition(tmp_path, IN_PLACE)
    program = compile_checked(load_edition("prueba", roots=[tmp_path]), optimize=optimize)
    text = ('encounter "x"\nedition prueba\ncombatant Ana:\n  FUE 8\n'
            'do:\n  let r = entre(roll 1D6 by Ana as "d")\n  expect usa(Ana)\n  expect usa_cuenta(Ana)\n'
            '  expect usa_cuenta(Ana)\n  expect pasos == 2\n')
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    out = Prepared(enc, program).run(seed=3, json=True)
    assert [v.ok for v in out.expectations] == [True] * 4
    assert sum(1 for e in out.engine.events if e[0] == "roll") == 1, out.engine.events


def test_a_small_pure_rule_is_no_call_where_it_is_used(tmp_path):
    # fuerte(c) runs in place inside usa(c): calling usa calls no function of fuerte's; a rule
    # that changes something (cuenta) stays a call.
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.interpreter.compile.compiler import compile_checked
    from types import SimpleNamespace
    from tests.compiled import engine, function
    from tests.test_checker import write_edition
    write_edition(tmp_path, IN_PLACE)
    program = compile_checked(load_edition("prueba", roots=[tmp_path]))
    ana = SimpleNamespace(a_FUE=8)             # what the rules read of a combatant
    e = engine(program)
    e.v.a_pasos = 0
    names = {function(program, "rule", r).__code__.co_name for r in ("fuerte", "cuenta")}
    import sys
    for caller, calls in (("usa", 0), ("usa_cuenta", 1)):
        called = []
        sys.setprofile(lambda frame, event, _a: called.append(frame.f_code.co_name)
                       if event == "call" and frame.f_code.co_name in names else None)
        try:
            assert function(program, "rule", caller)(e, ana) is True
        finally:
            sys.setprofile(None)
        assert len(called) == calls, (caller, called)


def test_ordered_by_a_field_orders_and_groups_as_a_computed_key_does(arena):  # noqa: F811 - the fixture
    # `ordered by it.FUE` orders by a getter of the field made once (statements.key_function); a key
    # that is no bare field (`it.FUE + 0`) stays a lambda: both give the same order, ties in the
    # list's order, the same groups, on records and combatants alike; and a record's missing
    # field is told as before.
    do = ("  let a = []\n  for c in combatants() ordered by it.FUE desc:\n    append a, c\n"
          "  let b = []\n  for c in combatants() ordered by it.FUE + 0 desc:\n    append b, c\n"
          "  expect a == b\n  expect a == [Ana, Carla, Beto]\n"
          "  let g = []\n  for group x in combatants() ordered by it.side:\n    append g, len(x)\n"
          "  let h = []\n  for group x in combatants() ordered by it.side + \"\":\n    append h, len(x)\n"
          "  expect g == h\n  expect g == [1, 2]\n"
          "  let r = []\n  for x in [{n: 2, k: 1}, {n: 1, k: 2}, {n: 2, k: 3}] ordered by it.n:\n    append r, x.k\n"
          "  expect r == [2, 1, 3]\n")
    got = run(TRIO.format(do=do), [arena])
    assert [ok for ok, _l, _r in got] == [True] * 5, got


@pytest.mark.parametrize("value", [[], [1, 1, 2], ["a", "b", "a"], [[1], [1]], [True, 1], [None, None]])
def test_a_builtin_that_answers_a_list_always_answers_one(value):
    # semantics.LIST_BUILTINS: `len` of their answer is Python's own, with no test of its class.
    from grimorio.interpreter.run.semantics import BUILTIN_FUNCTIONS, LIST_BUILTINS
    from grimorio.interpreter.run.engine import Engine
    from types import SimpleNamespace
    for name in LIST_BUILTINS:
        if name in BUILTIN_FUNCTIONS:
            assert type(BUILTIN_FUNCTIONS[name](value)) is list, name
        else:
            assert type(getattr(Engine(SimpleNamespace(options={}, stands=None), value), name)()) is list, name


@pytest.mark.parametrize("by", ["e.quien", "first([e.quien])", "e.otro"])
def test_a_reactor_named_by_a_field_of_the_event_is_the_value_it_was_given(tmp_path, by):
    # compiler.reactor: `by e.quien` reads the value the event's record was just given; a `by`
    # of anything else is compiled as written. Each reacts as the other would, none as nobody.
    from tests.test_checker import write_edition
    write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\nvar oídos = []\n"
                            "event golpe(quien, otro = none)\n"
                            f"reaction oir(yo, e) to golpe:\n  by {by}\n  append oídos, yo.FUE\n")
    text = ('encounter "x"\nedition prueba\ncombatant Ana:\n  FUE 3\ncombatant Beto:\n  FUE 4\n'
            "do:\n  emit golpe(quien: Ana)\n  emit golpe(quien: Beto, otro: Ana)\n"
            "expect oídos == " + ("[3]" if by == "e.otro" else "[3, 4]") + "\n")
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    out = Prepared(enc, program_for("prueba", roots=[tmp_path])).run()
    assert [(v.ok, v.left) for v in out.expectations] == [(True, [3] if by == "e.otro" else [3, 4])]


# Each attack is met by its defender's reaction: parar is never allowed (FUE 15), so the choice
# goes on to esquivar, and both requirements ask alcanza(yo, e) of the reactor and the event.
REACCIONA = UNA_VEZ.replace("requires rival.FUE > 10\n  cost acciones 1\n  say golpe(yo, rival)\n", """\
requires rival.FUE > 10
  cost acciones 1
  say golpe(yo, rival)
  emit choque(atacante: yo, defensor: rival)
""").replace("tactic t:\n  act: golpear when preparado(yo)\n  act: empujar when preparado(yo){extra}", """\
event choque(atacante, defensor)

rule alcanza(yo, e):
  return e.atacante.FUE > yo.FUE - 20

reaction parar(yo, e) to choque:
  by e.defensor
  requires alcanza(yo, e) and yo.FUE > 100
  say golpe(yo, e.atacante)

reaction esquivar(yo, e) to choque:
  by e.defensor
  requires {extra}alcanza(yo, e)
  say golpe(yo, e.atacante)

tactic t:
  act: empujar when preparado(yo)
  react choque: parar, esquivar""")


def test_a_reaction_choice_asks_a_question_of_the_reactor_and_the_event_once(tmp_path):
    # Issue 25: nothing changes while an unscripted reactor chooses (optimizer.lazy), so
    # alcanza(yo, e), asked by both reactions' requirements, is asked once per choice (two
    # attacks, two choices), not once per reaction tested as on the plain path.
    once, lines = calls_of_preparado(tmp_path, "", rules=REACCIONA, counted="alcanza")
    plain, plain_lines = calls_of_preparado(tmp_path, "", optimize=False, rules=REACCIONA, counted="alcanza")
    assert once == 2 and plain == 4, (once, plain)
    assert lines == plain_lines and "C1 golpea a C0" in lines[:3], lines


def test_a_reaction_choice_with_a_requirement_that_says_something_asks_as_written(tmp_path):
    # A requirement that says something (mirar) is no lazy choice: alcanza is asked where written.
    asked, lines = calls_of_preparado(tmp_path, "mirar(yo) and ", rules=REACCIONA, counted="alcanza")
    plain, plain_lines = calls_of_preparado(tmp_path, "mirar(yo) and ", optimize=False, rules=REACCIONA,
                                            counted="alcanza")
    assert asked == plain == 4 and lines == plain_lines, (asked, plain, lines)
