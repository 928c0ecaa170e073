"""The optimizer's plan (interpreter/compile/optimizer.py, emitted by inplace.py) gives what the plain path gives.

The plain compiler calls semantics.py for every operator and builtin; the default
one follows the optimizer's plan (in-place forms of inplace.py). Compiled both ways, every bundled
encounter gives the same transcript, rolls and expectations, and every expression
over values of every kind gives the same value or the same diagnostic.
"""
from __future__ import annotations

import functools
import itertools
import shutil
from fractions import Fraction
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from grimorio.dsl.syntax.builder import build_rules
from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.run import semantics as S
from grimorio.interpreter.compile.compiler import FILENAME, compile_checked
from grimorio.interpreter.run.dice import Dice, make_roll
from grimorio.interpreter.run.encounter import Prepared
from grimorio.dsl.check.front import load_encounter, roots_for
from grimorio.dsl.check.resolver import rule_bindings
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.run.engine import Engine, guarded
from grimorio.interpreter.run.transcript import render_jsonl, render_text
from grimorio.interpreter.run.values import Scale, Struct, make_struct, mangle, record
from tests.temp_guard import scratch
from tests.test_semantics import ranked, values, wholes

ROOT = Path(__file__).resolve().parent.parent
ENCOUNTERS = sorted(ROOT.glob("rulesets/*/*.enc")) + sorted(ROOT.glob("tests/scenarios/*.enc"))
QUICK = [ROOT / "rulesets" / "aquelarre" / f"{name}.enc" for name in ("duelo", "carga", "emboscada")]
SEEDS = (1, 7, 42, 1234, 99999)


@functools.lru_cache(maxsize=None)
def program(edition: str, roots: tuple, optimize: bool):
    """The program a run uses (optimized: the one every run of the process shares), or the plain one."""
    if optimize:
        return program_for(edition, roots=list(roots))
    return compile_checked(load_edition(edition, list(roots)), optimize=False)


def run(path: Path, seed: int, optimize: bool):
    """What a run shows: its transcript (text and events, rolls among them) and expectations,
    or the diagnostics it stops on."""
    enc = load_encounter(path, Sources())
    prepared = Prepared(enc, program(enc.edition, tuple(roots_for(path)), optimize))
    try:
        out = prepared.run(seed=seed, record=True, json=True)
    except GrimorioError as exc:
        assert not bug_in(exc), exc.diagnostics
        return "error", [(d.code, d.message) for d in exc.diagnostics]
    verdicts = [(v.ok, repr(v.left), repr(v.right)) for v in out.expectations]
    return render_text(out.engine), render_jsonl(out.engine), verdicts


def test_the_plain_program_takes_no_shortcut():
    # The plain program asks the semantics for every operator and keeps no run-invariant list:
    # the same fight runs the semantics' functions far more often.
    from grimorio.interpreter.run import engine as E
    from tests.compiled import calls_into
    enc = load_encounter(QUICK[0], Sources())
    runs = {opt: Prepared(enc, program(enc.edition, tuple(roots_for(QUICK[0])), opt)) for opt in (False, True)}
    work = {opt: (lambda p=p: p.run(seed=SEEDS[0], record=False)) for opt, p in runs.items()}
    kept = {opt: {f for f in calls_into(E, work[opt]) if f.startswith(("memo", "side_"))} for opt in work}
    assert kept[True] and not kept[False], kept
    asked = {opt: len(calls_into(S, work[opt])) for opt in work}
    assert asked[False] > 2 * asked[True], asked


