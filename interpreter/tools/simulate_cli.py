"""`grimorio simulate` on the command line: prepare every rule set the command
names (one; two to compare; one per value of a sweep), run them on common
dice with a progress bar (to a precision, when asked), print the summary,
write the run records and the report."""
from __future__ import annotations

import argparse
import os
import shlex
import sys

from ...dsl.diagnostics import Diagnostic, GrimorioError, escape, render_all
from ..run.outcome import categories
from ..run.values import json_text
from .preparing import prepare
from . import colour
from .simulate import Job, RunError, SchedulerError, Spec, keep, simulate_job
from .summary import render_json, render_text, summarize

RUNS = 1000          # runs by default


def simulate_command(args, sources, cl) -> int:
    compare = args.compare or len(args.edition) > 1
    _usable(args, cl, compare)
    sets = _rule_sets(args, cl, compare)
    if args.runs:              # a file that cannot be written is found before the runs, not after
        _write_runs(args.runs, None, sets, cl)
    prepared = [prepare(ns, sources, cl) for ns, _label in sets]     # every mistake found before any run
    seed = args.seed if args.seed is not None else (prepared[0].enc.seed or 0)
    specs = [Spec(_portable_argv(ns), seed) for ns, _label in sets]
    runners = [keep(spec, p) for spec, p in zip(specs, prepared)]
    if compare:                # each rule set by its edition and the house files as given
        sets = [(ns, " + ".join([p.p.ruleset.edition.name] + list(ns.house))) for (ns, _l), p in zip(sets, prepared)]
    job = Job(tuple(specs), common=not args.independent_dice, records=bool(args.runs))
    names = [name for name, _kind in categories(runners[0].sides(), runners[0].draws())]
    try:
        counts, precision = _run(job, args, cl, names)
    except RunError as exc:
        colour.error(render_all(exc.diagnostics, sources))
        ns = sets[0][0]
        print(f"run {exc.index} failed; to see it: {replay(ns)} --seed {exc.seed}", file=sys.stderr)
        return 2
    summaries = [summarize(t, r, seed, sources, replay(ns)) for t, r, (ns, _l) in zip(counts.tallies, runners, sets)]
    warned = scripted(prepared[0], counts.runs)
    for s in summaries:
        s["warnings"] += warned
        if precision is not None:
            s["precision"] = precision
    if args.runs:
        _write_runs(args.runs, counts, sets, cl)
    if args.exact:
        from .odds_beside import add_exact
        add_exact(summaries[0], prepared[0])
    out = _render(args, sets, summaries, counts, compare, precision)
    sys.stdout.write(render_json(out) if args.format == "json" else escape(out.pop("_text")))
    if args.report:
        from .report import write_report
        out.pop("_text", None)
        write_report(args.report, out, cl.span(args.report), provenance(args, cl, prepared))
    return 0


def _render(args, sets, summaries, counts, compare, precision) -> dict:
    """The summary of what ran: of one rule set, a comparison, or a sweep; its text under "_text"."""
    if compare:
        from .paired import compare as compared, render_text as compare_text
        out = compared(counts, summaries, [label for _ns, label in sets], not args.independent_dice)
        out["_text"] = compare_text(out)
    elif args.sweep:
        from .sweep import render_text as sweep_text, summarize_sweep
        out = summarize_sweep([label for _ns, label in sets], summaries, counts)
        out["_text"] = sweep_text(out)
    else:
        from .odds_beside import exact_text
        out = summaries[0]
        out["_text"] = render_text(out) + exact_text(out)
    if precision is not None:
        out["precision"] = precision
        out["_text"] += _precision_text(precision)
    return out


def _run(job: Job, args, cl, names):
    """The job's counts: -n runs, or batches until the precision asked (-n the cap)."""
    if args.precision is None:
        n = args.n or RUNS
        with _progress(n) as tick:
            return _backend(lambda: simulate_job(job, 0, n, args.workers, args.backend, args.scheduler, tick),
                            args, cl), None
    from . import precision as P
    target = P.parse(args.precision, cl.span(args.precision))
    cap = args.n or P.CAP
    total = None

    def step(start, stop):
        nonlocal total
        total = _backend(lambda: simulate_job(job, start, stop, args.workers, args.backend, args.scheduler,
                                              tick, total), args, cl)
        return P.widths(total, names)
    with _progress(cap) as tick:
        runs, widest, met = P.sequential(step, target, cap)
    return total, {"target": target, "runs": runs, "widest": widest, "met": met, "cap": cap,
                   "method": "Chow-Robbins fixed-width sequential interval (docs/performance.md)"}


