"""Modules: declarations any edition can include by name.

A module is a folder of `.rules` files whose entry file starts with a
`module NAME:` head (title, description, its own includes, and what it
expects the including edition to declare). It is found by name in the rules
folders, as editions are, and `include module NAME` puts its declarations
where the include stands, in the including edition's layer, as if its files
were the edition's own. A module is never an edition: it cannot be run,
extended or listed as one.
"""
from __future__ import annotations

from pathlib import Path

from ..records import dataclass
from . import cache
from ..syntax import nodes as n
from ..diagnostics import Diagnostic, GrimorioError, Span, did_you_mean
from .files import NAMESPACE, Ruleset, _display, _read, edition_heads, entry_heads


# ------------------------------------------------------------------ what a module can expect

def _has_field(rs: Ruleset, name: str) -> bool:
    return any(f.name == name for s in rs.all(n.Sheet) for f in s.fields)


def _has_outcome(rs: Ruleset, name: str) -> bool:
    return any(name in o.values for o in rs.all(n.Outcomes))


def _has_decl(cls):
    return lambda rs, name: isinstance(rs.space(NAMESPACE[cls]).get(name), cls)


def _names_of(cls):
    return lambda rs: [d.name for d in rs.all(cls)]


# kind word -> (does the ruleset have this name?, the names it has of that kind)
EXPECTABLE = {
    "field": (_has_field, lambda rs: [f.name for s in rs.all(n.Sheet) for f in s.fields]),
    "outcome": (_has_outcome, lambda rs: [v for o in rs.all(n.Outcomes) for v in o.values]),
    **{kind: (_has_decl(cls), _names_of(cls)) for cls, kind in n.KIND_OF.items()
       if cls not in (n.Edition, n.Module)},
}

# `expects call NAME`: a rule of the module that the including edition's round must call (directly or
# through the rules, actions, reactions and tactics it runs): what the module needs done every turn
# or every round. The rule itself must exist (E0316); a round that never reaches it is E0270.
CALL = "call"


def reached_from_round(rs: Ruleset) -> set[str]:
    """The rules a round reaches: the calls in its steps, in the rules those call, and so on. Actions,
    reactions and tactics count as reached, since the round runs them through act and events."""
    rules = {r.name: r for r in rs.all(n.Rule)}
    todo: list = [*rs.all(n.Round), *rs.all(n.Action), *rs.all(n.Reaction), *rs.all(n.Tactic)]
    called: set[str] = set()
    while todo:
        for x in n.walk(todo.pop()):
            if isinstance(x, n.Call) and isinstance(x.func, n.Name) and x.func.id in rules and x.func.id not in called:
                called.add(x.func.id)
                todo.append(rules[x.func.id])
    return called


# What a name clash caused by an included module means for the including edition.
CLASHES = {
    "E0202": "a module's names are the same in every edition that includes it: rename the edition's one, "
             "or write \"replace\" before the edition's declaration to adapt the module's one to this edition",
    "E0306": "a module's names are the same in every edition that includes it: rename the edition's one",
    "W0701": "the module's declaration takes the place of the one below, and the rules below use it",
}


# ------------------------------------------------------------------ heads in the wrong place

def misplaced_modules(decls, where: str, diags: list[Diagnostic]) -> None:
    """E0312 for every module head in a file that is not a module's entry file."""
    for d in decls:
        if isinstance(d, n.Module):
            diags.append(Diagnostic("E0312", f'{where} cannot declare a module ("{d.name}")', d.span,
                                    "a module has a folder of its own, whose entry file starts with "
                                    f'"module {d.name}:"; an edition includes it with "include module {d.name}"'))


def not_a_module(decls) -> None:
    """E0318 when a file loaded as an edition's entry file declares a module instead."""
    for d in decls:
        if isinstance(d, n.Module):
            raise GrimorioError(_alone(d.name, d.span))


def module_as_edition(name: str, roots, span: Span) -> None:
    """E0318 when a module's name is used where an edition's is (an encounter, --edition, extends)."""
    if name in edition_heads(roots, "module"):
        raise GrimorioError(_alone(name, span))


def _alone(name: str, span: Span) -> Diagnostic:
    return Diagnostic("E0318", f'"{name}" is a module, not an edition: it cannot be run, checked or extended '
                               "on its own", span,
                      f'an edition includes it, with the line "include module {name}" in its head; '
                      "run or extend that edition")


def duplicate_modules(heads, only: str) -> list[Diagnostic]:
    """E0319 when two entry files of one rules folder declare the module `only`."""
    found = heads.get(only, [])
    if len(found) < 2:
        return []
    others = ", ".join(str(h.span) for h in found[1:])
    return [Diagnostic("E0319", f'module "{only}" is declared twice in one rules folder', found[0].span,
                       f"it is also declared at {others}; rename one of them")]


