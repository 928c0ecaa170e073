"""Comparing combatants' sides (issues 19 and 25): where every side is a text, the optimized code
compares two sides with Python's own `==`/`!=` (a text equals only an equal text: values.same), and
counts distinct sides as a set of them (compile/sides.py). A side may be any value (a number, true):
an encounter that gives one, or whose own code sets one, runs on the plain program, and a rule that
sets a side to what is not surely a text keeps the guarded forms. Every way, the plain and the
optimized runs give the same transcript."""
from __future__ import annotations

from pathlib import Path

import pytest

from grimorio.dsl.check.front import load_encounter, roots_for
from grimorio.dsl.diagnostics import Sources
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.compile.compiler import compile_checked
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.run.transcript import render_text

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
DUEL = (BENCH / "duelo_referencia" / "duelo.enc").read_text(encoding="utf-8")


def _encounter(tmp_path: Path, first: str, second: str, do: str = "") -> Path:
    text = DUEL.replace("side cristianos", f"side {first}").replace("side bandidos", f"side {second}")
    if do:
        text += f"\nrounds 4\n\ndo:\n{do}\n"
    path = tmp_path / "lados.enc"
    path.write_text(text, encoding="utf-8")
    return path


def _runs(path: Path, roots, seeds=(1, 7, 42)):
    """(the optimized program's prepared encounter, its transcripts, the plain program's)."""
    enc = load_encounter(path, Sources())
    fast = Prepared(enc, program_for(enc.edition, roots=list(roots)))
    plain = Prepared(enc, compile_checked(load_edition(enc.edition, list(roots)), optimize=False))
    shown = [[render_text(p.run(seed=s, record=True).engine) for s in seeds] for p in (fast, plain)]
    return fast, shown[0], shown[1]


def test_text_sides_run_optimized_and_as_the_plain_program(tmp_path):
    fast, got, want = _runs(_encounter(tmp_path, "cristianos", "bandidos"), [BENCH])
    assert fast.p.program.optimized and fast.p.program.text_sides
    assert got == want


@pytest.mark.parametrize("first, second", [("1", "true"), ("true", "1"), ("0", "false"), ("1", "bandidos")])
def test_a_side_that_is_no_text_runs_the_plain_program(tmp_path, first, second):
    # 1 and true are two sides (true equals no number), though Python's 1 == True: the two fight.
    fast, got, want = _runs(_encounter(tmp_path, first, second), [BENCH])
    assert not fast.p.program.optimized
    assert got == want
    assert all("Rodrigo" in t and "Bandido" in t and t.count("\n") > 20 for t in got)


def test_an_encounter_setting_a_side_to_no_text_runs_the_plain_program(tmp_path):
    fast, got, want = _runs(_encounter(tmp_path, "cristianos", "bandidos",
                                       do="  set Bandido.side = true\n  set Rodrigo.side = 1"), [BENCH])
    assert not fast.p.program.optimized
    assert got == want
    assert all(t.count("\n") > 20 for t in got)


def test_an_encounter_setting_a_side_to_a_text_keeps_the_optimized_program(tmp_path):
    fast, got, want = _runs(_encounter(tmp_path, "cristianos", "bandidos", do='  set Bandido.side = "otros"'),
                            [BENCH])
    assert fast.p.program.optimized and fast.p.program.text_sides
    assert got == want


def test_a_rule_setting_a_side_to_no_text_keeps_the_guards(tmp_path):
    # An edition whose rules may set a side to a number: no fact, the guarded forms, the same fight.
    import shutil
    ed = tmp_path / "duelo_referencia"
    shutil.copytree(BENCH / "duelo_referencia", ed)
    with open(ed / "estados.rules", "a", encoding="utf-8") as f:
        f.write("\nrule cambiar_lado(c, x):\n  set c.side = x\n  return x\n")
    fast, got, want = _runs(_encounter(tmp_path, "cristianos", "bandidos",
                                       do="  cambiar_lado(Bandido, 1)\n  cambiar_lado(Rodrigo, true)"), [tmp_path])
    assert fast.p.program.optimized and not fast.p.program.text_sides
    assert got == want
    assert all(t.count("\n") > 20 for t in got)


def test_a_saved_state_gives_no_side(tmp_path, capsys):
    # A saved state holds no side: one written in by hand is refused, located, before any run.
    import json
    from grimorio.interpreter.tools.cli import main
    enc, state = ROOT / "rulesets" / "aquelarre" / "duelo.enc", tmp_path / "s.json"
    assert main(["run", str(enc), "--quiet", "--save-state", str(state)]) == 0
    data = json.loads(state.read_text(encoding="utf-8"))
    data["combatants"]["Bandido"]["fields"]["side"] = 3
    state.write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    assert main(["run", str(enc), "--quiet", "--load-state", str(state)]) == 2
    err = capsys.readouterr().err
    assert "E0805" in err and 'a field "side"' in err and "Traceback" not in err
