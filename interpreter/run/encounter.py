"""Encounter scripts: combatants, pinned dice, scripted decisions, activities
and expectations, validated against a compiled program and run."""
from __future__ import annotations

import itertools
from operator import itemgetter

from ...dsl.syntax import nodes as n
from ...dsl.diagnostics import Diagnostic, GrimorioError, Span
from ...dsl.records import dataclass, field, fields
from ...dsl.check.encounter_check import decision_kind, setting_value
from ...dsl.check.front import check_encounter
from ...dsl.pause import collector_paused
from ...dsl.check.format_kinds import default_side
from ...dsl.check.policy import DEFAULT_SIDE
from ...dsl.check.sheets import SHEET_LINE

from . import runtime_helpers as H
from .engine import Engine, guarded
from .values import mangle

_counter = itertools.count()


@dataclass
class Outcome:
    engine: Engine
    expectations: list = field(default_factory=list)   # Verdicts, in the order they were checked
    program: object = None       # the compiled program it ran on

    @property
    def failed(self):
        return [(v, v.left, v.right) for v in self.expectations if not v.ok]


def _conditions(enc) -> list:
    """The expectations of conditions (compiled; those of transcript lines the engine checks)."""
    every = list(enc.expects) + [x for _r, x in enc.round_expects]
    return [x for x in every if x.expr is not None]


def _expressions(enc) -> list:
    return [x.expr for x in _conditions(enc)]