@pytest.mark.parametrize("path", QUICK, ids=lambda p: p.stem)
def test_an_encounter_runs_alike_plain_and_optimized(path):
    assert run(path, SEEDS[0], False) == run(path, SEEDS[0], True)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("path", ENCOUNTERS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_encounter_runs_alike_plain_and_optimized(path, seed):
    assert run(path, seed, False) == run(path, seed, True)


# ------------------------------------------------------------ expressions over values of every kind
TINY = """
outcomes nivel: malo < bueno

condition Fatiga grades Leve < Grave

sheet ficha:
  FUE: int = 3

table zona by d4:
  | tirada | lugar | factor |
  |--------|-------|--------|
  | 1      | alto  | x2     |
  | 2-3    | medio | /2     |
  | 4      | bajo  | x1     |
"""


@functools.lru_cache(maxsize=None)
def tiny(optimize: bool):
    folder = scratch("grimorio-plain-") / "prueba"           # removed when the session ends
    folder.mkdir()
    (folder / "edicion.rules").write_text('edition prueba:\n  title "Prueba"\n  include "reglas.rules"\n', encoding="utf-8")
    (folder / "reglas.rules").write_text(TINY, encoding="utf-8")
    return compile_checked(load_edition("prueba", roots=[folder.parent]), optimize=optimize)


def compiled(body: str, optimize: bool):
    """`rule f(a, b, c)` with `body`, compiled into a namespace of its own (unchecked: the
    values come at run time, of any kind), by a fresh compiler of the tiny edition."""
    decls, diags = build_rules(f"rule f(a, b, c):\n{body}", "prop.rules")
    assert not diags, diags
    program = tiny(optimize)
    c = program.snippets._compiler()
    c.bindings = rule_bindings(program.ruleset, decls[0])       # the resolver's, as check would give them
    c.plan = c.plan.with_nodes(decls, c.bound)     # the optimizer's facts of the drawn rule too
    c.rule(decls[0])
    c.ns["__spans__"] = c.line_spans
    exec(c._compile("\n".join(c.lines) + "\n", f"{FILENAME} prop"), c.ns)  # noqa: S102 - the compiler's own output
    return program, c.ns[c.gid("rule", "f")]


def outcome(body: str, optimize: bool, values, record: bool):
    """The value `f` returns for `values`, or the diagnostic it stops on (code, message, help, line)."""
    try:
        made = compiled(body, optimize)
    except GrimorioError as exc:
        return [(d.code, d.message, d.help, d.span and d.span.line) for d in exc.diagnostics]
    return run_compiled(made, values, record)


def run_compiled(made, values, record=False):
    program, f = made
    try:
        result = guarded(program, f, Engine(program, [], 7, record), *[list(v) if type(v) is list else v for v in values])
    except GrimorioError as exc:
        assert not bug_in(exc), exc.diagnostics      # a Python exception no refusal explains: grimorio's bug
        return [(d.code, d.message, d.help, d.span and d.span.line) for d in exc.diagnostics]
    return canonical(result)


def bug_in(exc: GrimorioError) -> bool:
    """Whether a run stopped on grimorio's own bug (E0003): a Python exception that no refusal
    of the language explains (engine.locate). Either path doing so fails the comparison."""
    return any(d.code == "E0003" for d in exc.diagnostics)


def canonical(value, within=()):
    """A value as plainly comparable data: a record by its fields (each compiler makes its own
    record classes), a list item by item (a list inside itself, `append a, a`, by how far up it
    is), anything else by its type and repr."""
    if isinstance(value, (list, Struct)) and any(v is value for v in within):
        return "itself", next(i for i, v in enumerate(reversed(within)) if v is value)
    if isinstance(value, list):
        return [canonical(v, within + (value,)) for v in value]
    if isinstance(value, Struct):
        return "record", [(name, canonical(getattr(value, mangle(name)), within + (value,))) for name in value._names]
    return type(value).__name__, repr(value)


def value(name):
    """A value of the tiny edition (an outcome, a grade, a condition), by name."""
    return lambda p: p.outcome_values[name] if name in p.outcome_values else \
        p.conditions["Fatiga"].by_name.get(name, p.conditions["Fatiga"])


RECORD = make_struct("record", ("k",))
# Whole numbers at the bound's edges (the largest a value holds) and small ones. Every value a rule
# is given is within the bound (every path bounds what it makes), so none is past it here; the
# results of the rules drawn go past it (E0506), and each path must refuse them alike.
EDGES = st.sampled_from([S.BIG - 1, 1 - S.BIG, 0, 1, -1, 2])
ATOMS = st.one_of(
    EDGES, values, ranked(), st.builds(Dice.of, st.integers(1, 3), st.sampled_from((4, 6, 10))),
    st.lists(wholes(), max_size=3), st.builds(lambda v: record(RECORD, [v]), wholes()),
    st.sampled_from(["malo", "bueno", "Leve", "Grave", "Fatiga"]).map(value),
)
WRITTEN = st.one_of(st.integers(0, 10**6).map(str), st.integers(0, S.BIG - 1).map(str), st.sampled_from([
    "a", "b", "c", "0", "1", "2", str(S.BIG - 1), "none", "true", "false", '"x"', '""', "[]", "[a, 1]", "1D6", "7 / 2", "50%", "bueno", "Fatiga.Leve",
    "{k: a}", "roll 1D6", "roll 2D6", "roll a", "len(combatants())", "[x for x in combatants()]"]))
UNARY = ["-", "not "]
BINARY = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or", "in", "not in"]
ONE = ["len", "sum", "abs", "floor", "ceil", "distinct", "first", "maximum"]


def form(template: str, *parts):
    """Expressions made by filling `template` with one draw of each part."""
    return st.tuples(*parts).map(lambda drawn: template.format(*drawn))


def expressions():
    def extend(inner):
        return st.one_of(
            form("({}({}))", st.sampled_from(UNARY), inner),
            form("({} {} {})", inner, st.sampled_from(BINARY), inner),
            form("{}({})", st.sampled_from(ONE), inner),
            form("{}({} {} {})", st.sampled_from(["floor", "ceil"]), inner, st.sampled_from("/*"), inner),
            form("{}({})", st.sampled_from(["min", "max"]), st.lists(inner, min_size=1, max_size=3).map(", ".join)),
            form("{}[{}]", inner, inner),
            form("[{} for x in {}]", inner, inner),
            form("({} if {} else {})", inner, inner, inner),
            form("clamp({}, {}, {})", inner, inner, inner),
            form("({} x in {} where x == {})", st.sampled_from(["first", "any", "all"]), inner, inner),
            form("(first x in {} where {} < x else {})", inner, inner, inner),
        )
    return st.recursive(WRITTEN, extend, max_leaves=6)


def bodies():
    """A return of an expression, a list changed and walked, a map kept and read, or a decision table over the parameters."""
    cells = st.sampled_from(["any", "none", "< b", ">= 0", "1..c", "a..b", "== c", "bueno", "<= bueno", "3, > c"])
    table = st.tuples(cells, cells, expressions()).map(lambda t: (
        "  decide first:\n    | a | b | r |\n    |---|---|---|\n"
        f"    | {t[0]} | {t[1]} | {t[2]} |\n    | any | any | 0 |\n  return r\n"))
    loop = st.tuples(expressions(), expressions()).map(lambda t: (
        f"  let s = 0\n  for y in a:\n    set s = s + y\n  append a, {t[0]}\n  return [s, {t[1]}]\n"))
    kept = st.tuples(expressions(), expressions(), expressions()).map(lambda t: (
        f"  let m = map()\n  set m[{t[0]}] = {t[1]}\n  return [m[{t[2]}], {t[2]} in m, keys(m), len(m)]\n"))
    return st.one_of(expressions().map(lambda e: f"  return {e}\n"), table, loop, kept)


def resolve(values, program):
    """The values for one run: a list its own copy (a rule may append to a list it is given)."""
    return [v(program) if callable(v) else list(v) if type(v) is list else v for v in values]


def same_both_ways(body, values, record):
    plain = outcome(body, False, resolve(values, tiny(False)), record)
    fast = outcome(body, True, resolve(values, tiny(True)), record)
    assert plain == fast, body


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(expressions(), st.tuples(ATOMS, ATOMS, ATOMS))
def test_an_expression_gives_the_same_compiled_plain_and_optimized(expr, values):
    same_both_ways(f"  return {expr}\n", values, False)


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("GRIMORIO_PLAIN_EXAMPLES", 600)), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(bodies(), st.tuples(ATOMS, ATOMS, ATOMS), st.booleans())
def test_any_rule_gives_the_same_compiled_plain_and_optimized(body, values, record):
    same_both_ways(body, values, record)


