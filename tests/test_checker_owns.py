"""The checker in dsl/ owns every static diagnostic (issue 5, Build 2): each error the
compiler once raised while compiling is reported by `check_ruleset` alone, before
anything is compiled, and by `grimorio check`; the compiler takes a checked ruleset
and has no error path of its own (interpreter/compile/compiler.py, expressions.py,
statements.py and data.py raise no Diagnostic)."""
from __future__ import annotations

import ast
import pathlib

import pytest

from grimorio.dsl.check.checker import check_ruleset
from grimorio.dsl.diagnostics import GrimorioError
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.tools.cli import main
from tests.test_checker import write_edition
from tests.test_core_regressions import BASE as CORE

BASE = CORE + """
condition Marcado

event toque(quien)

outcomes nivel: bajo < alto

option dureza = 2

rule doble(x):
  return x * 2
"""

# rules text -> the code the checker reports for it (each once a compile-time error).
STATIC = {
    "rule-as-value": ("rule r():\n  return doble\n", "E0204"),
    "builtin-as-value": ("rule r():\n  return len\n", "E0204"),
    "outcome-list-as-value": ("rule r():\n  return nivel\n", "E0204"),
    "call-of-a-field": ("rule r(c):\n  return c.FUE(2)\n", "E0204"),
    "call-of-a-table": ("rule r():\n  return armaduras(2)\n", "E0204"),
    "record-field-twice": ("rule r():\n  return {a: 1, a: 2}\n", "E0202"),
    "unknown-option": ("rule r():\n  return option blandura\n", "E0201"),
    "set-a-rule": ("rule r():\n  set doble = 2\n", "E0204"),
    "set-a-list-item": ("rule r():\n  let l = [1]\n  set l[1] = 2\n", "E0204"),   # only a map's items are set so
    "set-a-table-row": ("rule r():\n  set armaduras[\"Cota\"].protección = 5\n", "E0204"),
    "set-a-row-through-a-combatant": ("rule r(c):\n  set c.armadura.protección = 5\n", "E0204"),
    "expect-in-rules": ("rule r(c):\n  expect c.FUE == 1\n", "E0230"),
    "unknown-condition": ("rule r(c):\n  add c Cansancio Leve\n", "E0201"),
    "grade-missing": ("rule r(c):\n  add c Fatiga\n", "E0204"),
    "no-such-grade": ("rule r(c):\n  add c Fatiga Extrema\n", "E0201"),
    "grade-of-a-state": ("rule r(c):\n  add c Marcado Leve\n", "E0204"),
    "decide-all-with-output": ("rule r(c):\n  decide all:\n    | c.FUE | x |\n    |-------|---|\n    | any   | 1 |\n",
                               "E0204"),
    "action-without-params": ("action quieto():\n  pass\n", "E0206"),
    "action-param-without-list": ("action golpe(yo, otro):\n  pass\n", "E0206"),
    "reaction-one-param": ("reaction r(yo) to toque:\n  by yo\n  pass\n", "E0206"),
    "reaction-unknown-event": ("reaction r(yo, e) to empujón:\n  by e.quien\n  pass\n", "E0201"),
    "reaction-without-by": ("reaction r(yo, e) to toque:\n  pass\n", "E0206"),
    "tactic-unknown-action": ("tactic t:\n  act: golpear\n", "E0201"),
    "tactic-reaction-other-event": ("event empujón(quien)\nreaction r(yo, e) to empujón:\n  by e.quien\n  pass\n"
                                    "tactic t:\n  react toque: r\n", "E0204"),
    "tally-of-a-text": ('tally nombre: "x"\n', "E0030"),
    "append-to-a-row": ('table bolsas:\n  | n | cosas |\n  |---|-------|\n  | a | [1]   |\n'
                        'rule r():\n  append bolsas["a"].cosas, 2\n', "E0204"),
    "set-a-row-chosen": ('rule r(c):\n  let a = choose(c, [armaduras["Cota"]])\n  set a.protección = 5\n', "E0204"),
    "table-cell-not-plain": ("table t:\n  | k | v |\n  |---|---|\n  | a | doble(2) |\n", "E0204"),
}

