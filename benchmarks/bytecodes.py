"""Python bytecodes executed per run, counted with sys.settrace, which the machine's load does not
move: `python -m benchmarks.bytecodes [twin|interpreter|simulate ...] [-n N] [--top K]`.

On this 2-core VM the time of a run follows its bytecodes more closely than its machine
instructions: each bytecode is a jump through the interpreter's dispatch, and the mispredicted
jumps and data-cache misses (cachegrind with --cache-sim=yes --branch-sim=yes: 28 k against the
twin's 15 k mispredicts per duel) cost time that instructions do not show. The interpreter/twin
ratio of bytecodes is therefore the nearer figure to the timed one. The sides are those of
benchmarks/instructions.py; `--top K` lists the K code objects (generated functions by their
Python names, see `grimorio`'s compiled source) that executed the most.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter

from benchmarks.instructions import ROOT, SIDES


def one_run(side: str):
    """A function making one run of a side, its preparation done (the sides of instructions.py)."""
    if side == "twin":
        from benchmarks.twin_duelo import duelo
        return duelo
    if side == "interpreter":
        from benchmarks.__main__ import prepared_duel
        prepared = prepared_duel()
        return lambda seed: prepared.run(seed=seed, record=False)
    from grimorio.interpreter.tools.cli import prepare_from_argv
    from grimorio.interpreter.tools.simulate import Runner, run_seed
    from grimorio.interpreter.tools.tally import Tally
    runner = Runner(prepare_from_argv(["simulate", str(ROOT / "rulesets" / "aquelarre" / "duelo.enc")]))
    return lambda i: runner.run_all(Tally(), ((i, run_seed(7, i)),))


def count(side: str, n: int) -> Counter:
    """Bytecodes the runs 0 .. n-1 of a side execute, by code object (after one untimed run)."""
    run = one_run(side)
    run(12345)
    return executed(run, range(n))


def executed(work, args) -> Counter:
    """Bytecodes `work(a)` executes for each a of `args`, by code object (name, file, first line);
    the loop itself is not counted (this frame was running before the trace was set)."""
    counts: Counter = Counter()

    def local(frame, event, _arg):
        if event == "opcode":
            code = frame.f_code
            counts[(code.co_name, code.co_filename, code.co_firstlineno)] += 1
        return local

    def call(frame, _event, _arg):
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return local

    sys.settrace(call)
    try:
        for a in args:
            work(a)
    finally:
        sys.settrace(None)
    return counts


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bytecodes", description=__doc__.splitlines()[0])
    p.add_argument("sides", nargs="*", help=f"the sides to count: {', '.join(SIDES)} (default: all three)")
    p.add_argument("-n", type=int, default=50, help="runs counted (default 50)")
    p.add_argument("--top", type=int, default=0, help="list the code objects that executed the most")
    args = p.parse_args(argv)
    for side in args.sides or SIDES:
        if side not in SIDES:
            p.error(f"no side {side!r} (choose from {', '.join(SIDES)})")
    per = {}
    for side in args.sides or SIDES:
        counts = count(side, args.n)
        total = sum(counts.values())
        per[side] = total / args.n
        print(f"{side:12} {per[side]:12,.0f} bytecodes per run", flush=True)
        for (name, file, line), k in counts.most_common(args.top):
            print(f"{'':12} {k / args.n:12,.0f} {100 * k / total:5.1f}%  {name} ({file}:{line})")
    if "twin" in per and "interpreter" in per:
        print(f"{'':12} interpreter / twin: {per['interpreter'] / per['twin']:.2f}x (target 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