# Every operator and in-place builtin between parameters and written numbers, on every pair of
# values at the bound's edges (and a few of other kinds): the in-place forms' own boundaries,
# which drawn expressions seldom meet together.
SIDES = ["a", "b", "0", "1", "2", str(S.BIG - 1)]
PAIRED = [*(f"{{}} {op} {{}}" for op in BINARY), "floor({} / {})", "ceil({} / {})", "floor({} * {})", "min({}, {})",
          "max({}, {})", "{}[{}]", "-{} + {}", "first({}) == {}", "len({}) - {}"]
AT_EDGES = [S.BIG - 1, 1 - S.BIG, 0, 1, -1, 2, 7, None, "x", [1], Fraction(1, 2), Scale(Fraction(3, 2)),
            make_roll(3, Dice.of(1, 6), [3])]


@pytest.mark.slow
@pytest.mark.parametrize("template", PAIRED)
def test_operators_at_the_bound_edges_give_the_same_compiled_plain_and_optimized(template):
    for left, right in itertools.product(SIDES, SIDES):
        body = f"  return {template.format(left, right)}\n"
        plain, fast = (compiled(body, optimize) for optimize in (False, True))
        for values in itertools.product(AT_EDGES, AT_EDGES, [None]):
            assert run_compiled(plain, values) == run_compiled(fast, values), (body, values)