# Errors the runtime once found only when a run reached them, though the rules' text shows them.
WRITTEN = {
    "len-of-a-number": ("rule r():\n  return len(3)\n", "E0204"),
    "sum-of-a-text": ('rule r():\n  return sum("abc")\n', "E0204"),
    "first-of-a-number": ("rule r():\n  return first(3)\n", "E0204"),
    "walk-a-number": ("rule r():\n  for x in 3:\n    pass\n", "E0204"),
    "comprehension-over-a-text": ('rule r():\n  return [x for x in "abc"]\n', "E0204"),
    "grades-of-a-number": ("rule r():\n  return grades(3)\n", "E0204"),
    "choose-from-a-number": ("rule r(c):\n  return choose(c, 3)\n", "E0204"),
    "keep-from-a-number": ("rule r():\n  return keep_highest(3, 1)\n", "E0204"),
    "dice-of-no-dice": ("rule r():\n  return dice(0, 6)\n", "E0209"),
    "keep-more-than-rolled": ("rule r():\n  return keep_lowest(2D20, 3)\n", "E0209"),
    "range-too-long": ("rule r():\n  return range(1, 1000000)\n", "E0209"),
    "divide-by-zero": ("rule r(x):\n  return x / 0\n", "E0209"),
    "remainder-by-zero": ("rule r(x):\n  return x % 0\n", "E0209"),
    "no-such-row": ('rule r():\n  return armaduras["Escamas"]\n', "E0209"),
    "no-such-item": ("rule r():\n  return [1, 2][3]\n", "E0209"),
    "least-of-nothing": ("rule r():\n  return min([])\n", "E0209"),
    # The kinds the text shows (issue 5, audit G4): fractions, grades, records, rows, table cells, and
    # what a let, a for or an item holds.
    "fraction-plus-text": ('rule r():\n  return (7 / 2) + "ab"\n', "E0204"),
    "fraction-ordered-with-an-outcome": ("rule r():\n  return (7 / 2) > alto\n", "E0204"),
    "dice-plus-a-fraction": ("rule r():\n  return 1D6 + (7 / 2)\n", "E0204"),
    "number-plus-a-grade": ("rule r():\n  return 3 + Fatiga.Leve\n", "E0204"),
    "grade-ordered-with-a-number": ("rule r():\n  return Fatiga.Leve > 3\n", "E0204"),
    "in-a-record": ("rule r():\n  return 3 in {k: 1}\n", "E0204"),
    "row-times-a-number": ('rule r():\n  return armaduras["Cota"] * 3\n', "E0204"),
    "cell-plus-a-text": ('rule r():\n  return colores["rojo"].valor + "a"\n', "E0204"),
    "lists-ordered": ("rule r():\n  return [1] < [2]\n", "E0204"),
    "negated-text": ('rule r():\n  return -"ab"\n', "E0204"),
    "let-text-times": ('rule r():\n  let a = "ab"\n  return a * 3\n', "E0204"),
    "let-number-len": ("rule r():\n  let a = 1\n  return len(a)\n", "E0204"),
    "let-number-field": ("rule r():\n  let a = 3\n  return a.FUE\n", "E0203"),
    "record-field-it-lacks": ("rule r():\n  let a = {k: 1}\n  return a.FUE\n", "E0203"),
    "kind-after-both-branches": ('rule r():\n  if true:\n    let a = "x"\n  else:\n    let a = "y"\n'
                                 "  return a * 2\n", "E0204"),
    "kind-after-set": ('rule r():\n  let a = 1\n  set a = "x"\n  return a * 2\n', "E0204"),
    "walked-item": ('rule r():\n  for a in ["x"]:\n    return a * 2\n', "E0204"),
    "comprehension-item": ('rule r():\n  return [a * 2 for a in ["x"]]\n', "E0204"),
    # A row held by a local, walked, taken from a list or a record: its fields cannot be set (wrong result 7).
    "set-a-row-held-by-a-local": ('rule r():\n  let a = armaduras["Cota"]\n  set a.protección = 5\n', "E0204"),
    "set-a-row-walked": ('rule r():\n  for a in [armaduras["Cota"]]:\n    set a.protección = 5\n', "E0204"),
    "set-a-row-item": ('rule r():\n  let a = [armaduras["Cota"]][1]\n  set a.protección = 5\n', "E0204"),
    "set-a-row-first": ('rule r():\n  let a = first([armaduras["Cota"]])\n  set a.protección = 5\n', "E0204"),
    "set-a-row-in-a-record": ('rule r():\n  set {x: armaduras["Cota"]}.x.protección = 5\n', "E0204"),
}
STATIC.update(WRITTEN)


@pytest.mark.parametrize("name", WRITTEN)
def test_what_check_sees_a_run_would_have_refused(tmp_path, name):
    """Each of WRITTEN, compiled without the checker, stops the run that reaches it."""
    from grimorio.interpreter.compile.compiler import compile_unchecked
    from grimorio.interpreter.run.encounter import Prepared
    from grimorio.dsl.syntax.builder import build_encounter
    rules, _code = WRITTEN[name]
    write_edition(tmp_path, BASE + rules)
    program = compile_unchecked(load_edition("prueba", roots=[tmp_path]))
    call = "r(Ana)" if "r(c)" in rules else "r(5)" if "r(x)" in rules else "r()"
    enc, diags = build_encounter(f"edition prueba\ncombatant Ana:\n  FUE 3\ndo:\n  let y = {call}\n", "x.enc")
    assert not diags
    with pytest.raises(GrimorioError) as exc:
        Prepared(enc, program).run()
    assert {d.code for d in exc.value.diagnostics} <= {"E0203", "E0204", "E0501"}, exc.value.diagnostics


