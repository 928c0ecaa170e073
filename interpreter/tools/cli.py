"""The grimorio command line: run, simulate, diff, check, editions, fmt, lsp, odds, new, test, completion.

Each command imports what it needs when it runs, so `--help` and
`editions` start without loading the language or the runtime.
"""
from __future__ import annotations

import gc
import sys
from pathlib import Path

from ...dsl.bounds import TooLongToShow
from ...dsl.diagnostics import Diagnostic, GrimorioError, Sources, escape, render, render_all
from ...dsl.pause import collector_paused

from . import colour, stdio
from .arguments import CommandLine, _UsageError, _named, _parser
from .preparing import house_files, prepare, print_warnings, rules_roots


def cmd_run(args, sources: Sources, cl: CommandLine) -> int:
    if args.load_state == "":
        raise GrimorioError(Diagnostic("E0002", "--load-state needs a file name", cl.span("--load-state"),
                                       "--load-state FILE; an empty name is often a variable that was not set"))
    outputs = _outputs(args, cl)
    with collector_paused():
        prepared = prepare(args, sources, cl)
        if args.whole_process:
            # The process ends after this one run: what preparing loaded lives to its end, and the cyclic
            # collector's next pass would only walk it (a tenth of a warm run), so it never will.
            gc.freeze()
    if args.run_index is not None:
        from .simulate import run_seed
        if args.run_index < 0:
            raise GrimorioError(Diagnostic("E0002", "--run-index counts runs from 0", cl.span(str(args.run_index)),
                                           "give the index simulate printed (or wrote in --runs)"))
        base = args.seed if args.seed is not None else (prepared.enc.seed or 0)
        args.seed = run_seed(base, args.run_index)
    outputs(prepared)
    setup = prepared.state_setup()
    try:
        outcome = prepared.run(seed=args.seed, record=True, json=args.format == "jsonl", setup=setup,
                               budget=_budget(args, cl))
    except GrimorioError as exc:
        # The transcript up to the error is printed, the expectations that failed before it,
        # then the diagnostic (by main).
        partial = getattr(exc, "outcome", None)
        if partial is not None:
            _write_transcript(partial, args, prepared)
            _write_failed(partial, sources)
        raise
    _write_transcript(outcome, args, prepared)
    _write_failed(outcome, sources)
    if outcome.failed:
        return 1
    if args.save_state:
        from ..run.state import save as save_state
        from .outputs import write_atomically
        save_state(args.save_state, outcome.engine, cl.span(args.save_state), write_atomically)
    return 0


def _outputs(args, cl: CommandLine):
    """Check the run's output (--save-state) before anything runs: not the encounter, a house file or an
    edition's file (the state it loads it may replace); then again once the edition's files are known."""
    if args.save_state is None:
        return lambda prepared: None
    from .outputs import check_output
    at, inputs = cl.span(args.save_state), [args.encounter, *args.house]
    allowed = [args.load_state] if args.load_state else []
    check_output(args.save_state, "--save-state", at, inputs, allowed)

    def with_the_edition(prepared):
        from ...dsl.editions.files import bundled_root
        files = list(prepared.p.ruleset.sources.texts)
        check_output(args.save_state, "--save-state", at,
                     files + [str(bundled_root().parent / f) for f in files], allowed)
    return with_the_edition


def cmd_simulate(args, sources: Sources, cl: CommandLine) -> int:
    from .simulate_cli import simulate_command
    return simulate_command(args, sources, cl)


def _write_failed(outcome, sources: Sources):
    """Every expectation of the run that failed, in the order they were checked."""
    for verdict, _left, _right in outcome.failed:
        colour.error(render(verdict.diagnostic(), sources))


def _write_transcript(outcome, args, prepared):
    """The transcript after its header: a line of text (unless --quiet), or the JSON lines' header event."""
    from ..run.transcript import header, header_line, render_jsonl, render_text
    engine = outcome.engine
    if args.format == "jsonl":       # the version is read for the JSON header only: the text one does not name it
        from ..._version import version
        sys.stdout.write(render_jsonl(engine, header(prepared.enc.title, args.encounter, prepared.p, engine.seed,
                                                     version())))
    else:                   # a header above the transcript; none above a run that said nothing
        text = render_text(engine, args.explain)
        head = "" if args.quiet or not text else header_line(
            header(prepared.enc.title, args.encounter, prepared.p, engine.seed, None))
        sys.stdout.write(escape(head + text))
    sys.stdout.flush()


