"""`grimorio simulate` on the command line: prepare, run on a backend with a
progress bar, print the summary, write the report."""
from __future__ import annotations

import os
import sys

from ...dsl.diagnostics import Diagnostic, GrimorioError, render_all
from . import colour
from .cli import prepare
from .simulate import RunError, Spec, keep, simulate
from .summary import render_json, render_text, summarize


def simulate_command(args, sources, cl) -> int:
    if args.compare or len(args.edition) > 1:
        from .paired import compare_command
        return compare_command(args, sources, cl)
    if args.independent_dice:
        raise GrimorioError(Diagnostic("E0002", "--independent-dice goes with a comparison of two rule sets",
                                       cl.span("--independent-dice"), "add --compare, or a second --edition"))
    prepared = prepare(args, sources, cl)          # every mistake is found here, before any worker starts
    _backend_usable(args, cl)
    seed = args.seed if args.seed is not None else (prepared.enc.seed or 0)
    spec = Spec(_portable_argv(args), seed)
    runner = keep(spec, prepared)
    try:
        with _progress(args.runs) as tick:
            tally = simulate(spec, args.runs, args.workers, args.backend, args.scheduler, tick)
    except (OSError, TimeoutError) as exc:
        if args.backend != "dask":
            raise
        raise GrimorioError(Diagnostic("E0034", f"the Dask scheduler cannot be reached ({exc})",
                                       cl.span(args.scheduler or "dask"),
                                       "start it (dask scheduler) and its workers, and check the address: "
                                       "tcp://HOST:8786")) from None
    except RunError as exc:
        colour.error(render_all(exc.diagnostics, sources))
        print(f"run {exc.index} failed; to see it: grimorio run {args.encounter} --seed {exc.seed}", file=sys.stderr)
        return 2
    summary = summarize(tally, runner, seed, sources)
    if args.report:
        from .report import write_report
        write_report(args.report, summary, cl.span(args.report))
    sys.stdout.write(render_json(summary) if args.format == "json" else render_text(summary))
    return 0


def _backend_usable(args, cl):
    import importlib.util
    if args.backend == "dask" and importlib.util.find_spec("distributed") is None:
        from .extras import install_command
        raise GrimorioError(Diagnostic("E0032", "the dask backend needs Dask distributed, which is not installed",
                                       cl.span("dask"), f"install it with: {install_command('dask')}"))
    if args.scheduler and args.backend != "dask":
        raise GrimorioError(Diagnostic("E0002", "--scheduler names a Dask scheduler: it goes with --backend dask",
                                       cl.span(args.scheduler), "add --backend dask, or leave out --scheduler"))


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
