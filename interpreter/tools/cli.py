"""The grimorio command line: run, simulate, diff, check, editions, fmt, lsp, odds, new, test, completion.

Each command imports what it needs when it runs, so `--help` and
`editions` start without loading the language or the runtime.
"""
from __future__ import annotations

import argparse
import re
import shlex
import sys
from pathlib import Path

from ...dsl.diagnostics import Diagnostic, GrimorioError, Sources, Span, escape, render, render_all

from . import colour, stdio


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _UsageError(self, message)


class _UsageError(Exception):
    def __init__(self, parser, message):
        super().__init__(message)
        self.parser, self.message = parser, message


class CommandLine:
    """The command line as a one-line source, so its mistakes are shown like a file's."""

    FILE = "<command line>"

    def __init__(self, argv, sources: Sources):
        self.args, col, parts = [], len("grimorio ") + 1, []
        for a in argv:
            q = shlex.quote(a)
            self.args.append((a, col, len(q)))
            parts.append(q)
            col += len(q) + 1
        self.text = sources.texts[self.FILE] = " ".join(["grimorio"] + parts)

    def span(self, value: str | None = None) -> Span:
        """The argument that is `value` (or holds it, as --seed=x does); else the end of the line."""
        for exact in (True, False):
            for a, col, width in self.args:
                if value is not None and (a == value if exact else value in a):
                    return Span(self.FILE, 1, col, 1, col + width)
        end = len(self.text) + 1
        return Span(self.FILE, 1, end, 1, end + 1)

    def whole(self) -> Span:
        return Span(self.FILE, 1, len("grimorio ") + 1, 1, len(self.text) + 1)

    def usage_error(self, exc: _UsageError) -> Diagnostic:
        # argparse quotes the offending value ('abc') or lists it after a colon.
        m = re.search(r"'([^']*)'", exc.message) or re.search(r"arguments?: (\S+)$", exc.message)
        where = self.span(m.group(1) if m and "required" not in exc.message else None)
        return Diagnostic("E0002", f"bad command line: {exc.message}", where,
                          f"{exc.parser.prog} --help lists the commands and their options")


def _parser(command: str | None = None):
    """The command line's parser; with `command`, holding that command's parser only (a run need not
    build the other six: its usage still names them all)."""
    p = _Parser(prog="grimorio", description="Run tabletop role-playing rules written as text.")
    p.add_argument("--version", action=_Version, help="print grimorio's version and exit")
    # prog given: else argparse builds a help formatter (and imports shutil) to work it out.
    sub = p.add_subparsers(dest="command", parser_class=_Parser, prog=p.prog,
                           metavar=None if command is None else "{" + ",".join(PARSERS) + "}")
    for name, add in PARSERS.items():
        if command in (None, name):
            add(sub)
    return p


class _Version(argparse.Action):
    """--version: the version is read only when asked (importlib.metadata costs an import)."""

    def __init__(self, option_strings, dest, help=None):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from ..._version import version
        sys.stdout.write(f"grimorio {version()}\n")
        parser.exit(0)


def _named(argv) -> str | None:
    """The command a command line names first, if it is one."""
    return argv[0] if argv and argv[0] in PARSERS else None


def _run_parser(sub):
    r = sub.add_parser("run", help="run an encounter and print its transcript")
    _encounter_arguments(r)
    r.add_argument("--seed", type=int, help="the dice seed, instead of the encounter's")
    r.add_argument("--run-index", type=int, metavar="I",
                   help="run I of `grimorio simulate` with this --seed (its base seed): the same dice, the same "
                        "transcript, on any number of workers")
    r.add_argument("--format", choices=["text", "jsonl"], default="text",
                   help="text: the transcript; jsonl: one structured event per line")
    r.add_argument("--explain", action="store_true", help="show the rule behind each line")
    r.add_argument("-q", "--quiet", action="store_true",
                   help="text: leave out the header line (encounter, edition, layers, seed) above the transcript")
    r.add_argument("--budget", type=int, metavar="STEPS",
                   help="the step budget of the run (default 1000000): rule calls, loop turns, list elements, "
                        "rounds, events and dice")
    r.add_argument("--load-state", metavar="FILE", help="start from the state a run saved (cards, fields, vars)")
    r.add_argument("--save-state", metavar="FILE",
                   help="after a run that ends well, save its state there (atomically)")


