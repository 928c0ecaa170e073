"""What an editor needs to know of an open file, without any editor protocol.

`analyse` checks a rules file with the edition it belongs to (the edition it
declares, or the one of its folder that includes it) or an encounter with the
edition it names, reading unsaved editor buffers instead of the files on disk.
It gives the same diagnostics as `grimorio check`, grouped by file, and the
declarations the file can see, with the edition each comes from, for hover,
go to definition and completion. The language server (lsp.py) only translates.
"""
from __future__ import annotations

import re
from ...dsl.records import dataclass, field
from pathlib import Path

from ...dsl.syntax import nodes as n
from ...dsl.syntax.builder import build_encounter, build_rules
from ...dsl.diagnostics import Diagnostic, GrimorioError, Sources, Span
from ...dsl.syntax.keywords import all_keywords
from ...dsl.editions.loader import load_edition, load_entry
from ...dsl.editions.files import NAMESPACE, Ruleset, bundled_root
from ...dsl.editions.modules import editions_including
from ...dsl.source import read_text

from .checking import _roots, house_ruleset, unnamed_edition
from ...dsl.check.checker import standalone
from ...dsl.check.front import check_edition, check_encounter, facts_of, owner_of, purposes, roots_for

NAME = re.compile(r"[^\W\d]\w*")
MAX_HOVER_LINES = 30


@dataclass(frozen=True)
class Symbol:
    """Something with a name the designer can point at: a declaration, a sheet field, an outcome."""
    name: str
    kind: str               # a namespace of the loader (rule, table, ...), or field, outcome
    span: Span
    origin: str | None      # the edition (or layer) that declares it
    detail: str = ""        # the declaration it belongs to, for fields and outcomes


@dataclass
class Analysis:
    path: Path
    sources: Sources
    diagnostics: dict[Path, list[Diagnostic]] = field(default_factory=dict)
    ruleset: Ruleset | None = None
    decls: list[n.Decl] = field(default_factory=list)      # this file's own declarations
    encounter: n.Encounter | None = None

    def add(self, diags) -> None:
        for d in diags:
            where = locate(d.span.file) or self.path
            found = self.diagnostics.setdefault(where, [])
            if d not in found:
                found.append(d)

    @property
    def files(self) -> set[Path]:
        """Every file this analysis read: each gets its diagnostics, or none to clear old ones."""
        out = {self.path} | set(self.diagnostics)
        out |= {p for p in (locate(f) for f in self.sources.texts) if p is not None}
        return out


def locate(display: str) -> Path | None:
    """The file a span names (the loader shows paths relative to the current folder, or to the bundled rulesets)."""
    if not display or display.startswith("<"):
        return None
    p = Path(display)
    if p.is_absolute():
        return p.resolve()
    if (Path.cwd() / p).exists():
        return (Path.cwd() / p).resolve()
    if p.parts[:1] == ("rulesets",):
        return (bundled_root() / Path(*p.parts[1:])).resolve()
    return None


# ------------------------------------------------------------------ checking
def analyse(path: Path, text: str, unsaved: dict[str, str] | None = None) -> Analysis:
    """Check one file as `grimorio check` would, reading `unsaved` (resolved path -> text) instead of disk."""
    path = path.resolve()
    unsaved = {k: v.replace("\r\n", "\n") for k, v in (unsaved or {}).items()}
    unsaved[str(path)] = text = text.replace("\r\n", "\n")
    a = Analysis(path, Sources(unsaved=unsaved))
    try:
        (_encounter if path.suffix == ".enc" else _rules)(a, text)
    except GrimorioError as exc:
        a.add(exc.diagnostics)
    return a


def _text(path: Path, unsaved: dict[str, str]) -> str | None:
    got = unsaved.get(str(path.resolve()))
    if got is not None:
        return got
    try:
        return read_text(path)
    except GrimorioError:
        return None


def entry_for(path: Path, text: str, unsaved: dict[str, str]) -> Path | None:
    """The entry file of the edition a rules file belongs to (dsl/check/front.py: owner_of, as
    `grimorio check` finds it), reading unsaved texts first; a module's file, its first user's."""
    owner = owner_of(path, lambda p: text if p == path else _text(p, unsaved))
    if owner is not None and owner[0] == "edition":
        return owner[1]
    return _module_user(path, unsaved)


def _module_user(path: Path, unsaved: dict[str, str]) -> Path | None:
    """For a file of a module's folder: the entry file of the first edition, beside the module's folder or
    bundled, that includes the module by name, so the module is checked with what that edition declares."""
    users = editions_including(path.parent, _roots(path.parent), lambda p: _text(p, unsaved))
    return users[0] if users else None


def _rules(a: Analysis, text: str) -> None:
    a.decls, diags = build_rules(text, str(a.path))
    entry = entry_for(a.path, text, a.sources.unsaved)
    if entry is None:
        a.sources.texts[str(a.path)] = text
        a.add(diags)
        if not diags:
            _house(a)
        return
    a.ruleset = load_entry(entry, _roots(entry.parent), a.sources)
    check_edition(a.ruleset)


def _house(a: Analysis) -> None:
    """A rules file no edition holds is a house-rule file: checked as a layer over the edition its
    `extends` line names, as `grimorio check` does."""
    unnamed = unnamed_edition(a.path, a.decls)
    if unnamed is not None:
        a.add([unnamed])
        return
    a.ruleset = house_ruleset(a.path, a.decls, a.sources, _roots(a.path.parent))
    check_edition(a.ruleset)
    a.add(standalone(a.ruleset))


