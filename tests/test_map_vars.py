"""The map facts of the optimizer (interpreter/compile/mapvars.py): a `session var` made by map()
and only ever set to map() holds a map, always; `m[k]` then asks the map's own dict in place, and
gives what Map.lookup gives, or refuses as it refuses, for every kind of key; a var a saved state
may keep, or one set to anything else, is no such fact; an encounter whose own code sets such a
var to anything else runs on the plain program."""
from __future__ import annotations

import functools

import pytest

from grimorio.dsl.check.front import load_encounter
from grimorio.dsl.check.resolver import bindings_of
from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.compile.compiler import compile_checked
from grimorio.interpreter.compile.mapvars import map_vars
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.run.transcript import render_text
from tests.temp_guard import scratch, write_edition

RULES = """
sheet ficha:
  FUE: int = 3

outcomes nivel: malo < bueno

table armas:
  | nombre | peso |
  |--------|------|
  | Daga   | 1    |

table numeros:
  | n | v |
  |---|---|
  | 1 | a |
  | 2 | b |

table tirada by d6:
  | t   | v |
  |-----|---|
  | 1-3 | a |
  | 4-6 | b |

rule por_tirada(k):
  return tirada[k].v

rule por_fuerza(c):
  return tirada[c.FUE].v

rule por_numero():
  return [numeros[1].v, numeros[2].v]

rule por_verdad():
  return numeros[true]

session var puestos = map()
session var otros = map()
session var luego = map()
var guardado = map()

rule guarda(k, v):
  set puestos[k] = v
  return puestos[k]

rule lee(k):
  return puestos[k]

rule vacia():
  set luego = map()
  set otros = 3
  return [puestos["x"], puestos[2], luego[none]]

round r:
  step s:
    pass
"""

ENCOUNTER = """encounter "x"
edition prueba
rounds 1
combatant Ana:
  FUE 4
combatant Beto:
  FUE 9
{do}
expect {expr} == none
"""


@functools.lru_cache(maxsize=None)
def folder():
    return write_edition(scratch("grimorio-maps-") / "prueba", RULES)


@functools.lru_cache(maxsize=None)
def program(optimize: bool):
    return compile_checked(load_edition("prueba", roots=[folder().parent]), optimize=optimize)


def test_only_a_session_var_only_ever_set_to_a_fresh_map_holds_a_map():
    rs = load_edition("prueba", roots=[folder().parent])
    decls = [d for space in rs.spaces.values() for d in space.values()]
    # otros: set to 3; guardado: a saved state may give it anything; luego: set to map() again.
    assert map_vars(rs, decls, bindings_of(rs)) == {"puestos", "luego"}


def run(expr: str, optimize: bool, do: str = ""):
    path = folder() / f"x{abs(hash((expr, do)))}.enc"
    path.write_text(ENCOUNTER.format(expr=expr, do=do), encoding="utf-8")
    made = Prepared(load_encounter(path, Sources()), program(optimize))
    try:
        out = made.run(seed=1, record=True)
    except GrimorioError as exc:
        return made.p.optimized, [(d.code, d.message, d.help, d.span and (d.span.line, d.span.col))
                                  for d in exc.diagnostics]
    return made.p.optimized, render_text(out.engine), [(v.ok, repr(v.left)) for v in out.expectations]


KEYS = ["Ana", '"x"', "2", "true", "1", "none", "bueno", 'armas["Daga"]', "Ana.FUE", "[1]", "map()", "{a: 1}",
        "1 / 2", "1D6"]


@pytest.mark.parametrize("key", KEYS)
def test_a_map_var_asked_in_place_gives_what_the_map_gives(key):
    # The key kept, then another of its kind and true against 1 (a map keeps them apart).
    expr = f"[guarda({key}, 7), lee({key}), lee(1), lee(true), vacia()]"
    fast, plain = run(expr, True), run(expr, False)
    assert fast[0] and not plain[0]
    assert fast[1:] == plain[1:], key
    assert "E0003" not in str(fast)


@pytest.mark.parametrize("do", ["do:\n  set puestos = 3", "do:\n  set luego = []"])
def test_an_encounter_that_sets_a_map_var_to_anything_else_runs_on_the_plain_program(do):
    fast, plain = run("lee(1)", True, do), run("lee(1)", False, do)
    assert not fast[0] and fast[1:] == plain[1:]
    assert "E0003" not in str(fast)


def test_an_encounter_that_sets_a_map_var_to_a_fresh_map_runs_on_the_shared_program():
    do = 'do:\n  set puestos = map()\n  expect guarda("a", 1) == 1'
    fast, plain = run("lee(1)", True, do), run("lee(1)", False, do)
    assert fast[0] and fast[1:] == plain[1:]


@pytest.mark.parametrize("expr", ["por_numero()", "por_verdad()"])
def test_a_catalogues_row_by_a_written_number_or_truth_is_found_as_lookup_finds_it(expr):
    # A written key the table has is its row, a constant; true is no key 1 (lookup refuses it).
    fast, plain = run(expr, True), run(expr, False)
    assert fast[0] and fast[1:] == plain[1:]
    assert "E0003" not in str(fast)


@pytest.mark.parametrize("expr", [*(f"por_tirada({key})" for key in ["2", "6", "7", "0", "true", "5 / 2", "4 / 2", '"x"',
                                                                      "none", "roll 1D6"]),
                                  "por_fuerza(Ana)", "por_fuerza(Beto)"])
def test_a_dice_tables_row_by_its_roll_is_found_as_lookup_finds_it(expr):
    # A whole roll from the table's dict of rolls in place (a whole field: with no test of its
    # kind); anything else (a truth, a fraction, a roll it does not cover) as lookup finds or
    # refuses it.
    fast, plain = run(expr, True), run(expr, False)
    assert fast[0] and fast[1:] == plain[1:], expr
    assert "E0003" not in str(fast)
