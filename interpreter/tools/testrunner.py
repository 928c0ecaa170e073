"""`grimorio test [PATH...]`: every encounter's expectations, run as a test suite.

Each encounter (.enc) under the paths is run once, with its own seed; each of
its expectations (`expect`, `expect said`, a choice scripted `refused "..."`)
is one test. An encounter that does not load, check or run to its end is an
error; one with no expectation is one test that passes when it runs to its end.
The summary reads like pytest's: a line per encounter, the failures with their
place and values, a count. Exit 0 when every expectation held, 1 when one failed,
2 on bad input (an error). `--junit FILE.xml` writes the results for CI.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ...dsl.diagnostics import Diagnostic, GrimorioError, Sources, Span, render
from ...dsl.records import dataclass, field

SKIPPED_FOLDERS = ("__pycache__", "node_modules", "site-packages")
MARKS = {"passed": ".", "failed": "F", "error": "E"}


@dataclass(frozen=True)
class Case:
    """One test: an expectation of an encounter (or the encounter itself: `line` 0)."""
    name: str
    line: int
    outcome: str                # passed, failed or error
    message: str = ""           # the rendered diagnostic of a failure or an error
    summary: str = ""           # its first line, for the short summary and JUnit's message


@dataclass(frozen=True)
class Result:
    """What running one encounter gave: its tests, in the order they were checked, and its time."""
    file: str
    cases: tuple = ()
    seconds: float = 0.0


@dataclass
class Layers:
    """What the command line adds to every encounter: --rules folders and --house files."""
    rules: list = field(default_factory=list)
    houses: list = field(default_factory=list)


# ------------------------------------------------------------------ finding encounters

def encounters(paths, cl) -> list[Path]:
    """The encounters the paths name (a folder: every .enc under it, hidden folders left out), in order."""
    found, diags = [], []
    for name in paths or ["."]:
        path, at = Path(name), cl.span(name)
        if path.is_dir():
            under = sorted(p for p in path.rglob("*.enc") if p.is_file() and not _hidden(p.relative_to(path)))
            if not under:
                diags.append(Diagnostic("E0036", f'there is no encounter under "{name}"', at,
                                        "grimorio test runs the encounters (.enc files) of the folders it is given"))
            found += under
        elif not path.exists():
            diags.append(Diagnostic("E0001", f'there is no file or folder "{name}"', at,
                                    "name encounters (.enc files) or folders that hold them"))
        elif path.suffix != ".enc":
            diags.append(Diagnostic("E0035", f'"{name}" is not an encounter', at,
                                    "grimorio test runs encounters (.enc files); "
                                    f"to check rules: grimorio check {name}"))
        else:
            found.append(path)
    if diags:
        raise GrimorioError(diags)
    return list(dict.fromkeys(found))


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") or part in SKIPPED_FOLDERS for part in relative.parts[:-1])


# ------------------------------------------------------------------ running one encounter

def run_one(path: str, layers: Layers) -> Result:
    """Run an encounter and judge each expectation; never raises (a worker's result must come back)."""
    start = time.perf_counter()
    sources = Sources()
    try:
        cases = _cases(path, layers, sources)
    except GrimorioError as exc:
        partial = getattr(exc, "outcome", None)
        done = _verdict_cases(partial.expectations, sources) if partial is not None else []
        cases = done + [_error(path, [render(d, sources) for d in exc.diagnostics])]
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - one encounter's bug must not stop the others
        bug = Diagnostic("E0003", "grimorio failed on this input: this is a bug in grimorio", Span(path, 0, 0),
                         f"please report it with the files you gave it ({type(exc).__name__}: {exc})")
        cases = [_error(path, [render(bug, sources)])]
    return Result(path, tuple(cases), time.perf_counter() - start)


def _cases(path: str, layers: Layers, sources: Sources) -> list[Case]:
    from ...dsl.check.front import load_encounter, roots_for
    from ..compile.programs import program_for
    from ..run.encounter import Prepared
    enc = load_encounter(path, sources)
    if not enc.edition:
        raise GrimorioError(Diagnostic("E0301", "the encounter names no edition", Span(path, 1, 1),
                                       'name it on a line of its own: "edition" and the edition\'s name'))
    program = program_for(enc.edition, enc.edition_span, sources, roots_for(path, layers.rules), layers.houses)
    outcome = Prepared(enc, program).run(record=False)
    return _verdict_cases(outcome.expectations, sources) or [Case("runs to its end", 0, "passed")]


def _verdict_cases(verdicts, sources: Sources) -> list[Case]:
    """A case per expectation checked, in the order of the encounter's text (as pytest orders a file's tests)."""
    verdicts = sorted(verdicts, key=lambda v: v.span.line)
    out = []
    for v in verdicts:
        name = (sources.line(v.span.file, v.span.line) or "").strip() or "expectation"
        if v.ok:
            out.append(Case(name, v.span.line, "passed"))
        else:
            diag = v.diagnostic()
            summary = diag.message + (f": {diag.help}" if diag.help else "")
            out.append(Case(name, v.span.line, "failed", render(diag, sources), summary))
    return out


def _error(path: str, messages: list[str]) -> Case:
    first = messages[0].split("\n", 1)[0] if messages else "error"
    return Case("runs to its end", 0, "error", "\n\n".join(messages), first)


# ------------------------------------------------------------------ running them all

def run_all(paths: list[Path], layers: Layers, workers: int = 1):
    """Each encounter's Result, in the order of `paths` (as they finish, with several workers)."""
    names = [str(p) for p in paths]
    if workers <= 1 or len(names) <= 1:
        yield from (run_one(name, layers) for name in names)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    method = "fork" if sys.platform == "linux" else "spawn"
    with ProcessPoolExecutor(min(workers, len(names)), mp_context=multiprocessing.get_context(method)) as pool:
        yield from pool.map(run_one, names, [layers] * len(names))


def test_command(args, layers: Layers, cl, write_diagnostic) -> int:
    """The command: run, print as results come, then the failures, the errors and the count, all on
    standard output (the report is what the command makes, as pytest's); `write_diagnostic` writes each
    line of the report there (in colour on a terminal)."""
    paths = encounters(args.paths, cl)
    if args.junit and not Path(args.junit).resolve().parent.is_dir():      # told before the runs, not after
        from .junit import folder_missing
        raise GrimorioError(folder_missing(args.junit, cl.span(args.junit)))
    start = time.perf_counter()
    results = []
    for result in run_all(paths, layers, args.workers):
        results.append(result)
        print(f"{result.file} {''.join(MARKS[c.outcome] for c in result.cases)}", flush=True)
    seconds = time.perf_counter() - start
    _report(results, write_diagnostic)
    counts = {kind: sum(c.outcome == kind for r in results for c in r.cases) for kind in MARKS}
    print(_count_line(counts, len(results), seconds))
    if args.junit:
        from .junit import write_junit
        write_junit(args.junit, results, seconds, cl.span(args.junit))
    return 2 if counts["error"] else 1 if counts["failed"] else 0


def _report(results, write) -> None:
    """The failures and errors in full (their diagnostics), then the short summary."""
    bad = [(r, c) for r in results for c in r.cases if c.outcome != "passed"]
    if not bad:
        return
    for title, kind in (("FAILURES", "failed"), ("ERRORS", "error")):
        these = [(r, c) for r, c in bad if c.outcome == kind]
        if these:
            write(_rule(title))
            for r, c in these:
                write(_rule(_where(r, c), "_"))
                write(c.message)
    write(_rule("short test summary info"))
    for r, c in bad:
        word = "FAILED" if c.outcome == "failed" else "ERROR"
        write(f"{word} {_where(r, c)} - {c.summary}")


def _where(r: Result, c: Case) -> str:
    return f"{r.file}:{c.line}: {c.name}" if c.line else r.file


def _rule(title: str, fill: str = "=") -> str:
    width = max(len(title) + 2, min(_columns(), 100))
    return f" {title} ".center(width, fill)


def _columns() -> int:
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 80


def _count_line(counts: dict, encounters_run: int, seconds: float) -> str:
    parts = [f"{counts[k]} {k if k != 'error' else 'error' + ('s' if counts[k] != 1 else '')}"
             for k in ("failed", "passed", "error") if counts[k]]
    shown = ", ".join(parts) or "no tests ran"
    return (f"{shown} in {encounters_run} encounter{'s' if encounters_run != 1 else ''} "
            f"({seconds:.2f}s)")
