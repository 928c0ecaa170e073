"""The whole-number facts of the optimizer (interpreter/compile/wholes.py): a field, local or rule
parameter is held whole only where every value the text gives it is; an encounter whose own code
breaks a fact runs on the plain program; code compiled against a program read back from the cache
takes the facts its program kept (tests/test_kept_plan.py holds them to the facts found fresh)."""
from __future__ import annotations

from pathlib import Path

import pytest

from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.dsl.check.front import load_encounter
from grimorio.dsl.check.resolver import bindings_of
from grimorio.dsl.editions.loader import load_edition
from grimorio.dsl.syntax import nodes as n
from grimorio.interpreter.compile import optimizer
from grimorio.interpreter.compile.compiler import compile_checked, load
from grimorio.interpreter.compile.stored import dumps, loads
from grimorio.interpreter.compile.wholes import wholes
from grimorio.interpreter.run import semantics as S
from grimorio.interpreter.run.encounter import Prepared
from tests.compiled import calls_into, verdicts
from tests.temp_guard import write_edition

ROOT = Path(__file__).resolve().parent.parent

RULES = """
sheet ficha:
  FUE: int 1..20
  pv: int = 10
  resto: int = 3
  gastos: int = 0
  nombre_corto: text = "x"

event golpe(atacante, dano)
table armas:
  | nombre | peso | factor |
  |--------|------|--------|
  | Daga   | 1    | /2     |
  | Maza   | 3    | 7      |

rule gasta(c):
  let antes = c.gastos
  set c.gastos = antes + 1
  return c.gastos

rule mitad(c):
  set c.resto = c.resto / 2
  return c.resto

rule mayor(x, y):
  return x > y

rule usa(c):
  return [mayor(c.gastos, 1), mayor(c.FUE, mitad(c)), gasta(c)]

rule golpea(c):
  let e = emit golpe(atacante: c, dano: 2)
  set c.pv = c.pv - e.dano
  return c.pv > 0
"""


def edition(tmp_path, rules: str, enc: str | None = None):
    folder = write_edition(tmp_path / "prueba", rules)
    if enc is not None:
        (folder / "x.enc").write_text(enc, encoding="utf-8")
    return folder


def facts(rs):
    decls = [d for space in rs.spaces.values() for d in space.values()]
    return wholes(rs, decls, bindings_of(rs))


def param_slot(rs, rule, i):
    return bindings_of(rs).slot(rs.space("rule")[rule].params[i])


def test_only_what_every_value_shows_whole_is_held_whole(tmp_path):
    rs = load_edition("prueba", roots=[edition(tmp_path, RULES).parent])
    found = facts(rs)
    # gastos: its default and `antes + 1`, antes a local let from it; FUE: never set; peso: a column
    # of written whole numbers.
    assert {"FUE", "gastos", "peso"} <= found.fields
    # resto: set to a quotient; pv: set from an event's field; factor: a column with a fraction;
    # nombre_corto: a text.
    assert not found.fields & {"resto", "pv", "factor", "nombre_corto", "dano"}
    # mayor's x: every call passes a whole number; its y: one call passes what a rule returns.
    assert param_slot(rs, "mayor", 0) in found.slots and param_slot(rs, "mayor", 1) not in found.slots


def test_a_name_two_structures_share_is_held_whole_by_neither(tmp_path):
    # An event's field named like a sheet's whole field: `x.gastos` may read the event's.
    rs = load_edition("prueba", roots=[edition(tmp_path, RULES + "event otro(gastos)\n").parent])
    assert "gastos" not in facts(rs).fields


def test_a_rule_never_called_by_the_text_holds_no_whole_parameter(tmp_path):
    rs = load_edition("prueba", roots=[edition(tmp_path, RULES + "rule suelta(x):\n  return x + 1\n").parent])
    assert param_slot(rs, "suelta", 0) not in facts(rs).slots


