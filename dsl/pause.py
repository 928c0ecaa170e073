"""Python's cycle collector paused while a block runs: the one helper every stage uses.

Building a file, pickling what was built, loading or compiling a program and running an
encounter make objects by the hundred thousand and no cycles, and every collection pass walks
all the objects alive: for 16,000 rules the passes were a third of the build; in a run, about a
tenth of it. The collector comes back on as the block ends (on an error too), and collects then
whatever the block left in a cycle. A block inside one that paused it keeps it paused.

A class, not a generator: a run enters it once, and a @contextmanager costs 80 bytecodes there
(benchmarks/bytecodes.py), a twentieth of a percent of the reference duel."""
from __future__ import annotations

import gc


class collector_paused:  # noqa: N801 - used as a function: `with collector_paused():`
    __slots__ = ("paused",)

    def __enter__(self):
        self.paused = gc.isenabled()
        if self.paused:
            gc.disable()

    def __exit__(self, *_exc):
        if self.paused:
            gc.enable()