def cmd_diff(args, sources: Sources, cl: CommandLine) -> int:
    """Two sides: two editions (the house files go on the second), or one edition alone and with them."""
    from .diffing import transcript_diff
    from ..run.encounter import Prepared
    from ...dsl.check.front import load_encounter, roots_for
    from ..compile.programs import program_for
    enc = load_encounter(args.encounter, sources, cl.span(args.encounter))
    editions = args.edition or ([enc.edition] if enc.edition else [])
    if not 1 <= len(editions) <= 2 or (len(editions) == 1 and not args.house):
        raise GrimorioError(Diagnostic("E0002", "grimorio diff compares two rule sets", cl.whole(),
                                       "give --edition A --edition B, or one edition (or the encounter's) "
                                       "and --house FILE"))
    houses = house_files(args.house, cl)
    roots = roots_for(args.encounter, rules_roots(args.rules, cl))
    sides = [(editions[0], []), (editions[-1], houses)]
    runs, names, stopped = [], [], []
    for edition, hs in sides:
        at = cl.span(edition) if args.edition else enc.edition_span
        program = program_for(edition, at, sources, roots, hs)
        print_warnings(program, sources)
        names.append(" + ".join([edition] + [str(h) for h in hs]))
        try:
            runs.append(Prepared(enc, program).run(seed=args.seed, record=True))
        except GrimorioError as exc:
            # A run that stops on an error is compared up to the error, as `run` prints it.
            if getattr(exc, "outcome", None) is None:
                raise
            runs.append(exc.outcome)
            stopped.append((names[-1], exc))
    text, differ = transcript_diff(runs[0], runs[1], names[0], names[1], ended=not stopped)
    colour.write(sys.stdout, escape(text + "".join(f"the run under {name} stopped on an error\n"
                                                   for name, _exc in stopped)), "diff", end="")
    if stopped:                  # both sides may stop on the same error: it is told once
        told = []
        for d in (d for _name, exc in stopped for d in exc.diagnostics):
            if d not in told:
                told.append(d)
        raise GrimorioError(told)
    return 1 if differ else 0           # as diff(1): 1 when the transcripts differ


def _budget(args, cl: CommandLine) -> int | None:
    if args.budget is not None and not 0 < args.budget <= 10 ** 12:
        raise GrimorioError(Diagnostic("E0002", f"--budget {args.budget} is no budget", cl.span(str(args.budget)),
                                       "a number of steps from 1 to 1000000000000 (default 1000000)"))
    return args.budget


def cmd_check(args, sources: Sources, cl: CommandLine) -> int:
    from .checking import check_path
    diags, warnings = [], []
    houses, rules = house_files(args.house, cl), rules_roots(args.rules, cl)
    for path in args.paths:
        found = check_path(Path(path), sources, cl.span(path), houses, rules)
        for d in found:
            into = warnings if d.severity == "warning" else diags
            if d not in into:          # two paths of one edition report its errors once
                into.append(d)
    if warnings:
        colour.error(render_all(warnings, sources))
    if diags:
        colour.error(render_all(diags, sources))
        print(f"{len(diags)} error{'s' if len(diags) != 1 else ''}", file=sys.stderr)
        return 2
    print("ok" + (f" ({len(warnings)} warning{'s' if len(warnings) != 1 else ''})" if warnings else ""))
    return 0


def cmd_editions(args, sources, cl) -> int:
    """Names, titles and what each extends, read from the entry files' heads: nothing is parsed or compiled."""
    from ...dsl.editions.files import bundled_root, edition_heads
    roots = rules_roots(args.rules, cl) + [bundled_root()]
    editions, modules = sorted(edition_heads(roots).items()), sorted(edition_heads(roots, "module").items())
    width = max([12] + [len(name) for name, _ in editions + modules])       # one column for every name
    for name, heads in editions:
        extends = f"  (extends {heads[0].extends})" if heads[0].extends else ""
        print(escape(f"{name:{width}} {heads[0].title or ''}{extends}".rstrip()))
    if modules:
        print('\nmodules (an edition includes one with "include module NAME"):')
    for name, heads in modules:
        print(f"{name:{width}} {heads[0].title or ''}".rstrip())
    return 0