def _precision_text(p: dict) -> str:
    if p["met"]:
        return (f"precision: every share within ±{100 * p['target']:g}% after {p['runs']} runs "
                f"(sequential, Chow-Robbins)\n")
    return (f"precision NOT met: the widest interval is ±{100 * p['widest']:.2f}% after {p['runs']} runs, the cap "
            f"(-n {p['cap']}); ±{100 * p['target']:g}% was asked\n")


def _backend(work, args, cl):
    try:
        return work()
    except (OSError, TimeoutError, SchedulerError) as exc:
        if args.backend != "dask":
            raise
        raise GrimorioError(Diagnostic("E0034", f"the Dask scheduler cannot be reached ({exc})",
                                       cl.span(args.scheduler or "dask"),
                                       "start it (dask scheduler) and its workers, and check the address: "
                                       "tcp://HOST:8786")) from None


def _rule_sets(args, cl, compare) -> list[tuple[argparse.Namespace, object]]:
    """Each rule set to run, as the command line it is prepared from, and its label: the rule set's
    name in a comparison (the second carries the --house files, as in `grimorio diff`), the
    point's values in a sweep."""
    if compare:
        editions = args.edition
        if len(editions) > 2 or (len(editions) < 2 and not args.house):
            raise GrimorioError(Diagnostic("E0002", "grimorio simulate compares two rule sets", cl.whole(),
                                           "give --edition A --edition B, or one edition (or the encounter's) "
                                           "and --house FILE"))
        a = argparse.Namespace(**{**vars(args), "edition": editions[:1], "house": []})
        b = argparse.Namespace(**{**vars(args), "edition": editions[-1:]})
        return [(ns, None) for ns in (a, b)]
    if args.sweep:
        from . import sweep
        at = cl.span(args.sweep[0])
        points = sweep.grid([sweep.parse(text, cl.span(text)) for text in args.sweep], at)
        return [(argparse.Namespace(**{**vars(args), "set": list(args.set) + sweep.set_args(p)[1::2]}), p)
                for p in points]
    return [(args, None)]


def _usable(args, cl, compare):
    import importlib.util
    if args.independent_dice and not compare:
        raise GrimorioError(Diagnostic("E0002", "--independent-dice goes with a comparison of two rule sets",
                                       cl.span("--independent-dice"), "add --compare, or a second --edition"))
    if compare and args.sweep:
        raise GrimorioError(Diagnostic("E0041", "a sweep runs one rule set: it does not go with a comparison",
                                       cl.span(args.sweep[0]), "sweep each rule set on its own, or compare two "
                                                               "values of the option with --house files"))
    if compare and args.backend != "local":
        raise GrimorioError(Diagnostic("E0002", "a comparison of two rule sets does not take --backend",
                                       cl.span("--backend"), "compare on local processes (--workers W)"))
    if args.backend == "dask" and importlib.util.find_spec("distributed") is None:
        from .extras import install_command
        raise GrimorioError(Diagnostic("E0032", "the dask backend needs Dask distributed, which is not installed",
                                       cl.span("dask"), f"install it with: {install_command('dask')}"))
    if args.scheduler is not None:                 # checked before anything starts (simulate.scheduler_address)
        from .simulate import SchedulerError, scheduler_address
        try:
            args.scheduler = scheduler_address(args.scheduler)
        except SchedulerError as exc:
            raise GrimorioError(Diagnostic("E0002", f"--scheduler: {exc}", cl.span(args.scheduler),
                                           "a Dask scheduler's address: tcp://HOST:PORT (tcp://10.0.0.5:8786)")) \
                from None
    if args.report is not None:                    # an output that is no input, before anything runs
        from .outputs import check_output
        check_output(args.report, "--report", cl.span(args.report), [args.encounter, *args.house])
    if args.scheduler and args.backend != "dask":
        raise GrimorioError(Diagnostic("E0002", "--scheduler names a Dask scheduler: it goes with --backend dask",
                                       cl.span(args.scheduler), "add --backend dask, or leave out --scheduler"))
    if args.exact and (compare or args.sweep):
        raise GrimorioError(Diagnostic("E0044", "--exact shows the exact odds of one rule set beside its runs",
                                       cl.span("--exact"), "leave out --exact, or ask grimorio odds of each rule "
                                                           "set on its own"))
    if args.runs and args.runs.isdigit():
        raise GrimorioError(Diagnostic("E0042", f'--runs names the file of run records, not how many ("{args.runs}")',
                                       cl.span(args.runs), f"to run {args.runs} times: -n {args.runs}; "
                                                           "to keep the records: --runs FILE.jsonl"))