ENCOUNTER = """encounter "x"
edition prueba
rounds 1
combatant Ana:
  FUE 12
do:
{do}
expect Ana.gastos > 0
expect len(usa(Ana)) == 3
"""
ROUND = "round r:\n  step s:\n    pass\n"


def prepared(tmp_path, do: str, optimize=True):
    folder = edition(tmp_path, RULES + ROUND, ENCOUNTER.format(do=do))
    program = compile_checked(load_edition("prueba", roots=[folder.parent]), optimize=optimize)
    return program, Prepared(load_encounter(folder / "x.enc", Sources()), program)


@pytest.mark.parametrize("do", ["  set Ana.gastos = none", "  set Ana.gastos = 1 / 2", '  let r = {gastos: "x"}',
                                '  set Ana.gastos = mayor(1, 2)'])
def test_an_encounter_that_breaks_a_fact_runs_on_the_plain_program(tmp_path, do):
    # Setting a whole field to a value not shown whole: the optimized program would compare it with
    # Python's own `>` (a Python error on none, E0003); the encounter runs on the plain one.
    program, made = prepared(tmp_path, do)
    assert made.p is not program and not made.p.optimized
    got = verdicts(made)
    assert "E0003" not in got
    assert got == verdicts(prepared(tmp_path / "p", do, optimize=False)[1])


def test_an_encounter_that_keeps_the_facts_runs_on_the_shared_program(tmp_path):
    program, made = prepared(tmp_path, "  set Ana.gastos = Ana.gastos + 2")
    assert made.p is program
    assert [v.ok for v in made.run(seed=7, record=False).expectations] == [True, True]


def test_code_compiled_against_a_program_read_back_asks_the_facts_again(tmp_path, monkeypatch):
    # A program read back from the cache: the snippet compiler takes optimizer.snippet_plan (the
    # plan the program kept) and Plan.with_nodes adds the snippet's own nodes. An encounter's
    # `do` and an odds --expr's expression over whole fields then ask no semantics function.
    folder = edition(tmp_path, RULES + ROUND, ENCOUNTER.format(do="  set Ana.gastos = Ana.FUE - 1"))
    fresh = compile_checked(load_edition("prueba", roots=[folder.parent]))
    again = load(loads(dumps(fresh.program)))
    enc = load_encounter(folder / "x.enc", Sources())
    made = Prepared(enc, again)
    assert made.p is again
    engine = made.run(seed=7, record=False).engine
    odds = again.compile_snippet("odds", (), [n_expr(again, "Ana.FUE - Ana.gastos >= 0")], ["Ana"])["expects"][0]
    assert calls_into(S, made.code["do"], engine) == [] and "sub" not in calls_into(S, odds, engine)
    assert odds(engine)[0] is True
    # A wrong plan is caught: one without the facts asks the semantics (S.sub) ...
    monkeypatch.setattr("grimorio.interpreter.compile.compiler.snippet_plan", lambda *a: optimizer.PLAIN)
    plain = load(loads(dumps(fresh.program)))
    odds = plain.compile_snippet("odds", (), [n_expr(plain, "Ana.FUE - Ana.gastos >= 0")], ["Ana"])["expects"][0]
    assert "sub" in calls_into(S, odds, engine)
    # ... and one claiming a field whole that the encounter leaves a text fails in Python's own
    # operator, which the runs report as grimorio's bug (E0003, the differential tests' check).
    wrong = optimizer.Plan(in_place=True, whole=optimizer.Wholes(frozenset({"nombre_corto"})))
    monkeypatch.setattr("grimorio.interpreter.compile.compiler.snippet_plan", lambda *a: wrong)
    bad = load(loads(dumps(fresh.program)))
    odds = bad.compile_snippet("odds", (), [n_expr(bad, "Ana.nombre_corto - 1 > 0")], ["Ana"])["expects"][0]
    with pytest.raises(TypeError):
        odds(engine)


