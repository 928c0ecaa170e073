"""`grimorio simulate`: many runs of one encounter, counted as they go.

Run i uses the seed `run_seed(S, i)`, a stable hash of the base seed and the
run's index, so a run's dice do not depend on which process ran it: the same
seed gives the same summary on one process, on W local processes, or on a
Dask cluster, and `grimorio run ENC --seed S --run-index i` shows run i.
Each process loads the rules and prepares the encounter once (`Runner`),
runs its share of the indices without a transcript, and hands back its
counts; the counts of all the shares add up to the summary.

A `Job` runs one or several rule sets (its points: two in a comparison, one
per value in a sweep) on the same indices, hence on common dice, and counts
each point's runs (`Tally`) and each point's difference from the first
(`Paired`), run by run.
"""
from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
from contextlib import contextmanager
from fractions import Fraction

from ...dsl.diagnostics import Diagnostic, GrimorioError
from ...dsl.records import dataclass
from ...dsl.syntax import nodes as n
from ..run import runtime_helpers as H
from ..run.engine import locate
from ..run.outcome import outcome_of, stands_of
from .tally import Paired, Tally

CONNECT_TIMEOUT = "10s"    # how long to try to reach a Dask scheduler
CHUNK = 500          # runs per piece of work handed to a worker (progress moves by pieces)


def run_seed(seed: int, index: int) -> int:
    """The seed of run `index`: the same on any machine and any Python (hash() is salted; this is not)."""
    digest = hashlib.blake2b(f"{seed}:{index}".encode(), digest_size=6).digest()
    return int.from_bytes(digest, "big")


def other_seed(seed: int, index: int) -> int:
    """A seed for run `index` unrelated to run_seed(seed, index): dice not in common."""
    digest = hashlib.blake2b(f"{seed}:{index}:other".encode(), digest_size=6).digest()
    return int.from_bytes(digest, "big")


@dataclass(frozen=True)
class Spec:
    """What a worker needs to prepare the encounter itself: the command line's
    arguments, with paths made absolute so any worker finds the same files."""
    argv: tuple[str, ...]
    seed: int


@dataclass(frozen=True)
class Job:
    """Rule sets run on the same indices (`points`, all with the first's base seed), whether
    the points after the first share its dice, and whether each run's record is kept."""
    points: tuple[Spec, ...]
    common: bool = True
    records: bool = False

    @property
    def seed(self) -> int:
        return self.points[0].seed


class Counts:
    """What a share of a job counted: each point's Tally, each later point's Paired against the
    first, and (when the job keeps them) each point's run records."""

    def __init__(self, k: int, records: bool = False):
        self.tallies = [Tally() for _ in range(k)]
        self.paired = [Paired() for _ in range(k - 1)]
        self.records: list[list[dict]] | None = [[] for _ in range(k)] if records else None

    @property
    def runs(self) -> int:
        return self.tallies[0].runs

    def merge(self, other: "Counts") -> "Counts":
        for mine, theirs in zip(self.tallies + self.paired, other.tallies + other.paired):
            mine.merge(theirs)
        if self.records is not None and other.records is not None:
            for mine, theirs in zip(self.records, other.records):
                mine.extend(theirs)
        return self


class Runner:
    """One prepared encounter and the program's tallies, reused for every run of a process."""

    def __init__(self, prepared):
        self.prepared = prepared
        p = prepared.p
        self.names = [b[1] for b in prepared.blueprints]
        plain = [(d, fn) for d, fn in p.tallies if not isinstance(d, (n.Stands, n.Draw))]
        self.per_run = [(d, fn) for d, fn in plain if d.param is None]
        self.per_combatant = [(d, fn) for d, fn in plain if d.param is not None]
        self.stands = p.stands_decl

    def sides(self) -> list[str]:
        return list(dict.fromkeys(b[2] for b in self.prepared.blueprints))

    def draws(self) -> list[str]:
        return [d.name for d, _fn in self.prepared.p.draws]

    def run_all(self, tally: Tally, seeds, records: list | None = None):
        """Run once per (index, seed), counting into `tally` (and appending each run's record to
        `records`, when given); a run that fails raises RunError."""
        for i, seed in seeds:
            tally.count(self.one(i, seed, records))

    def one(self, i: int, seed: int, records: list | None = None) -> "Ended":
        """Run i, on its seed: what it ended with."""
        prepared = self.prepared
        try:
            outcome = prepared.run(seed=seed, record=False)
            eng = outcome.engine
            up = stands_of(eng)
            ended = Ended(i, seed, eng.round, outcome_of(eng, up), up,
                          [_number(d, fn(eng)) for d, fn in self.per_run],
                          [[_number(d, fn(eng, c)) for c in eng.cb] for d, fn in self.per_combatant],
                          _held(eng), _met(outcome, prepared.expectation_spans), self)
        except GrimorioError as exc:
            raise RunError(i, seed, exc.diagnostics) from None
        except (Exception, RecursionError) as exc:  # noqa: BLE001 - a tally that fails is a diagnostic
            raise RunError(i, seed, [locate(prepared.p, exc)]) from None
        if records is not None:
            records.append(ended.record())
        return ended


