"""Files to a Ruleset: an edition, the editions it extends, and its includes,
merged into one table of named declarations.

Declarations live in namespaces by kind. A derived edition, and each
house-rule file, is a layer over the edition below it (dsl/editions/layers.py): its
declarations replace same-named ones keeping their place, so transcripts
stay in a stable order, and its patches change parts of them by name.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from . import cache
from ..syntax import nodes as n
from .cache import build_rules
from ..diagnostics import Diagnostic, GrimorioError, Sources, Span, did_you_mean
from ..records import dataclass, field, replace
from ..source import read_text

# Which kinds share a namespace (a name must be unique within one). Tables, conditions, vars and
# outcome lists are all read by a bare name: one name, one of them. A rule is only ever called (a
# bare name never means it), so it has a namespace of its own (docs/language.md, "Names").
NAMESPACE = {
    n.Rule: "rule", n.Table: "value", n.Condition: "value", n.Var: "value", n.Outcomes: "value",
    n.Option: "option", n.Sheet: "sheet", n.Check: "check", n.Message: "message", n.Event: "event",
    n.Action: "action", n.Reaction: "reaction", n.Tactic: "tactic", n.Round: "round", n.Edition: "edition",
    n.Tally: "tally", n.Stands: "tally", n.Draw: "tally", n.Format: "format",
}


@dataclass
class Ruleset:
    edition: n.Edition
    root: Path
    spaces: dict[str, dict[str, n.Decl]] = field(default_factory=dict)
    origin: dict[tuple[str, str], str] = field(default_factory=dict)
    sources: Sources = field(default_factory=Sources)
    # Layering: the layers applied (lowest first), which file belongs to which,
    # every change they made, the last change to each thing, and warnings.
    layers: list = field(default_factory=list)
    layer_files: dict = field(default_factory=dict)
    changes: list = field(default_factory=list)
    touched: dict = field(default_factory=dict)
    warnings: list[Diagnostic] = field(default_factory=list)
    # Modules included so far (dsl/editions/modules.py): name -> where, and by which edition or module.
    modules: dict = field(default_factory=dict)
    module_files: dict = field(default_factory=dict)     # a module's file (as spans name it) -> the module

    def space(self, kind: str) -> dict[str, n.Decl]:
        return self.spaces.setdefault(kind, {})

    def all(self, cls):
        return [d for d in self.space(NAMESPACE[cls]).values() if isinstance(d, cls)]


def bundled_root() -> Path:
    from ... import rulesets  # the bundled rulesets' package: a plain folder (importlib.resources costs more)
    return Path(rulesets.__file__).parent


@dataclass(frozen=True)
class EditionHead:
    """An edition (or a module: `kind`) as its entry file's head declares it, read without building anything."""
    name: str
    entry: Path
    line: int
    title: str | None = None
    extends: str | None = None
    kind: str = "edition"

    @property
    def span(self) -> Span:
        return Span(_display(self.entry), self.line, 1, self.line, len(self.kind) + len(self.name) + 2)


HEAD_BYTES = 64 * 1024       # how much of a .rules file is read to learn whether it is an entry file
_TITLE = re.compile(r'[ \t]+title[ \t]+"((?:\\.|[^"\\\n])*)"')
_EXTENDS = re.compile(r'[ \t]+extends[ \t]+([^\W\d]\w*)')


def entry_heads(folder: Path, kind: str = "edition") -> list[EditionHead]:
    """The editions (or modules) declared by the entry files of one folder. An entry file is a .rules file
    with a line that starts with `edition` (or `module`) in its head (its first HEAD_BYTES): of every other
    file only the head is read. Only regular files are opened, and nothing is read past the size cap, so a
    FIFO or a device never blocks this."""
    out = []
    start = kind.encode() + b" "
    try:
        files = [folder / name for name in cache.consult("names", folder, "*.rules")]
    except OSError:
        return out
    for f in files:
        try:
            head = cache.consult("head", f, HEAD_BYTES)
            if not any(ln.startswith(start) for ln in head.split(b"\n")):
                continue
            data = head if len(head) < HEAD_BYTES else cache.consult("bytes", f)
        except (OSError, ValueError):
            continue
        lines = data.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
        for i, line in enumerate(lines):
            if line.startswith(kind + " "):
                name = line[len(kind) + 1:].split(":")[0].split("#")[0].strip()
                title = _head_line(lines, i + 1, _TITLE)
                out.append(EditionHead(name, f, i + 1, title and re.sub(r"\\(.)", r"\1", title),
                                       _head_line(lines, i + 1, _EXTENDS), kind))
    return out