def n_expr(program, text: str):
    """The expression `text`, read and resolved as `grimorio odds --expr` reads it (tools/odds.py)."""
    from grimorio.dsl.syntax.builder import Builder
    from grimorio.dsl.check.resolver import resolve_script
    from grimorio.dsl.syntax.parser import parse_cell
    node = Builder("q").expr(parse_cell(text, "cell_value", "q", 1, 1).children[0])
    assert not resolve_script(program.ruleset, (), [node], ["Ana"], program.resolver)
    return node



def test_abs_in_place_gives_what_the_semantics_give():
    # abs of a whole number is Python's own; of anything else (a truth, a text, a fraction, a roll,
    # none) the semantics' answer or refusal, as on the plain path.
    from tests.test_plain_and_optimized import AT_EDGES, outcome
    for v in [*AT_EDGES, True]:
        for body in ("  return abs(a)\n", "  return abs(a - 1)\n"):
            assert outcome(body, True, [v, 0, 0], False) == outcome(body, False, [v, 0, 0], False), (body, v)


def checks(dice: str, *names: str) -> str:
    """Checks of one parameter x, each `bien` when its roll t is at most x, `mal` otherwise."""
    return "".join(f"check {name}(x) rolls t = {dice}:\n  | t      | grado |\n  |--------|-------|\n"
                   f"  | <= x   | bien  |\n  | any    | mal   |\n\n" for name in names)


CHECK = "\noutcomes grado: mal < bien\n\n" + checks("1D6", "tira")


def outcome_facts(rs):
    from grimorio.interpreter.compile.wholes import outcome_fields
    decls = [d for space in rs.spaces.values() for d in space.values()]
    return outcome_fields(rs, decls, bindings_of(rs))


def test_a_checks_output_is_always_an_outcome_until_something_sets_it(tmp_path):
    rs = load_edition("prueba", roots=[edition(tmp_path / "a", CHECK).parent])
    assert outcome_facts(rs) == {"grado": frozenset({"bien", "mal"})}
    spoilt = CHECK + "rule tuerce(c):\n  let r = check tira(1) by c as \"x\"\n  set r.grado = 3\n  return r\n"
    rs = load_edition("prueba", roots=[edition(tmp_path / "b", spoilt).parent])
    assert outcome_facts(rs) == {}
    shared = CHECK + "event otro(grado)\n"
    rs = load_edition("prueba", roots=[edition(tmp_path / "c", shared).parent])
    assert outcome_facts(rs) == {}


def test_an_encounter_that_sets_a_checks_output_runs_on_the_plain_program(tmp_path):
    rules = RULES + ROUND + CHECK + "rule sale(r):\n  return r.grado >= bien\n"
    enc = ENCOUNTER.format(do='  let r = check tira(3) by Ana as "x"\n  set r.grado = 5\n  expect sale(r) == false')
    folder = edition(tmp_path, rules, enc)
    program = compile_checked(load_edition("prueba", roots=[folder.parent]))
    made = Prepared(load_encounter(folder / "x.enc", Sources()), program)
    assert made.p is not program and not made.p.optimized
    with pytest.raises(GrimorioError) as refused:        # 5 >= bien: refused, not a KeyError (E0003)
        made.run(seed=7, record=False)
    assert "E0003" not in {d.code for d in refused.value.diagnostics}