def _simulate_parser(sub):
    s = sub.add_parser("simulate", help="run an encounter many times and summarize the outcomes")
    _encounter_arguments(s, editions="append")
    s.add_argument("--compare", action="store_true",
                   help="compare two rule sets on common dice: the two --edition given, or the edition without "
                        "and with the --house files (two --edition imply it)")
    s.add_argument("--independent-dice", action="store_true",
                   help="with --compare: roll the second rule set's runs on other dice (to measure what common "
                        "dice save)")
    s.add_argument("-n", type=_count, default=None, metavar="N",
                   help="how many runs (default 1000); with --precision, the most it may run (default 100000)")
    s.add_argument("--runs", metavar="FILE.jsonl", help="also write one record per run there: its index, seed, "
                                                         "outcome, rounds and every tally")
    s.add_argument("--sweep", action="append", default=[], metavar="OPTION=A..B:STEP",
                   help="run every value of an option on the same dice (repeat it for a grid): a table by value")
    s.add_argument("--precision", metavar="P",
                   help="run in batches until every share's 95%% interval (and every difference's) is at most "
                        "P wide on each side: 1%% or 0.01 (docs/performance.md says how; -n is the most)")
    s.add_argument("--seed", type=int, help="the base seed (default: the encounter's); run i gets a seed made "
                                            "from it and i")
    s.add_argument("--workers", type=_count, default=1, metavar="W", help="processes to run on (default 1)")
    s.add_argument("--backend", choices=["local", "dask"], default="local",
                   help="local: processes on this machine; dask: a Dask distributed cluster")
    s.add_argument("--scheduler", metavar="ADDRESS", help="the Dask scheduler's address (tcp://host:8786)")
    s.add_argument("--format", choices=["text", "json"], default="text", help="the summary as text or JSON")
    s.add_argument("--report", metavar="FILE.html", help="also write an HTML page with plots")
    s.add_argument("--exact", action="store_true", help="beside the simulated shares, the exact odds of the "
                                                         "encounter's expectations and tallies (grimorio odds), "
                                                         "where they can be reckoned within 20 s")


def _diff_parser(sub):
    d = sub.add_parser("diff", help="run an encounter under two editions (or one, and it with house rules) on "
                                     "the same dice, and show where the transcripts part")
    d.add_argument("encounter", help="the encounter script (.enc)")
    d.add_argument("--edition", action="append", default=[], help="an edition to compare (give one or two)")
    d.add_argument("--seed", type=int, help="the dice seed, instead of the encounter's")
    _layer_args(d)


def _check_parser(sub):
    c = sub.add_parser("check", help="check rulesets, editions and encounters; print diagnostics")
    c.add_argument("paths", nargs="+", help="edition folders, .rules files and .enc files")
    _layer_args(c)


def _editions_parser(sub):
    e = sub.add_parser("editions", help="list the editions: bundled, and in the --rules folders")
    e.add_argument("--rules", action="append", default=[], metavar="DIR",
                   help="an edition folder, or a folder of edition folders (repeatable)")


def _fmt_parser(sub):
    f = sub.add_parser("fmt", help="format .rules and .enc files: indentation, aligned tables")
    f.add_argument("paths", nargs="+", help="files, or folders to format every .rules and .enc file in; "
                                            '"-": standard input, formatted onto standard output')
    f.add_argument("--check", action="store_true", help="change nothing; list the files that need formatting "
                                                        "and exit 1 if there are any")


def _test_parser(sub):
    t = sub.add_parser("test", help="run every encounter's expectations under the paths, like a test suite")
    t.add_argument("paths", nargs="*", metavar="PATH",
                   help="encounters (.enc), or folders to run every encounter under (default: this folder)")
    t.add_argument("--junit", metavar="FILE.xml", help="also write the results as JUnit XML, for CI")
    t.add_argument("--workers", type=_count, default=1, metavar="W", help="processes to run on (default 1)")
    _layer_args(t)