def _head_line(lines: list[str], start: int, pattern: re.Pattern) -> str | None:
    """What `pattern` finds on an indented line of the edition block that starts at `start`."""
    for line in lines[start:]:
        if line[:1] not in (" ", "\t", "#", ""):
            return None
        m = pattern.match(line)
        if m:
            return m.group(1)
    return None


def edition_heads(roots: list[Path] | None = None, kind: str = "edition") -> dict[str, list[EditionHead]]:
    """Edition (or module) name -> its entries in the first root that declares it (more than one is an
    error: E0107, E0319)."""
    out: dict[str, list[EditionHead]] = {}
    for root in roots or [bundled_root()]:
        try:
            folders = [root / name for name in cache.consult("names", root, "/")]
        except OSError:
            continue
        here: dict[str, list[EditionHead]] = {}
        for folder in folders:
            for h in entry_heads(folder, kind):
                here.setdefault(h.name, []).append(h)
        for name, heads in here.items():
            out.setdefault(name, heads)
    return out


def find_editions(roots: list[Path] | None = None) -> dict[str, Path]:
    """Edition name -> entry file, for every folder under the roots; the first root that has a name wins."""
    return {name: heads[0].entry for name, heads in edition_heads(roots).items()}


def duplicate_editions(heads: dict[str, list[EditionHead]], only: str | None = None) -> list[Diagnostic]:
    """E0107 for every name declared by two entry files of one rules folder."""
    out = []
    for name, found in heads.items():
        if len(found) > 1 and only in (None, name):
            others = ", ".join(str(h.span) for h in found[1:])
            out.append(Diagnostic("E0107", f'edition "{name}" is declared twice in one rules folder', found[0].span,
                                  f"it is also declared at {others}; rename one of them"))
    return out


def load_edition(name: str, roots: list[Path] | None = None, span: Span | None = None,
                 sources: Sources | None = None, houses=()) -> Ruleset:
    """An edition, with the house-rule files `houses` layered on it in order."""
    heads = edition_heads(roots)
    if name not in heads:
        from .modules import module_as_edition
        module_as_edition(name, roots, span or Span("<command line>", 0, 0))
        raise GrimorioError(Diagnostic("E0301", f'there is no edition "{name}"', span or Span("<command line>", 0, 0),
                                       did_you_mean(name, heads) or f"the editions are: {', '.join(sorted(heads))}"))
    twice = duplicate_editions(heads, name)
    if twice:
        raise GrimorioError(twice)
    rs = load_entry(heads[name][0].entry, roots, sources, heads=heads)
    for path in houses:
        load_house(rs, Path(path))
    return rs


def load_house(rs: Ruleset, path: Path, at: Span | None = None) -> None:
    """A house-rule file: one layer of declarations and patches over the ruleset."""
    from .layers import Layer, apply_layer
    diags: list[Diagnostic] = []
    display = _display(path)
    decls = _read(path, rs.sources, diags, at or Span(display, 1, 1))
    for d in decls:
        if isinstance(d, n.Edition):
            diags.append(Diagnostic("E0310", "a house-rule file cannot declare an edition", d.span,
                                    "house rules change the edition they are given with; to make an edition, "
                                    "put this file in a folder of its own with \"extends\""))
    from .modules import misplaced_modules
    misplaced_modules(decls, "a house-rule file", diags)
    wrong = _wrong_edition(rs, house_heads(decls))
    if wrong:                                  # written for another edition: its patches would only mislead
        raise GrimorioError(diags + wrong)
    decls = [d for d in decls if not isinstance(d, (n.Module, n.HouseHead))]
    layer = Layer(path.stem, display, house=True)
    rs.layer_files[display] = layer
    apply_layer(rs, layer, [d for d in decls if not isinstance(d, n.Edition)], diags)
    if diags:
        raise GrimorioError(diags)


def house_heads(decls) -> list:
    """The `extends EDITION` lines of a house-rule file."""
    return [d for d in decls if isinstance(d, n.HouseHead)]


