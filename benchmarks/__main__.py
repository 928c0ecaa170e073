"""Every benchmark of grimorio, from one run: `python -m benchmarks [--quick]`.

Timings are CPU time (time.process_time, or the children's user+system time
for whole processes), and every comparison interleaves its two sides, A B A
B ..., so a busy moment of the machine weighs on both alike; each figure is
the best and the median of several repeats. Nothing here is a verdict: the
targets are printed beside the figures. docs/performance.md explains each one.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DUELO = ROOT / "rulesets" / "aquelarre" / "duelo.enc"
D20_VENV = ROOT / ".venv-d20"           # made once by benchmarks/dice_vs_d20.sh


def line(name: str, text: str):
    print(f"{name:34} {text}", flush=True)


def spread(values, unit="", scale=1.0, digits=3) -> str:
    return (f"best {min(values) * scale:.{digits}g}{unit}, median {statistics.median(values) * scale:.{digits}g}{unit}"
            f" (of {len(values)})")


def cpu(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def child_cpu(argv, **kw) -> float:
    """The CPU time (user + system) of a command run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT, **kw)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def each(fn, args):
    """fn(a) for each a, what it returns dropped at once."""
    for a in args:
        fn(a)


def interleaved(a, b, repeats):
    xs, ys = [], []
    for _ in range(repeats):
        xs.append(a())
        ys.append(b())
    return xs, ys


# ---------------------------------------------------------------- the benchmarks
def interpreter_vs_twin(repeats):
    from benchmarks.twin_duelo import duelo
    prepared = prepared_duel()
    seeds = range(300)
    # Each side drops what a run returns, as simulate does: kept, the interpreter's 300 runs (each
    # its engine, combatants and streams) made the collector walk them, about 40 us a duel of
    # the interpreter's time that the twin's tuples of numbers never cost.
    twin, interp = interleaved(lambda: cpu(lambda: each(duelo, seeds)),
                               lambda: cpu(lambda: each(lambda s: prepared.run(seed=s, record=False), seeds)),
                               repeats)
    ratios = [i / t for i, t in zip(interp, twin)]
    line("interpreter / twin (300 duels)", f"{min(interp) / min(twin):.2f}x of the best; pairs {spread(ratios, 'x')}"
                                           " (target 1.5x)")
    # The floor under the simulate target: hand-written Python of the (simpler) reference duel.
    line("twin alone", f"{min(twin) / len(seeds) * 1e6:.0f} us a duel: 10,000 duels in {min(twin) / len(seeds) * 1e4:.2f} s"
                       " of one core")


def bytecodes_vs_twin():
    """The same duels counted in Python bytecodes (benchmarks/bytecodes.py): a ratio the load does not move."""
    from benchmarks.bytecodes import by_declaration, count, programs
    counts = {side: count(side, 40) for side in ("twin", "interpreter", "simulate")}
    per = {side: sum(c.values()) / 40 for side, c in counts.items()}
    line("interpreter / twin, in bytecodes", f"{per['interpreter'] / per['twin']:.2f}x ({per['interpreter']:,.0f} "
                                             f"against {per['twin']:,.0f} a duel; timed ratios follow it on a VM)")
    line("a demo fight, in bytecodes", f"{per['simulate']:,.0f} ({per['simulate'] / per['twin']:.1f}x the twin's duel;"
                                       " target <= 50,000)")
    # Where they go: each generated function under the declaration it came from, its own bytecodes only.
    total = sum(counts["simulate"].values())
    top = by_declaration(counts["simulate"], programs("simulate")).most_common(5)
    line("", "by declaration: " + ", ".join(f"{name} {100 * k / total:.1f}%" for name, k in top))


