"""A run's encounter from its command line, checked and prepared against its program (`prepare`):
what run, simulate, diff, odds and the Python API share, and how a worker process prepares its own copy
(`prepare_from_argv`). Below the commands that use it (cli.py, simulate.py, simulate_cli.py, odds_cli.py).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from ...dsl.diagnostics import Diagnostic, GrimorioError, Sources, Span, render

from . import colour
from .arguments import CommandLine, _named, _parser


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
    from ...dsl.editions.files import bundled_root, edition_heads
    edition = program.ruleset.edition
    if not roots[named:-1]:
        return
    shown = Path(edition.span.file)           # as the loader names it: from the working folder, or rulesets/...
    entry = (shown if shown.is_file() else bundled_root().parent / shown).resolve()
    if any(entry.is_relative_to(Path(r).resolve()) for r in [*roots[:named], roots[-1]]):
        return                  # the bundled edition itself, or one --rules names (asked before the bundled
                                # editions' heads are read: a run of a bundled encounter reads none of them)
    if edition.name not in edition_heads([bundled_root()]):
        return
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
