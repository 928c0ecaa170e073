"""The field-name facts of the optimizer (interpreter/compile/fieldnames.py): a column, local or rule
parameter holds texts naming a field every combatant has only where every value the text gives it
does; `c[text]` then reads the field in place, and gives what H.index gives, or refuses as it
refuses, for a combatant, a record, a list, a map and none; an encounter whose own code breaks a
fact runs on the plain program."""
from __future__ import annotations

import functools

import pytest

from grimorio.dsl.check.front import load_encounter
from grimorio.dsl.check.resolver import bindings_of
from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.compile.compiler import compile_checked
from grimorio.interpreter.compile.fieldnames import field_names
from grimorio.interpreter.compile.wholes import wholes
from grimorio.dsl.syntax import nodes as n
from grimorio.interpreter.run.encounter import Prepared
from tests.temp_guard import scratch, write_edition

RULES = """
sheet ficha:
  FUE: int 1..20
  Pelea: percent = 40
  Espadas: percent = 55
  apodo: text = "x"
  arma: armas = "Daga"
  escudo: escudos = "Ninguno"
  acciones: int = 2

sheet bestia extends ficha:
  Garras: percent = 30

table armas:
  | nombre | competencia | destreza | otra   | mote  |
  |--------|-------------|----------|--------|-------|
  | Daga   | Pelea       | FUE      | FUE    | apodo |
  | Espada | Espadas     | Pelea    | Garras | apodo |

table escudos:
  | nombre  | competencia |
  |---------|-------------|
  | Ninguno | -           |
  | Broquel | Pelea       |

rule valor(c, nombre):
  return c[nombre]

rule con_arma(c):
  return valor(c, c.arma.competencia)

rule con_escudo(c):
  return valor(c, c.escudo.competencia)

rule diestro(c):
  return c[c.arma.destreza]

rule cualquiera(c, x):
  return c[x]

rule mayor(c, arma):
  return c[arma.destreza] > 1

rule motejado(c):
  return c[c.arma.mote]

# A catalogue's row by a written key: the row itself, which a map keyed by rows finds again.
rule misma(c):
  let m = map()
  set m[c.arma] = 1
  return [m[armas["Daga"]], armas["Daga"] == c.arma, armas["Daga"].destreza, escudos["Ninguno"].competencia]

rule mapa():
  let m = map()
  set m["FUE"] = "x"
  return mayor(m, armas["Daga"])

rule usa(c):
  return [cualquiera(c, "apodo"), cualquiera(c, 3), c["Pelea"], c[c.arma.mote]]

event golpe(atacante, defensor)

action atacar(yo, otro in enemies(yo)):
  cost acciones 1
  let e = emit golpe(atacante: yo, defensor: otro)

reaction parar(yo, e) to golpe:
  by e.defensor
  cost acciones 1
  set yo.acciones = yo.acciones + 0

# A reactor the event names: a record, where a rule offers one (a roll in the requirement: every
# reaction is tested where the event offers it, not by the reactor's tactic).
event empujon(quien)

reaction resistir(yo, e) to empujon:
  by e.quien
  requires yo[yo.arma.destreza] > 0 and medida_ofrecida(yo) > 0 and roll 1D2 > 0
  set yo.apodo = "y"

rule empuja(x):
  let e = emit empujon(quien: x)
  return e.quien == x

tactic lista:
  act: atacar
  react golpe: parar when yo[yo.arma.destreza] >= yo.Pelea, parar when yo[yo.arma.competencia] > 0

# An action only a script takes, whose actor is indexed with no test (combatants.py): a script's
# decision is asked only of a combatant.
var otro = none

action medir(yo):
  let v = yo[yo.arma.destreza] + medida(yo)
  if v > 0:
    set yo.apodo = "medido"

rule medida(c):
  let x = c[c.arma.destreza]
  return x

action girar(yo):
  for yo in [{arma: yo.arma}]:
    let v = yo[yo.arma.destreza]

rule medida_ofrecida(c):
  return c[c.arma.destreza]

action cambia(yo):
  let yo = {arma: yo.arma}
  let v = yo[yo.arma.destreza]

round r:
  step s:
    if otro != none:
      act(otro)
    for c in combatants():
      act(c)
"""

ENCOUNTER = """encounter "x"
edition prueba
rounds 2
combatant Ana:
  FUE 12
  side a
  tactic lista
combatant Lobo:
  sheet bestia
  FUE 9
  arma "Espada"
  escudo "Broquel"
  side b
  tactic lista
{do}
expect {expr} == none
"""


