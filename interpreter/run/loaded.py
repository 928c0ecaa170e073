"""A compiled Program (interpreter/compile/program.py) made ready to run in this process, once:
its generated module's code run in a namespace of the runtime's helpers and the program's
constants, and the functions it defines linked to what the engine calls (actions, reactions,
tactics, rounds, tallies, sheets). Everything here is runtime: the program is plain data.

The engine reads a Loaded as it read the compiled program (`p.actions`, `p.tables`, ...). Code
of an encounter's own, and the requirement checks of a refused scripted decision, are compiled
by the compile stage: the one that made the Loaded gives it `snippets` (an object with
`compile_snippet` and `requirement_checks`); the runtime never imports the compiler.
"""
from __future__ import annotations

import marshal
import math
from operator import attrgetter
from fractions import Fraction

from ...dsl.syntax import nodes as n
from . import runtime_helpers as H
from . import semantics as S
from .definitions import ActionDef, ReactionDef, TacticDef, kept_lists
from .maps import MAP_KEYS, map_key
from .values import Combatant, ConditionType, make_struct, mangle

_BUILTINS = {"list": list, "sorted": sorted, "bool": bool, "int": int, "type": type, "str": str,
             "isinstance": isinstance, "len": len, "min": min, "max": max, "dict": dict, "getattr": getattr,
             "range": range, "id": id, "abs": abs}


def namespace(show, fields) -> dict:
    """The generated code's globals before its constants: the runtime's helpers, operators and
    builtins, `_show` (the edition's format), `_F` (each field's Python name), `_G` (its getter) and
    how a map's own dict is keyed (`_MAPKEYS`, `_mapkey`: maps.py)."""
    return {"__builtins__": _BUILTINS, "H": H, "S": S, "Fraction": Fraction, "_show": show, "_eq": H.eq,
            "_none": H.is_none, "math": math, **S.IN_PLACE,
            **{"b_" + name: fn for name, fn in S.BUILTIN_FUNCTIONS.items()},
            "_F": {name: mangle(name) for name in fields}, "_G": {name: attrgetter(mangle(name)) for name in fields},
            "_MAPKEYS": MAP_KEYS, "_mapkey": map_key}