# ------------------------------------------------------------------ including

@dataclass
class Included:
    """A module included in a ruleset: its head, where it was included, and by whom."""
    module: n.Module
    span: Span
    by: str


class Includer:
    """Reads the includes of one edition (and, through them, of the modules it includes) into the
    declarations of that edition's layer, in the order they are listed."""

    def __init__(self, kind: str, name: str, entry: Path, rs: Ruleset, roots, sources, diags, layer):
        self.owner = (kind, name, entry)
        self.rs, self.roots, self.sources, self.diags, self.layer = rs, roots, sources, diags, layer
        self.mine: list[Included] = []        # the modules this edition's load included
        self.files: dict[str, Included] = {}  # each file of those modules -> the module it belongs to

    def includes(self, items, owner=None, chain: tuple[str, ...] = ()) -> list[n.Decl]:
        owner = owner or self.owner
        out: list[n.Decl] = []
        for target, sp in items:
            if isinstance(target, n.ModuleRef):
                out += self._module(target.name, sp, owner, chain)
            else:
                out += self._file(target, sp, owner)
        return out

    def _file(self, inc: str, sp: Span, owner) -> list[n.Decl]:
        kind, name, entry = owner
        folder = entry.parent.resolve()
        path = Path(cache.consult("resolve", entry.parent / inc))
        if folder not in path.parents:
            self.diags.append(Diagnostic("E0303", f'"{inc}" is outside the {kind}\'s folder', sp,
                                         f"{'an edition' if kind == 'edition' else 'a module'} includes only "
                                         "files inside its own folder"))
            return []
        if not path.exists():
            here = [p.name for p in entry.parent.glob("*.rules")]
            self.diags.append(Diagnostic("E0304", f'there is no file "{inc}" in this {kind}\'s folder', sp,
                                         did_you_mean(inc, here)))
            return []
        self.rs.layer_files[_display(path)] = self.layer
        if kind == "module":
            self.files[_display(path)] = self.rs.modules[name]
            self.rs.module_files[_display(path)] = name
        out = []
        for d in _read(path, self.sources, self.diags, sp):
            if isinstance(d, n.Edition):
                self.diags.append(Diagnostic("E0305", "an included file cannot declare another edition", d.span))
            elif isinstance(d, n.Module):
                misplaced_modules([d], "an included file", self.diags)
            else:
                out.append(d)
        return out

    def _module(self, name: str, sp: Span, owner, chain) -> list[n.Decl]:
        heads = edition_heads(self.roots, "module")
        if name not in heads:
            editions = edition_heads(self.roots)
            self.diags.append(Diagnostic(
                "E0313", f'there is no module "{name}"', sp,
                f'"{name}" is an edition: an edition is extended ("extends {name}"), not included'
                if name in editions else did_you_mean(name, heads)
                or (f"the modules are: {', '.join(sorted(heads))}" if heads
                    else "a module is a folder beside the editions whose entry file starts with "
                         f'"module {name}:"')))
            return []
        twice = duplicate_modules(heads, name)
        if twice:
            self.diags.extend(twice)
            return []
        if name in chain:
            self.diags.append(Diagnostic("E0314", f'module "{name}" includes itself: '
                                                  f'{" -> ".join(chain + (name,))}', sp,
                                         "a module may include others, but not come back to itself"))
            return []
        if name in self.rs.modules:
            first = self.rs.modules[name]
            self.diags.append(Diagnostic("E0315", f'module "{name}" is already included', sp,
                                         f"{first.by} includes it at {first.span}; a module is included once "
                                         "in an edition and the editions it extends: remove this include"))
            return []
        entry = heads[name][0].entry
        decls = _read(entry, self.sources, self.diags, sp)
        mods = [d for d in decls if isinstance(d, n.Module)]
        if not mods:                # the head read cheaply, but the file does not build: its errors are in diags
            return []
        mod = mods[0]
        misplaced_modules(mods[1:], "a module's entry file", self.diags)
        for d in decls:
            if isinstance(d, n.Edition):
                self.diags.append(Diagnostic("E0312", f'a module cannot declare an edition ("{d.name}")', d.span,
                                             f'module "{name}" is included by editions; to make an edition, give it '
                                             f'a folder of its own with "include module {name}"'))
        self._check_kinds(mod)
        included = Included(mod, sp, f'{owner[0]} "{owner[1]}"')
        self.rs.modules[name] = included
        self.mine.append(included)
        self.rs.layer_files[_display(entry)] = self.layer
        self.files[_display(entry)] = included
        self.rs.module_files[_display(entry)] = name
        own = [d for d in decls if not isinstance(d, (n.Module, n.Edition))]
        return own + self.includes(mod.includes, ("module", name, entry), chain + (name,))

    def _check_kinds(self, mod: n.Module) -> None:
        kinds = [*EXPECTABLE, CALL]
        for e in mod.expects:
            if e.kind not in kinds:
                self.diags.append(Diagnostic("E0317", f'a module cannot expect a "{e.kind}"', e.kind_span,
                                             did_you_mean(e.kind, kinds)
                                             or f"it can expect: {', '.join(sorted(kinds))}"))

    def relocate(self, diags: list[Diagnostic]) -> list[Diagnostic]:
        """A name of an included module that clashes with the edition's or its base's (E0202, E0306,
        W0701) is the including edition's doing: reported at its include line, naming the module."""
        out = []
        for d in diags:
            inc = self.files.get(d.span.file) if d.code in CLASHES else None
            if inc is None or self._within(d):
                out.append(d)
                continue
            out.append(Diagnostic(d.code, f'module "{inc.module.name}": {d.message}', inc.span,
                                  f"the module declares it at {d.span}; {CLASHES[d.code]}", d.severity))
        return out

    def _within(self, d: Diagnostic) -> bool:
        """A name declared twice inside the module's own files is the module's mistake, shown where it is."""
        return d.code == "E0202" and any(f"the first is at {f}:" in (d.help or "") for f in self.files)

    def check_expectations(self, ed: n.Edition) -> None:
        """E0316, at the include, for everything an included module expects and the ruleset lacks."""
        for inc in self.mine:
            for e in inc.module.expects:
                if e.kind == CALL:
                    self._check_calls(ed, inc, e)
                if e.kind not in EXPECTABLE:
                    continue
                has, names = EXPECTABLE[e.kind]
                for name, name_span in e.names:
                    if has(self.rs, name):
                        continue
                    self.diags.append(Diagnostic(
                        "E0316", f'module "{inc.module.name}" expects {e.kind} "{name}", and edition "{ed.name}" '
                                 "has none", inc.span,
                        (did_you_mean(name, names(self.rs)) + "; " if did_you_mean(name, names(self.rs)) else "")
                        + f"declare it in the edition or a file it includes (the module says what it expects at "
                          f"{name_span})"))

    def _check_calls(self, ed: n.Edition, inc: Included, e: n.Expects) -> None:
        """`expects call NAME`: E0316 when the module has no such rule, E0270 when the edition has a
        round and it never reaches the rule. An edition without a round has no turns to drive."""
        rules = [r.name for r in self.rs.all(n.Rule)]
        reached = reached_from_round(self.rs) if self.rs.all(n.Round) else None
        for name, name_span in e.names:
            if name not in rules:
                hint = did_you_mean(name, rules)
                self.diags.append(Diagnostic(
                    "E0316", f'module "{inc.module.name}" expects a call to rule "{name}", and there is no such rule',
                    name_span, (hint + "; " if hint else "") + "name a rule the module declares"))
            elif reached is not None and name not in reached:
                self.diags.append(Diagnostic(
                    "E0270", f'module "{inc.module.name}" needs the round to call rule "{name}", and the round of '
                             f'edition "{ed.name}" never does', inc.span,
                    f"call {name}(...) where the module says, from the round or a rule it runs (the module asks "
                    f"for it at {name_span}; its comment says when); an edition that extends another patches "
                    "that round: insert at start of rule ..., insert at end of step ..."))