@functools.lru_cache(maxsize=None)
def folder():
    return write_edition(scratch("grimorio-names-") / "prueba", RULES)


@functools.lru_cache(maxsize=None)
def program(optimize: bool):
    return compile_checked(load_edition("prueba", roots=[folder().parent]), optimize=optimize)


def facts():
    rs = load_edition("prueba", roots=[folder().parent])
    decls = [d for space in rs.spaces.values() for d in space.values()]
    b = bindings_of(rs)
    return rs, b, field_names(rs, decls, b, wholes(rs, decls, b).fields)


def param_slot(rs, b, rule, i):
    return b.slot(rs.space("rule")[rule].params[i])


def test_only_columns_and_slots_every_value_of_which_names_a_common_field_are_held():
    rs, b, found = facts()
    # destreza: FUE and Pelea, fields of both sheets; mote: apodo, a text field (a field all the same).
    assert {"destreza", "mote"} <= found.fields
    # competencia: a shield's is none ("-"): a name or none, not a name always. otra: Garras is a
    # field of one sheet only. nombre: a table's key column, and the key of every row is no field.
    assert "competencia" not in found.fields and "competencia" in found.fields_or_none
    assert not {"otra", "nombre"} & (found.fields | found.fields_or_none)
    # valor's nombre: every call passes a competencia (a name or none); cualquiera's x: a number too.
    assert param_slot(rs, b, "valor", 1) in found.slots_or_none and param_slot(rs, b, "valor", 1) not in found.slots
    assert param_slot(rs, b, "cualquiera", 1) not in found.slots_or_none
    # Whole: destreza names FUE or Pelea, whole fields; mote names a text field.
    assert "destreza" in found.whole_fields and "mote" not in found.whole_fields


def test_a_name_another_structure_shares_is_held_by_neither(tmp_path):
    (tmp_path / "prueba").mkdir()
    (tmp_path / "prueba" / "edicion.rules").write_text('edition prueba:\n  title "P"\n  include "reglas.rules"\n',
                                                       encoding="utf-8")
    (tmp_path / "prueba" / "reglas.rules").write_text(RULES + "event otro(destreza)\n", encoding="utf-8")
    rs = load_edition("prueba", roots=[tmp_path])
    decls = [d for space in rs.spaces.values() for d in space.values()]
    assert "destreza" not in field_names(rs, decls, bindings_of(rs)).fields


def run(expr: str, optimize: bool, do: str = "", seed: int = 3):
    """What an encounter ending in `expect EXPR == none` shows: the transcript and the expression's
    value, or the diagnostics it stops on."""
    path = folder() / f"x{abs(hash((expr, do)))}.enc"
    path.write_text(ENCOUNTER.format(expr=expr, do=do), encoding="utf-8")
    made = Prepared(load_encounter(path, Sources()), program(optimize))
    try:
        out = made.run(seed=seed, record=True)
    except GrimorioError as exc:
        return made.p.optimized, [(d.code, d.message, d.help, d.span and (d.span.line, d.span.col))
                                  for d in exc.diagnostics]
    from grimorio.interpreter.run.transcript import render_text
    return made.p.optimized, render_text(out.engine), [(v.ok, repr(v.left)) for v in out.expectations]