def test_a_value_ordered_against_a_named_outcome_is_refused_as_the_semantics_refuse_it():
    # Regression (found by the property above): `a < bueno` with a number refused in the words of
    # a helper of its own ("only outcomes of the same list ... can be ordered") on the optimized path only.
    refused = outcome("  return a < bueno\n", True, [0, None, None], False)
    assert refused == outcome("  return a < bueno\n", False, [0, None, None], False)
    assert refused[0][:2] == ("E0204", "a number and bueno cannot be compared by order")


def test_a_quotient_past_the_bound_is_refused_before_it_is_rounded():
    # Regression (found by the edges above): floor(a / b) with a = 1/2 and b the largest whole number
    # gave 0 on the optimized path (S.floor_div, without building the fraction) and E0506 on the
    # plain one (the quotient's denominator has more than 1000 digits).
    for name in ("floor", "ceil"):
        body = f"  return {name}(a / b)\n"
        args = [Fraction(1, 2), S.BIG - 1, None]
        assert outcome(body, True, args, False) == outcome(body, False, args, False)
        assert outcome(body, True, args, False)[0][0] == "E0506"


# Arithmetic trees over the parameters (inplace.whole_tree: the leaves' types asked once, the
# tree worked out in one piece, the semantics' path where the guard fails), alone, compared and as
# a dice table's key, at the bound's edges and on values of other kinds: the same value or refusal.
TREES = ["(a - 1) % 4 + 1", "a * b - c", "(a + b) % c", "a % (b - c)", "(a - b) * (a + 1)", "a - b - c",
         "a % b % 3", "2 * a + b * 2", "(a - 1) % 10 + 1 > b", "-(a + b) + c", "len(a) - b * c - 1",
         "b * c - len(a) + 1", "abs(a) % (b + 2) - c", "(a + -2) % b - -1", "a - b <= -1", "-3 > a * 2", "a <= -1", "-2 == a", "a != -1", "first(a) + b", "abs(a) - b"]
KEYED = ["zona[(a - 1) % 4 + 1]", "zona[a + b - 1].lugar", "zona[a % b + 1]", "zona[(a - b) % c + 1]"]
TREE_VALUES = [S.BIG - 1, 1 - S.BIG, 0, 1, -1, 3, None, "x", [1, 2], Fraction(1, 2), make_roll(3, Dice.of(1, 6), [3])]


@pytest.mark.parametrize("expr", TREES + KEYED)
def test_an_arithmetic_tree_gives_the_same_compiled_plain_and_optimized(expr):
    body = f"  return {expr}\n"
    plain, fast = (compiled(body, optimize) for optimize in (False, True))
    for values in itertools.product(TREE_VALUES, repeat=3):
        assert run_compiled(plain, values) == run_compiled(fast, values), (body, values)


def test_an_arithmetic_tree_refuses_each_wrong_leaf_where_the_semantics_do():
    # The leaves are asked together, but a value past the bound, a text and a zero divisor are
    # each refused at the node the semantics refuse it at, with their words.
    body = "  return zona[(a - b) % c + 1].lugar\n"
    fast = compiled(body, True)
    assert run_compiled(fast, [6, 3, 4]) == ("str", "'bajo'")
    assert run_compiled(fast, [1 - S.BIG, 1, 4])[0][0] == "E0506"
    assert run_compiled(fast, [5, 3, 0])[0][0] == "E0501"
    assert run_compiled(fast, ["x", 3, 4]) == run_compiled(compiled(body, False), ["x", 3, 4])
    assert run_compiled(fast, [9, 3, 10]) == run_compiled(compiled(body, False), [9, 3, 10])


@pytest.mark.parametrize("body", ["  append a, b\n  return a\n", "  append a, b.k\n  append a, c\n  return a\n",
                                  "  append a, [b, c]\n  return len(a)\n"])
def test_an_append_gives_the_same_compiled_plain_and_optimized(body):
    # A pure value appended in place is read as the call reads it; a list at its bound, a non-list
    # and a record's field are refused alike.
    plain, fast = (compiled(body, optimize) for optimize in (False, True))
    full = [0] * S.MAX_LENGTH
    for values in itertools.product([[], [1], full, None, "x", 3], [1, None, record(RECORD, [2])], [[2], "y"]):
        assert run_compiled(plain, values) == run_compiled(fast, values), (body, values[1:])


