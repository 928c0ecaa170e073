"""`grimorio simulate`: many runs of one encounter, counted as they go.

Run i uses the seed `run_seed(S, i)`, a stable hash of the base seed and the
run's index, so a run's dice do not depend on which process ran it: the same
seed gives the same summary on one process, on W local processes, or on a
Dask cluster. Each process loads the rules and prepares the encounter once
(`Runner`), runs its share of the indices without a transcript, and hands
back a `Tally`; the tallies of all the shares add up to the summary.
"""
from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
from ...dsl.records import dataclass
from fractions import Fraction

from ...dsl.syntax import nodes as n
from ...dsl.diagnostics import Diagnostic, GrimorioError
from ..run import runtime_helpers as H
from ..run.engine import locate
from .tally import Tally

CONNECT_TIMEOUT = "10s"    # how long to try to reach a Dask scheduler
CHUNK = 500          # runs per piece of work handed to a worker (progress moves by pieces)


def run_seed(seed: int, index: int) -> int:
    """The seed of run `index`: the same on any machine and any Python (hash() is salted; this is not)."""
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=6).digest()
    return int.from_bytes(digest, "big")


@dataclass(frozen=True)
class Spec:
    """What a worker needs to prepare the encounter itself: the command line's
    arguments, with paths made absolute so any worker finds the same files."""
    argv: tuple[str, ...]
    seed: int


class Runner:
    """One prepared encounter and the program's tallies, reused for every run of a process."""

    def __init__(self, prepared):
        self.prepared = prepared
        p = prepared.p
        self.per_run = [(d, fn) for d, fn in p.tallies if d.param is None]
        self.per_combatant = [(d, fn) for d, fn in p.tallies if d.param is not None and not isinstance(d, n.Stands)]
        self.stands = next(((d, fn) for d, fn in p.tallies if isinstance(d, n.Stands)), None)

    def run_all(self, tally: Tally, seeds):
        """Run once per (index, seed), counting into `tally`; a run that fails raises RunError."""
        prepared = self.prepared
        names = [b[1] for b in prepared.blueprints]
        per_run = [(d, fn, tally.histogram(None, d.name).counts, _KINDS) for d, fn in self.per_run]
        per_combatant = [(d, fn, [tally.histogram(who, d.name).counts for who in names], _KINDS)
                         for d, fn in self.per_combatant]
        expectations = [span for span, _lead in prepared.expectation_spans]
        stands = None
        if self.stands is not None:
            d, fn = self.stands
            stands = (d, fn, [tally.histogram(who, d.name).counts for who in names], _TRUTH)
        for i, seed in seeds:
            try:
                outcome = prepared.run(seed=seed, record=False)
                eng = outcome.engine
                for d, fn, counts, kinds in per_run:
                    v = fn(eng)
                    if type(v) not in kinds:
                        _refuse(d, v)
                    counts[v, v.__class__ is bool] += 1      # tally.bucket: true is not 1
                for d, fn, counts, kinds in per_combatant:
                    for c, count in zip(eng.cb, counts):
                        v = fn(eng, c)
                        if type(v) not in kinds:
                            _refuse(d, v)
                        count[v, v.__class__ is bool] += 1
                if stands is not None:
                    tally.standing[self._standing(eng, *stands)] += 1
            except GrimorioError as exc:
                raise RunError(i, seed, exc.diagnostics) from None
            except (Exception, RecursionError) as exc:  # noqa: BLE001 - a tally that fails is a diagnostic
                raise RunError(i, seed, [locate(prepared.p, exc)]) from None
            _count_the_end(tally, eng, outcome, expectations)

    @staticmethod
    def _standing(eng, d, fn, counts, kinds) -> tuple:
        """The sides with a combatant that stands, counting each combatant's "stands"."""
        up = set()
        for c, count in zip(eng.cb, counts):
            v = fn(eng, c)
            if type(v) not in kinds:
                _refuse(d, v)
            count[v, v.__class__ is bool] += 1
            if v:
                up.add(c.a_side)
        return tuple(sorted(up))


