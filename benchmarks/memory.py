"""Memory of a simulation: `python -m benchmarks.memory ENCOUNTER N` prints, in KiB,
the process's peak RSS after N runs, its peak before the first run (loading the
rules peaks higher than running them), and how much its RSS grew while running."""
from __future__ import annotations

import resource
import sys

from grimorio.interpreter.tools.simulate import Spec, runner_for, simulate


def current_rss() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(ln.split()[1]) for ln in f if ln.startswith("VmRSS:"))


def main() -> int:
    path, n = sys.argv[1], int(sys.argv[2])
    spec = Spec(("simulate", path), 7)
    runner_for(spec)                           # load and prepare before measuring
    before, rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, current_rss()
    simulate(spec, n)                          # as `grimorio simulate` runs it, on one process
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, before, current_rss() - rss)
    return 0


if __name__ == "__main__":
    sys.exit(main())