@pytest.mark.parametrize("body", ["  return floor(a * zona[b].factor)\n", "  return floor(a * b)\n",
                                  "  let f = zona[b].factor\n  return floor((a - c) * f)\n"])
def test_a_product_by_a_factor_floors_the_same_compiled_plain_and_optimized(body):
    # floor(x * factor) in place (a whole number times a table's scale, within the bound), else
    # S.floor_mul: at the bound's edges, on fractions, rolls, texts and none.
    plain, fast = (compiled(body, optimize) for optimize in (False, True))
    for values in itertools.product(TREE_VALUES + [Scale(Fraction(3, 2))], [1, 2, 4, Scale(Fraction(1, 2)), Scale(2), "x"],
                                    [0, 1, -1, S.BIG - 1]):
        assert run_compiled(plain, values) == run_compiled(fast, values), (body, values)


DISTINCT_ITEMS = [1, "1", True, None, Fraction(1, 2), [1], "x", S.BIG - 1]


@pytest.mark.parametrize("expr", ["len(distinct([x for x in a]))", "len(distinct([x for x in a if x != b])) <= 1",
                                  "len(distinct([a, b, c]))"])
def test_the_count_of_distinct_items_is_the_same_compiled_plain_and_optimized(expr):
    # len(distinct(L)) of a list made here counts a set of texts and whole numbers (inplace.distinct_count);
    # a truth beside 1, a fraction, a list or none go through the builtin, as the plain path.
    body = f"  return {expr}\n"
    plain, fast = (compiled(body, optimize) for optimize in (False, True))
    lists = [list(p) for k in range(4) for p in itertools.combinations_with_replacement(DISTINCT_ITEMS, k)]
    for values in [(xs, y, None) for xs in lists for y in (1, "x", None)] + \
            [tuple(v) for v in itertools.product(DISTINCT_ITEMS, repeat=3)]:
        assert run_compiled(plain, values) == run_compiled(fast, values), (body, values)


# ------------------------------------------------------------ tactics and reactions with side effects
# The optimized path tests a tactic's conditions once each, as soon as it can (hoisting.py), and an
# unscripted reactor's reactions as it comes to them (optimizer.lazy): only where that
# changes nothing. A `requires` or `when` that rolls or sets a field must run as often and in the
# same order as the plain path runs it, or the dice streams and the fields part ways.
DUEL = """
sheet ficha:
  FUE: int 1..20
  pv: int = 10
  acciones: int = 0
  gastos: int = 0
  resto: int = 3

event golpe(atacante, defensor, dano)

rule gasta(c):
  set c.gastos = c.gastos + 1
  return c.gastos % 2 == 0

rule suerte(c):
  return roll 1D6 by c as "suerte"

rule entre(x):
  return x > 2 and x < 6

rule tirada(c):
  return {valor: roll 1D6 by c as "tirada"}

rule fuerte(c):
  return c.FUE >= 10

rule suelta(c):
  set c.resto = none
  return true

rule mayor(x):
  return x > 2

rule cerca(yo, e):
  let d = e.dano + yo.gastos
  return d > 2

outcomes grado: mal < bien < muy_bien

check tira(x) rolls t = 1D6:
  | t      | grado    |
  |--------|----------|
  | 1      | muy_bien |
  | <= x   | bien     |
  | any    | mal      |

rule acierta(c):
  let r = check tira(c.gastos + 2) by c as "tira"
  return r.grado >= bien and r.grado < muy_bien

rule tabla(c):
  let r = 1
  decide first:
    | c.gastos | r |
    |----------|---|
    | > 1      | "x" |
    | any      | 2 |
  return r > 0

rule blanco(yo):
  return first([c for c in combatants() if c != yo])

rule recio(c):
  let f = c.FUE
  return f >= 10

rule escoge(yo):
  set yo.gastos = yo.gastos + 1
  return first([c for c in combatants() if c != yo and roll 1D6 by yo as "escoge" > 2])

message pega(a, b) "{a} golpea a {b}"
message para(a) "{a} para"
message evita(a) "{a} evita"
message espera(a) "{a} espera"

action golpear(yo, rival in [c for c in combatants() if c != yo]):
  requires {0}
  cost acciones 1
  say pega(yo, rival)
  let e = emit golpe(atacante: yo, defensor: rival, dano: 2)
  set rival.pv = rival.pv - e.dano

action esperar(yo):
  requires {1}
  cost acciones 1
  say espera(yo)

reaction parar(yo, e) to golpe:
  by e.defensor
  requires {2}
  say para(yo)
  set e.dano = 0

reaction esquivar(yo, e) to golpe:
  by e.defensor
  requires {3}
  say evita(yo)
  set e.dano = e.dano - 1

tactic t:
  act: golpear(rival: {8}) when {4} and {9}, esperar when {5}, golpear(rival: {8}) when {9}, golpear when {9}, golpear
  react golpe: esquivar when {6}, parar when {7}

round asalto:
  step acciones:
    for c in combatants():
      set c.acciones = 2
      while c.acciones > 0 and act(c):
        pass
  until round_number() >= 3
"""
# Conditions of `yo` (and of the event `e`, in a reaction): pure ones, and ones that roll or set a field.
OF_YO = ["true", "yo.pv > 5", "yo.FUE >= 10", "yo.gastos < 3", "yo.acciones > 1", "suerte(yo) > 3", "gasta(yo)",
         "not gasta(yo)", 'roll 1D6 by yo as "w" > 2', "gasta(yo) or suerte(yo) > 4", "entre(suerte(yo))",
         "tirada(yo).valor > 3", "fuerte(yo)", "yo.resto > 1", "suelta(yo)", "mayor(yo.gastos)",
         "mayor(yo.resto)", "abs(yo.gastos - 5) > 1", "max(yo.gastos, yo.acciones) < 4", "tabla(yo)", "acierta(yo)"]