def _wrong_edition(rs: Ruleset, heads) -> list[Diagnostic]:
    """A house file's `extends` line names the edition it is written for: the edition it is layered on,
    or one that edition extends (E0324); one line is enough (a second is E0324 too)."""
    out = []
    chain = list(rs.space("edition"))              # the editions loaded, the lowest first
    for h in heads[1:]:
        out.append(Diagnostic("E0324", f'a second "extends" line: this file is for edition "{heads[0].edition}"',
                              h.span, f"it was named at {heads[0].span}; a house file changes one edition"))
    if heads and heads[0].edition not in chain:
        h = heads[0]
        out.append(Diagnostic("E0324", f'these house rules are for edition "{h.edition}", not for '
                                       f'"{rs.edition.name}"', h.span,
                              (f'"{rs.edition.name}" extends {", ".join(chain[:-1][::-1])}; ' if len(chain) > 1
                               else "") + f"run them with an encounter of edition {h.edition}, or change this line"))
    return out


PRELUDE = Path(__file__).resolve().parent / "prelude.rules"
PRELUDE_NAME = "prelude.rules"
PRELUDE_ORIGIN = "(prelude)"      # no edition can have this name


@functools.lru_cache(maxsize=1)
def prelude() -> tuple[str, tuple[n.Decl, ...]]:
    """The bundled prelude's text and declarations, read once per process."""
    text = PRELUDE.read_text(encoding="utf-8")
    decls, diags = build_rules(text, PRELUDE_NAME)
    if diags:                                       # grimorio's own file: a bug, shown as it is
        raise GrimorioError(diags)
    return text, tuple(decls)


def _add_prelude(rs: "Ruleset", sources: Sources) -> None:
    text, decls = prelude()
    sources.texts[PRELUDE_NAME] = text
    for d in decls:
        kind = NAMESPACE[type(d)]
        rs.space(kind)[d.name] = d
        rs.origin[(kind, d.name)] = PRELUDE_ORIGIN


def load_entry(entry: Path, roots: list[Path] | None = None, sources: Sources | None = None,
               _seen: tuple[str, ...] = (), heads: dict | None = None) -> Ruleset:
    """An edition from its entry file, over the editions it extends. The chain is read first, top down
    (the roots' edition heads once for all of it: reading them at every level made a chain of N editions
    read N times N heads), then applied bottom up, without recursion (a long chain is no deeper a call)."""
    sources = sources if sources is not None else Sources()
    chain, seen = [], list(_seen)
    while True:
        diags: list[Diagnostic] = []
        decls = _read(entry, sources, diags)
        ed = _edition_of(entry, decls, diags)
        if ed.name in seen:
            chain_names = " -> ".join([*seen, ed.name])
            raise GrimorioError(Diagnostic("E0302", f'edition "{ed.name}" extends itself: {chain_names}', ed.span,
                                           "an edition may extend another, but not come back to itself"))
        chain.append((entry, decls, ed, diags))
        if not ed.extends:
            break
        heads = heads if heads is not None else edition_heads(roots)
        if ed.extends not in heads:
            from .modules import module_as_edition
            module_as_edition(ed.extends, roots, ed.span)
            raise GrimorioError(Diagnostic("E0301", f'there is no edition "{ed.extends}"', ed.span,
                                           did_you_mean(ed.extends, heads)))
        twice = duplicate_editions(heads, ed.extends)
        if twice:
            raise GrimorioError(twice)
        seen.append(ed.name)
        entry = heads[ed.extends][0].entry
    rs = None
    for entry, decls, ed, diags in reversed(chain):
        rs = _apply_entry(rs, entry, decls, ed, diags, roots, sources)
    return rs


def _edition_of(entry: Path, decls, diags) -> n.Edition:
    """The one edition an entry file declares, or the error that says why not."""
    from .modules import not_a_module
    editions = [d for d in decls if isinstance(d, n.Edition)]
    if not editions:
        if diags:
            raise GrimorioError(diags)
        not_a_module(decls)
        raise GrimorioError(Diagnostic("E0301", f'"{_display(entry)}" declares no edition',
                                       Span(_display(entry), 1, 1),
                                       'an entry file starts with "edition", the edition\'s name and ":"'))
    if len(editions) > 1:
        raise GrimorioError(Diagnostic("E0108", f'this file declares a second edition, "{editions[1].name}"',
                                       editions[1].span, f'the first, "{editions[0].name}", is at '
                                       f'{editions[0].span}; give each edition its own folder'))
    return editions[0]


