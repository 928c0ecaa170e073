"""The grimorio command line: run, check, editions."""
from __future__ import annotations

import argparse
import re
import shlex
import sys
from pathlib import Path

from ..dsl import nodes as n
from ..dsl.diagnostics import Diagnostic, GrimorioError, Sources, Span, render, render_all
from ..dsl.loader import find_editions

from .checking import check_path
from .encounter import Prepared, load_encounter, program_for, roots_for
from .transcript import render_jsonl, render_text
from .values import show


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


def _parser():
    p = _Parser(prog="grimorio", description="Run tabletop role-playing rules written as text.")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    r = sub.add_parser("run", help="run an encounter and print its transcript")
    r.add_argument("encounter", help="the encounter script (.enc)")
    r.add_argument("--edition", help="the edition to use instead of the one the encounter names")
    r.add_argument("--seed", type=int, help="the dice seed, instead of the encounter's")
    r.add_argument("--format", choices=["text", "jsonl"], default="text",
                   help="text: the transcript; jsonl: one structured event per line")
    r.add_argument("--explain", action="store_true", help="show the rule behind each line")
    r.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE", help="set a ruleset option")
    r.add_argument("--rules", action="append", default=[], metavar="DIR",
                   help="a folder of edition folders to look in first (repeatable)")
    r.add_argument("--budget", type=int, metavar="STEPS",
                   help="the step budget of the run (default 1000000): rule calls, loop turns, list elements, "
                        "rounds, events and dice")
    c = sub.add_parser("check", help="check rulesets, editions and encounters; print diagnostics")
    c.add_argument("paths", nargs="+", help="edition folders, .rules files and .enc files")
    sub.add_parser("editions", help="list the bundled editions")
    return p


def _option_value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        return text


def cmd_run(args, sources: Sources, cl: CommandLine) -> int:
    if args.encounter.endswith(".rules"):
        raise GrimorioError(Diagnostic("E0002", "grimorio run takes an encounter (a .enc file), not rules",
                                       cl.span(args.encounter), f"to check rules: grimorio check {args.encounter}"))
    enc = load_encounter(args.encounter, sources, cl.span(args.encounter))
    edition = args.edition or enc.edition
    if not edition:
        raise GrimorioError(Diagnostic("E0301", "the encounter names no edition", Span(args.encounter, 1, 1),
                                       "name it on a line of its own: \"edition\" and the edition's name; "
                                       "or pass --edition"))
    for folder in args.rules:
        if not Path(folder).is_dir():
            raise GrimorioError(Diagnostic("E0001", f'"{folder}" is not a folder', cl.span(folder),
                                           "--rules names a folder that holds edition folders"))
    program = program_for(edition, enc.edition_span if not args.edition else cl.span(args.edition), sources,
                          roots_for(args.encounter, args.rules))
    overrides = {}
    for item in args.set:
        if "=" not in item:
            raise GrimorioError(Diagnostic("E0002", f'"--set {item}" needs a name, "=" and a value', cl.span(item),
                                           f"for example: --set {item or 'name'}=true"))
        k, v = item.split("=", 1)
        overrides[k.strip()] = n.Const(cl.span(item), _option_value(v.strip()))
    prepared = Prepared(enc, program, overrides)
    outcome = prepared.run(seed=args.seed, record=True, json=args.format == "jsonl", budget=_budget(args, cl))
    text = render_jsonl(outcome.engine) if args.format == "jsonl" else render_text(outcome.engine, args.explain)
    sys.stdout.write(text)
    for node, left, right in outcome.failed:
        help = None
        if left is not None or right is not None:
            help = f"the left side is {show(left)}, the right side is {show(right)}"
        print(render(Diagnostic("E0601", "this expectation failed", node.span, help), sources), file=sys.stderr)
    return 1 if outcome.failed else 0


def _budget(args, cl: CommandLine) -> int | None:
    if args.budget is not None and not 0 < args.budget <= 10 ** 12:
        raise GrimorioError(Diagnostic("E0002", f"--budget {args.budget} is no budget", cl.span(str(args.budget)),
                                       "a number of steps from 1 to 1000000000000 (default 1000000)"))
    return args.budget


def cmd_check(args, sources: Sources, cl: CommandLine) -> int:
    diags = []
    for path in args.paths:
        for d in check_path(Path(path), sources, cl.span(path)):
            if d not in diags:          # two paths of one edition report its errors once
                diags.append(d)
    if diags:
        print(render_all(diags, sources), file=sys.stderr)
        print(f"{len(diags)} error{'s' if len(diags) != 1 else ''}", file=sys.stderr)
        return 2
    print("ok")
    return 0


def cmd_editions(args, sources, cl) -> int:
    from ..dsl.loader import load_entry
    for name, path in sorted(find_editions().items()):
        try:
            ed = load_entry(path).edition
            print(f"{name:12} {ed.title or ''}")
        except GrimorioError:
            print(f"{name:12} (does not load: grimorio check {path})")
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    sources = Sources()
    cl = CommandLine(argv, sources)
    try:
        args = _parser().parse_args(argv)
    except _UsageError as exc:
        exc.parser.print_usage(sys.stderr)
        print(render(cl.usage_error(exc), sources), file=sys.stderr)
        return 2
    if args.command is None:
        _parser().print_help()
        return 2
    try:
        code = {"run": cmd_run, "check": cmd_check, "editions": cmd_editions}[args.command](args, sources, cl)
    except GrimorioError as exc:
        print(render_all(exc.diagnostics, sources), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except (Exception, RecursionError) as exc:  # noqa: BLE001 - the last guard of "never a traceback"
        print(render(Diagnostic("E0003", "grimorio failed on this input: this is a bug in grimorio", cl.whole(),
                                f"please report it with the files you gave it ({type(exc).__name__}: {exc})"),
                     sources), file=sys.stderr)
        return 2
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