# (resto: an int field a rule may set to none, never whole; gastos and acciones: whole fields,
# mayor's parameter: whole unless a call passes resto; tabla's r: let whole, then a table's
# output: never whole; acierta: a check's output, always an outcome of its list (optimizer:
# wholes.py))
OF_EVENT = OF_YO + ["e.dano > 1", "e.atacante.pv > 3", "gasta(e.atacante)", "suerte(e.atacante) > 2 and e.dano > 0",
                     "cerca(yo, e)"]
# A rival given by a value of the actor alone (pure, or one that rolls or sets a field), and what a
# preference asks of it: a tactic that asks each question once asks these once too (hoisting.py).
OF_GIVEN = ["blanco(yo)", "escoge(yo)", "first([c for c in combatants() if c != yo and gasta(yo)])"]
OF_RIVAL = ["true", "rival.pv > 3", "fuerte(rival)", "recio(rival)", "gasta(rival)", "suerte(rival) > 2",
            "entre(suerte(yo))"]
DUEL_ENCOUNTER = 'encounter "x"\nedition prueba\nrounds 3\n' + "".join(
    f"combatant {name}:\n  FUE {fue}\n  tactic t\n" for name, fue in (("Ana", 12), ("Beto", 8), ("Carla", 10)))


def duel_transcripts(conditions, seed: int):
    """The transcript and events of the duel under these conditions, plain and optimized (or the
    diagnostics each stopped on)."""
    folder = Path(tempfile.mkdtemp(prefix="grimorio-duel-")) / "prueba"
    try:
        return _duel_runs(folder, conditions, seed)
    finally:
        shutil.rmtree(folder.parent, True)        # nothing left in the temporary folder


def _duel_runs(folder: Path, conditions, seed: int):
    folder.mkdir()
    (folder / "edicion.rules").write_text('edition prueba:\n  title "Prueba"\n  include "reglas.rules"\n',
                                          encoding="utf-8")
    (folder / "reglas.rules").write_text(_duel(conditions), encoding="utf-8")
    enc_path = folder / "x.enc"
    enc_path.write_text(DUEL_ENCOUNTER, encoding="utf-8")
    out = []
    for optimize in (False, True):
        program = compile_checked(load_edition("prueba", roots=[folder.parent]), optimize=optimize)
        prepared = Prepared(load_encounter(enc_path, Sources()), program)
        try:
            ran = prepared.run(seed=seed, record=True, json=True)
        except GrimorioError as exc:
            assert not bug_in(exc), exc.diagnostics
            out.append([(d.code, d.message) for d in exc.diagnostics])
            continue
        out.append((render_text(ran.engine), render_jsonl(ran.engine)))
    return out