def changes_at(a: Analysis, line: int) -> list:
    """What a layer's line (1-based) changes in the edition below it: the layer, and the declaration it
    replaced or patched, where that was (the file being edited must be that layer)."""
    ruleset = a.ruleset
    if ruleset is None:
        return []
    return [c for c in ruleset.changes if c.span.line <= line <= (c.span.end_line or c.span.line)
            and locate(c.span.file) == a.path]


def change_text(change, sources: Sources) -> str:
    """A hover's text for a layer's change: what it does, the layer, and the declaration below it."""
    head = f"{change.layer}: {change.what}"
    if change.below is None:
        return head
    below = Symbol(change.name, change.kind, change.below, None)
    where = f"{change.below.file}:{change.below.line}"
    return f"{head}, which was at {where}:\n\n```grimorio\n{declaration_text(below, sources)}\n```"


def _encounter(a: Analysis, text: str) -> None:
    display = str(a.path)
    a.sources.texts[display] = text
    enc, diags = build_encounter(text, display)
    if diags:
        raise GrimorioError(diags)
    a.encounter = enc
    if not enc.edition:
        return
    a.ruleset = load_edition(enc.edition, roots_for(a.path), enc.edition_span, a.sources)
    check_edition(a.ruleset)
    diags = check_encounter(enc, a.ruleset, facts_of(a.ruleset), enc.settings)
    if diags:
        raise GrimorioError(diags)


# ------------------------------------------------------------------ symbols
def symbols(ruleset: Ruleset | None, own: list[n.Decl] = ()) -> list[Symbol]:
    """The declarations of a ruleset (and of a file's own declarations, which win), their fields and outcomes."""
    decls: dict[tuple[str, str], tuple[n.Decl, str | None]] = {}
    if ruleset is not None:
        for kind, space in ruleset.spaces.items():
            for name, d in space.items():
                decls[(kind, name)] = (d, ruleset.origin.get((kind, name)))
    for d in own:
        if type(d) not in NAMESPACE:            # a module's head names no declaration of the ruleset
            continue
        kind = NAMESPACE[type(d)]
        decls[(kind, d.name)] = (d, decls.get((kind, d.name), (None, None))[1])
    out = []
    for (kind, name), (d, origin) in decls.items():
        out.append(Symbol(name, type(d).__name__.lower(), d.span, origin))
        if isinstance(d, n.Sheet):
            out += [Symbol(f.name, "field", f.span, origin, d.name) for f in d.fields]
        elif isinstance(d, n.Outcomes):
            out += [Symbol(v, "outcome", sp, origin, d.name) for v, sp in zip(d.values, d.value_spans)]
    return out


def completions(analysis: Analysis, ruleset: Ruleset | None) -> dict[str, list[str]]:
    """Words to complete, each with what it is (a word may be several things): declared names, sheet fields,
    table keys, outcomes, grades, the purposes rolls are made for, combatants, and the language's keywords."""
    words: dict[str, list[str]] = {}

    def add(word, kind):
        kinds = words.setdefault(word, [])
        if kind not in kinds:
            kinds.append(kind)
    for s in symbols(ruleset, analysis.decls):
        add(s.name, s.kind)
    decls = [d for space in (ruleset.spaces.values() if ruleset else ()) for d in space.values()] + analysis.decls
    for d in decls:
        if isinstance(d, n.Table) and d.dice is None:
            for row in d.rows:
                if isinstance(row[0], n.Const) and isinstance(row[0].value, str):
                    add(row[0].value, "key")
        elif isinstance(d, n.Condition):
            for g in d.grades:
                add(g, "grade")
    for p in sorted(purposes(ruleset) if ruleset is not None else ()):
        add(p, "purpose")
    for c in analysis.encounter.combatants if analysis.encounter is not None else ():
        add(c.name, "combatant")
    for w in sorted(all_keywords()):
        add(w, "keyword")
    return words


def word_at(line: str, col: int) -> str | None:
    """The name under a (0-based) column of a line."""
    for m in NAME.finditer(line):
        if m.start() <= col <= m.end():
            return m.group()
    return None


def lookup(word: str, syms: list[Symbol]) -> list[Symbol]:
    """The symbols a word names: declarations first, then fields and outcomes."""
    found = [s for s in syms if s.name == word]
    return sorted(found, key=lambda s: s.kind in ("field", "outcome"))


def declaration_text(symbol: Symbol, sources: Sources) -> str:
    """The source of a declaration with the comment lines right above it."""
    path = locate(symbol.span.file)
    text = sources.texts.get(symbol.span.file)
    if text is None and path is not None:
        text = _text(path, sources.unsaved)
    if text is None or symbol.span.line < 1:
        return symbol.name
    lines = text.split("\n")
    sp = symbol.span
    end = sp.end_line - 1 if sp.end_line > sp.line and sp.end_col <= 1 else max(sp.line, sp.end_line)
    start = sp.line - 1
    while start > 0 and lines[start - 1].lstrip().startswith("#"):
        start -= 1
    body = lines[start:end]
    while len(body) > 1 and (not body[-1].strip() or body[-1].startswith("#")):
        body.pop()              # blank lines, and the comments of the next declaration
    if len(body) > MAX_HOVER_LINES:
        body = body[:MAX_HOVER_LINES] + ["..."]
    return "\n".join(body).rstrip()


def hover_text(symbol: Symbol, sources: Sources) -> str:
    where = f"{symbol.span.file}:{symbol.span.line}" if symbol.span.line else symbol.span.file
    of = f" of `{symbol.detail}`" if symbol.detail else ""
    origin = f" — edition **{symbol.origin}**" if symbol.origin else ""
    return f"```grimorio\n{declaration_text(symbol, sources)}\n```\n\n{symbol.kind}{of}{origin}, {where}"
