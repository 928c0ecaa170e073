"""Rolls per second of grimorio's dice (as the engine rolls them for a
transcript: faces, total, and a Roll that remembers both) against d20's.
Run it with benchmarks/dice_vs_d20.sh, which gives d20 a venv of its own."""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import d20  # noqa: E402

from grimorio.interpreter.dice import Dice, stream  # noqa: E402

EXPRS = [("1d10+1d4+2", Dice.of(1, 10) + Dice.of(1, 4) + 2), ("1d100", Dice.of(1, 100)), ("2d6", Dice.of(2, 6))]


def best(fn, n, repeats=5):
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        out.append(time.perf_counter() - t)
    return min(out) / n


def main() -> int:
    rnd = stream(1, None, None)          # the interpreter's own dice streams
    worst = None
    for text, dice in EXPRS:
        a = best(lambda: dice.roll(rnd), 20000)
        b = best(lambda: d20.roll(text), 20000)
        print(f"{text:12} grimorio {a * 1e6:6.2f} us   d20 {b * 1e6:6.2f} us   {b / a:5.1f}x")
        worst = b / a if worst is None else min(worst, b / a)
    print(f"slowest ratio: {worst:.1f}x (target: 10x)")
    return 0 if worst >= 10 else 1


if __name__ == "__main__":
    sys.exit(main())