def _portable_argv(args) -> tuple[str, ...]:
    """The arguments a worker prepares the encounter from, paths made absolute."""
    argv = ["simulate", os.path.abspath(args.encounter)]
    for edition in args.edition[-1:]:          # simulate's --edition is a list (two compare)
        argv += ["--edition", edition]
    for item in args.set:
        argv += ["--set", item]
    for folder in args.rules:
        argv += ["--rules", os.path.abspath(folder)]
    for house in args.house:
        argv += ["--house", os.path.abspath(house)]
    return tuple(argv)


def replay(args) -> str:
    """The `grimorio run` command line of this rule set, as the user wrote its parts, less the seed."""
    words = ["grimorio", "run", args.encounter]
    for edition in args.edition[-1:]:
        words += ["--edition", edition]
    for item in args.set:
        words += ["--set", item]
    for folder in args.rules:
        words += ["--rules", folder]
    for house in args.house:
        words += ["--house", house]
    return " ".join(shlex.quote(w) for w in words)


def scripted(prepared, runs: int) -> list[str]:
    """A warning when no die of the encounter is left to its seed (each is pinned, or none is rolled):
    then every run is the same. Found by running it once with its dice held strictly to the pins."""
    import copy
    from ...dsl.records import replace
    strict = copy.copy(prepared)
    strict.enc = replace(prepared.enc, strict_dice=True)
    try:
        strict.run(seed=0, record=False)
    except GrimorioError:
        return []
    return [f"every die of this encounter is pinned (or none is rolled), and its decisions follow from them: "
            f"the {runs} runs are the same run; unpin some dice to see the odds"]


def _write_runs(path: str, counts, sets, cl) -> None:
    """One JSON line per run, in the order of the runs (of each rule set, labelled, when several);
    with no counts, an empty file."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            for records, (ns, label) in zip(counts.records if counts is not None else [], sets):
                extra = {} if len(sets) == 1 else {"values": label} if isinstance(label, dict) else {"rules": label}
                for r in records:
                    f.write(json_text({**extra, **r}, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise GrimorioError(Diagnostic("E0043", f'the run records cannot be written to "{path}" ({exc.strerror})',
                                       cl.span(path), "name a file in a folder that exists and that you may "
                                                      "write to")) from None


def provenance(args, cl, prepared: list) -> dict:
    """What made a report: the command, edition(s), house layers, seed, grimorio's version and the date."""
    import datetime
    from importlib.metadata import PackageNotFoundError, version
    try:
        mine = version("grimorio")
    except PackageNotFoundError:
        mine = "unknown (not installed)"
    editions = list(dict.fromkeys(p.p.ruleset.edition.name for p in prepared))
    house = list(dict.fromkeys(str(x) for p in prepared for x in p.p.ruleset.layers if x.house))
    return {"command": cl.text, "edition": ", ".join(editions), "house": house,
            "seed": args.seed if args.seed is not None else (prepared[0].enc.seed or 0), "version": mine,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


class _progress:
    """A progress bar on a terminal (rich's); nothing otherwise."""

    def __init__(self, total):
        self.total, self.bar = total, None

    def __enter__(self):
        if not sys.stderr.isatty():
            return None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
        # Refreshed by hand, not by a thread of its own: worker processes may be forked from this one.
        self.bar = Progress("runs", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                            console=Console(stderr=True), transient=True, auto_refresh=False)
        self.bar.start()
        task = self.bar.add_task("runs", total=self.total)

        def tick(k):
            self.bar.advance(task, k)
            self.bar.refresh()
        return tick

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False
