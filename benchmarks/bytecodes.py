"""Python bytecodes executed per run, counted with sys.settrace, which the machine's load does not
move: `python -m benchmarks.bytecodes [twin|interpreter|simulate ...] [-n N] [--top K]`.

On this 2-core VM the time of a run follows its bytecodes more closely than its machine
instructions: each bytecode is a jump through the interpreter's dispatch, and the mispredicted
jumps and data-cache misses (cachegrind with --cache-sim=yes --branch-sim=yes: 28 k against the
twin's 15 k mispredicts per duel) cost time that instructions do not show. The interpreter/twin
ratio of bytecodes is therefore the nearer figure to the timed one. The sides are those of
benchmarks/instructions.py, and `crowdK` (`crowd2`, `crowd256`, ...): the varied crowd of K
fighters of benchmarks/crowd.py under the bundled Aquelarre, counted per combatant-round.

`--top K` lists the K code objects that executed the most (the generated functions by their
Python names); `--by rule` adds them up by what they were compiled from instead: each generated
function (a rule's, an action's, a tactic's, and the comprehensions inside them) under the
declaration whose text it came from ("rule distancia", "tactic directa", "action atacar"), the
engine's own Python by module and function.
"""
from __future__ import annotations

import argparse
import sys
import re
from collections import Counter

from pathlib import Path

from benchmarks.instructions import ROOT, SIDES


def crowd_size(side: str) -> int | None:
    """K of a side `crowdK`, else None."""
    found = re.fullmatch(r"crowd(\d+)", side)
    return int(found.group(1)) if found else None


def one_run(side: str):
    """A function making one run of a side, its preparation done (the sides of instructions.py,
    and the varied crowds): it returns what the run returns."""
    k = crowd_size(side)
    if k is not None:
        from benchmarks.crowd import prepared
        crowd = prepared(k, "aquelarre", varied=True)
        return lambda seed: crowd.run(seed=seed, record=False)
    if side == "twin":
        from benchmarks.twin_duelo import duelo
        return duelo
    if side == "interpreter":
        from benchmarks.__main__ import prepared_duel
        prepared = prepared_duel()
        return lambda seed: prepared.run(seed=seed, record=False)
    from grimorio.interpreter.tools.preparing import prepare_from_argv
    from grimorio.interpreter.tools.simulate import Runner, run_seed
    from grimorio.interpreter.tools.tally import Tally
    runner = Runner(prepare_from_argv(["simulate", str(ROOT / "rulesets" / "aquelarre" / "duelo.enc")]))
    return lambda i: runner.run_all(Tally(), ((i, run_seed(7, i)),))


def first_seed(side: str) -> int:
    """The seed a side's counted runs start from: a crowd's 1, as tests/test_crowd.py and
    `python -m benchmarks --only crowd` count it; any other side's 0."""
    return 1 if crowd_size(side) is not None else 0


def count(side: str, n: int, done: list | None = None) -> Counter:
    """Bytecodes the runs s .. s+n-1 of a side execute (s: `first_seed`), by code object (after one
    untimed run: a crowd's of seed s, as benchmarks/crowd.py's); what each run returned is appended
    to `done`, when given."""
    run = one_run(side)
    start = first_seed(side)
    run(start or 12345)
    return executed(run if done is None else lambda seed: done.append(run(seed)), range(start, start + n))


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


def programs(side: str) -> list:
    """The compiled programs a side runs (none for the twin): where its generated functions come from."""
    k = crowd_size(side)
    if k is not None:
        from benchmarks.crowd import prepared
        return [prepared(k, "aquelarre", varied=True).p]
    if side == "interpreter":
        from benchmarks.__main__ import prepared_duel
        return [prepared_duel().p]
    if side == "simulate":
        from grimorio.interpreter.compile.programs import program_for
        return [program_for("aquelarre")]
    return []


def by_declaration(counts: Counter, programs) -> Counter:
    """The counts added up by what each code object was compiled from: a generated function under its
    declaration (the compiler notes, line by line, whose text each line comes from), the rest by module
    and function ("engine: Engine.act")."""
    from grimorio.interpreter.compile.compiler import FILENAME
    owners = {}
    for program in programs:
        owners.update(enumerate(getattr(program, "line_owner", ()), start=1))
    out: Counter = Counter()
    for (name, file, line), k in counts.items():
        if file == FILENAME:
            out[owners.get(line) or f"generated {name}"] += k
        elif file.startswith(FILENAME):
            out[file[len(FILENAME):].strip().split(" ")[0] or "generated"] += k   # an encounter's own code
        else:
            module = Path(file).with_suffix("").name
            out[f"{module}: {name}"] += k
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bytecodes", description=__doc__.splitlines()[0])
    p.add_argument("sides", nargs="*", help=f"the sides to count: {', '.join(SIDES)} (default: all three), "
                                            "or crowdK: the varied crowd of K fighters (per combatant-round)")
    p.add_argument("-n", type=int, default=50, help="runs counted (default 50; a crowd: 1)")
    p.add_argument("--top", type=int, default=0, help="list the code objects that executed the most")
    p.add_argument("--by", choices=["code", "rule"], default="code",
                   help="--top by code object (default) or by the declaration each was compiled from")
    args = p.parse_args(argv)
    for side in args.sides or SIDES:
        if side not in SIDES and crowd_size(side) is None:
            p.error(f"no side {side!r} (choose from {', '.join(SIDES)}, crowdK)")
    per = {}
    for side in args.sides or SIDES:
        k = crowd_size(side)
        n = 1 if k is not None and "-n" not in (argv if argv is not None else sys.argv) else args.n
        done: list = []
        counts = count(side, n, done)
        total = sum(counts.values())
        units, unit = (sum(k * out.engine.round for out in done), "combatant-round") if k else (n, "run")
        per[side] = total / units
        print(f"{side:12} {per[side]:12,.0f} bytecodes per {unit}", flush=True)
        shown = by_declaration(counts, programs(side)) if args.by == "rule" else counts
        for key, c in shown.most_common(args.top):
            where = key if args.by == "rule" else f"{key[0]} ({key[1]}:{key[2]})"
            print(f"{'':12} {c / units:12,.0f} {100 * c / total:5.1f}%  {where}")
    if "twin" in per and "interpreter" in per:
        print(f"{'':12} interpreter / twin: {per['interpreter'] / per['twin']:.2f}x (target 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
