"""The grimorio command line: run, check, editions."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dsl.diagnostics import Diagnostic, GrimorioError, Sources, Span, render, render_all
from dsl.loader import find_editions

from .encounter import Prepared, load_encounter, program_for
from .transcript import render_jsonl, render_text
from .values import show


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(render(Diagnostic("E0002", f"bad command line: {message}", Span("<command line>", 0, 0),
                                "grimorio --help lists the commands and their options")), file=sys.stderr)
        sys.exit(2)


def _parser():
    p = _Parser(prog="grimorio", description="Run tabletop role-playing rules written as text.")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    r = sub.add_parser("run", help="run an encounter and print its transcript")
    r.add_argument("encounter")
    r.add_argument("--edition", help="the edition to use instead of the one the encounter names")
    r.add_argument("--seed", type=int)
    r.add_argument("--format", choices=["text", "jsonl"], default="text")
    r.add_argument("--explain", action="store_true", help="show the rule behind each line")
    r.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE", help="set a ruleset option")
    c = sub.add_parser("check", help="check rulesets, editions and encounters; print diagnostics")
    c.add_argument("paths", nargs="+")
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


def cmd_run(args, sources: Sources) -> int:
    enc = load_encounter(args.encounter, sources)
    edition = args.edition or enc.edition
    if not edition:
        raise GrimorioError(Diagnostic("E0301", "the encounter names no edition", Span(args.encounter, 1, 1),
                                       'add a line "edition NAME", or pass --edition NAME'))
    program = program_for(edition, enc.edition_span if not args.edition else None, sources)
    overrides = {}
    for item in args.set:
        if "=" not in item:
            raise GrimorioError(Diagnostic("E0002", f'"--set {item}" needs the form OPTION=VALUE',
                                           Span("<command line>", 0, 0)))
        k, v = item.split("=", 1)
        overrides[k.strip()] = _option_value(v.strip())
    prepared = Prepared(enc, program, overrides)
    outcome = prepared.run(seed=args.seed, record=True, json=args.format == "jsonl")
    text = render_jsonl(outcome.engine) if args.format == "jsonl" else render_text(outcome.engine, args.explain)
    sys.stdout.write(text)
    for node, left, right in outcome.failed:
        help = None
        if left is not None or right is not None:
            help = f"the left side is {show(left)}, the right side is {show(right)}"
        print(render(Diagnostic("E0601", "this expectation failed", node.span, help), sources), file=sys.stderr)
    return 1 if outcome.failed else 0


def cmd_check(args, sources: Sources) -> int:
    from dsl.checker import check_path
    diags = []
    for path in args.paths:
        diags.extend(check_path(Path(path), sources))
    if diags:
        print(render_all(diags, sources), file=sys.stderr)
        print(f"{len(diags)} error{'s' if len(diags) != 1 else ''}", file=sys.stderr)
        return 2
    print("ok")
    return 0


def cmd_editions(args, sources) -> int:
    from dsl.loader import load_entry
    for name, path in sorted(find_editions().items()):
        try:
            ed = load_entry(path).edition
            print(f"{name:12} {ed.title or ''}")
        except GrimorioError:
            print(f"{name:12} (does not load: grimorio check {path})")
    return 0


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    sources = Sources()
    if args.command is None:
        _parser().print_help()
        return 2
    try:
        code = {"run": cmd_run, "check": cmd_check, "editions": cmd_editions}[args.command](args, sources)
    except GrimorioError as exc:
        print(render_all(exc.diagnostics, sources), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