def _completion_parser(sub):
    c = sub.add_parser("completion", help="print a shell completion script (bash, zsh or fish)")
    c.add_argument("shell", choices=["bash", "zsh", "fish"], help="the shell: source <(grimorio completion bash)")


def _lsp_parser(sub):
    lsp = sub.add_parser("lsp", help="serve the language server protocol on stdin/stdout (for editors)")
    # What VS Code's client (vscode-languageclient, TransportKind.stdio) and others pass: standard
    # input and output are the only transport, so the flag is accepted and changes nothing.
    lsp.add_argument("--stdio", action="store_true", help="speak over standard input and output (the default)")


def _odds_parser(sub):
    o = sub.add_parser("odds", help="the exact odds of what the rules compute: every outcome of every roll")
    o.add_argument("encounter", nargs="?", help="the encounter (.enc) whose combatants and do: block set the "
                                                "scene; without it, --edition and a bare --expr")
    o.add_argument("--edition", help="the edition (for a bare --expr, or instead of the encounter's)")
    o.add_argument("--expr", help="the question: an expression, evaluated once the encounter has run "
                                  "(without it: the checks the encounter makes)")
    o.add_argument("--rule", nargs="+", metavar=("NAME", "ARG"), help="the question: a rule called with these "
                                                                      "arguments (expressions)")
    o.add_argument("--with", dest="with_", action="append", default=[], metavar="WHO.FIELD=VALUE",
                   help="a field of a combatant, as if the encounter's line gave it (repeatable)")
    o.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE", help="set a ruleset option")
    o.add_argument("--format", choices=["text", "json"], default="text", help="the distribution as text or JSON")
    o.add_argument("--max-runs", type=_count, metavar="N", help="the budget: runs of the rules the enumeration "
                                                                "may make (default 200000)")
    o.add_argument("--max-seconds", type=_count, metavar="S", help="the budget: seconds (default 60)")
    o.add_argument("--estimate", type=_count, metavar="N", help="past the budget, a Monte Carlo estimate of N "
                                                                "runs instead (said to be one, with intervals)")
    o.add_argument("--seed", type=int, help="the base seed of an --estimate")
    _layer_args(o)


def _new_parser(sub):
    w = sub.add_parser("new", help="start a new edition: a folder with a sheet, a round, an action and an "
                                   "encounter that checks clean and runs")
    w.add_argument("folder", help="the folder to make; its last part is the edition's name (my_game, "
                                  "games/my_game)")


PARSERS = {"run": _run_parser, "simulate": _simulate_parser, "diff": _diff_parser, "check": _check_parser,
           "editions": _editions_parser, "fmt": _fmt_parser, "lsp": _lsp_parser, "odds": _odds_parser,
           "new": _new_parser, "test": _test_parser, "completion": _completion_parser}


def _encounter_arguments(p, editions="store"):
    p.add_argument("encounter", help="the encounter script (.enc)")
    p.add_argument("--edition", action=editions, default=[] if editions == "append" else None,
                   help="the edition to use instead of the one the encounter names"
                        + (" (simulate: give two to compare them)" if editions == "append" else ""))
    p.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE", help="set a ruleset option")
    _layer_args(p)


def _layer_args(r):
    r.add_argument("--rules", action="append", default=[], metavar="DIR",
                   help="an edition folder, or a folder of edition folders, to look in first (repeatable)")
    r.add_argument("--house", action="append", default=[], metavar="FILE",
                   help="a house-rule file layered on the edition; later ones win (repeatable)")


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


_count.__name__ = "count"        # argparse says "invalid count value: '0'"


def _option_value(text: str, where: Span):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if re.fullmatch(r"[+-]?\d+", text.strip().replace("_", "")):
        from ...dsl.syntax.parser import MAX_DIGITS, too_long
        digits = text.strip().lstrip("+-").replace("_", "")
        if len(digits) > MAX_DIGITS:
            raise GrimorioError(too_long(where.file, where.line, where.col, len(digits), where.end_col - where.col))
        return int(text)
    return text