# ------------------------------------------------------------ rule results, options, checks, locals by declaration
MORE = """
sheet ficha:
  FUE: int 1..20
  gastos: int = 0
  nombre_corto: text = "x"
  lista: list = []
  otra_lista: list = []

option paso = 2
option nombre = "x"

outcomes grado: mal < bien

""" + checks("1D6", "tira", "otra", "tercera") + """rule tira_tercera(c):
  let r = check tercera(3, t: c.nombre_corto if c.FUE < 10 else 2) by c as "x"
  return r.grado >= bien

rule cociente(c, d):
  return floor(c.FUE / d) + ceil(c.FUE / d)

rule resto(c, d):
  return c.FUE % d

rule usa_cociente(c):
  return cociente(c, c.gastos) > 0

rule usa_resto(c):
  return resto(c, c.gastos) > 0

rule tal_vez_lista(c):
  if c.FUE > 10:
    return [1]
  return none

rule nuevos(c):
  let l = [x for x in [c] if x.FUE > 0]
  return l

rule llena(c):
  set c.lista = [x for x in [1, 2]]
  append c.lista, 3
  set c.otra_lista = tal_vez_lista(c)
  let l = nuevos(c)
  return len(c.lista) + len(c.otra_lista) + len(l) + len(nuevos(c)) + (1 if c in l else 0) + first(c.otra_lista)

rule por_grupos():
  let total = 0
  for group g in combatants() ordered by it.FUE desc:
    set total = total + cuenta_lista(g)
  return total

rule largo_de_cada(c):
  let total = 0
  for l in [c.lista, tal_vez_lista(c)]:
    set total = total + len(l)
  return total

rule cuenta_lista(l):
  return len(l) + (1 if len(l) > 5 else 0)

rule signo(a, b):
  if a.FUE > b.FUE:
    return 1
  else:
    return -1

rule tal_vez(c):
  if c.FUE > 10:
    return 1

rule cuenta(x):
  if x > 0:
    return cuenta(x - 1)
  return 0

rule mueve(c, o):
  set c.gastos = c.gastos + signo(c, o) * option paso
  return c.gastos

rule otro_m(c):
  let m = c.nombre_corto
  return m

rule usa_m(c):
  let m = cuenta(c.FUE) + 1
  return m > 0

rule mezcla(c):
  let m = 1
  for m in [tal_vez(c)]:
    pass
  return m + 1 > 0

rule roto(c):
  return tal_vez(c) < 5

rule tira_bien(c):
  let r = check tira(c.FUE) by c as "x"
  return r.grado >= bien

rule tira_dada(c, v):
  let r = check otra(tal_vez(c), t: v) by c as "x"
  return r.grado >= bien

rule usa_dada(c):
  return tira_dada(c, tal_vez(c))

round r:
  step s:
    pass
"""


def let_key(rs, found, rule, name):
    let = next(x for x in n.walk(rs.space("rule")[rule].body) if type(x) is n.Let and x.name == name)
    return found.key(let, bindings_of(rs).slot(let))


def test_a_rule_that_can_only_return_whole_numbers_gives_one(tmp_path):
    rs = load_edition("prueba", roots=[edition(tmp_path, MORE).parent])
    found = facts(rs)
    # signo: an if and its else, each returns a number; cuenta: itself (the greatest fixpoint) or 0;
    # mueve: a whole field it set from signo's result times a whole option.
    assert {"signo", "cuenta", "mueve"} <= found.rules and "gastos" in found.fields
    # tal_vez may end without a return (none); roto gives a truth; otro_m a text.
    assert not found.rules & {"tal_vez", "roto", "otro_m", "usa_m", "tira_bien"}
    assert found.options == {"paso"}


def test_a_local_is_held_whole_in_its_own_declaration(tmp_path):
    # `m` takes one slot in every rule (the resolver's); usa_m's holds a number, otro_m's a text,
    # and mezcla's is also a loop's variable.
    rs = load_edition("prueba", roots=[edition(tmp_path, MORE).parent])
    found = facts(rs)
    assert bindings_of(rs).slot(next(x for x in n.walk(rs.space("rule")["usa_m"].body) if type(x) is n.Let)) == \
        bindings_of(rs).slot(next(x for x in n.walk(rs.space("rule")["otro_m"].body) if type(x) is n.Let))
    assert let_key(rs, found, "usa_m", "m") in found.slots
    assert let_key(rs, found, "otro_m", "m") not in found.slots
    assert let_key(rs, found, "mezcla", "m") not in found.slots


