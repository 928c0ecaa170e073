"""Generated code never makes Python print a warning (audit G8): Python warns, while it compiles,
about code that could not run (`3 is None`: "is" with a literal; `0[0]`: not subscriptable),
even where the generated code never runs it, and the warning reached the designer's terminal."""
from __future__ import annotations

import itertools
import warnings

import pytest

from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.compile import compiler
from grimorio.interpreter.compile.compiler import compile_checked
from grimorio.interpreter.run.encounter import Prepared
from tests.test_checker import write_edition

BASE = """
outcomes nivel: malo < bueno

condition Fatiga grades Leve < Grave

sheet ficha:
  FUE: int = 3
"""

# A written value of every kind, and the same returned by a rule compiled in place (its code in brackets).
LITERALS = ["3", "-3", "0", "7 / 2", '"ab"', '""', "true", "false", "none", "[]", "[1]", "1D6", "{k: 1}", "bueno",
            "Fatiga.Leve", "Fatiga"]
INLINED = [f"v{i}()" for i in range(len(LITERALS))]
NAMED = {"bueno", "Fatiga.Leve"}        # written outcomes and grades
TEXTS = {'"ab"', '""'}

# Builtins and lookups on written values and on values rules compiled in place return (the checker cannot
# tell the kind of a rule's result, so these pass it and are refused, in words, only when they run).
CALLS = ["first(v0())", "first(v1())", "first(v6())", "first(v8())", "len(v0())", "len(v8())", "v0()[1]", "v1()[1]",
         "v6()[1]", "v8()[1]", "v4()[1]", "v4()[v4()]", "v9()[v0()]", "distinct(v2())", "sum(v10())", "abs(-3)",
         "max(3, 4)", "min(v0(), v1())", "max(v6(), 0)", "clamp(1, 0, 5)", "clamp(v0(), v1(), v2())", "first([1])",
         "floor(7 / 2)", "ceil(-7 / 2)", "v0() + 1", "1 - v1()", "v0() * 2", "-v0()", "not v8()", "v8() in [1]",
         "1D6 + v0()", "v0() % 3", "3 in c", "none in c", "true in c", '"ab" in c']


def rules() -> str:
    lines = [BASE] + [f"rule v{i}():\n  return {lit}\n" for i, lit in enumerate(LITERALS)]
    sides = LITERALS + INLINED
    for i, (a, b) in enumerate(itertools.product(sides, sides)):
        if {a, b} & NAMED and {a, b} & TEXTS:
            continue                    # an outcome or grade against a text: refused by check (E0234)
        for j, op in enumerate(("==", "!=")):
            lines.append(f"rule e{i}_{j}(c):\n  return {a} {op} {b}\n")
    lines += [f"rule b{i}(c):\n  return {call}\n" for i, call in enumerate(CALLS)]
    return "\n".join(lines)


@pytest.mark.slow
def test_no_generated_code_makes_python_warn(tmp_path, monkeypatch):
    # Regression: `rule r(c): return 3 == none` printed `SyntaxWarning: "is" with a literal` (the code
    # was `3 is None or 3 == []`), and first(0) "'int' object is not subscriptable".
    write_edition(tmp_path, rules())
    compiled = []

    def strict(source, filename):                # Python's own compile, every warning an error
        compiled.append(filename)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return compile(source, filename, "exec")
    monkeypatch.setattr(compiler, "python_code", strict)
    program = compile_checked(load_edition("prueba", roots=[tmp_path]))
    # An encounter's own code (its expectations) compiles apart: every call and comparison there too.
    checks = "".join(f"expect b{i}(Ana) == 1\n" for i in range(len(CALLS))) + \
        "".join(f"expect {a} == {b}\n" for a, b in itertools.product(INLINED, LITERALS))
    enc, _ = build_encounter("edition prueba\ncombatant Ana:\n  FUE 3\n" + checks, "x.enc")
    Prepared(enc, program)
    assert len(compiled) >= 2