def prepare(args, sources: Sources, cl: CommandLine, edit=None):
    """The encounter of a run or simulate command line, checked and prepared against its edition. The
    cyclic collector pauses meanwhile: what is imported, loaded or compiled here lives on, and its passes
    would only walk it again. `edit(encounter)`, if given, gives the encounter to prepare instead (odds --with)."""
    from ...dsl.pause import collector_paused
    with collector_paused():
        return _prepare(args, sources, cl, edit)


def _prepare(args, sources: Sources, cl: CommandLine, edit=None):
    from ...dsl.syntax import nodes as n
    from ..run.encounter import Prepared
    from ...dsl.check.front import load_encounter, roots_for
    from ..compile.programs import program_for
    if args.encounter.endswith(".rules"):
        raise GrimorioError(Diagnostic("E0002", f"grimorio {args.command} takes an encounter (a .enc file), not rules",
                                       cl.span(args.encounter), f"to check rules: grimorio check {args.encounter}"))
    enc = load_encounter(args.encounter, sources, cl.span(args.encounter))
    if edit is not None:
        enc = edit(enc)
    given = args.edition[-1] if isinstance(args.edition, list) and args.edition else args.edition or None
    edition = given or enc.edition
    if not edition:
        raise GrimorioError(Diagnostic("E0301", "the encounter names no edition", Span(args.encounter, 1, 1),
                                       "name it on a line of its own: \"edition\" and the edition's name; "
                                       "or pass --edition"))
    roots = roots_for(args.encounter, rules_roots(args.rules, cl))
    program = program_for(edition, enc.edition_span if not given else cl.span(given), sources,
                          roots, house_files(args.house, cl))
    print_warnings(program, sources)
    _shadowing(program, roots, len(args.rules), enc.edition_span if not given else cl.span(given), sources)
    overrides = {}
    for item in args.set:
        if "=" not in item:
            raise GrimorioError(Diagnostic("E0002", f'"--set {item}" needs a name, "=" and a value', cl.span(item),
                                           f"for example: --set {item or 'name'}={_example(program, item)}"))
        k, v = item.split("=", 1)
        overrides[k.strip()] = n.Const(cl.span(item), _option_value(v.strip(), cl.span(item)))
    state = None
    if getattr(args, "load_state", None) is not None:        # checked whole before anything runs
        from ..run.state import StateFile
        state = StateFile(args.load_state, program, sources, cl.span(args.load_state),
                          [c.name for c in enc.combatants])
    return Prepared(enc, program, overrides, state)


def _shadowing(program, roots, named: int, at: Span, sources: Sources) -> None:
    """Warn (E0011) when the edition is taken from a folder beside the encounter (not one --rules names)
    while a bundled edition has that name, and that folder is not the user's alone (another user's, or one
    others may write) and differs from the bundled one: in a shared folder (/tmp) it may be someone else's."""
    from ...dsl.editions.loader import bundled_root, edition_heads
    edition = program.ruleset.edition
    if not roots[named:-1] or edition.name not in edition_heads([bundled_root()]):
        return
    shown = Path(edition.span.file)           # as the loader names it: from the working folder, or rulesets/...
    entry = (shown if shown.is_file() else bundled_root().parent / shown).resolve()
    if any(entry.is_relative_to(Path(r).resolve()) for r in [*roots[:named], roots[-1]]):
        return                                 # the bundled edition itself, or one --rules names
    if _same_files(entry.parent, bundled_root() / entry.parent.name) or _own_folder(entry.parent):
        return        # a copy of the bundled edition (grimorio's own checkout), or the user's own edition
    print(render(Diagnostic("E0011", f'edition "{edition.name}" is taken from {entry}, beside the encounter, '
                                     "not the bundled one", at,
                            "an edition folder next to the encounter comes first; move the encounter, or "
                            "rename that folder's edition, if it is not yours", "warning"), sources),
          file=sys.stderr)


