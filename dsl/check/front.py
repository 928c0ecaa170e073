"""The front end's one entry: an edition (with its layers) checked, an encounter checked against
the checked ruleset, and which edition a file belongs to. `grimorio check`, `grimorio run`,
simulate and the language server all come through here; nothing here compiles, so checking
imports no module of the interpreter (tests/test_layers_import.py holds it).

    rs = load_edition(...)                  # dsl/editions: files, includes, layers
    warnings = check_edition(rs)            # raises GrimorioError on errors
    facts = facts_of(rs)                    # what encounters are checked against
    problems = check_encounter(enc, rs, facts)
"""
from __future__ import annotations

from pathlib import Path

from ..diagnostics import Diagnostic, GrimorioError, Sources
from ..syntax import nodes as n
from .encounter_check import check_encounter as _combatants_and_pins, check_names, check_script, check_settings
from .facts import facts_of, purposes  # noqa: F401 - part of the entry's API


def check_edition(rs) -> list[Diagnostic]:
    """A loaded edition checked: raises GrimorioError with its errors (each blamed on the layer
    that made it); else its warnings, the data no rule reads among them."""
    from ..editions.layers import blame
    from .checker import check_ruleset
    from .deadcode import dead_data
    diags = check_ruleset(rs)
    if diags:
        raise GrimorioError(blame(rs, diags))
    return list(rs.warnings) + dead_data(rs)


_checked: dict = {}


def checked_edition(name: str, roots, span=None, sources=None, houses=()):
    """An edition loaded with its house-rule files and checked, once per process: (its ruleset,
    its warnings, its facts, its names' Resolver). Raises GrimorioError with its errors."""
    from ..editions.loader import load_edition
    from .resolver import bindings_of
    key = (name, tuple(map(str, roots or ())), tuple(map(str, houses)))
    found = _checked.get(key)
    if found is None:
        own = Sources()          # the edition's texts only: the caller's may hold an encounter's, which change
        try:
            rs = load_edition(name, roots, span, own, houses)
        finally:
            if sources is not None:
                sources.texts.update(own.texts)
        found = _checked[key] = (rs, check_edition(rs), facts_of(rs), bindings_of(rs).resolver)
    elif sources is not None:
        sources.texts.update(found[0].sources.texts)
    return found


def check_encounter(enc: n.Encounter, rs, facts, settings=(), names=None, loaded=frozenset()) -> list[Diagnostic]:
    """An encounter checked against a checked ruleset and its facts, with its `set` lines and the
    command line's `settings`: its combatants, pins, options and script first; only when those
    are clean, its own statements and expectations (names, kinds), as a run would meet them.
    `names`: the ruleset's Resolver, if one is at hand; `loaded`: the combatants a state file gives
    (encounter_check.check_encounter)."""
    diags = check_names(enc) + check_settings(settings, facts) + _combatants_and_pins(enc, facts, loaded) \
        + check_script(enc, facts)
    if diags:
        return diags
    exprs = [x.expr for x in expectations(enc) if x.expr is not None]
    if not (enc.do or exprs):           # no code of its own: nothing to resolve (nor to import the resolver for)
        return []
    from .resolver import resolve_script
    from .sheets import sheet_texts
    return resolve_script(rs, enc.do, exprs, [c.name for c in enc.combatants], names) \
        + sheet_texts(rs, (tuple(enc.do), tuple(exprs)))


def expectations(enc: n.Encounter) -> list:
    """An encounter's expectations: those of its end, then those of its rounds."""
    return list(enc.expects) + [x for _r, x in enc.round_expects]


# ------------------------------------------------------------------ which edition a file belongs to
def owner_of(path: Path, text_of) -> tuple[str, Path] | None:
    """The edition a .rules file belongs to, read with `text_of(path) -> text or None` (disk, or an
    editor's unsaved text): ("edition", its entry file: the file itself, or the entry of its folder
    that includes it), ("module", the module's entry file) for a file of a module's folder, or None."""
    own = text_of(path)
    if own is not None and _declares(own, "edition"):
        return "edition", path
    folder = path.parent
    entries, modules = [], []
    for f in sorted(folder.glob("*.rules")):
        text = own if f == path else text_of(f)
        if text is None:
            continue
        if _declares(text, "edition"):
            entries.append((f, text))
        elif _declares(text, "module"):
            modules.append(f)
    from ..editions.cache import build_rules
    for entry, text in entries:
        try:
            decls = build_rules(text, str(entry))[0]
        except GrimorioError:
            continue
        if any(inc == path.name for d in decls if isinstance(d, n.Edition) for inc, _ in d.includes):
            return "edition", entry
    if not entries and modules:
        return "module", modules[0]
    return None


def _declares(text: str, kind: str) -> bool:
    """Whether a file's text declares an edition (or a module): a line at the margin that starts so."""
    return any(line.startswith(kind + " ") for line in text.split("\n"))


def load_encounter(path, sources, at=None) -> n.Encounter:
    """An encounter file read and built (its text kept in `sources`, for diagnostics)."""
    from ..editions.cache import build_encounter
    from ..source import read_text
    display = str(path)
    text = read_text(Path(path), display, at, sources)
    sources.texts[display] = text
    enc, diags = build_encounter(text, display)
    if diags:
        raise GrimorioError(diags)
    return enc


def roots_for(path, extra=()) -> list[Path]:
    """Where an encounter's edition is looked for, first match first: the folders named on the
    command line, the folder around the encounter's own folder (so an encounter kept beside its
    edition finds it), then the bundled rulesets."""
    from ..editions.files import bundled_root
    here = Path(path).resolve().parent
    return [Path(p) for p in extra] + [here.parent, bundled_root()]
