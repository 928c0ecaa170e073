"""`grimorio check`: every diagnostic of a path, without running or compiling anything.

A folder or an edition's entry file is loaded as an edition and checked; another
.rules file is checked with the edition it belongs to (dsl/check/front.py:
owner_of), or else read for syntax; an encounter is read, its edition loaded and
checked, and the encounter checked against it. A module's folder, or a file of it,
is read with its includes (dsl/editions/modules.py: check_module), then checked
with each edition beside it (or bundled) that includes it by name. Everything here
is the front end's (dsl/): this module imports nothing of the compiler or the runtime.
"""
from __future__ import annotations

import os

from pathlib import Path

from ...dsl.syntax import nodes as n
from ...dsl.records import dataclass
from ...dsl.editions.cache import build_rules
from ...dsl.check.checker import standalone
from ...dsl.check.front import check_edition, check_encounter, checked_edition, load_encounter, owner_of, roots_for
from ...dsl.check.remembered import remembered
from ...dsl.diagnostics import Diagnostic, GrimorioError, Sources, Span
from ...dsl.editions.loader import house_heads, load_edition, load_entry, load_house
from ...dsl.editions.files import bundled_root, duplicate_editions, edition_heads, entry_heads
from ...dsl.editions.modules import check_module, duplicate_modules, editions_including
from ...dsl.source import read_text


@dataclass(frozen=True)
class Layers:
    """What the command line adds to every edition checked: house-rule files layered on it,
    and folders (ruleset roots) where editions are looked for first."""
    houses: tuple = ()
    rules: tuple = ()


def check_path(path: Path, sources: Sources, at: Span | None = None, houses=(), rules=()) -> list[Diagnostic]:
    """The diagnostics of one path, warnings included; `at` is where the path was named (the
    command line); `houses` are house-rule files layered on every edition checked, `rules` the
    roots (--rules folders) where editions are looked for first."""
    return _path(path, sources, at or Span(str(path), 0, 0), Layers(tuple(houses), tuple(rules)))


def _path(path: Path, sources: Sources, at: Span, layers: Layers) -> list[Diagnostic]:
    try:
        if path.is_dir():
            return _folder(path, sources, at, layers)
        if path.suffix == ".enc":
            return _encounter(path, sources, at, layers)
        if path.suffix == ".rules" or not path.exists():
            return _rules(path, sources, at, layers)
        return [Diagnostic("E0001", f'"{path}" is neither rules nor an encounter', at,
                           "grimorio checks .rules files, .enc files and edition folders")]
    except GrimorioError as exc:
        return exc.diagnostics


def _entries(folder: Path) -> list[Path]:
    """The entry files of a folder (a line at the margin declares an edition)."""
    return list(dict.fromkeys(h.entry for h in entry_heads(folder)))


def _roots(folder: Path, rules=()) -> list[Path]:
    # The --rules folders first, as run looks; then sibling folders, so an edition can extend
    # one beside it; then the bundled ones.
    return [*rules, folder.parent, bundled_root()]


def _edition(entry: Path, sources: Sources, layers: Layers = Layers()) -> list[Diagnostic]:
    """An edition's diagnostics: kept from an earlier check while its files read the same (remembered.py)."""
    return remembered(("edition", entry.resolve(), *layers.rules, "\0houses", *layers.houses), sources,
                      lambda: _edition_checked(entry, sources, layers), code=(__file__,))


def _edition_checked(entry: Path, sources: Sources, layers: Layers) -> list[Diagnostic]:
    try:
        rs = load_entry(entry, _roots(entry.parent, layers.rules), sources)
        for house in layers.houses:
            load_house(rs, Path(house))
        warnings = check_edition(rs)
        return standalone(rs) + warnings          # what the checker found first; then what a run would miss
    except GrimorioError as exc:
        return exc.diagnostics


def _modules(folder: Path) -> list[Path]:
    """The entry files of the modules of a folder (a line at the margin declares a module)."""
    return list(dict.fromkeys(h.entry for h in entry_heads(folder, "module")))


def _folder(folder: Path, sources: Sources, at: Span, layers: Layers, top: bool = True) -> list[Diagnostic]:
    """`top` is false for the folders under the one named: their modules' editions are checked there."""
    unread = _unreadable(folder, at)
    if unread and unread[0].span is at:
        return unread                   # the folder named itself
    entries, modules = _entries(folder), _modules(folder)
    subfolders = [p for p in sorted(folder.iterdir())
                  if p.is_dir() and not _unread(p) and (_entries(p) or _modules(p) or _houses(p))]
    if unread and not entries and not modules and not subfolders:
        return unread
    if not entries and not modules and _houses(folder):
        # A folder of house-rule files (rulesets/casa): each checked as a layer over the edition it names.
        return unread + [d for f in _houses(folder) for d in _rules(f, sources, at, layers)] + \
            [d for sub in subfolders for d in _folder(sub, sources, at, layers, top=False)]
    if not entries and not modules and not subfolders:
        return [Diagnostic("E0301", f'the folder "{folder}" holds no edition', at,
                           'an edition folder has one .rules file that starts with "edition", '
                           'the edition\'s name and ":" (a module\'s, one that starts with "module")')]
    out = duplicate_editions(edition_heads([folder]))
    heads = edition_heads([folder], "module")
    out += [d for name in heads for d in duplicate_modules(heads, name)]
    for entry in entries:
        out += _edition(entry, sources, layers)
    for entry in modules:
        out += _module(entry, sources, layers, with_users=top)
    for f in sorted(folder.glob("*.enc")):
        out += _path(f, sources, at, layers)
    for sub in subfolders:
        out += _folder(sub, sources, at, layers, top=False)
    return unread + out