def check_module(entry: Path, roots, sources) -> list[Diagnostic]:
    """A module on its own (`grimorio check` of its folder): its files read and its includes found. Its
    names are checked with each edition that includes it, since what it expects is the edition's."""
    from .layers import Layer
    diags: list[Diagnostic] = []
    mods = [d for d in _read(entry, sources, diags) if isinstance(d, n.Module)]
    if mods:
        mod = mods[0]
        rs = Ruleset(None, entry.parent, sources=sources)
        Includer("module", mod.name, entry, rs, roots, sources, diags, Layer(mod.name, _display(entry))) \
            .includes([(n.ModuleRef(mod.name), mod.span)])
    return diags


def editions_including(folder: Path, roots, read) -> list[Path]:
    """The entry files of the editions under `roots` that include, by name, the module whose entry file
    is in `folder`; `read(path)` gives a file's text (or None), so an editor can pass unsaved buffers."""
    from .cache import build_rules
    modules = entry_heads(folder, "module")
    if not modules:
        return []
    wanted = n.ModuleRef(modules[0].name)
    out = []
    for heads in edition_heads(roots).values():
        text = read(heads[0].entry)
        if text is None:
            continue
        decls, _ = build_rules(text, str(heads[0].entry))
        if any(inc == wanted for d in decls if isinstance(d, n.Edition) for inc, _ in d.includes):
            out.append(heads[0].entry)
    return out