def _duel(conditions) -> str:
    text = DUEL
    for i, cond in enumerate((*conditions, "blanco(yo)", "true")[:10]):     # (the rival and its test: pure by default)
        text = text.replace("{%d}" % i, cond)
    return text


DUEL_CONDITIONS = st.tuples(*[st.sampled_from(OF_YO)] * 2, *[st.sampled_from(OF_EVENT)] * 2,
                            *[st.sampled_from(OF_YO)] * 2, *[st.sampled_from(OF_EVENT)] * 2,
                            st.sampled_from(OF_GIVEN), st.sampled_from(OF_RIVAL))


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(DUEL_CONDITIONS, st.sampled_from(SEEDS))
@example(("entre(suerte(yo))", "tirada(yo).valor > 3", "entre(suerte(e.atacante))", "e.dano > 1", "gasta(yo)",
          "true", "suerte(e.atacante) > 2 and e.dano > 0", "entre(suerte(yo))"), 7)   # a roll read twice in place?
@example(("fuerte(yo)", "yo.pv > 5", "e.dano > 1", "true", "not fuerte(yo)", "true", "e.dano > 1", "true",
          "blanco(yo)", "fuerte(rival)"), 7)  # all pure: the tactic asks fuerte(yo), blanco(yo) and
# fuerte(rival) once per decision (asking_once), and each combatant's answer is its own
@example(("yo.pv > 5", "true", "e.dano > 1", "true", "fuerte(yo)", "true", "e.dano > 1", "true",
          "escoge(yo)", "gasta(rival)"), 1)     # a rival chosen by a roll, asked of by a question that sets a field
@example(("true", "yo.pv > 100", "e.dano > 1", "true", "true", "true", "e.dano > 1", "true", "blanco(yo)",
          "recio(rival)"), 1)   # all pure: recio(rival) asked once of blanco(yo), never of the list's rivals
@example(("suelta(yo)", "yo.resto > 1", "mayor(yo.gastos)", "true", "mayor(yo.resto)", "true", "e.dano > 1",
          "true", "blanco(yo)", "true"), 1)   # a field set to none, read in place: never held whole
@example(("gasta(yo)", "tabla(yo)", "true", "true", "true", "true", "true", "true", "blanco(yo)", "true"), 1)
@example(("acierta(yo)", "true", "true", "true", "not acierta(yo)", "true", "true", "true", "blanco(yo)", "true"), 7)
@example(("mayor(yo.gastos)", "abs(yo.gastos - 5) > 1", "max(yo.gastos, yo.acciones) < 4", "true", "true", "true",
          "true", "true", "blanco(yo)", "true"), 7)   # whole fields and a whole parameter, no guard
@example(("true", "true", "cerca(yo, e)", "not cerca(yo, e)", "true", "true", "cerca(yo, e)", "true",
          "blanco(yo)", "true"), 7)     # all pure: cerca(yo, e) asked once per reaction choice (_tactic_react)
@example(("true", "true", "cerca(yo, e)", "gasta(yo) and cerca(yo, e)", "true", "true", "cerca(yo, e)", "true",
          "blanco(yo)", "true"), 7)     # a requirement that sets a field: cerca asked as written
def test_tactics_and_reactions_with_side_effects_run_alike_plain_and_optimized(conditions, seed):
    plain, fast = duel_transcripts(conditions, seed)
    assert plain == fast, conditions


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("GRIMORIO_DUEL_EXAMPLES", 150)), deadline=None,
          suppress_health_check=list(HealthCheck), derandomize=not os.environ.get("GRIMORIO_EXPLORE"))
@given(DUEL_CONDITIONS, st.sampled_from(SEEDS))
def test_many_tactics_and_reactions_with_side_effects_run_alike_plain_and_optimized(conditions, seed):
    # Derandomized so that CI runs the same duels every time; GRIMORIO_EXPLORE=1 draws new ones
    # (which found the divergence below, now mended).
    plain, fast = duel_transcripts(conditions, seed)
    assert plain == fast, conditions


def test_a_requirement_a_reactor_never_reaches_is_never_tested_chosen_lazily_or_not():
    # Found by GRIMORIO_EXPLORE: `parar` requires tabla(yo), which compares a text with a number
    # once gastos > 1 (E0204); `esquivar when true` comes first in the tactic. The plain program
    # tested every reaction before its tactic chose and stopped at tabla; the optimized one took
    # esquivar and ran on. Now both choose as the language says (docs/language.md, Reactions):
    # a reaction is tested when the tactic's preferences come to it.
    conditions = ("true", "true", "tabla(yo)", "true", "true", "true", "true", "true", "escoge(yo)", "true")
    plain, fast = duel_transcripts(conditions, 1)
    assert plain == fast
    text, _events = plain
    assert " evita" in text


