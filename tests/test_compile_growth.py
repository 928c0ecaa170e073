"""Checking and compiling take time in proportion to the size of the rules: a ratio
of growth, not a wall time, so a busy machine does not decide it."""
from __future__ import annotations

import time

import pytest

from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.compile.compiler import compile_checked
from tests.test_checker import write_edition

pytestmark = pytest.mark.slow      # it measures growth over editions compiled at several sizes


def rules(count: int) -> str:
    out = ["sheet ficha:\n  FUE: int = 1\n"]
    for i in range(count):
        out.append(f"table t{i}:\n  | clave | valor |\n  |---|---|\n  | a | {i} |\n  | b | 2 |\n")
        prev = f"r{i - 1}(x) + " if i else ""
        out.append(f"rule r{i}(x):\n  let y = [z * 2 for z in [x, 1, 2]]\n"
                   f"  return {prev}t{i}[\"a\"].valor + len(y)\n")
    return "\n".join(out)


def compile_time(tmp_path, count: int) -> float:
    folder = tmp_path / str(count)
    folder.mkdir()
    write_edition(folder, rules(count))
    rs = load_edition("prueba", roots=[folder])
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        compile_checked(rs)
        best = min(best, time.process_time() - start)
    return best


def test_check_and_compile_grow_linearly(tmp_path):
    small, large = compile_time(tmp_path, 30), compile_time(tmp_path, 240)
    # Eight times the rules: linear is 8x; quadratic would be 64x.
    assert large / small < 20, f"{large / small:.1f}x for 8x the rules"