def _count_the_end(tally: Tally, eng, outcome, expectations):
    """What every run tells without a tally: its rounds, the cards held, the expectations met.
    An expectation (by its index in `expectations`, where each is written) is met in a run
    when none of its checks in that run failed."""
    tally.runs += 1
    tally.rounds.add(eng.round)
    held = tally.held
    for c in eng.cb:
        for cond, grades in c.cards.items():
            for g in set(grades):
                held[(c.a_name, cond, g.name if g is not None else None)] += 1
    if expectations:
        failed = {verdict.span for verdict in outcome.expectations if not verdict.ok}
        for k, span in enumerate(expectations):
            if span not in failed:
                tally.expected[k] += 1


_KINDS = frozenset((int, Fraction, bool))
_TRUTH = frozenset((bool,))


def _refuse(d, v):
    what = "true or false" if isinstance(d, n.Stands) else "a number, or true or false"
    raise GrimorioError(Diagnostic("E0031", f'"{d.name}" gave {H.show(v)}, not {what}', d.value.span,
                                   f"a tally is summed over many runs: it must give {what} in every run"))


class RunError(GrimorioError):
    """A run stopped on an error: which run, and the seed that repeats it."""

    def __init__(self, index, seed, diagnostics):
        super().__init__(diagnostics)
        self.index, self.seed = index, seed

    def __reduce__(self):
        return RunError, (self.index, self.seed, self.diagnostics)


# ---------------------------------------------------------------- one process's share
_runners: dict = {}
_preparing = threading.Lock()        # a Dask worker may run shares on several threads


def runner_for(spec: Spec) -> Runner:
    """The Runner of this process for a spec, prepared on first use."""
    runner = _runners.get(spec.argv)
    if runner is None:
        with _preparing:
            runner = _runners.get(spec.argv)
            if runner is None:
                from .cli import prepare_from_argv
                runner = _runners[spec.argv] = Runner(prepare_from_argv(list(spec.argv)))
    return runner


def keep(spec: Spec, prepared) -> Runner:
    """Use this prepared encounter for the spec's runs in this process (and in workers forked from it)."""
    runner = _runners[spec.argv] = Runner(prepared)
    return runner


def run_share(spec: Spec, start: int, stop: int):
    """Runs start..stop-1 of a simulation: (Tally, None), or (None, RunError) for the first that failed."""
    tally = Tally()
    try:
        runner_for(spec).run_all(tally, ((i, run_seed(spec.seed, i)) for i in range(start, stop)))
    except RunError as exc:
        return None, exc
    return tally, None


def shares(n: int, size: int = CHUNK):
    """The (start, stop) ranges of runs 0..n-1, made as they are asked for (n may be 10^12)."""
    return ((start, min(n, start + size)) for start in range(0, n, size))


# ---------------------------------------------------------------- submission, workers, scheduler
WINDOW = 4           # shares pending per worker: enough to keep it busy, few enough to bound memory


def submitted(submit, wait, fn, args, ranges, window: int):
    """fn(*args, start, stop) for every range, through `submit` (a pool's or a Dask client's), with at most
    `window` pending at once (memory independent of how many runs): yields (result, runs) as each is done.
    `wait(pending)` returns (done, not_done) as concurrent.futures.wait(..., FIRST_COMPLETED) does."""
    pending, ranges = {}, iter(ranges)
    for a, b in ranges:
        pending[submit(fn, *args, a, b)] = b - a
        if len(pending) >= window:
            break
    while pending:
        done, _rest = wait(list(pending))
        for f in done:
            count = pending.pop(f)
            for a, b in ranges:               # one more in for each one out
                pending[submit(fn, *args, a, b)] = b - a
                break
            yield f.result(), count


def _first_completed(futures):
    from concurrent.futures import FIRST_COMPLETED, wait
    return wait(futures, return_when=FIRST_COMPLETED)


def worker_pool(workers: int):
    """A pool of `workers` processes (forked on Linux, where they find what this process prepared) that die
    with this one: the parent-death signal where the system has it, and a watch on the parent otherwise
    (a supervisor that kills only grimorio's main process leaves no worker behind). Ctrl-C is the main
    process's to handle: workers ignore it, and end when the pool does."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    method = "fork" if sys.platform == "linux" else "spawn"
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method),
                               initializer=_die_with_parent, initargs=(os.getpid(),))


def _die_with_parent(parent: int) -> None:
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform == "linux":
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)            # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:                                 # the parent died before the signal was set
        os._exit(1)

    def watch():
        import time
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)
    threading.Thread(target=watch, daemon=True, name="grimorio-parent-watch").start()


class SchedulerError(Exception):
    """The Dask scheduler's address is no address, or nothing answers there in time."""