class Prepared:
    """An encounter validated and compiled against a program: run it many times."""

    def __init__(self, enc: n.Encounter, program, option_overrides=None, state=None):
        """`program`: the compiled program (interpreter/compile: Program) it runs on; the encounter is
        checked against its ruleset by the front end (dsl/check/front.py), then its own code compiled.
        `state`: a StateFile (--load-state), checked against this encounter: the combatants it holds take
        their sheet from it (saved state wins), but for the values the encounter changes on purpose."""
        self.enc, self.p, self.state = enc, program, state
        names = [c.name for c in enc.combatants]
        saved = state.loaded_sheets() if state is not None else {}
        self.sheet_of = {c.name: _sheet_named(c, program, saved.get(c.name)) for c in enc.combatants}
        facts = program.facts
        settings = list(enc.settings) + list((option_overrides or {}).items())
        diags = check_encounter(enc, program.ruleset, facts, settings, program.resolver, saved)
        if diags:
            raise GrimorioError(diags)
        # (the plain program where the encounter's own code breaks a fact of the optimized one)
        # (a side that is no text too, where the optimized code takes every side as one)
        template = {**program.options, **dict((k, setting_value(v)) for k, v in settings)}[DEFAULT_SIDE]
        sides = [_side(c, template) for c in enc.combatants]
        self.p = program = program.for_code(enc.do, _expressions(enc), names, sides)
        if state is not None:
            state.check_sheets(self.sheet_of)
        self.options = {name: setting_value(value) for name, value in settings}
        self.pins = [_pinned(pin, names) for pin in enc.pins]
        self.script = {}
        for rnd, decisions in enc.script:
            for d in decisions:
                for words, span, refused in d.choices:
                    q = self.script.setdefault((rnd, d.who), {"action": [], "reaction": [], "choose": []})
                    q[decision_kind(words[0], facts)].append((words, span, refused))
        self.defaults_done = False
        self._makers = None                        # made from the blueprints on first use
        self.blueprints = self._blueprints()
        # Expectations of conditions are compiled; those of transcript lines are checked by the engine.
        conditions = _conditions(enc)
        self.code = program.compile_snippet(f"enc{next(_counter)}", enc.do, [x.expr for x in conditions], names)
        fns = dict(zip(map(id, conditions), self.code["expects"]))
        self.final_checks = [(x, fns.get(id(x))) for x in enc.expects]
        self.round_checks = {}
        for rnd, x in enc.round_expects:
            self.round_checks.setdefault(rnd, []).append((x, fns.get(id(x))))
        self.needs_lines = any(isinstance(x, n.Expect) and x.said is not None for x in _walk(enc))
        # What each run does after its setup, worked out once: its do: block (none: nothing to run)
        # and whether the rounds run (unless the script only does things: a do: block without "rounds N").
        self.do = self.code["do"] if enc.do else None
        self.runs_rounds = bool(program.rounds and (enc.rounds if enc.do else enc.rounds is None or enc.rounds > 0))
        self.expectation_spans = expectation_spans(enc)

    def _blueprints(self):
        """What each run needs to make the combatants, worked out once."""
        default_tactic = self._default_tactic()
        side = {**self.p.options, **self.options}[DEFAULT_SIDE]      # the prelude's option, or the edition's
        out = []
        loaded = self.state.loaded() if self.state is not None else frozenset()
        for i, c in enumerate(self.enc.combatants):
            given = {k: v for k, v, _ in c.fields}
            attrs = []
            fields = {f.name: f for f in self.p.sheet_fields_by[self.sheet_of[c.name]]}
            for k, v in given.items():
                f = fields.get(k)
                if f is not None:
                    attrs.append((mangle(k), self.p.tables[f.table].lookup(v) if f.type == "row" else v))
            names = frozenset(given)
            if c.name in loaded:        # saved state wins: its sheet, as if the encounter gave it, but the changes
                saved = self.state.plain_fields(c.name)
                attrs += [(mangle(k), v) for k, v in saved.items() if k not in given]
                names |= self.state.field_names(c.name)
            holds = [(self.p.conditions[cond], grade) for cond, grade, _ in c.holds]
            holds = [(ct, ct.by_name.get(grade) if grade else None) for ct, grade in holds]
            out.append((i, c.name, _side(c, side), given.get("tactic", default_tactic), attrs,
                        names, holds))
        if self.p.pure_defaults:
            out = self._with_defaults(out)
        return out

    def _default_tactic(self):
        """The prelude's option default_tactic, as the edition or the encounter set it (a tactic of
        these rules: dsl/check/policy.py checked every value it was given); "": the first tactic."""
        name = {**self.p.options, **self.options}.get("default_tactic") or None
        return next(iter(self.p.tactics), None) if name is None else name

    def _with_defaults(self, blueprints):
        """Sheet defaults that roll nothing are the same every run: work them out once."""
        self.blueprints = blueprints
        scratch = Engine(self.p, [], record=False)
        made = self.make_combatants(scratch)
        slots = {s: [mangle(f.name) for f in fields] for s, fields in self.p.sheet_fields_by.items()}
        self.defaults_done = True
        self._makers = None
        return [(i, name, side, tactic, [(a, getattr(obj, a)) for a in slots[obj.a_sheet]], given, holds)
                for obj, (i, name, side, tactic, _attrs, given, holds) in zip(made, blueprints)]

    def given_fields(self) -> dict:
        """The sheet fields each combatant's lines give."""
        return {name: given for _i, name, _s, _t, _a, given, _h in self.blueprints}

    def changes(self) -> dict:
        """The fields each combatant's lines change on purpose over a loaded state ("change FUE 4")."""
        return {c.name: c.changes for c in self.enc.combatants}

    def state_setup(self):
        """What puts the loaded state into a run once its combatants are made (None: no state)."""
        if self.state is None:
            return None
        changes = self.changes()
        return lambda eng: self.state.apply(eng, changes)

    def make_combatants(self, eng):
        makers = self._makers
        if makers is None:
            makers = self._makers = self._combatant_makers()
        cls = self.p.combatant_class
        made = []
        for fill, values, fresh, _holds, _given in makers:
            obj = cls()
            if fresh is not None:                  # each run gets its own copy of a list value
                others, lists, order = fresh
                values = order(others + tuple(map(list, lists)))
            fill(obj, values)                      # its name, side, tactic, sheet and fields at once
            made.append(obj)
        if eng.script:                             # (a run's script is its own all run: see _scripted_act)
            for obj in made:
                obj.acts = _scripted_act
        eng.cb = made
        if self.defaults_done and not self._holds:
            return made
        p = self.p
        for obj, (_f, _v, _l, holds, given) in zip(made, makers):
            if not self.defaults_done:
                guarded(p, p.sheet_defaults_by[obj.a_sheet], eng, obj, given)
            if holds:
                cards = obj.cards
                for ct, grade in holds:
                    cards.setdefault(ct.name, []).append(grade)
        return made

    def _combatant_makers(self):
        """What make_combatants needs of each blueprint, worked out once: the function that fills a
        combatant (the sheet's fill_sheet once every field is known, else one setting the fields its
        lines give), the values it is filled with (its name, side, tactic, the tactic's act and
        reactions, its sheet, then its fields), how a run copies those that are lists (_fresh_lists),
        its cards, its given fields."""
        acts = {name: (t.act, t.react) for name, t in self.p.tactics.items()}
        out = []
        for _i, name, side, tactic, attrs, given, holds in self.blueprints:
            sheet = self.sheet_of[name]
            act, react = acts.get(tactic, (_no_tactic, {}))
            values = (name, side, tactic, act, react, sheet) + tuple(v for _a, v in attrs)
            fill = self.p.fill_sheet_by[sheet] if self.defaults_done else _given_fields(tuple(a for a, _v in attrs))
            out.append((fill, values, _fresh_lists(values), tuple(holds), given))
        self._holds = any(m[3] for m in out)
        return out

    def run(self, seed=None, record=True, json=False, max_rounds=None, setup=None, budget=None) -> Outcome:
        """Run the encounter once. `setup(engine)`, if given, runs once the combatants and vars
        are made, before `do:`. On an error, the GrimorioError carries the run so far as
        `outcome`, so its transcript is not lost."""
        enc, p = self.enc, self.p
        seed = enc.seed if seed is None else seed
        # Each run its own copy of what it uses up (pins, scripted decisions, expectations by round).
        pins = [dict(pin, used=False) for pin in self.pins] if self.pins else []
        script = {k: {kind: list(q) for kind, q in v.items()} for k, v in self.script.items()} if self.script else {}
        eng = Engine(p, [], seed or 0, record or self.needs_lines, json, pins, enc.strict_dice, script, self.options,
                     max_rounds or enc.rounds or 100, budget)
        if self.round_checks:
            eng.round_checks = {k: list(v) for k, v in self.round_checks.items()}
        out = Outcome(eng, eng.verdicts, program=p)
        # A run frees what it makes by reference counting (rules build no cycles but by
        # accident): the cyclic collector only costs time here, about a tenth of a run.
        # It comes back on as the run ends, and collects what a run left in a cycle then.
        try:
            with collector_paused():
                self._run(eng, pins, setup)
        except GrimorioError as exc:
            exc.outcome = out
            raise
        return out

    def _run(self, eng, pins, setup=None):
        enc, p = self.enc, self.p
        self.make_combatants(eng)
        guarded(p, p.init_vars, eng)
        if setup is not None:
            setup(eng)
        if eng.json:
            eng.events.start()                    # the sheets as they start: JSON lines show what changes
        try:
            if self.do is not None:
                guarded(p, self.do, eng, stops=True)
            if self.runs_rounds:
                guarded(p, eng.run_rounds)
        except H.StopRun:
            pass                                  # "stop" in the do: block ends the encounter
        if eng.script:
            guarded(p, eng.script_left_over)
        if eng.round_checks:
            eng.rounds_never_run()
        if enc.strict_dice:
            left = [pin for pin in pins if not pin["used"]]
            if left:
                raise GrimorioError([Diagnostic("E0505", "this pinned roll was never made", pin["span"],
                                                "the scenario went otherwise than the script expects")
                                     for pin in left])
        for node, fn in self.final_checks:
            if fn is None:
                eng.expect_said(node)
            else:
                eng.expected(node, *guarded(p, fn, eng))