# Rules whose kinds the checker follows and must not refuse: each checks clean and runs.
CLEAN = {
    "a-loop-changes-a-kind": ('rule r():\n  let a = "t"\n  let n = 0\n  while n < 2:\n    set n = n + 1\n'
                              "    if n == 2:\n      return a * 2\n    set a = 1\n  return 0\n", 2),
    "a-walk-replaces-a-local": ('rule r():\n  let a = "t"\n  for a in [3]:\n    pass\n  return a * 2\n', 6),
    "a-set-changes-a-kind": ('rule r():\n  let a = "t"\n  set a = 1\n  return a * 2\n', 2),
    "branches-disagree": ('rule r():\n  if len([1]) == 1:\n    let a = 1\n  else:\n    let a = "t"\n'
                          "  return a * 2\n", 2),
    "a-comprehension-shadows": ('rule r():\n  let a = "t"\n  return sum([a * 2 for a in [1, 2]])\n', 6),
    "fractions-with-numbers": ("rule r():\n  return (7 / 2) * 2 < 8 and floor(7 / 2) + 1D6 - 1 != 0\n", True),
    "grades-ordered": ("rule r():\n  return Fatiga.Leve < Fatiga.Grave\n", True),
    "a-cell-in-arithmetic": ('rule r():\n  return armaduras["Cota"].protección + colores["rojo"].valor\n', 4),
    "a-record-field": ("rule r():\n  let a = {k: 1}\n  set a.k = a.k + 1\n  return a.k\n", 2),
    # A local keeps only what cannot change of a list or a record it holds (append, set, another name for it).
    "an-item-appended": ('rule r():\n  let a = [1]\n  append a, "x"\n  return a[2] + "y"\n', "xy"),
    "a-field-set": ('rule r():\n  let a = {k: 1}\n  set a.k = "x"\n  return a.k + "y"\n', "xy"),
    "a-field-set-through-another-name": ('rule r():\n  let a = {k: 1}\n  let b = a\n  set b.k = "x"\n'
                                         '  return a.k + "y"\n', "xy"),
    "an-item-changed-by-a-rule": ('rule pon(l):\n  append l, "x"\nrule r():\n  let a = [1]\n  pon(a)\n'
                                  '  return a[2] + "y"\n', "xy"),
    "a-row-read": ('rule r():\n  for a in [armaduras["Cota"]]:\n    return a.protección * 2\n  return 0\n', 6),
}


@pytest.mark.parametrize("name", CLEAN)
def test_kinds_the_checker_follows_refuse_nothing_that_runs(tmp_path, name):
    from grimorio.dsl.syntax.builder import build_encounter
    from grimorio.interpreter.run.encounter import Prepared
    from grimorio.interpreter.compile.programs import program_for
    rules, value = CLEAN[name]
    write_edition(tmp_path, BASE + rules)
    assert check_ruleset(load_edition("prueba", roots=[tmp_path])) == []
    enc, diags = build_encounter("edition prueba\ncombatant Ana:\n  FUE 3\nexpect r() == 1\n", "x.enc")
    left = Prepared(enc, program_for("prueba", roots=[tmp_path])).run().expectations[0].left
    assert value is None or left == value


@pytest.mark.parametrize("name", STATIC)
def test_the_checker_reports_it_before_compiling(tmp_path, name):
    rules, code = STATIC[name]
    write_edition(tmp_path, BASE + rules)
    diags = check_ruleset(load_edition("prueba", roots=[tmp_path]))
    assert [d.code for d in diags] == [code], diags
    assert diags[0].span.file.endswith("reglas.rules") and diags[0].span.line >= BASE.count("\n")


@pytest.mark.parametrize("name", ["rule-as-value", "set-a-table-row", "reaction-without-by", "table-cell-not-plain"])
def test_grimorio_check_reports_it(tmp_path, capsys, name):
    rules, code = STATIC[name]
    folder = write_edition(tmp_path, BASE + rules)
    assert main(["check", str(folder)]) == 2
    assert f"error[{code}]" in capsys.readouterr().err


COMPILER = ("compiler.py", "expressions.py", "statements.py", "data.py")