class Ended:
    """How one run ended: everything a Tally counts of it, and its record."""
    __slots__ = ("index", "seed", "rounds", "outcome", "up", "per_run", "per_combatant", "held", "met", "runner")

    def __init__(self, index, seed, rounds, outcome, up, per_run, per_combatant, held, met, runner):
        self.index, self.seed, self.rounds, self.outcome, self.up = index, seed, rounds, outcome, up
        self.per_run, self.per_combatant, self.held, self.met, self.runner = per_run, per_combatant, held, met, runner

    def record(self) -> dict:
        """The run as one line of `simulate --runs FILE.jsonl`."""
        r = self.runner
        combatants = {who: {"stands": up} for who, up in zip(r.names, self.up)}
        for (d, _fn), values in zip(r.per_combatant, self.per_combatant):
            for who, v in zip(r.names, values):
                combatants[who][d.name] = _plain(v)
        return {"index": self.index, "seed": self.seed, "outcome": self.outcome.name, "kind": self.outcome.kind,
                "rounds": self.rounds, "standing": list(self.outcome.standing),
                "tallies": {d.name: _plain(v) for (d, _fn), v in zip(r.per_run, self.per_run)},
                "combatants": combatants}


def _plain(v):
    if isinstance(v, Fraction):
        return v.numerator if v.denominator == 1 else float(v)
    return v


def _held(eng) -> list:
    out = []
    for c in eng.cb:
        for cond, grades in c.cards.items():
            for g in set(grades):
                out.append((c.a_name, cond, g.name if g is not None else None))
    return out


def _met(outcome, spans) -> list[int]:
    """The expectations (by index, where each is written) none of whose checks failed in this run."""
    if not spans:
        return []
    failed = {verdict.span for verdict in outcome.expectations if not verdict.ok}
    return [k for k, (span, _lead) in enumerate(spans) if span not in failed]


_KINDS = frozenset((int, Fraction, bool))


def _number(d, v):
    if type(v) not in _KINDS:
        raise GrimorioError(Diagnostic("E0031", f'"{d.name}" gave {H.show(v)}, not a number, or true or false',
                                       d.value.span, "a tally is summed over many runs: it must give a number, "
                                                     "or true or false in every run"))
    return v


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
                from .preparing import prepare_from_argv
                runner = _runners[spec.argv] = Runner(prepare_from_argv(list(spec.argv)))
    return runner


def keep(spec: Spec, prepared) -> Runner:
    """Use this prepared encounter for the spec's runs in this process (and in workers forked from it)."""
    runner = _runners[spec.argv] = Runner(prepared)
    return runner


def run_job_share(job: Job, start: int, stop: int):
    """Runs start..stop-1 of a job: (Counts, None), or (None, RunError) for the first that failed."""
    counts = Counts(len(job.points), job.records)
    runners = [runner_for(spec) for spec in job.points]
    records = counts.records or [None] * len(runners)
    try:
        for i in range(start, stop):
            seed = run_seed(job.seed, i)
            first = runners[0].one(i, seed, records[0])
            counts.tallies[0].count(first)
            for k, runner in enumerate(runners[1:], 1):
                ended = runner.one(i, seed if job.common else other_seed(job.seed, i), records[k])
                counts.tallies[k].count(ended)
                counts.paired[k - 1].count(first, ended)
    except RunError as exc:
        return None, exc
    return counts, None


def run_share(spec: Spec, start: int, stop: int):
    """Runs start..stop-1 of one rule set: (Tally, None), or (None, RunError)."""
    counts, failure = run_job_share(Job((spec,)), start, stop)
    return (counts.tallies[0] if counts is not None else None), failure


def shares(n: int, size: int = CHUNK, start: int = 0):
    """The (start, stop) ranges of runs start..n-1, made as they are asked for (n may be 10^12)."""
    return ((a, min(n, a + size)) for a in range(start, n, size))


