"""CPU time per roll of one dice expression, by grimorio or by d20, in this process:
`python benchmarks/dice_roll.py grimorio|d20 1d10+1d4+2`. d20 needs lark-parser 0.x,
which cannot share a venv with lark 1.x, so `python -m benchmarks` runs each side
in its own interpreter, alternating them."""
from __future__ import annotations

import sys
import time

ROLLS, REPEATS = 20_000, 3


def grimorio_roller(expr: str):
    from grimorio.interpreter.run.dice import Dice, stream
    dice = 0
    for term in expr.lower().split("+"):
        count, _, sides = term.partition("d")
        dice = dice + (Dice.of(int(count or 1), int(sides)) if sides else int(term))
    rnd = stream(1, None, None)          # the interpreter's own dice streams
    return lambda: dice.roll(rnd)


def d20_roller(expr: str):
    import d20
    return lambda: d20.roll(expr)


def main() -> int:
    side, expr = sys.argv[1], sys.argv[2]
    roll = {"grimorio": grimorio_roller, "d20": d20_roller}[side](expr)
    best = None
    for _ in range(REPEATS):
        t = time.process_time()
        for _ in range(ROLLS):
            roll()
        took = (time.process_time() - t) / ROLLS
        best = took if best is None else min(best, took)
    print(best)
    return 0


if __name__ == "__main__":
    sys.exit(main())