def dice_vs_d20(repeats):
    python = D20_VENV / "bin" / "python"
    if not python.exists():
        line("dice / d20 per roll", f"skipped: no d20 venv at {D20_VENV} (benchmarks/dice_vs_d20.sh makes it)")
        return
    roll = [str(ROOT / "benchmarks" / "dice_roll.py")]
    for expr in ("1d10+1d4+2", "1d100", "2d6"):
        ours, theirs = interleaved(lambda: per_roll([sys.executable] + roll + ["grimorio", expr]),
                                   lambda: per_roll([str(python)] + roll + ["d20", expr]), repeats)
        ratios = [t / o for o, t in zip(ours, theirs)]
        line(f"d20 / grimorio per roll, {expr}", f"grimorio {min(ours) * 1e6:.2f} us, d20 {min(theirs) * 1e6:.2f} us;"
                                                 f" {spread(ratios, 'x')} (target >= 10x)")


def per_roll(argv) -> float:
    return float(subprocess.run(argv, check=True, capture_output=True, text=True, cwd=ROOT).stdout)


def cold_start(repeats):
    """A run of the demo as an installed grimorio starts: its .pyc files written (as pip writes them, even
    where PYTHONDONTWRITEBYTECODE is set) and its cache warm, from one untimed run of each side."""
    lark = [sys.executable, "-c", "import lark"]
    run = [sys.executable, "-m", "grimorio.interpreter.tools.cli", "run", str(DUELO)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    child_cpu(run, env=env), child_cpu(lark, env=env)
    ours, base = interleaved(lambda: child_cpu(run, env=env), lambda: child_cpu(lark, env=env), repeats)
    ratios = [o / b for o, b in zip(ours, base)]
    line("cold start: run / import lark", f"run {spread(ours, ' s')}; import lark {spread(base, ' s')}")
    line("", f"paired ratio {spread(ratios, 'x')} (target <= 2x)")


def first_run(repeats):
    """The first run of a fresh install (issue 25): the wheel installed in a new venv, `grimorio run` of the
    demo (a copy of duelo.enc in a folder of its own) with an empty GRIMORIO_CACHE_DIR each time, against
    `import lark` in the same venv, whole processes, interleaved; then the second run, on the cache the
    first one left."""
    from benchmarks.fresh_install import fresh_install
    with fresh_install() as (folder, bin_):
        demo = folder / "demo" / "duelo.enc"
        demo.parent.mkdir()
        demo.write_text(DUELO.read_text(encoding="utf-8"), encoding="utf-8")
        run = [str(bin_ / "grimorio"), "run", str(demo)]
        lark = [str(bin_ / "python"), "-c", "import lark"]
        caches = iter(range(10 ** 6))

        def first():
            env = dict(os.environ, GRIMORIO_CACHE_DIR=str(folder / f"cache{next(caches)}"))
            return child_cpu(run, env=env)

        second_env = dict(os.environ, GRIMORIO_CACHE_DIR=str(folder / "cache-kept"))
        child_cpu(run, env=second_env), child_cpu(lark)
        ours, base = interleaved(first, lambda: child_cpu(lark), repeats)
        again, base2 = interleaved(lambda: child_cpu(run, env=second_env), lambda: child_cpu(lark), repeats)
    ratios = [o / b for o, b in zip(ours, base)]
    line("first run of a fresh install", f"run {spread(ours, ' s')}; import lark {spread(base, ' s')}")
    line("", f"paired ratio {spread(ratios, 'x')} (target <= 3x)")
    ratios = [o / b for o, b in zip(again, base2)]
    line("its second run / import lark", f"paired ratio {spread(ratios, 'x')} (target <= 2x)")


def check_start(repeats):
    """`grimorio check` of the bundled Aquelarre, whole process, against `import lark` (issue 19:
    check compiles nothing, so it costs the front end only), warm as cold_start is."""
    lark = [sys.executable, "-c", "import lark"]
    check = [sys.executable, "-m", "grimorio.interpreter.tools.cli", "check", str(ROOT / "rulesets" / "aquelarre")]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    child_cpu(check, env=env), child_cpu(lark, env=env)
    ours, base = interleaved(lambda: child_cpu(check, env=env), lambda: child_cpu(lark, env=env), repeats)
    ratios = [o / b for o, b in zip(ours, base)]
    line("check aquelarre / import lark", f"check {spread(ours, ' s')}; import lark {spread(base, ' s')}")
    line("", f"paired ratio {spread(ratios, 'x')} (target <= 1.5x)")


def simulate_throughput(repeats, n):
    from grimorio.interpreter.tools.preparing import prepare_from_argv
    from grimorio.interpreter.tools.simulate import Runner, run_seed
    from grimorio.interpreter.tools.tally import Tally
    runner = Runner(prepare_from_argv(["simulate", str(DUELO)]))

    def share():
        runner.run_all(Tally(), ((i, run_seed(7, i)) for i in range(n)))
    times = [cpu(share) for _ in range(repeats)]
    line(f"simulate, one core ({n} runs)", f"{spread(times, ' s')}; {n / min(times):,.0f} runs/s "
                                           f"(target: 10,000 in < 2 s)")
    for w in (1, 2):
        argv = [sys.executable, "-m", "grimorio.interpreter.tools.cli", "simulate", str(DUELO), "-n", str(n),
                "--workers", str(w)]
        walls, cpus = [], []
        for _ in range(max(1, repeats // 2)):
            t = time.perf_counter()
            cpus.append(child_cpu(argv))       # the workers' CPU too: they are its children
            walls.append(time.perf_counter() - t)
        line(f"simulate command, W={w} ({n} runs)", f"wall {spread(walls, ' s')}, {n / min(walls):,.0f} runs/s; "
                                                   f"CPU {spread(cpus, ' s')} (start-up included)")


def peak_memory(sizes):
    for n in sizes:
        out = subprocess.run([sys.executable, "-m", "benchmarks.memory", str(DUELO), str(n)], check=True,
                             capture_output=True, text=True, cwd=ROOT).stdout.split()
        peak, loaded, grew = (int(x) / 1024 for x in out)
        line(f"simulate memory, N={n}", f"peak RSS {peak:.1f} MiB (after loading, before the runs: "
                                        f"{loaded:.1f} MiB); RSS grew {grew:.2f} MiB while running")


def combatant_rounds(counts, repeats, edition=None):
    """Time and steps per combatant-round for each crowd size, under the frozen rules
    (the engine's cost) or, with `edition`, under the bundled edition (the rules' cost too)."""
    from benchmarks.crowd import REFERENCE, crowd_cost, crowd_steps
    edition = edition or REFERENCE
    times = {k: [] for k in counts}
    for _ in range(repeats):             # the sizes interleaved: a busy moment weighs on all of them
        for k in counts:
            times[k].append(crowd_cost(k, edition) * 1e6)
    base = None
    label = "" if edition == REFERENCE else f" ({edition})"
    for k in counts:
        us = times[k]
        base = base or min(us)
        line(f"cost per combatant-round{label}, {k:>3}", f"{spread(us, ' us')}; {min(us) / base:.2f}x of {counts[0]}; "
                                                         f"{crowd_steps(k, edition=edition):.1f} steps (target: flat)")


def varied_crowd(counts):
    """Bytecodes per combatant-round of the varied crowd (benchmarks/crowd.py: sword and buckler, bow,
    spear, mace and shield in turn; unscripted, the bundled tactics), one run of each size on seed 1,
    and the steps its run took of the default budget: counts the load does not move."""
    from benchmarks.crowd import crowd_counts, prepared
    from grimorio.interpreter.run.engine import STEP_BUDGET
    base = None
    for k in counts:
        found, combatant_rounds = crowd_counts(k, edition="aquelarre", varied=True)
        per = sum(found.values()) / combatant_rounds
        base = base or per
        steps = prepared(k, "aquelarre", varied=True).run(seed=1, record=False).engine.steps
        line(f"varied crowd, bytecodes, {k:>3}", f"{per:,.0f} per combatant-round; {per / base:.2f}x of {counts[0]} "
                                                 f"(target <= 1.3x); {steps:,} steps, {steps / STEP_BUDGET:.1%} of the default budget")


def parse_large(repeats):
    import tempfile
    from benchmarks.parse import COMBATANTS, RULES, build_cpu, encounter_text, rules_text, write
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, GRIMORIO_CACHE_DIR=tmp)       # the parser kept, as a user has it
        rules, _ = write(Path(tmp))
        small = Path(tmp) / "una.rules"
        small.write_text("rule r(x):\n  return x\n", encoding="utf-8")
        child_cpu([sys.executable, "-m", "grimorio.interpreter.tools.cli", "check", str(small)], env=env)
        command = []
        for i in range(repeats):             # a new text each time: the built-file cache never answers
            rules.write_text(rules_text() + f"# {i}\n", encoding="utf-8")
            command.append(child_cpu([sys.executable, "-m", "grimorio.interpreter.tools.cli", "check", str(rules)], env=env))
    line(f"check, {RULES:,} rules (command)", f"CPU {spread(command, ' s')} (target < 5 s)")
    text = rules_text()
    built = [build_cpu("rules", text) for _ in range(repeats)]
    line(f"parse, {RULES:,} rules (in process)", f"{spread(built, ' s')}; {min(built) / RULES * 1e6:.0f} us a rule")
    text = encounter_text()
    built = [build_cpu("encounter", text) for _ in range(repeats)]
    line(f"parse, {COMBATANTS:,} combatants", f"{spread(built, ' s')}; {min(built) / COMBATANTS * 1e6:.0f} us a "
                                              f"combatant (target < 3 s)")


def prepared_duel():
    """The duel under the frozen rules the twin implements (benchmarks/duelo_referencia)."""
    from grimorio.dsl.diagnostics import Sources
    from grimorio.interpreter.run.encounter import Prepared
    from grimorio.dsl.check.front import load_encounter
    from grimorio.interpreter.compile.programs import program_for
    bench = ROOT / "benchmarks"
    return Prepared(load_encounter(bench / "duelo_referencia" / "duelo.enc", Sources()),
                    program_for("duelo_referencia", roots=[bench]))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="fewer repeats and runs (a smoke test, not figures)")
    p.add_argument("--only", choices=["twin", "bytecodes", "dice", "start", "first", "check", "simulate", "memory",
                                      "crowd", "parse"],
                   action="append",
                   help="run only these benchmarks (repeatable)")
    args = p.parse_args(argv)
    from benchmarks.crowd import SIZES
    r = 3 if args.quick else 7
    benchmarks = {
        "twin": lambda: interpreter_vs_twin(r if args.quick else 21),     # 30 ms sides: a pair is noisy
        "bytecodes": bytecodes_vs_twin,
        "dice": lambda: dice_vs_d20(r),
        "start": lambda: cold_start(r),
        "first": lambda: first_run(r if args.quick else 11),
        "check": lambda: check_start(r),
        "simulate": lambda: simulate_throughput(r, 2000 if args.quick else 10_000),
        "memory": lambda: peak_memory((1000, 10_000) if args.quick else (10_000, 100_000)),
        "crowd": lambda: (combatant_rounds((2, 16, 128, 256), r),
                          combatant_rounds((2, 8, 16, 32, 64, 128, 256), r, "aquelarre"),
                          varied_crowd((2, 16, 64) if args.quick else SIZES)),
        "parse": lambda: parse_large(r),
    }
    print(f"grimorio benchmarks: python {sys.version.split()[0]}, {os.cpu_count()} cpus, "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    for name, bench in benchmarks.items():
        if not args.only or name in args.only:
            bench()
    return 0


if __name__ == "__main__":
    sys.exit(main())