def _apply_entry(base: Ruleset | None, entry: Path, decls, ed: n.Edition, diags, roots, sources) -> Ruleset:
    """One edition of a chain as a layer over `base` (the edition it extends; None: the prelude)."""
    from .layers import Layer, apply_layer  # not at import: listing editions loads no parser
    from .modules import Includer, misplaced_modules
    if base is not None:
        rs = base
        ed = _inherit_settings(ed, base.edition)
        rs.edition = ed
        rs.root = entry.parent
    else:
        rs = Ruleset(ed, entry.parent, sources=sources)
        _add_prelude(rs, sources)          # an edition that extends none extends the prelude
    layer = Layer(ed.name, _display(entry))
    rs.layer_files[layer.file] = layer
    misplaced_modules(decls, "an edition's entry file", diags)
    inc = Includer("edition", ed.name, entry, rs, roots, sources, diags, layer)
    original = next(d for d in decls if isinstance(d, n.Edition))
    mine = [d for d in decls if d is not original and not isinstance(d, n.Module)] + inc.includes(ed.includes)
    warned = len(rs.warnings)
    apply_layer(rs, layer, mine, diags, below=bool(ed.extends))
    rs.space("edition")[ed.name] = ed
    diags[:] = inc.relocate(diags)
    rs.warnings[warned:] = inc.relocate(rs.warnings[warned:])
    if not diags:
        inc.check_expectations(ed)
    if diags:
        raise GrimorioError(diags)
    return rs


def _inherit_settings(ed: n.Edition, base: n.Edition) -> n.Edition:
    """A derived edition keeps what its base sets (`set NAME = value` in the head), unless it sets it too."""
    own = {name for name, _ in ed.settings}
    kept = tuple((name, v) for name, v in base.settings if name not in own)
    return replace(ed, settings=kept + ed.settings) if kept else ed


def _display(path: Path) -> str:
    """How a file is named in diagnostics: a bundled one as rulesets/..., wherever grimorio is installed (so its
    name, and the key its built form is shipped under, do not depend on the working folder); another relative
    to the working folder."""
    for base, prefix in ((lambda: Path(cache.consult("resolve", bundled_root())), "rulesets/"), (Path.cwd, "")):
        try:
            return prefix + str(Path(cache.consult("resolve", path)).relative_to(base()))
        except (ValueError, OSError):       # elsewhere; or the working folder was deleted
            continue
    return str(path)


# How much rules text one ruleset (an edition, what it extends and includes, its house files) may hold
# in all: what checks in a few seconds (over 7 times the largest bundled edition; 512 KiB of the smallest
# rules checks in about 6 s on one core, 1 MiB in 13 s). Past it, E0322 before anything is parsed.
MAX_RULES_BYTES = 512 * 1024


def _too_large(sources: Sources, display: str, text: str, at: Span | None) -> Diagnostic | None:
    total = sum(len(t.encode("utf-8", "surrogatepass")) for name, t in sources.texts.items()
                if name.endswith(".rules") and name != PRELUDE_NAME)
    if total <= MAX_RULES_BYTES:
        return None
    mine = len(text.encode("utf-8", "surrogatepass"))
    return Diagnostic("E0322", f'these rules are too large: {total // 1024} KiB of rules text in all, with '
                               f'"{display}" ({mine // 1024} KiB)', at or Span(display, 1, 1),
                      f"grimorio checks at most {MAX_RULES_BYTES // 1024} KiB of rules for one edition and its "
                      "layers; split the edition, or leave out what it does not use")


def _read(path: Path, sources: Sources, diags: list[Diagnostic], at: Span | None = None) -> list[n.Decl]:
    display = _display(path)
    try:
        text = sources.unsaved.get(str(path.resolve()))
        if text is not None:
            cache.unrepeatable()
        else:
            text = cache.noted("text", path, read_text(path, display, at, sources))
    except GrimorioError as exc:
        diags.extend(exc.diagnostics)
        return []
    sources.texts[display] = text
    over = _too_large(sources, display, text, at)
    if over is not None:
        diags.append(over)
        return []
    decls, errs = build_rules(text, display)
    diags.extend(errs)
    return decls