# ---------------------------------------------------------------- submission, workers, scheduler
WINDOW = 4           # pieces pending per worker: enough to keep it busy, few enough to bound memory


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
    """A pool of `workers` processes (forked on Linux, where they find what this process prepared) that end
    with this one: the signal Linux sends when a parent ends (PR_SET_PDEATHSIG) where the system has it,
    and a watch on the parent otherwise (a supervisor that kills only grimorio's main process leaves no
    worker behind). Ctrl-C is the main
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


def _client(address: str | None, workers: int, scratch: str | None = None):
    """A Dask client of the scheduler at `address` (or of a local cluster, its workers' files in `scratch`):
    made on a thread of its own and given HANDSHAKE_SECONDS, so a server that accepts and never answers, or
    answers something else, is an error, never a hang."""
    import dask
    from distributed import Client
    if address is None:
        sys.warnoptions.append("ignore::UserWarning:multiprocessing.resource_tracker")    # Ctrl-C: no noise
        with dask.config.set({"temporary-directory": scratch}):          # the scheduler's files too
            return Client(n_workers=max(1, workers), local_directory=scratch)
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
def run_pieces(job: Job, start: int, stop: int, workers: int = 1, backend: str = "local",
               scheduler: str | None = None):
    """Runs start..stop-1 of a job, in pieces, on this process, a pool of local processes, or a Dask
    cluster: yields ((Counts, None) or (None, RunError), runs in the piece) as pieces finish. The
    one place that hands work out: every simulation (alone, compared, swept, to a precision) comes
    through here. Local workers are forked on Linux, and find the encounters this process prepared;
    elsewhere they start afresh and prepare them from the specs (pieces are plain, picklable ranges)."""
    n = stop - start
    size = max(1, min(CHUNK, -(-n // (max(1, workers) * 4))))
    if backend == "dask":
        yield from _on_dask(job, shares(stop, size, start), scheduler, workers)
        return
    if workers <= 1:
        for a, b in shares(stop, CHUNK, start):
            yield run_job_share(job, a, b), b - a
        return
    with worker_pool(workers) as pool:
        yield from submitted(pool.submit, _first_completed, run_job_share, (job,), shares(stop, size, start),
                             workers * WINDOW)


@contextmanager
def _dask_folder():
    """Where a local Dask cluster keeps its workers' files: in the user's cache folder (dask/, where Dask
    itself clears what workers that died left), not the temporary folder (Dask's default, where its
    dask-scratch-space stayed); with no cache folder, a temporary folder removed when the cluster closes."""
    import tempfile
    from ...dsl import store
    place = store.place("dask")
    if place is not None:
        yield str(place)
        return
    with tempfile.TemporaryDirectory(prefix="grimorio-dask-", ignore_cleanup_errors=True) as scratch:
        yield scratch


def _on_dask(job: Job, pieces, address: str | None, workers: int):
    from contextlib import nullcontext
    from distributed import wait
    with _dask_folder() if address is None else nullcontext() as scratch:
        client = _client(address, workers, scratch)
        try:
            submit = lambda fn, *args: client.submit(fn, *args, pure=False)  # noqa: E731
            yield from submitted(submit, lambda fs: wait(fs, return_when="FIRST_COMPLETED"), run_job_share,
                                 (job,), pieces, max(1, workers) * WINDOW)
        finally:
            client.close()


def simulate_job(job: Job, start: int, stop: int, workers: int = 1, backend: str = "local",
                 scheduler: str | None = None, progress=None, total: Counts | None = None) -> Counts:
    """The counts of runs start..stop-1 of a job, added to `total`; `progress(k)` is told as each
    piece of k runs is done. Records come back in the order of the runs."""
    total = total if total is not None else Counts(len(job.points), job.records)
    merged(run_pieces(job, start, stop, workers, backend, scheduler), total, progress)
    if total.records is not None:
        for kept in total.records:
            kept.sort(key=lambda r: r["index"])
    return total


def simulate(spec: Spec, n: int, workers: int = 1, backend: str = "local", scheduler: str | None = None,
             progress=None) -> Tally:
    """The tally of runs 0..n-1 of one rule set."""
    return simulate_job(Job((spec,)), 0, n, workers, backend, scheduler, progress).tallies[0]


def merged(results, total, progress=None):
    """Pieces' ((counts, failure), runs) merged into `total`; the first failure by run index, if any,
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