def test_a_checks_roll_and_parameters_are_whole_where_every_call_gives_whole_numbers(tmp_path):
    rs = load_edition("prueba", roots=[edition(tmp_path, MORE).parent])
    found, b = facts(rs), bindings_of(rs)
    tira, otra = rs.space("check")["tira"], rs.space("check")["otra"]
    assert found.key(tira.params[0], b.slot(tira.params[0])) in found.slots      # every call: c.FUE
    assert found.key(tira, b.slot(tira, "roll")) in found.slots                # its own dice
    assert found.key(otra.params[0], b.slot(otra.params[0])) not in found.slots  # tal_vez(c): maybe none
    assert found.key(otra, b.slot(otra, "roll")) not in found.slots            # a roll given: maybe none


@pytest.mark.parametrize("fue", [8, 12])
def test_rules_on_the_new_facts_run_alike_plain_and_optimized(tmp_path, fue):
    # With FUE 8, tal_vez gives none: compared, added, given as a check's roll or parameter, the
    # semantics refuse it on both paths (never Python's own operator on none: E0003).
    exprs = ["roto(Ana)", "usa_dada(Ana)", "mezcla(Ana)", "mueve(Ana, Ana) == 2", "usa_m(Ana)", "tira_bien(Ana)",
             "cuenta(3) + signo(Ana, Ana) == -1",
             "tira_tercera(Ana)", "floor(Ana.FUE / Ana.gastos) > 0", "Ana.FUE % Ana.gastos == 0",
             "ceil(Ana.FUE / 5) + floor(-Ana.FUE / 5) + Ana.FUE % -5 == 1", "usa_cociente(Ana)", "usa_resto(Ana)", "resto(Ana, -5) < 0", "llena(Ana) == 8", "por_grupos() == 1", "largo_de_cada(Ana) > 0", "first(Ana.lista) == 1",
             "cociente(Ana, -5) < 0"]
    enc = (f'encounter "x"\nedition prueba\nrounds 1\ncombatant Ana:\n  FUE {fue}\n'
           + "".join(f"expect {e}\n" for e in exprs))
    got = {}
    for optimize in (True, False):
        folder = edition(tmp_path / str(optimize), MORE, enc)
        program = compile_checked(load_edition("prueba", roots=[folder.parent]), optimize=optimize)
        each = []
        for i in range(len(exprs)):
            one = edition(tmp_path / f"{optimize}{i}", MORE, enc.split("expect")[0] + f"expect {exprs[i]}\n")
            made = Prepared(load_encounter(one / "x.enc", Sources()), program)
            assert made.p is program
            each.append(verdicts(made, seed=3))
        got[optimize] = each
    assert got[True] == got[False]
    assert "E0003" not in str(got[True])
    if fue == 8:
        assert got[True][0] != [True] and got[True][2] != [True]      # refused: none < 5, none + 1


def runs_shared_or_plain(tmp_path, do: str, shared: bool):
    """An encounter on MORE whose `do` is `do`: it runs on the shared (optimized) program, or on
    the plain one, as `shared` says, and its expectation holds."""
    enc = f'encounter "x"\nedition prueba\nrounds 1\ncombatant Ana:\n  FUE 9\ndo:\n{do}\nexpect Ana.FUE == 9\n'
    folder = edition(tmp_path, MORE, enc)
    program = compile_checked(load_edition("prueba", roots=[folder.parent]))
    made = Prepared(load_encounter(folder / "x.enc", Sources()), program)
    assert (made.p is program) == shared
    assert [v.ok for v in made.run(seed=7, record=False).expectations] == [True]


@pytest.mark.parametrize("do, shared", [('  let r = check tira(1 / 2) by Ana as "x"', False),
                                        ('  let r = check tira(3, t: 1 / 2) by Ana as "x"', False),
                                        ('  let r = check tira(3, t: 4) by Ana as "x"', True),
                                        ('  let r = check tira(Ana.FUE) by Ana as "x"', True)])
def test_an_encounter_that_gives_a_check_what_its_facts_do_not_show_runs_plain(tmp_path, do, shared):
    runs_shared_or_plain(tmp_path, do, shared)