def test_the_duel_of_impure_conditions_reacts_and_rolls():
    """The drawn duel exercises what it is for: reactions chosen, conditions that roll."""
    plain, fast = duel_transcripts(["suerte(yo) > 2", "true", "gasta(yo)", "suerte(yo) > 1", "gasta(yo)",
                                    "true", "suerte(e.atacante) > 2 and e.dano > 0", "true"], 7)
    assert plain == fast
    text, events = plain
    assert " para" in text or " evita" in text
    assert '"suerte"' in events and " golpea a " in text


# The in-place forms on one value of every kind, in the fast profile: each template compiled once
# each way, run on every value (the drawn expressions above meet a bool under `-` seldom; the
# slow edges test meets them all, later).
ONE_VALUE = ["-a", "not a", "-(-a)", "a - 1", "1 - a", "a + a", "a * 2", "a % 2", "7 % a", "a[0]",
             f"len(a) * {S.BIG // 2}", "a >= bueno", "a < bueno", "a == 1", "a != a", "a < 1",
             "1 >= a", "a == true", "len(a)", "first(a)", "abs(a)", "floor(a / 2)", "ceil(a / 3)", "a in [1, 2]",
             "[x for x in a]", "a[1]", "min(a, 1)", "max(a, 1)", "a and 1", "a or 0", "len(a) - 1", "3 - len(a)"]
KINDS = [*AT_EDGES, True, False, [], [2, 1], "", Dice.of(2, 6)]


@pytest.mark.parametrize("template", ONE_VALUE)
def test_one_value_of_every_kind_gives_the_same_compiled_plain_and_optimized(template):
    body = f"  return {template}\n"
    plain, fast = (compiled(body, optimize) for optimize in (False, True))
    for a in [*KINDS, value("malo"), value("bueno")]:          # an outcome: each program's own
        got = [run_compiled(made, (a(made[0]) if callable(a) else a, None, None)) for made in (plain, fast)]
        assert got[0] == got[1], (template, a)


def test_membership_in_place_gives_what_the_semantics_give():
    # `a in b` in place (inplace.member): Python's `in` only for a text or a value that equals
    # only itself, in a list; 1 is not in [true], none is in [[]] by the language's equality.
    plain, fast = (compiled("  return a in b\n", optimize) for optimize in (False, True))
    program = tiny(True)
    bueno, grade = value("bueno")(program), value("Leve")(program)
    items = [*KINDS, bueno, grade, record(RECORD, [1])]
    lists = [[], [1], [True], [[]], [1, "x", None], [Fraction(1)], [bueno], [grade], [record(RECORD, [1])], "x", None, 3]
    for a in items:
        for b in lists:
            got = run_compiled(fast, (a, list(b) if type(b) is list else b, None))
            assert got == run_compiled(plain, (a, list(b) if type(b) is list else b, None)), (a, b)


@pytest.mark.parametrize("body", ["  return min(6, roll 1D6)\n", "  let d = roll 1D6\n  return max(d, 0)\n",
                                  "  return min(roll 1D6, roll 1D6, 9)\n"])
def test_a_roll_through_min_or_max_of_whole_numbers_is_its_plain_number(body):
    # Regression: min/max of arguments proven whole were Python's own, which gives back the
    # argument itself: a roll kept its dice, and a recorded run showed "1D6=5" where the
    # language (and the plain program) gives 5.
    same_both_ways(body, (0, 0, 0), True)


def test_the_reference_duel_shows_what_armour_absorbs_as_a_number():
    # Regression: `let absorbe = min(dado, protección)` of a rolled `dado` printed
    # "Gambesón absorbe 1D6=2" in the transcript whenever the roll was the lesser.
    path = ROOT / "benchmarks" / "duelo_referencia" / "duelo.enc"
    absorbed = []
    for seed in range(1, 25):
        text = run(path, seed, True)[0]
        absorbed += [line for line in text.splitlines() if " absorbe " in line]
    assert any("1D6=1;" in line or "1D6=2;" in line for line in absorbed)     # the roll was the lesser
    assert absorbed and not any(" absorbe 1D" in line for line in absorbed), absorbed[:3]
