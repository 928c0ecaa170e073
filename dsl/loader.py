"""Files to a Ruleset: an edition, the editions it extends, and its includes,
merged into one table of named declarations.

Declarations live in namespaces by kind. A derived edition, and each
house-rule file, is a layer over the edition below it (dsl/layers.py): its
declarations replace same-named ones keeping their place, so transcripts
stay in a stable order, and its patches change parts of them by name.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from . import nodes as n
from .builder import build_rules
from .diagnostics import Diagnostic, GrimorioError, Sources, Span, did_you_mean
from .layers import Layer, apply_layer
from .source import read_text

# Which kinds share a namespace (a name must be unique within one).
NAMESPACE = {
    n.Rule: "value", n.Table: "value", n.Condition: "value", n.Var: "value", n.Outcomes: "value",
    n.Option: "option", n.Sheet: "sheet", n.Check: "check", n.Message: "message", n.Event: "event",
    n.Action: "action", n.Reaction: "reaction", n.Tactic: "tactic", n.Round: "round", n.Edition: "edition",
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

    def space(self, kind: str) -> dict[str, n.Decl]:
        return self.spaces.setdefault(kind, {})

    def all(self, cls):
        return [d for d in self.space(NAMESPACE[cls]).values() if isinstance(d, cls)]


def bundled_root() -> Path:
    return Path(str(resources.files("grimorio.rulesets")))


def find_editions(roots: list[Path] | None = None) -> dict[str, Path]:
    """Edition name -> entry file, for every folder under the roots."""
    out: dict[str, Path] = {}
    for root in roots or [bundled_root()]:
        if not root.is_dir():
            continue
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            for f in sorted(folder.glob("*.rules")):
                try:
                    text = f.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                for line in text.splitlines():
                    if line.startswith("edition "):
                        name = line[len("edition "):].split(":")[0].strip()
                        out.setdefault(name, f)
    return out


def load_edition(name: str, roots: list[Path] | None = None, span: Span | None = None,
                 sources: Sources | None = None, houses=()) -> Ruleset:
    """An edition, with the house-rule files `houses` layered on it in order."""
    editions = find_editions(roots)
    if name not in editions:
        raise GrimorioError(Diagnostic("E0301", f'there is no edition "{name}"', span or Span("<command line>", 0, 0),
                                       did_you_mean(name, editions) or f"the editions are: {', '.join(sorted(editions))}"))
    rs = load_entry(editions[name], roots, sources)
    for path in houses:
        load_house(rs, Path(path))
    return rs


def load_house(rs: Ruleset, path: Path, at: Span | None = None) -> None:
    """A house-rule file: one layer of declarations and patches over the ruleset."""
    diags: list[Diagnostic] = []
    display = _display(path)
    decls = _read(path, rs.sources, diags, at or Span(display, 1, 1))
    for d in decls:
        if isinstance(d, n.Edition):
            diags.append(Diagnostic("E0310", "a house-rule file cannot declare an edition", d.span,
                                    "house rules change the edition they are given with; to make an edition, "
                                    "put this file in a folder of its own with \"extends\""))
    layer = Layer(path.stem, display, house=True)
    rs.layer_files[display] = layer
    apply_layer(rs, layer, [d for d in decls if not isinstance(d, n.Edition)], diags)
    if diags:
        raise GrimorioError(diags)


def load_entry(entry: Path, roots: list[Path] | None = None, sources: Sources | None = None,
               _seen: tuple[str, ...] = ()) -> Ruleset:
    sources = sources if sources is not None else Sources()
    diags: list[Diagnostic] = []
    decls = _read(entry, sources, diags)
    editions = [d for d in decls if isinstance(d, n.Edition)]
    if not editions:
        if diags:
            raise GrimorioError(diags)
        raise GrimorioError(Diagnostic("E0301", f'"{_display(entry)}" declares no edition',
                                       Span(_display(entry), 1, 1),
                                       'an entry file starts with "edition", the edition\'s name and ":"'))
    ed = editions[0]
    if ed.name in _seen:
        chain = " -> ".join(_seen + (ed.name,))
        raise GrimorioError(Diagnostic("E0302", f'edition "{ed.name}" extends itself: {chain}', ed.span,
                                       "an edition may extend another, but not come back to itself"))
    if ed.extends:
        eds = find_editions(roots)
        if ed.extends not in eds:
            raise GrimorioError(Diagnostic("E0301", f'there is no edition "{ed.extends}"', ed.span,
                                           did_you_mean(ed.extends, eds)))
        base = load_entry(eds[ed.extends], roots, sources, _seen + (ed.name,))
        rs = base
        rs.edition = ed
        rs.root = entry.parent
    else:
        rs = Ruleset(ed, entry.parent, sources=sources)
    layer = Layer(ed.name, _display(entry))
    rs.layer_files[layer.file] = layer
    folder = entry.parent.resolve()
    mine = [d for d in decls if d is not ed]
    for inc, sp in ed.includes:
        path = (entry.parent / inc).resolve()
        if folder not in path.parents:
            diags.append(Diagnostic("E0303", f'"{inc}" is outside the edition\'s folder', sp,
                                    "an edition includes only files inside its own folder"))
            continue
        if not path.exists():
            here = [p.name for p in entry.parent.glob("*.rules")]
            diags.append(Diagnostic("E0304", f'there is no file "{inc}" in this edition\'s folder', sp,
                                    did_you_mean(inc, here)))
            continue
        rs.layer_files[_display(path)] = layer
        for d in _read(path, sources, diags, sp):
            if isinstance(d, n.Edition):
                diags.append(Diagnostic("E0305", "an included file cannot declare another edition", d.span))
                continue
            mine.append(d)
    apply_layer(rs, layer, mine, diags, below=bool(ed.extends))
    rs.space("edition")[ed.name] = ed
    if diags:
        raise GrimorioError(diags)
    return rs


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        try:
            return "rulesets/" + str(path.resolve().relative_to(bundled_root().resolve()))
        except ValueError:
            return str(path)


def _read(path: Path, sources: Sources, diags: list[Diagnostic], at: Span | None = None) -> list[n.Decl]:
    display = _display(path)
    try:
        text = read_text(path, display, at, sources)
    except GrimorioError as exc:
        diags.extend(exc.diagnostics)
        return []
    sources.texts[display] = text
    decls, errs = build_rules(text, display)
    diags.extend(errs)
    return decls