def _own_folder(folder: Path) -> bool:
    """Whether an edition folder and its rules files are the user's own and nobody else may write them
    (else, in a shared folder such as /tmp, the edition may be someone else's)."""
    import os
    import stat
    try:
        for path in (folder, *folder.glob("*.rules")):
            st = path.stat()
            if st.st_uid != os.getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                return False
    except OSError:
        return False
    return True


def _same_files(folder: Path, bundled: Path) -> bool:
    """Whether an edition folder holds exactly the bundled folder's rules files, byte for byte."""
    try:
        mine = sorted(p.name for p in folder.glob("*.rules"))
        if mine != sorted(p.name for p in bundled.glob("*.rules")):
            return False
        return all((folder / name).read_bytes() == (bundled / name).read_bytes() for name in mine)
    except OSError:
        return False


def _example(program, name: str) -> str:
    """A value of the option's own kind, as --set takes it: its default, else true."""
    default = program.options.get(name, True)
    return ("true" if default else "false") if type(default) is bool else f'"{default}"' if type(default) is str \
        else str(default)


def prepare_from_argv(argv):
    """What `prepare` gives for a command line: how a worker process prepares its own copy."""
    sources = Sources()
    return prepare(_parser(_named(argv)).parse_args(argv), sources, CommandLine(argv, sources))


def cmd_run(args, sources: Sources, cl: CommandLine) -> int:
    if args.load_state == "":
        raise GrimorioError(Diagnostic("E0002", "--load-state needs a file name", cl.span("--load-state"),
                                       "--load-state FILE; an empty name is often a variable that was not set"))
    outputs = _outputs(args, cl)
    prepared = prepare(args, sources, cl)
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
        from ...dsl.editions.loader import bundled_root
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
    from ..._version import version
    engine = outcome.engine
    head = header(prepared.enc.title, args.encounter, prepared.p, engine.seed, version())
    if args.format == "jsonl":
        sys.stdout.write(render_jsonl(engine, head))
    else:                   # a header above the transcript; none above a run that said nothing
        text = render_text(engine, args.explain)
        sys.stdout.write(escape(("" if args.quiet or not text else header_line(head)) + text))
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


def rules_roots(folders, cl: CommandLine) -> list[Path]:
    """--rules folders as ruleset roots: a folder of editions is one; an edition's or a module's own
    folder (it holds an entry file) adds the folder above it, so its neighbours are found too."""
    if not folders:
        return []
    from .checking import _entries, _modules
    out = []
    for folder in folders:
        path = Path(folder)
        if not path.is_dir():
            raise GrimorioError(Diagnostic("E0001", f'"{folder}" is not a folder', cl.span(folder),
                                           "--rules names an edition's or a module's folder, or a folder that holds them"))
        out.append(path.parent if _entries(path) or _modules(path) else path)
    return out


def house_files(files, cl: CommandLine) -> list[Path]:
    """--house files, each readable text, or an error at the command line."""
    from ...dsl.source import read_text
    for f in files:
        if not Path(f).is_file():
            raise GrimorioError(Diagnostic("E0001", f'there is no file "{f}"', cl.span(f),
                                           "--house names a .rules file of house rules"))
        read_text(Path(f), f, cl.span(f))
    return [Path(f) for f in files]


def print_warnings(program, sources) -> None:
    for w in getattr(program, "warnings", ()):
        colour.error(render(w, sources))


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
    from ...dsl.editions.loader import bundled_root, edition_heads
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
    argv = sys.argv[1:] if argv is None else list(argv)
    sources = Sources()
    cl = CommandLine(argv, sources)
    if not stdio.prepare():
        stdio.write_error(render(stdio.closed_output(), sources))
        return 2
    try:
        code = _command(argv, sources, cl)
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


def _command(argv, sources: Sources, cl: CommandLine) -> int:
    try:
        args = _parser(_named(argv)).parse_args(argv)
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
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            return _bug(exc, sources, cl)
        colour.error(render(Diagnostic("E0110", "a number grew too long to show (more than 4300 digits)", cl.whole(),
                                       "bound the computation that makes it: a loop or a rule that keeps multiplying"),
                            sources))
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