class Loaded:
    """A Program, run and linked: what an engine runs on. Build once per program in a process."""

    def __init__(self, program, snippets=None):
        """`snippets`: what makes the compiler of this program's encounters' own code, given the Loaded
        (the compile stage's: interpreter/compile/compiler.py, Snippets)."""
        p = self.program = program
        self.ruleset, self.optimized, self.warnings, self.facts = p.ruleset, p.optimized, p.warnings, p.facts
        self.options, self.outcome_values, self.tables = p.options, p.outcome_values, p.tables
        # Each condition as this process runs it: with its `on receive` (a function of the code, linked below).
        self.conditions = {name: _copy(ct) for name, ct in p.conditions.items()}
        linked = {id(p.conditions[name]): ct for name, ct in self.conditions.items()}
        self.format, self.sheet, self.sheet_fields_by, self.vars = p.format, p.sheet, p.sheet_fields_by, p.vars
        self.pure_defaults, self.source, self.line_spans = p.pure_defaults, p.source, p.line_spans
        self.event_types = {k: make_struct(*v) for k, v in p.event_types.items()}
        self.check_types = {k: make_struct(*v) for k, v in p.check_types.items()}
        self.structs = {k: make_struct(*v) for k, v in p.structs.items()}
        self._resolver = None
        ns = self.ns = namespace(p.format.show, p.fields)
        ns.update((name, linked.get(id(value), value)) for name, value in p.consts.items())
        ns.update((name, make_struct(*shape)) for name, shape in p.classes.items())
        # The class of this program's combatants: the code asks `x.__class__ is _CB` where only a
        # combatant takes a shorter way (inplace.py: a field named by a text).
        fields = list(dict.fromkeys(mangle(f.name) for fs in p.sheet_fields_by.values() for f in fs))
        self.combatant_class = ns["_CB"] = type("combatant", (Combatant,), {"__slots__": tuple(fields)})
        ns["_KEPT"] = kept_lists(p.tables, self.conditions)        # the tables' lists: append refuses them
        ns["__spans__"] = list(p.line_spans)
        exec(marshal.loads(p.code), ns)  # noqa: S102 - generated from a checked ruleset
        self._link(ns, p)
        self._snippets, self._make_snippets = None, snippets      # made when first asked (`snippets`)
        self._done = True

    def __setattr__(self, name, value):
        if "_done" in self.__dict__:
            raise AttributeError(f"a loaded program does not change ({name})")
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        """The rest of the program's plain data (gids, consts, line_owner, ...), as the program has it."""
        if name.startswith("__") or name == "program":      # (a Loaded half made: copy, pickle)
            raise AttributeError(name)
        return getattr(self.program, name)

    @property
    def snippets(self):
        """The compile stage's compiler of this program's encounters' own code, made when first asked:
        an encounter without code of its own (or a refused scripted decision) never needs it."""
        if self._snippets is None and self._make_snippets is not None:
            self.__dict__["_snippets"] = self._make_snippets(self)
        return self._snippets

    @property
    def resolver(self):
        """The names of the rules, for the front end's check of an encounter (dsl/check/names.py)."""
        if self._resolver is None:
            from ...dsl.check.names import Resolver
            self.__dict__["_resolver"] = Resolver(self.ruleset, self.program.fields)
        return self._resolver

    def compile_snippet(self, name: str, stmts=(), exprs=(), combatants=()) -> dict:
        """An encounter's own code, compiled against this program by the compile stage. None at all
        compiles to nothing: a `do` that does nothing, and no expectations."""
        if not (stmts or exprs):
            return {"do": _nothing, "expects": []}
        return self.snippets.compile_snippet(name, stmts, exprs, combatants)

    def requirement_checks(self, d) -> list:
        return self.snippets.requirement_checks(d)

    def for_code(self, stmts=(), exprs=(), combatants=(), sides=()) -> "Loaded":
        """The program an encounter with this code of its own runs on: this one, or, where that code
        would break a fact this one was optimized on (a whole-number field set to a fraction), the
        same rules compiled on the plain path (the compile stage's Snippets.for_code); `sides`: each
        combatant's side (a side that is no text breaks a fact too). No code of its own and every side a
        text break none: this one, without asking the compile stage."""
        if not (stmts or exprs) and all(side.__class__ is str for side in sides):
            return self
        return self if self.snippets is None else self.snippets.for_code(stmts, exprs, combatants, sides)

    def _link(self, g: dict, p):
        rs, gid = self.ruleset, lambda kind, name: p.gids[(kind, name)]
        self.actions = {}
        for d in rs.all(n.Action):
            m = p.gids.get(("action", d.name))
            if m is None or f"x_{m}" not in g:
                continue
            domains = [g[f"d_{m}_{i}"] for i in range(1, len(d.params))]
            self.actions[d.name] = ActionDef(d.name, [x.name for x in d.params], domains, g[f"q_{m}"], g[f"x_{m}"], d)
        self.reactions: dict[str, list[ReactionDef]] = {}
        self.reaction_by_name = {}
        for d in rs.all(n.Reaction):
            m = gid("reaction", d.name)
            r = ReactionDef(d.name, d.event, g[f"w_{m}"], g[f"q_{m}"], g[f"x_{m}"], d)
            self.reactions.setdefault(d.event, []).append(r)
            self.reaction_by_name[d.name] = r
            g[f"R_{m}"] = r
        self.tactics = {}
        for d in rs.all(n.Tactic):
            t = gid("tactic", d.name)
            names = {ev: f"{t}_{gid('event', ev)}" for ev, _prefs in d.react}
            choose = {ev: g[f"rc_{m}"] for ev, m in names.items()}
            react = {ev: g[f"rt_{m}"] for ev, m in names.items() if f"rt_{m}" in g}
            self.tactics[d.name] = TacticDef(d.name, g[f"ta_{t}"], choose, react, g.get(f"tc_{t}"))
        self.rounds = [(d.name, g[f"r_{gid('round', d.name)}"], g[f"f_{gid('round', d.name)}"]) for d in rs.all(n.Round)]
        self.tallies = [(d, g[gid("tally", d.name)]) for d in rs.all(n.Tally)]
        self.stands = next((fn for d, fn in self.tallies if isinstance(d, n.Stands)), None)
        self.stands_decl = next((d for d, fn in self.tallies if isinstance(d, n.Stands)), None)
        self.draws = [(d, fn) for d, fn in self.tallies if isinstance(d, n.Draw)]
        for name, ct in self.conditions.items():
            ct.on_receive = g.get(p.gids.get(("receive", name)))
        self.sheet_defaults_by = {name: g[f"sheet_defaults_{i}"] for i, name in enumerate(self.sheet_fields_by)}
        self.fill_sheet_by = {name: g[f"fill_sheet_{i}"] for i, name in enumerate(self.sheet_fields_by)}
        self.sheet_defaults, self.fill_sheet = self.sheet_defaults_by[self.sheet.name], self.fill_sheet_by[self.sheet.name]
        self.init_vars = g["init_vars"]


def _nothing(_E):
    """The `do` of an encounter with no code of its own (never run: the encounter has no `do:` block)."""


def _copy(ct: ConditionType) -> ConditionType:
    """A condition of the program, for this process to link (its grades and data shared)."""
    out = ConditionType(ct.name, ct.grades)
    out.data = ct.data
    return out