EXPRESSIONS = [
    "con_arma(Ana)", "con_arma(Lobo)", "diestro(Lobo)", "usa(Ana)", "usa(Lobo)", "mayor(Ana, Ana.arma)",
    "con_escudo(Lobo)", "motejado(Lobo)",
    # none as the key: refused as H.index refuses it
    "con_escudo(Ana)",
    # anything but a combatant indexed by a name: a record with the field, one without, a list, a map,
    # none, a number, a text
    "{apodo: 5}[Ana.arma.mote]", "valor({apodo: 5}, Ana.arma.competencia)", "motejado({arma: Ana.arma, apodo: 7})",
    "motejado({arma: Ana.arma})", "valor([1, 2], Ana.arma.competencia)", "valor(map(), Ana.arma.competencia)",
    "valor(none, Ana.arma.competencia)", "valor(3, Ana.arma.competencia)", 'valor("FUE", Ana.arma.competencia)',
    "diestro({arma: 3})", "mapa()", "mayor(Lobo, Lobo.arma)", "misma(Ana)", "misma(Lobo)",
    # the reactor of an event where the event offers its reactions: a combatant, a record, none
    "empuja(Ana)", "empuja({arma: Ana.arma})", "empuja({arma: Ana.arma, apodo: 3})",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_a_field_named_by_a_text_gives_the_same_optimized_and_plain(expr):
    fast, plain = run(expr, True), run(expr, False)
    assert fast[0] and not plain[0]                 # (the shared optimized program, and the plain one)
    assert fast[1:] == plain[1:], expr
    assert "E0003" not in str(fast)


@pytest.mark.parametrize("do", ['do:\n  expect valor(Ana, "zz") == none', "do:\n  expect valor(Ana, 3) == none",
                                'do:\n  let r = {destreza: "zz"}\n  expect diestro({arma: r}) == none',
                                'do:\n  let r = {mote: 3}\n  expect motejado({arma: r}) == none',
                                "do:\n  expect medida({arma: Ana.arma}) == none"])
def test_an_encounter_that_breaks_a_fact_runs_on_the_plain_program(do):
    fast, plain = run("con_arma(Ana)", True, do), run("con_arma(Ana)", False, do)
    assert not fast[0]                              # the plain program, for this encounter
    assert fast[1:] == plain[1:]
    assert "E0003" not in str(fast)


def test_an_encounter_that_keeps_the_facts_runs_on_the_shared_program():
    do = 'do:\n  expect valor(Ana, "Pelea") == 40\n  expect valor(Lobo, Lobo.arma.competencia) == 55'
    fast, plain = run("con_arma(Ana)", True, do), run("con_arma(Ana)", False, do)
    assert fast[0] and fast[1:] == plain[1:]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_the_tactics_when_reads_the_field_as_the_plain_program_does(seed):
    assert run("con_arma(Ana)", True, seed=seed)[1:] == run("con_arma(Ana)", False, seed=seed)[1:]


def test_an_actors_slot_holds_a_combatant_where_nothing_else_binds_it():
    from grimorio.interpreter.compile.combatants import combatant_slots
    rs, b, _found = facts()
    decls = [d for space in rs.spaces.values() for d in space.values()]
    held = combatant_slots(rs, decls, b)
    actors = {d.name: b.slot(d.params[0]) for d in (*rs.all(n.Action), *rs.all(n.Reaction))}
    assert {actors["atacar"], actors["medir"], actors["parar"], actors["resistir"]} <= held.slots
    # valor's c: called with a rule's parameter the text never calls; mayor's: with a map too.
    assert param_slot(rs, b, "valor", 0) not in held.slots and param_slot(rs, b, "mayor", 0) not in held.slots
    # medida's c: an action's actor, always; medida_ofrecida's: a reactor where the event offers it.
    assert param_slot(rs, b, "medida", 0) in held.slots and param_slot(rs, b, "medida_ofrecida", 0) not in held.slots


@pytest.mark.parametrize("script", ["Ana: cambia", "Lobo: cambia, medir", "Ana: girar"])
def test_an_actor_a_let_or_a_loop_gives_another_value_is_indexed_as_h_index_does(script):
    do = f"round 1:\n  {script}"
    fast, plain = run("con_arma(Ana)", True, do), run("con_arma(Ana)", False, do)
    assert fast[0] and fast[1:] == plain[1:]
    assert "E0003" not in str(fast)


@pytest.mark.parametrize("who", ['{name: "Ana", arma: Ana.arma}', '{name: "Ana"}', "3", "Lobo"])
def test_a_scripted_decision_is_asked_only_of_a_combatant(who):
    # act() of a value with Ana's name, while the script holds Ana's next action: refused as no
    # combatant (before, the scripted action ran with the record as its actor).
    do = f"do:\n  set otro = {who}\nround 1:\n  Ana: medir"
    fast, plain = run("con_arma(Ana)", True, do), run("con_arma(Ana)", False, do)
    assert fast[0] and fast[1:] == plain[1:]
    assert "E0003" not in str(fast)
    if who != "Lobo":
        assert plain[1][0][0] == "E0204" and "not a combatant" in plain[1][0][1]


def test_a_catalogues_row_by_a_written_key_is_the_row_the_table_holds_read_back_too():
    # The row is a constant of the program: a program read back from the cache (one pickle of
    # tables and constants) still finds the sheet's row and the written one the same.
    from grimorio.interpreter.compile.compiler import load
    from grimorio.interpreter.compile.stored import dumps, loads
    again = load(loads(dumps(program(True).program)))
    path = folder() / "misma.enc"
    path.write_text(ENCOUNTER.format(expr="misma(Ana)", do=""), encoding="utf-8")
    out = Prepared(load_encounter(path, Sources()), again).run(seed=1, record=False)
    assert [repr(v.left) for v in out.expectations] == ["[1, True, 'FUE', None]"]