@pytest.mark.parametrize("module", COMPILER)
def test_the_compiler_has_no_static_error_of_its_own(module):
    """No Diagnostic built, no self.fail, no `except` that gathers errors: a checked ruleset compiles.
    (compiler.py keeps two: Python's own limits on generated code, E0106, and the memory it has, E0322, which
    no static pass can know.)"""
    path = pathlib.Path(__file__).parent.parent / "interpreter" / "compile" / module
    tree = ast.parse(path.read_text(encoding="utf-8"))
    built = [node.args[0].value for node in ast.walk(tree)
             if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Diagnostic"]
    assert built == (["E0322", "E0106"] if module == "compiler.py" else [])
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "fail"]
    handlers = [node for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler)]
    assert all(h.type is not None and "Exception" != getattr(h.type, "id", None) for h in handlers)


def _loops(depth: int, indent: int) -> str:
    """`depth` loops one inside another (for and while in turn), the innermost doing nothing."""
    out = ""
    for i in range(depth):
        pad = "  " * (indent + i)
        out += f"{pad}for x{i} in [1]:\n" if i % 2 == 0 else f"{pad}while false:\n"
    return out + "  " * (indent + depth) + "pass\n"


# Where the loops stand -> (the rules text for `depth` loops, the deepest that compiles): a rule is a
# Python function of its own; a round's step runs inside the round's own loop, unless it returns.
NESTING = {
    "rule": (lambda depth: "rule r():\n" + _loops(depth, 1), 20),
    "round-step": (lambda depth: "round vuelta:\n  step uno:\n" + _loops(depth, 2), 19),
    "round-step-that-returns": (lambda depth: "round vuelta:\n  step uno:\n" + _loops(depth, 2) + "    return\n", 20),
}


@pytest.mark.parametrize("where", NESTING)
def test_loops_nested_deeper_than_python_compiles_are_found_by_check(tmp_path, where):
    """Audit G7: 22 nested loops passed check and stopped the compiler (E0106). The checker counts
    loops as the compiler emits them: the deepest that compiles checks clean, one more is located."""
    from grimorio.interpreter.compile.compiler import compile_unchecked
    text, deepest = NESTING[where]
    for depth, fits in ((deepest, True), (deepest + 1, False)):
        folder = tmp_path / str(depth)
        folder.mkdir()
        write_edition(folder, BASE + text(depth))
        diags = check_ruleset(load_edition("prueba", roots=[folder]))
        if fits:
            assert diags == []
            compile_unchecked(load_edition("prueba", roots=[folder]))         # compiles
            continue
        assert [d.code for d in diags] == ["E0106"], diags
        lines = (folder / "prueba" / "reglas.rules").read_text(encoding="utf-8").splitlines()
        headers = [i + 1 for i, line in enumerate(lines) if line.lstrip().startswith(("for x", "while false"))]
        assert diags[0].span.line == headers[deepest]                 # the loop one too deep
        assert "more than 20 loops" in diags[0].message and "rule of their own" in diags[0].help
        with pytest.raises(GrimorioError) as exc:                   # what the compiler would have said
            compile_unchecked(load_edition("prueba", roots=[folder]))
        assert [d.code for d in exc.value.diagnostics] == ["E0106"]


# Audit G15: a rule is only ever called, so it may share its name with a value (docs/language.md §21).
SHARED = """
var extra = 2

rule extra(x):
  return x + extra

rule colores(k):
  return colores[k].valor * 10

rule Fatiga(c):
  return has(c, Fatiga)

rule llama(c):
  let extra = 100
  return [extra(1), extra, colores("rojo"), Fatiga(c)]
"""


def test_a_rule_may_share_its_name_with_a_var_a_table_or_a_condition(tmp_path):
    from tests.test_core_regressions import passes
    write_edition(tmp_path, CORE + SHARED)
    assert check_ruleset(load_edition("prueba", roots=[tmp_path])) == []
    # The bare name is the value (a local first), the called name the rule, even under a local of its name.
    passes(tmp_path, "do:\n  receive Ana Fatiga Leve\nexpect llama(Ana) == [3, 100, 10, true]\n", SHARED)


@pytest.mark.parametrize("second", ["var colores = 1\n", "condition colores\n", "outcomes colores: a < b\n"])
def test_values_read_by_a_bare_name_still_need_names_of_their_own(tmp_path, second):
    """A table and a var (condition, outcome list) of one name would make `colores` mean two things."""
    write_edition(tmp_path, CORE + second)
    with pytest.raises(GrimorioError) as exc:
        check_ruleset(load_edition("prueba", roots=[tmp_path]))
    [d] = exc.value.diagnostics
    assert d.code == "E0202" and d.message == '"colores" is already the name of a table'
    assert "read by their bare name" in d.help and "a rule, only ever called, may share one" in d.help


def test_a_combatant_held_by_a_name_or_an_item_keeps_its_sheet(tmp_path):
    """A combatant's fields are its sheet's, however the script holds it (a false positive of the kinds)."""
    from tests.test_core_regressions import passes
    passes(tmp_path, "do:\n  for c in [Ana]:\n    set c.FUE = c.FUE + 1\nexpect first([Ana]).FUE == 4\n", "")
