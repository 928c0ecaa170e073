"""The step budget refuses at the moment it always did (E0502): at the first budget test after the
count that passes it, with the transcript of everything before it. Counting steps in bulk, or
dropping a test a count no longer needs, must not move that moment: every budget from 1 to what
the reference duel takes is run, and where it refuses (the statement, told by its span) and how
much transcript it leaves are held to the table of tests/budget/ (made before any such change), and
the plain program to the optimized one."""
from __future__ import annotations

from pathlib import Path

import pytest

from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.dsl.check.front import load_encounter
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.compile.compiler import compile_checked
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.run.transcript import render_text

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
DUEL = BENCH / "duelo_referencia" / "duelo.enc"
TABLE = Path(__file__).parent / "budget" / "duelo_referencia_seed1.txt"


def prepared(optimize: bool) -> Prepared:
    program = program_for("duelo_referencia", roots=[BENCH]) if optimize else \
        compile_checked(load_edition("duelo_referencia", [BENCH]), optimize=False)
    return Prepared(load_encounter(DUEL, Sources()), program)


def moments(p: Prepared, seed: int) -> tuple[list[tuple[int, str, str]], str]:
    """For each budget from 1 until the run ends: where it refused and its transcript then; and
    the transcript of the run that ended."""
    out, budget = [], 1
    while True:
        try:
            whole = p.run(seed=seed, budget=budget)
        except GrimorioError as exc:
            d = exc.diagnostics[0]
            out.append((budget, f"{d.code} {Path(d.span.file).name}:{d.span.line}:{d.span.col}",
                        render_text(exc.outcome.engine)))
            budget += 1
            continue
        return out, render_text(whole.engine)


def table(rows) -> list[str]:
    """The rows as the table writes them: runs of budgets refused alike, `FIRST-LAST WHERE LINES`."""
    runs: list[list] = []
    for budget, where, text in rows:
        told = f"{where} {len(text.splitlines())}"
        if runs and runs[-1][2] == told and runs[-1][1] == budget - 1:
            runs[-1][1] = budget
        else:
            runs.append([budget, budget, told])
    return [f"{a}-{z} {t}" if a != z else f"{a} {t}" for a, z, t in runs]


def test_every_budget_refuses_the_reference_duel_where_it_did():
    rows, whole = moments(prepared(True), 1)
    assert table(rows) == TABLE.read_text().splitlines()
    # What a refused run shows is what the whole run showed up to then, no line more.
    assert all(whole.startswith(text) for _b, _w, text in rows)


@pytest.mark.slow
def test_every_budget_refuses_the_plain_reference_duel_where_it_did():
    # The plain program counts more steps (no run-invariant list: enemies(c) walks the combatants
    # each time), so its moments are its own table.
    rows, whole = moments(prepared(False), 1)
    assert table(rows) == TABLE.with_name("duelo_referencia_seed1_plain.txt").read_text().splitlines()
    assert all(whole.startswith(text) for _b, _w, text in rows)


@pytest.mark.slow
@pytest.mark.parametrize("optimize", [False, True])
@pytest.mark.parametrize("seed", [7, 42])
def test_a_bigger_budget_never_refuses_earlier(seed, optimize):
    # On other dice: each refusal leaves a prefix of the whole transcript, and a bigger budget
    # never leaves less of it.
    rows, whole = moments(prepared(optimize), seed)
    assert all(whole.startswith(text) for _b, _w, text in rows)
    lengths = [len(text) for _b, _w, text in rows]
    assert lengths == sorted(lengths)