def cmd_lsp(args, sources, cl) -> int:
    from .extras import install_command
    try:
        from .lsp import serve
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise
        raise GrimorioError(Diagnostic("E0022", "the language server needs the lsp extra, which is not installed",
                                       cl.span("lsp"), f"install it with: {install_command('lsp')}")) from None
    return serve()


def cmd_odds(args, sources, cl) -> int:
    from .odds_cli import odds_command
    return odds_command(args, sources, cl)


def cmd_fmt(args, sources, cl) -> int:
    from .formatting import cmd_fmt as fmt
    return fmt(args, sources, cl)


def cmd_new(args, sources, cl) -> int:
    from .scaffold import create
    folder = Path(args.folder)
    written = create(folder, cl.span(args.folder))
    for path in written:
        print(f"created {path.as_posix()}")
    print(f"next: grimorio check {folder.as_posix()}\n      grimorio run {(folder / 'first.enc').as_posix()}")
    return 0


def cmd_completion(args, sources, cl) -> int:
    from .completion import script
    sys.stdout.write(script(args.shell, _parser()))
    return 0


def cmd_test(args, sources, cl) -> int:
    from .testrunner import Layers, test_command
    layers = Layers(rules_roots(args.rules, cl), house_files(args.house, cl))
    return test_command(args, layers, cl, lambda text: colour.write(sys.stdout, text, "test"))


COMMANDS = {"run": cmd_run, "simulate": cmd_simulate, "diff": cmd_diff, "check": cmd_check, "editions": cmd_editions,
            "fmt": cmd_fmt, "lsp": cmd_lsp, "odds": cmd_odds, "new": cmd_new, "test": cmd_test, "completion": cmd_completion}


def main(argv=None) -> int:
    """The command line: exit 0 (ok), 1 (an expectation failed), 2 (diagnostics), 130 (interrupted);
    never a traceback, whatever happens to the process's streams (see stdio.py)."""
    whole_process = argv is None            # the process's own command line: it ends with the command
    argv = sys.argv[1:] if argv is None else list(argv)
    sources = Sources()
    cl = CommandLine(argv, sources)
    if not stdio.prepare():
        stdio.write_error(render(stdio.closed_output(), sources))
        return 2
    try:
        code = _command(argv, sources, cl, whole_process)
        sys.stdout.flush()
    except KeyboardInterrupt:
        stdio.silence_output()
        return stdio.INTERRUPTED
    except OSError as exc:
        diag = stdio.fault(exc, cl.whole())
        if diag is not None:
            stdio.write_error(render(diag, sources))
        return 2
    return code


def _command(argv, sources: Sources, cl: CommandLine, whole_process: bool = False) -> int:
    try:
        args = _parser(_named(argv)).parse_args(argv)
        args.whole_process = whole_process
    except _UsageError as exc:
        exc.parser.print_usage(sys.stderr)
        colour.error(render(cl.usage_error(exc), sources))
        return 2
    if args.command is None:
        _parser().print_help()
        return 2
    try:
        return COMMANDS[args.command](args, sources, cl)
    except GrimorioError as exc:
        colour.error(render_all(exc.diagnostics, sources))
        return 2
    except (KeyboardInterrupt, OSError):
        raise
    except TooLongToShow:
        colour.error(render(Diagnostic("E0110", f"a number is too long to write in digits (more than "
                                                f"{sys.get_int_max_str_digits()} digits)", cl.whole(),
                                       "this Python writes whole numbers of that many digits at most "
                                       "(PYTHONINTMAXSTRDIGITS): raise it, or ask for the text transcript, "
                                       "which writes such a number in words"), sources))
        return 2
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - the last guard of "never a traceback"
        return _bug(exc, sources, cl)


def _bug(exc: BaseException, sources: Sources, cl: CommandLine) -> int:
    print(render(Diagnostic("E0003", "grimorio failed on this input: this is a bug in grimorio", cl.whole(),
                            f"please report it with the files you gave it ({type(exc).__name__}: {exc})"),
                 sources), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
