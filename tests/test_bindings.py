"""Locals are named in the generated Python by their bindings, never by their spelling
(issue 5, build 1): a let, a parameter, a loop's or a comprehension's variable may be
called like a Python keyword, a builtin or a name of the generated code, and two
spellings never meet; the designer still sees the names as written."""
from __future__ import annotations


import pytest

from grimorio.dsl.diagnostics import GrimorioError, Sources, render_all
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.compile.compiler import compile_checked
from tests.test_checker import write_edition
from tests.test_core_regressions import BASE, outcome, passes

# Python keywords and builtins, names the generated code uses (H, S, math, Fraction, the
# declarations' rule0 ...), and spellings the old naming produced (l + a_NAME).
ODD_NAMES = ["H", "S", "self", "None", "True", "print", "len", "def", "lambda", "class", "import", "math",
             "Fraction", "rule0", "message1", "la_x", "lu_x", "K0_cond", "v1", "l1", "t1"]


@pytest.mark.parametrize("name", ODD_NAMES)
def test_a_local_may_be_named_like_python_or_the_generated_code(tmp_path, name):
    rules = (f"rule como_let():\n  let {name} = 2\n  let otro = {name} + 1\n  return {name} * otro\n"
             f"rule como_parametro({name}):\n  return [{name} + y for y in [1, 2]]\n"
             f"rule como_bucle():\n  let total = 0\n  for {name} in [1, 2, 3]:\n    set total = total + {name}\n"
             f"  return total\n"
             f"rule como_lista():\n  return [{name} * 10 for {name} in [1, 2]]\n")
    passes(tmp_path, "expect como_let() == 6\nexpect como_parametro(10) == [11, 12]\n"
                     "expect como_bucle() == 6\nexpect como_lista() == [10, 20]\n", rules)


def test_the_generated_code_never_spells_a_local(tmp_path):
    write_edition(tmp_path, BASE + "rule r(zafiro_param):\n  let zafiro_let = zafiro_param\n"
                                   "  for zafiro_bucle in [1]:\n    set zafiro_let = zafiro_let + zafiro_bucle\n"
                                   "  return [zafiro_lista for zafiro_lista in [zafiro_let]]\n")
    from tests.compiled import engine, function
    program = compile_checked(load_edition("prueba", roots=[tmp_path]))
    code = function(program, "rule", "r").__code__
    names = [*code.co_varnames, *code.co_names, *(c.co_varnames for c in code.co_consts if hasattr(c, "co_varnames"))]
    assert not any("zafiro" in str(name) for name in names), names
    assert code.co_varnames[:code.co_argcount][0] == "_E" and function(program, "rule", "r")(engine(program), 2) == [3]


# A second `let` of a name replaces its value, also from inside an `if` or a loop
# (docs/language.md, "let"): a parameter is such a name.
def test_a_let_in_an_inner_block_replaces_a_parameter(tmp_path):
    passes(tmp_path, "expect cambia(1) == 2\nexpect suma(0) == 6\nexpect deja(1) == 1\n",
           "rule cambia(x):\n  if x > 0:\n    let x = 2\n  return x\n"
           "rule suma(x):\n  for i in [1, 2, 3]:\n    let x = x + i\n  return x\n"
           "rule deja(x):\n  if x > 5:\n    let x = 2\n  return x\n")


def test_a_name_every_branch_binds_is_one_variable_after_the_if(tmp_path):
    passes(tmp_path, "expect rama(1) == 10\nexpect rama(0) == 20\nexpect rama(-1) == 30\n",
           "rule rama(x):\n  if x > 0:\n    let a = 10\n  elif x == 0:\n    if true:\n      let a = 20\n"
           "    else:\n      let a = 0\n  else:\n    let a = 30\n  return a\n")


def test_a_comprehension_leaves_the_let_of_its_name_alone(tmp_path):
    passes(tmp_path, "expect deja() == [5, [1, 2]]\n",
           "rule deja():\n  let x = 5\n  let l = [x for x in [1, 2]]\n  return [x, l]\n")


def test_a_let_in_a_loop_is_unknown_after_it_by_its_own_name(tmp_path):
    write_edition(tmp_path, BASE + "rule r():\n  for i in [1]:\n    let dentro = i\n  return dentro\n")
    from grimorio.dsl.check.checker import check_ruleset
    diags = check_ruleset(load_edition("prueba", roots=[tmp_path]))
    assert [(d.code, d.message) for d in diags] == [("E0201", 'unknown name "dentro"')]


def test_a_runtime_error_shows_the_designers_names(tmp_path):
    got = outcome(tmp_path, "expect parte() == 1\n", "rule parte():\n  let xé = 0\n  return 1 / xé\n")
    assert isinstance(got, str) and "error[E0501]" in got, got
    assert "1 / xé" in got and "_l" not in got, got


def test_a_decision_tables_output_and_a_checks_roll_are_bindings(tmp_path):
    passes(tmp_path, "expect tabla(3) == 30\nexpect tabla(1) == 10\n",
           "rule tabla(len):\n  decide first:\n    | len | print |\n    |-----|-------|\n"
           "    | 3   | 30    |\n    | any | 10    |\n  return print\n")


def test_field_names_mangle_one_to_one():
    """Fields of records and rows keep their mangled spelling (data, not bindings): it must be
    one-to-one and read back, or two fields would share a slot."""
    from hypothesis import given, settings, strategies as st

    from grimorio.interpreter.run.values import mangle, unmangle
    names = st.text(alphabet=st.sampled_from("aé_x9Z_ñ-·e"), min_size=1, max_size=8)

    @settings(max_examples=100, deadline=None)
    @given(names, names)
    def one_to_one(a, b):
        assert unmangle(mangle(a)) == a
        assert mangle(a).isidentifier() and mangle(a).isascii()
        assert (mangle(a) == mangle(b)) == (a == b)

    one_to_one()
