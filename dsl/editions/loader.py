"""Files to a Ruleset: an edition, the editions it extends, and its includes,
merged into one table of named declarations.

Declarations live in namespaces by kind. A derived edition, and each
house-rule file, is a layer over the edition below it (dsl/editions/layers.py): its
declarations replace same-named ones keeping their place, so transcripts
stay in a stable order, and its patches change parts of them by name.
"""
from __future__ import annotations

from pathlib import Path

from ..syntax import nodes as n
from ..diagnostics import Diagnostic, GrimorioError, Sources, Span, did_you_mean
from ..records import replace
from .files import (NAMESPACE, PRELUDE_NAME, PRELUDE_ORIGIN, Ruleset, _display, _read, duplicate_editions,
                    edition_heads, prelude)

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
