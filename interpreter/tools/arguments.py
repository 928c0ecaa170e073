"""The command line's grammar: each command's arguments (argparse), and the command line as a
one-line source, so its mistakes are shown like a file's. Below every command (cli.py, preparing.py):
it imports nothing of grimorio's but the diagnostics.
"""
from __future__ import annotations

import argparse
import os
import shlex
import sys

from ...dsl.diagnostics import Diagnostic, Sources, Span


def terminal_columns() -> int:
    """shutil.get_terminal_size().columns, worked out as it works it out (COLUMNS, else the terminal of
    standard output, else 80), without importing shutil (and the compression modules it imports)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, as wide as it makes itself (the terminal's width less 2): argparse makes
    one for every argument added, and the standard one imports shutil to learn that width."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        super().__init__(prog, indent_increment, max_help_position, terminal_columns() - 2 if width is None else width)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, noting the argument it refuses as it refuses it (so the mistake is shown at
    that argument, never found again in argparse's message)."""

    offending: str | None = None

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise _UsageError(self, message, self.offending)

    def parse_args(self, args=None, namespace=None):
        parsed, left = self.parse_known_args(args, namespace)
        if left:
            self.offending = left[0]
            self.error(f"unrecognized arguments: {' '.join(left)}")
        return parsed

    def _get_value(self, action, arg_string):
        self.offending = arg_string             # a value of the wrong type: argparse refuses it next
        value = super()._get_value(action, arg_string)
        self.offending = None
        return value

    def _check_value(self, action, value):
        if action.choices is not None and value not in action.choices:
            self.offending = value if isinstance(value, str) else None
        super()._check_value(action, value)


class _UsageError(Exception):
    def __init__(self, parser, message, offending: str | None = None):
        super().__init__(message)
        self.parser, self.message, self.offending = parser, message, offending


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
        """The mistake at the argument the parser refused (else at the end of the line)."""
        return Diagnostic("E0002", f"bad command line: {exc.message}", self.span(exc.offending),
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
