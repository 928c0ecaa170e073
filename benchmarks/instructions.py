"""Instructions per run, counted by valgrind (cachegrind), which the machine's load does not move:
`python -m benchmarks.instructions [twin|interpreter|simulate ...] [-n N]`.

For each side it runs this module twice under `valgrind --tool=cachegrind --cache-sim=no`, once
making N runs and once making none (both after one untimed run, so caches and the stored program
are warm alike), and prints (the first count minus the second) / N. PYTHONHASHSEED is fixed: the
order of sets and dicts keyed by strings changes the count by a few per cent from one process to
the next otherwise. The sides:

- twin: the hand-written duel of benchmarks/twin_duelo.py;
- interpreter: the same duel under the frozen rules it implements (benchmarks/duelo_referencia);
- simulate: one run of `grimorio simulate` of the demo (rulesets/aquelarre/duelo.enc), tallies included.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIDES = ("twin", "interpreter", "simulate")


def runs(side: str, n: int):
    """What one side does: one untimed run, then n runs."""
    if side == "twin":
        from benchmarks.twin_duelo import duelo
        for s in [12345, *range(n)]:
            duelo(s)
    elif side == "interpreter":
        from benchmarks.__main__ import prepared_duel
        prepared = prepared_duel()
        for s in [12345, *range(n)]:
            prepared.run(seed=s, record=False)
    else:
        from grimorio.interpreter.tools.preparing import prepare_from_argv
        from grimorio.interpreter.tools.simulate import Runner, run_seed
        from grimorio.interpreter.tools.tally import Tally
        runner = Runner(prepare_from_argv(["simulate", str(ROOT / "rulesets" / "aquelarre" / "duelo.enc")]))
        runner.run_all(Tally(), ((i, run_seed(7, i)) for i in range(1)))
        runner.run_all(Tally(), ((i, run_seed(7, i)) for i in range(n)))


def warm(side: str):
    """One process making no runs of a side, as count() starts them but without valgrind: the
    stored program its children read is then written under their own hash seed (a program
    written by this process, under another seed, was not the one they looked for, and the first
    counted process compiled it: 0.7 M instructions a duel too many)."""
    subprocess.run([sys.executable, "-m", "benchmarks.instructions", "--inside", side, "-n", "0"], cwd=ROOT,
                   check=True, capture_output=True, env=dict(os.environ, PYTHONHASHSEED="0"))


def count(side: str, n: int) -> int:
    """The instructions of a process making n runs of a side."""
    argv = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
            sys.executable, "-m", "benchmarks.instructions", "--inside", side, "-n", str(n)]
    out = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONHASHSEED="0")).stderr
    return int(re.search(r"I\s+refs:\s+([\d,]+)", out).group(1).replace(",", ""))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.instructions", description=__doc__.splitlines()[0])
    p.add_argument("sides", nargs="*", help=f"the sides to count: {', '.join(SIDES)} (default: all three)")
    p.add_argument("-n", type=int, default=300, help="runs counted (default 300)")
    p.add_argument("--inside", choices=SIDES, help=argparse.SUPPRESS)       # the process valgrind counts
    args = p.parse_args(argv)
    args.sides = args.sides or list(SIDES)
    for side in args.sides:
        if side not in SIDES:
            p.error(f"no side {side!r} (choose from {', '.join(SIDES)})")
    if args.inside:
        runs(args.inside, args.n)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 1
    for side in args.sides:                 # the stored programs written before anything is counted,
        warm(side)                          # by a process like the counted ones (the same hash seed)
    per = {}
    for side in args.sides:
        per[side] = (count(side, args.n) - count(side, 0)) / args.n
        print(f"{side:12} {per[side]:12,.0f} instructions per run", flush=True)
    if "twin" in per and "interpreter" in per:
        print(f"{'':12} interpreter / twin: {per['interpreter'] / per['twin']:.2f}x (target 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