def expectation_spans(enc: n.Encounter) -> list[tuple[Span, str]]:
    """Where each expectation of an encounter is written, in the order of its text, and the
    words that lead it there ("expect ", or a refused choice's "WHO: "): those of do: blocks,
    of rounds, the scripted choices the rules must refuse, and those of the end. A verdict
    names its expectation by this span, however often (or late) it is checked."""
    spans = [(x.span, "expect ") for x in _walk(enc.do) if isinstance(x, n.Expect)]
    spans += [(x.span, "expect ") for _r, x in enc.round_expects] + [(x.span, "expect ") for x in enc.expects]
    spans += [(span, f"{d.who}: ") for _r, decisions in enc.script for d in decisions
              for _words, span, refused in d.choices if refused is not None]
    return sorted(set(spans), key=lambda x: (x[0].line, x[0].col, x[0].end_line, x[0].end_col))


def _walk(node):
    """Every node under an encounter (its do: block, expectations and rounds)."""
    if isinstance(node, (tuple, list)):
        for x in node:
            yield from _walk(x)
    elif isinstance(node, n.Node):
        yield node
        for f in fields(node):
            v = getattr(node, f.name)
            if isinstance(v, (tuple, list, n.Node)):
                yield from _walk(v)


def _fresh_lists(values: tuple):
    """How a run makes `values` with a copy of each list in it, in C: (the values that are no
    list, the lists, the getter putting `others + copies of the lists` back in their order); None
    when none is a list."""
    lists = [k for k, v in enumerate(values) if type(v) is list]
    if not lists:
        return None
    others = [k for k in range(len(values)) if k not in lists]
    place = {k: i for i, k in enumerate(others + lists)}
    return (tuple(values[k] for k in others), tuple(values[k] for k in lists),
            itemgetter(*(place[k] for k in range(len(values)))))


def _no_tactic(_engine, _combatant):
    return False


def _scripted_act(engine, combatant):
    """A combatant's choice of action in a run with a script: the script's next decision for it,
    else its tactic's (Engine.act). Generated code asks `c.acts(_E, c)` with no test of the script:
    a run has a script (keys that stay) from its start to its end, or none at all."""
    return engine.act(combatant)


def _side(c, template):
    """The side the encounter gives combatant `c`: its (last) side line, or the default side's template."""
    given = {k: v for k, v, _span in c.fields}
    return given["side"] if "side" in given else default_side(template, c.name)


def _given_fields(attrs):
    """A combatant's fill before its sheet's defaults are known: what fill_sheet sets but the fields,
    then the fields its lines give (`attrs`), the rest left for its sheet_defaults."""
    head = H.COMBATANT_HEAD + attrs

    def fill(obj, values):
        obj.cards, obj.held = {}, {}
        for attr, v in zip(head, values):
            setattr(obj, attr, v)
    return fill


def _sheet_named(c: n.Combatant, program, saved: str | None = None) -> str:
    """The sheet a combatant's `sheet NAME` line names (the encounter check knows it), else the sheet a
    loaded state saved it with (`saved`), else the base sheet."""
    return next((str(v) for k, v, _ in c.fields if k == SHEET_LINE), saved or program.sheet.name)


def _pinned(pin: n.Pin, names: list) -> dict:
    """A pinned roll as the run reads it: who rolls (if named), what for (if named), its faces."""
    words = list(pin.words)
    who = words.pop(0) if words and words[0] in names else None
    return {"who": who, "purpose": words[0] if words else None, "faces": pin.faces, "span": pin.span}