SCHEDULER = re.compile(r"(?:tcp://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})")
HANDSHAKE_SECONDS = 15      # connecting, and the scheduler's first answer, at most this long


def scheduler_address(text: str) -> str:
    """`text` as a Dask scheduler address (tcp://HOST:PORT; HOST:PORT), or SchedulerError saying why not."""
    m = SCHEDULER.fullmatch(text.strip())
    if not m or not 1 <= int(m.group(2)) <= 65535:
        raise SchedulerError(f'"{text}" is no scheduler address')
    return f"tcp://{m.group(1)}:{m.group(2)}"


def _client(address: str | None, workers: int):
    """A Dask client of the scheduler at `address` (or of a local cluster): made on a thread of its own and
    given HANDSHAKE_SECONDS, so a server that accepts and never answers, or answers something else, is an
    error, never a hang."""
    import dask
    from distributed import Client
    if address is None:
        sys.warnoptions.append("ignore::UserWarning:multiprocessing.resource_tracker")    # Ctrl-C: no noise
        return Client(n_workers=max(1, workers))
    made: list = []

    def connect():
        try:
            with dask.config.set({"distributed.comm.timeouts.connect": f"{HANDSHAKE_SECONDS}s",
                                  "distributed.comm.timeouts.tcp": f"{HANDSHAKE_SECONDS}s"}):
                made.append(Client(address, timeout=f"{HANDSHAKE_SECONDS}s"))
        except BaseException as exc:  # noqa: BLE001 - whatever the other end did, it is told as one error
            made.append(exc)
    thread = threading.Thread(target=connect, daemon=True, name="grimorio-dask-connect")
    thread.start()
    thread.join(HANDSHAKE_SECONDS + 5)
    if not made:
        raise SchedulerError(f"the scheduler at {address} did not answer within {HANDSHAKE_SECONDS} s")
    if isinstance(made[0], BaseException):
        exc = made[0]
        raise SchedulerError(f"the scheduler at {address} cannot be reached ({type(exc).__name__}: "
                             f"{str(exc)[:200] or 'no answer'})")
    return made[0]


# ---------------------------------------------------------------- backends
def run_local(spec: Spec, n: int, workers: int):
    """Every share on this process (workers 1) or on a pool of processes. On Linux
    they are forked, and find the encounter this process prepared; elsewhere they
    start afresh and prepare it from the spec (shares are plain, picklable ranges)."""
    if workers <= 1:
        for start, stop in shares(n):
            yield run_share(spec, start, stop), stop - start
        return
    size = max(1, min(CHUNK, -(-n // (workers * 4))))
    with worker_pool(workers) as pool:
        yield from submitted(pool.submit, _first_completed, run_share, (spec,), shares(n, size), workers * WINDOW)


def run_dask(spec: Spec, n: int, address: str | None, workers: int):
    """Every share on a Dask distributed cluster (or a local one when no address is given)."""
    from distributed import wait
    client = _client(address, workers)
    try:
        size = max(1, min(CHUNK, -(-n // (max(1, workers) * 4))))
        submit = lambda fn, *args: client.submit(fn, *args, pure=False)  # noqa: E731
        yield from submitted(submit, lambda fs: wait(fs, return_when="FIRST_COMPLETED"), run_share, (spec,),
                             shares(n, size), max(1, workers) * WINDOW)
    finally:
        client.close()


def simulate(spec: Spec, n: int, workers: int = 1, backend: str = "local", scheduler: str | None = None,
             progress=None) -> Tally:
    """The tally of runs 0..n-1; `progress(k)` is told as each share of k runs is done."""
    results = run_dask(spec, n, scheduler, workers) if backend == "dask" else run_local(spec, n, workers)
    return merged(results, Tally(), progress)


def merged(results, total, progress=None):
    """Shares' ((summary, failure), count) merged into `total`; the first failure by run index, if any,
    raised: the same one on any backend and any number of workers."""
    failures = []
    for (part, failure), count in results:
        if failure is not None:
            failures.append(failure)
        else:
            total.merge(part)
        if progress is not None:
            progress(count)
    if failures:
        raise min(failures, key=lambda f: f.index)
    return total