def _unread(folder: Path) -> str | None:
    """Why a folder cannot be listed (None: it can)."""
    try:
        with os.scandir(folder):
            return None
    except OSError as exc:
        return exc.strerror or str(exc)


def _unreadable(folder: Path, at: Span) -> list[Diagnostic]:
    """E0012 for the folder, or each folder in it, that cannot be read: check never says ok without looking."""
    why = _unread(folder)
    if why is not None:
        return [Diagnostic("E0012", f'the folder "{folder}" cannot be read: {why}', at,
                           "nothing in it was checked; give yourself read access, or check another folder")]
    out = []
    for p in sorted(folder.iterdir()):
        if p.is_dir() and not p.name.startswith(".") and (why := _unread(p)) is not None:
            out.append(Diagnostic("E0012", f'the folder "{p}" cannot be read: {why}', Span(str(p), 0, 0),
                                  "nothing in it was checked; give yourself read access, or leave it out"))
    return out


def _houses(folder: Path) -> list[Path]:
    """The .rules files of a folder that holds no edition and no module: house-rule files."""
    try:
        files = sorted(f for f in folder.glob("*.rules") if f.is_file())
    except OSError:
        return []
    return files if files and not _entries(folder) and not _modules(folder) else []


def _module(entry: Path, sources: Sources, layers: Layers, with_users: bool = True) -> list[Diagnostic]:
    """A module: its files and includes, then each edition beside it (or bundled) that includes it, since
    its names are checked against what an edition declares."""
    roots = _roots(entry.parent, layers.rules)
    out = check_module(entry, roots, sources)
    if out or not with_users:
        return out
    for user in editions_including(entry.parent, roots, _readable):
        out += [d for d in _edition(user, sources, layers) if d not in out]
    return out


def _readable(path: Path) -> str | None:
    try:
        return read_text(path)
    except GrimorioError:
        return None


def _rules(path: Path, sources: Sources, at: Span, layers: Layers) -> list[Diagnostic]:
    text = read_text(path, str(path), at, sources)
    owner = owner_of(path, lambda p: text if p == path else _readable(p))
    if owner is not None:
        kind, entry = owner
        return (_edition if kind == "edition" else _module)(entry, sources, layers)
    sources.texts[str(path)] = text
    decls, diags = build_rules(text, str(path))
    if diags:
        return diags
    return _house(path, decls, sources, layers)


def _house(path: Path, decls, sources: Sources, layers: Layers) -> list[Diagnostic]:
    """A rules file no edition or module holds is a house-rule file: checked as a layer over the edition
    its `extends` line names (or the --house files' edition given with it), never read for syntax alone."""
    unnamed = unnamed_edition(path, decls)
    if unnamed is not None:
        return [unnamed]
    try:
        rs = house_ruleset(path, decls, sources, _roots(path.parent, layers.rules), layers.houses)
        warnings = check_edition(rs)
        return standalone(rs) + warnings
    except GrimorioError as exc:
        return exc.diagnostics


def unnamed_edition(path: Path, decls) -> Diagnostic | None:
    """What is said of a house-rule file without an `extends` line: an error when it patches (it cannot
    be checked), a warning when it only declares (its syntax was checked); None when it names one."""
    if house_heads(decls):
        return None
    how = ("name it on a line of its own at the top: extends EDITION (or check the file over an edition: "
           "grimorio check --house FILE EDITION_FOLDER)")
    if any(isinstance(d, n.Patch) for d in decls):
        return Diagnostic("E0323", "these house rules do not say which edition they change", Span(str(path), 1, 1), how)
    return Diagnostic("W0323", "only the syntax of this file was checked: no edition includes it, and it "
                               "names none", Span(str(path), 1, 1), how, "warning")


def house_ruleset(path: Path, decls, sources: Sources, roots, houses=()):
    """The edition a house-rule file's `extends` line names, with the --house files and then the file
    itself layered on it (the file read through `sources`, so an editor's unsaved text counts)."""
    head = house_heads(decls)[0]
    rs = load_edition(head.edition, roots, head.span, sources)
    for house in (*houses, path):
        load_house(rs, Path(house))
    return rs


def _encounter(path: Path, sources: Sources, at: Span, layers: Layers) -> list[Diagnostic]:
    """An encounter's diagnostics (its edition's warnings among them): kept from an earlier check
    while the encounter's text and what its check read are the same (remembered.py)."""
    text = read_text(path, str(path), at, sources)
    return remembered(("encounter", path.resolve(), text, *layers.rules, "\0houses", *layers.houses), sources,
                      lambda: _encounter_checked(path, sources, at, layers), code=(__file__,))


def _encounter_checked(path: Path, sources: Sources, at: Span, layers: Layers) -> list[Diagnostic]:
    try:
        enc = load_encounter(path, sources, at)
        if not enc.edition:
            return [Diagnostic("E0301", "the encounter names no edition", Span(str(path), 1, 1),
                               "name it on a line of its own: \"edition\" and the edition's name")]
        rs, warnings, facts, names = checked_edition(enc.edition, roots_for(path, layers.rules), enc.edition_span,
                                                     sources, layers.houses)
        diags = check_encounter(enc, rs, facts, enc.settings, names)
    except GrimorioError as exc:
        return exc.diagnostics
    return diags or warnings