def test_quotients_and_remainders_of_whole_numbers_ask_no_semantics(tmp_path):
    # floor, ceil and % of whole fields by a written number: Python's own (a divisor read, as the
    # rules' own `floor(c.RES / c.x)`, is tested not zero and refused as the semantics refuse it, above).
    enc = 'encounter "x"\nedition prueba\nrounds 1\ncombatant Ana:\n  FUE 9\n'
    folder = edition(tmp_path, MORE, enc)
    program = compile_checked(load_edition("prueba", roots=[folder.parent]))
    engine = Prepared(load_encounter(folder / "x.enc", Sources()), program).run(seed=7, record=False).engine
    ask = program.compile_snippet("q", (), [n_expr(program, "floor(Ana.FUE / 2) + ceil(Ana.FUE / 2) + "
                                                            "Ana.FUE % 4 + Ana.FUE % Ana.FUE")], ["Ana"])
    fn = ask["expects"][0]
    assert calls_into(S, fn, engine) == [] and fn(engine)[0] == 4 + 5 + 1 + 0


def test_a_field_local_or_rule_result_is_held_a_list_where_every_value_is_one(tmp_path):
    rs = load_edition("prueba", roots=[edition(tmp_path, MORE).parent])
    found = facts(rs)
    assert found.list_fields == {"lista"}             # otra_lista: tal_vez_lista may give none
    assert "nuevos" in found.list_rules and "tal_vez_lista" not in found.list_rules
    assert let_key(rs, found, "llena", "l") in found.list_slots
    # a `for group` variable holds a list; so does a parameter every call gives one
    b = bindings_of(rs)
    loop = next(x for x in n.walk(rs.space("rule")["por_grupos"].body) if type(x) is n.For)
    param = rs.space("rule")["cuenta_lista"].params[0]
    assert found.key(loop, b.slot(loop)) in found.list_slots and found.key(param, b.slot(param)) in found.list_slots
    assert let_key(rs, found, "por_grupos", "total") in found.slots and "por_grupos" in found.rules


@pytest.mark.parametrize("do, shared", [("  set Ana.lista = 3", False), ("  set Ana.lista = [3]", True),
                                        ("  let r = {lista: 1}", False), ("  set Ana.otra_lista = 3", True)])
def test_an_encounter_that_gives_a_list_field_what_is_not_a_list_runs_plain(tmp_path, do, shared):
    runs_shared_or_plain(tmp_path, do, shared)


INDEXED = """
sheet ficha:
  Espadas: percent = 50
  Pelea: percent = 30
  arma: armas = "Daga"

table armas:
  | nombre | competencia |
  |--------|-------------|
  | Daga   | "Espadas"   |
  | Puño   | "Pelea"     |

outcomes grado: mal < bien

""" + checks("1D100", "tira", "otra") + """action atacar(yo):
  let r = check tira(yo[yo.arma.competencia]) by yo as "ataque"

rule de_cualquiera(c, quien):
  let r = check otra(quien[c.arma.competencia]) by c as "otra"
  return r.grado >= bien

rule usa(c):
  return de_cualquiera(c, c) and de_cualquiera(c, map())

round r:
  step s:
    pass
"""


def test_a_combatants_field_named_by_a_text_is_whole_when_the_field_is(tmp_path):
    # `yo[yo.arma.competencia]`: the actor is a combatant (combatants.py) and the column names
    # whole fields (fieldnames.py): the check's parameter is whole. `quien[...]`, where quien may
    # be a map, is not.
    from grimorio.dsl.check.resolver import bindings_of as bindings_for
    from grimorio.interpreter.compile.optimizer import whole_facts
    rs = load_edition("prueba", roots=[edition(tmp_path, INDEXED).parent])
    decls = [d for space in rs.spaces.values() for d in space.values()]
    b = bindings_for(rs)
    found = whole_facts(rs, decls, b)[0]
    tira, otra = rs.space("check")["tira"], rs.space("check")["otra"]
    assert found.key(tira.params[0], b.slot(tira.params[0])) in found.slots
    assert found.key(otra.params[0], b.slot(otra.params[0])) not in found.slots
