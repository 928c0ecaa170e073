"""A checked Ruleset to plain Python callables.

Every rule, action, reaction, check, message and step becomes one Python
function in one generated module, compiled once and reused by every run.
Generated lines remember the span they came from, so an error raised while
running is reported at the rule text, never as a Python traceback.
"""
from __future__ import annotations

import contextlib


from ...dsl.syntax import nodes as n
from ...dsl.diagnostics import Diagnostic, GrimorioError, InlinedSpan, Span
from ...dsl.check.names import BUILTINS, walk
from ...dsl.check.bindings import Bindings
from ...dsl.check.resolver import bindings_of, script_bindings
from ...dsl.check.purity import Purity
from ...dsl.check.sheets import fields_by_sheet
from ...dsl.check.front import check_edition, facts_of

from ...dsl.store import python_code
from ..run import runtime_helpers as H
from .data import DataBuilder, Table, kept_lists  # noqa: F401 - Table: the API
from .expressions import ExpressionCompiler
from .code import REACTOR, unmarked
from .formats import build_format
from .hoisting import emit_preferences
from .inplace import InPlace
from .optimizer import PLAIN, declared, optimize as optimize_pass, snippet_plan
from .wholes import broken_by, outcomes_broken_by
from .fieldnames import names_broken_by
from .mapvars import maps_broken_by
from .combatants import combatants_broken_by
from .sides import sides_broken_by
from .statements import StatementCompiler
from ..run.loaded import Loaded, namespace
from ..run.values import mangle
from .program import Program, program_of

FILENAME = "<grimorio>"


def compile_checked(ruleset, optimize: bool = True) -> Loaded:
    """Check, then compile what checked clean, and load it to run (compile_program, then load).
    The checker in dsl/ owns the diagnostics it finds, and the compiler never sees a ruleset the
    checker refused. `optimize`: with the optimizer's plan (optimizer.py, the default), or the
    empty plan: plain (docs/performance.md)."""
    return load(compile_program(ruleset, check_edition(ruleset), optimize))


def compile_unchecked(ruleset, optimize: bool = True) -> Loaded:
    """Compile without the checker, and load: for the tests that show what the checker spares a run."""
    return load(compile_program(ruleset, (), optimize))


def compile_program(ruleset, warnings=(), optimize: bool = True) -> Program:
    """The Program (plain data: program.py) of a checked ruleset."""
    compiler = Compiler(ruleset, optimize)
    return program_of(compiler, compiler.code, warnings, optimize, facts_of(ruleset))


def load(program: Program) -> Loaded:
    """A Program ready to run in this process (interpreter/run/loaded.py), with the compiler of its
    encounters' own code (Snippets)."""
    return Loaded(program, Snippets)


# Builtins that run code of the rules or of a controller (a tactic, the `stands` declaration).
_RUNS_RULES = frozenset(("act", "choose", "standing"))


class Compiler(DataBuilder, StatementCompiler, ExpressionCompiler, InPlace):
    """The one emitter: compiles a checked ruleset to Python as the optimizer's plan says
    (optimizer.py: a pass over the declarations before anything is emitted); the empty plan
    is the plain path, every operator and builtin a call of semantics.py. `Program` keeps
    what it made."""

    def __init__(self, ruleset, optimize: bool = True):
        self.ruleset = ruleset
        self.bindings = bindings_of(ruleset)      # the resolver's: what each name means, each local's slot
        self.resolver = self.bindings.resolver    # the ruleset's names, for an encounter's check
        self.ns: dict = namespace(H.show, self.bindings.fields)
        self.lines: list[str] = []
        self.line_spans: list[Span | None] = []
        self.line_owner: list[str] = []
        self.owner = ""
        self.consts: dict[int, str] = {}
        self.getters: dict = {}                # field -> the getter `ordered by it.field` orders by (statements)
        self.purposes: set[str] = set()
        self.structs: dict[tuple, type] = {}
        self._tmp = 0
        self.gids: dict[tuple, str] = {}
        self.alias: dict[str, str] = {}       # a parameter's binding -> its argument, in a requirement tested in place
        self.leaves: dict[str, bool] = {}
        self.weights: dict[str, int | None] = {}     # rule -> calls_below (expressions.py)
        self.purity = Purity(ruleset, self.resolver)   # which rules and statements change nothing
        self.lazy_events: set[str] = set()    # the events whose reactor chooses lazily (emitter)
        self.tail = ([], [], [])              # functions compiled for a decision, emitted after it (within)
        self.specs: dict = {}                 # in a decision: question -> its body's function (within)
        self.spec_count = 0
        self.plan = optimize_pass(ruleset, self.bindings, self.purity, self.counted_by_caller) if optimize else PLAIN
        self._build_data()
        self.ns["_KEPT"] = kept_lists(self.tables, self.conditions)           # the tables' lists: append refuses them
        self.format = build_format(ruleset)            # how messages print values
        self.ns["_show"] = self.format.show
        self._build_code()
        source = "\n".join(self.lines) + "\n"
        self.source = source
        self.code = self._compile(source)

    def _compile(self, source: str, filename: str = FILENAME):
        """Python's compile, its limits (nesting, size) reported at the rule text that reached them."""
        try:
            return python_code(source, filename)
        except MemoryError:
            raise GrimorioError(Diagnostic("E0322", "these rules are too large to compile in the memory "
                                           "available", self.ruleset.edition.span,
                                           "split the edition, or run grimorio with more memory")) from None
        except (SyntaxError, RecursionError, ValueError) as exc:
            line = (getattr(exc, "lineno", None) or 0) - 1
            span = self.line_spans[line] if 0 <= line < len(self.line_spans) else None
            raise GrimorioError(Diagnostic("E0106", "this is too complex to run", span or self.ruleset.edition.span,
                                           "split it: give a part its own rule, or a name with let")) from None

    # ------------------------------------------------------------ code
    def emit(self, depth: int, text: str, span: Span | None = None):
        """A line, without the marks of the rules compiled in place in it (code.marked): its span
        tells where each stands, so a failure inside one is told at the rule's own line."""
        if "\x01" in text:
            text, inner = unmarked("    " * depth + text)
            depth, rules = 0, self.ruleset.space("rule")
            if span is not None:
                span = InlinedSpan.of(span, [(start, end, rules[name].body[0].span) for start, end, name in inner])
        self.lines.append("    " * depth + text)
        self.line_spans.append(span)
        self.line_owner.append(self.owner)

    def gid(self, kind: str, name) -> str:
        """The Python name of a declaration: its kind and a number, never its spelling
        (an action and a reaction may share a name; two spellings never meet)."""
        out = self.gids.get((kind, name))
        if out is None:
            out = self.gids[(kind, name)] = f"{kind}{len(self.gids)}"
        return out

    def _build_code(self):
        rs = self.ruleset
        self.emit(0, "# generated by grimorio from edition " + rs.edition.name)
        self.reacted = list(dict.fromkeys(d.event for d in rs.all(n.Reaction) if d.event in self.event_types))
        for kind, compile_one in ((n.Rule, self.rule), (n.Check, self.check), (n.Message, self.message),
                                  (n.Condition, self.on_receive), (n.Action, self.action), (n.Reaction, self.reaction)):
            for d in rs.all(kind):
                compile_one(d)
        answers = {event: [r for r in rs.all(n.Reaction) if r.event == event] for event in self.reacted}
        # Only an event whose reactions can start another (nests) deepens the run: where none can,
        # every event runs at depth 0 and none needs the test of the depth.
        self.nesting = {event for event, reactions in answers.items() if self.nests(event, reactions)}
        for event, reactions in answers.items():
            self.emitter(event, reactions)
        for kind, compile_one in ((n.Tactic, self.tactic), (n.Round, self.round), (n.Tally, self.tally)):
            for d in rs.all(kind):
                compile_one(d)
        sheets = rs.all(n.Sheet) or [n.Sheet(Span("<none>", 0, 0), "sheet", ())]
        self.sheet = sheets[0]                 # the base sheet: a combatant's, unless it names another
        self.sheet_fields_by = fields_by_sheet(sheets)
        # Defaults that roll nothing and call no rule can be worked out once per encounter.
        impure = (n.Roll, n.CheckCall, n.Emit)
        self.pure_defaults = not any(
            isinstance(node, impure) or (isinstance(node, n.Call) and not (
                isinstance(node.func, n.Name) and node.func.id in BUILTINS and node.func.id != "act"))
            for s in sheets for f in s.fields if f.default is not None for node in walk(f.default))
        for i, s in enumerate(sheets):
            self.sheet_init(s, self.sheet_fields_by[s.name], i)
        self.vars = rs.all(n.Var)
        self.emit(0, "def init_vars(_E):")
        self.owner = "var"
        self.emit(1, "pass")
        for v in self.vars:
            self.emit(1, f"_E.v.{mangle(v.name)} = {self.expr(v.value)}", v.span)

    def rule(self, d: n.Rule):
        self.rule_head(self.gid("rule", d.name), d)
        self.block(d.body, 1)

    def rule_head(self, fname: str, d: n.Rule, first: str = ""):
        """The head of a rule's function `fname` (`first`: a parameter before the rule's own) and
        its step, where a call of it is one."""
        self.owner = f"rule {d.name}"
        self.emit(0, f"def {fname}(_E{first}{self.params(d.params)}):", d.span)
        if not self.counted_by_caller(d):
            # A call of a rule that makes many calls, or calls back, is a step (calls can multiply:
            # f calls f twice); a leaf rule's cost is its caller's call and its own loops, counted
            # where they run, and a rule that makes few calls costs a bounded multiple of that.
            self.emit(1, "_E.steps += 1", d.span)
            self.emit(1, "if _E.steps > _E.budget: raise H.Budget(_E.budget)", d.span)

    def check(self, d: n.Check):
        self.owner = f"check {d.name}"
        self.purposes.add(d.name)
        name, roll = self.gid('check', d.name), self.slot(d, "roll")
        dice = self.expr(d.dice)
        self.emit(0, f"def {name}(_E, _by, _purpose{self.params(d.params)}):", d.span)
        fast = self.lone_die(d.dice, "_by", "_purpose")
        if fast is None:
            self.emit(1, f"{roll} = {self.roll_code(dice, d.dice, '_by', '_purpose')}", d.dice.span)
            self.check_body(d, 1)
        else:
            # A lone die rolled in place (nothing pinned or shown) is a whole number: its table is
            # compiled knowing it; any other roll (a Roll kept for the transcript) takes the table
            # compiled for any value.
            self.emit(1, "if _E.plain:", d.dice.span)
            self.emit(2, f"{roll} = {fast}", d.dice.span)
            with self.whole_numbers([roll]):
                self.check_body(d, 2)
            self.emit(1, "else:", d.dice.span)
            self.emit(2, f"{roll} = _E.roll({dice}, _by, _purpose)", d.dice.span)
            self.check_body(d, 2)
        # A roll the caller names as an argument (`ROLL: value`): the table reads it, no die is rolled.
        self.emit(0, f"def {name}_given(_E, _by, _purpose{self.params(d.params)}, _given):", d.span)
        self.emit(1, f"{roll} = _given", d.dice.span)
        self.check_body(d, 1)

    def check_body(self, d: n.Check, depth):
        """A check's table and the record it gives (its parameters, its roll, its table's output)."""
        slots = [self.slot(p) for p in d.params] + [self.slot(d, "roll"), self.slot(d.decide)]
        cls = self.k(self.check_types[d.name], "check")
        names = [p.name for p in d.params] + [d.roll_name, d.decide.output]
        if d.decide.policy == "first":
            # The record made first, and the row that matches gives its output field at once (a
            # "first" table sets its output once, and no row reads it).
            self.emit(depth, f"_r = {cls}()")       # a record made in place: one call fewer than its _new
            self.decide(d.decide, depth, f"_r.{mangle(d.decide.output)}")
            names, slots = names[:-1], slots[:-1]
        else:
            self.decide(d.decide, depth)
            self.emit(depth, f"_r = {cls}()")
        for x, slot in zip(names, slots):
            self.emit(depth, f"_r.{mangle(x)} = {slot}")
        self.emit(depth, f"if _E.rec: _E.record_check({d.name!r}, _by, _purpose, _r)")
        self.emit(depth, "return _r")

    def message(self, d: n.Message):
        self.owner = f"message {d.name}"
        self.emit(0, f"def {self.gid('message', d.name)}(_E{self.params(d.params)}):", d.span)
        if not d.parts:
            return self.emit(1, "return ''", d.span)
        self.emit(1, "return ''.join((", d.span)
        for p in d.parts:               # a line each: a placeholder that fails is told at its own column
            self.emit(2, f"{p!r}," if isinstance(p, str) else f"_show({self.expr(p)}),",
                      d.span if isinstance(p, str) else p.span)
        self.emit(1, "))", d.span)

    def on_receive(self, d: n.Condition):
        if d.on_receive is None:
            return
        self.owner = f"condition {d.name}"
        params, body = d.on_receive
        self.emit(0, f"def {self.gid('receive', d.name)}(_E{self.params(params)}):", d.span)
        self.block(body, 1)

    def _cost_and_req(self, d, depth):
        self.emit(depth, f"return {self.req_expr(d, [self.slot(p) for p in d.params])}")

    def req_expr(self, d, args: list[str]) -> str:
        """Whether an action or reaction is allowed: its costs are affordable and its
        requirements hold, compiled in place for the arguments (code) given."""
        saved = self.alias
        self.alias = {self.slot(p): a for p, a in zip(d.params, args)}
        try:
            actor = args[0]
            conds = []
            for f, amount in d.costs:
                conds.append(f"{actor}.{mangle(f)} >= ({self.expr(amount)})")
            conds += [f"({self.expr(r)})" for r in d.requires]
            return " and ".join(conds) if conds else "True"
        finally:
            self.alias = saved

    def in_place(self, node, params, args) -> str:
        """An expression over some parameters, compiled for the given arguments."""
        saved = self.alias
        self.alias = {self.slot(p): a for p, a in zip(params, args)}
        try:
            return self.expr(node)
        finally:
            self.alias = saved

    def sheet_fields(self):
        sheets = self.ruleset.all(n.Sheet)
        return sheets[0].fields if sheets else ()

    def _pay(self, d, depth):
        actor = self.slot(d.params[0])
        for f, amount in d.costs:
            code, field = self.expr(amount), f"{actor}.{mangle(f)}"
            if isinstance(amount, n.Const) and type(amount.value) is int and amount.value >= 0:     # a written cost, which the requirement field >= cost left affordable
                self.emit(depth, f"{field} -= ({code})", d.span)
            else:                       # a computed one (maybe negative): as "-" means it, bounded
                self.emit(depth, f"{field} = S.sub({field}, {code})", d.span)

    def action(self, d: n.Action):
        self.owner = f"action {d.name}"
        m = self.gid("action", d.name)
        for i, p in enumerate(d.params[1:], 1):
            self.emit(0, f"def d_{m}_{i}(_E{self.params(d.params[:i])}):", p.span)
            self.emit(1, f"return {self.expr(p.domain)}", p.domain.span)
        self.doing(d, m)

    def doing(self, d, m):
        """An action's or a reaction's test (costs and requirements) and its body, which pays first."""
        self.emit(0, f"def q_{m}(_E{self.params(d.params)}):", d.span)
        self._cost_and_req(d, 1)
        self.emit(0, f"def x_{m}(_E{self.params(d.params)}):", d.span)
        self._pay(d, 1)
        self.block(d.body, 1)

    def reaction(self, d: n.Reaction):
        self.owner = f"reaction {d.name}"
        m = self.gid("reaction", d.name)
        self.emit(0, f"def w_{m}(_E{self.params(d.params[1:2])}):", d.by.span)
        self.emit(1, f"return {self.expr(d.by)}", d.by.span)
        self.doing(d, m)

    def emitter(self, event: str, reactions: list):
        """Emitting an event as one function: each reactor, in the order its first
        reaction is declared, is offered the reactions it may take, once."""
        self.owner = f"event {event}"
        # The event's record is made here, from its fields' values (one call fewer than its _new).
        fields = [mangle(f) for f in self.event_types[event]._names]
        values = [f"_f{i}" for i in range(len(fields))]
        # Once per reaction: compiling an expression twice can name its constants twice.
        bys = [self.reactor(r, fields, values) for r in reactions]
        single = len(set(bys)) == 1                 # one reactor or none: no loop, no test of who it is
        if single and bys[0] in values:             # the reactor is a field the event is given: its parameter
            values[values.index(bys[0])] = bys[0] = "_who"
            bys = [bys[0]] * len(bys)
        self.emit(0, f"def {self.gid('event', event)}(_E{''.join(', ' + v for v in values)}):")
        if self.nesting:
            self.emit(1, f"if _E.depth >= {H.EMIT_DEPTH}:")       # (a constant: the refusals')
            self.emit(2, "raise H.Budget(_E.budget)")
        self.emit(1, f"_ev = {self.k(self.event_types[event], 'event')}()")
        for f, v in zip(fields, values):
            self.emit(1, f"_ev.{f} = {v}")
        # The depth counts nested events: one whose reactions can start nothing that reads it
        # (no event, act, question or code on receive) leaves it as it is, and tests it where
        # another event nests (it may run inside that one).
        nests = event in self.nesting
        if nests:
            self.emit(1, "_E.depth += 1")
        self.emit(1, "_E.steps += 1")
        whos, seen = [], {}
        for r, by in zip(reactions, bys):
            if by not in seen:                      # reactions by the same expression share it
                seen[by] = "_who" if single else f"_w{len(seen)}"
                if by != "_who":
                    self.emit(1, f"{seen[by]} = {by}", r.by.span)
                whos.append(seen[by])
        if single:
            self.emit(1, "if _who is not None:")
        else:
            self.emit(1, f"for _who in H.reactors(({', '.join(whos)},)):")
        # How many reactions a reactor may take to one event: the prelude's option (1).
        self.emit(2, "for _n in _E.per_event:")
        lazy = self.chooses_lazily(single)
        if lazy:
            self.lazy_events.add(event)
        depth = 3
        if lazy:
            # Unless the script answers it, the reactor's tactic tests only what its choice needs
            # (_tactic_react).
            self.emit(3, "if not _E.script or _E.unscripted_reaction(_who): "
                         f"_ch = (_who.reacts.get({event!r}) or RF_{self.gid('event', event)})(_E, _who, _ev)")
            self.emit(3, "else:")
            depth = 4
        self.emit(depth, "_opts = []")
        for r, by in zip(reactions, bys):
            mine = "" if single else f"{seen[by]} is _who and "
            self.emit(depth, f"if {mine}{self.req_expr(r, ['_who', '_ev'])}:", r.span)
            self.emit(depth + 1, f"_opts.append(R_{self.gid('reaction', r.name)})")
        self.emit(depth, f"_ch = _E.choose_reaction(_who, {event!r}, _opts, _ev)")
        self.emit(3, "if _ch is None:")
        self.emit(4, "break")
        self.emit(3, "_E.steps += 1")
        self.emit(3, "_ch.run(_E, _who, _ev)")
        if nests:
            self.emit(1, "_E.depth -= 1")
        self.emit(1, "return _ev")
        if lazy:
            self._first_allowed(event, reactions)

    @staticmethod
    def chooses_lazily(single: bool) -> bool:
        """Whether a reactor the script does not answer tests a reaction only when its tactic's
        preferences come to it, each reaction at most once (docs/language.md, Reactions): where
        the event has one reactor. Otherwise, and for a reactor the script answers, every
        reaction is tested first, as declared. (tests/test_hot_path.py turns this off to hold the
        choice to the one made from every reaction allowed.)"""
        return single

    def reactor(self, r: n.Reaction, fields, values) -> str:
        """The code of a reaction's `by` in its event's function: a field of the event (`by
        e.target`) is the value the record was just given; anything else, compiled in place."""
        b = r.by
        if isinstance(b, n.Attr) and isinstance(b.obj, n.Name) and b.obj.id == r.params[1].name \
                and mangle(b.name) in fields:
            return values[fields.index(mangle(b.name))]
        return self.in_place(b, r.params[1:], ["_ev"])

    def nests(self, event: str, reactions: list) -> bool:
        """Whether running an event's reactions (their tests, bodies and the tactics' `when` for it)
        can reach the emitter's depth: emit an event, act, ask a controller, or add a card whose
        condition runs code on receive; a call of a rule counts for what its body can reach."""
        nodes = list(reactions) + [p for t in self.ruleset.all(n.Tactic) for ev, prefs in t.react if ev == event
                                   for p in prefs]
        return self._reaches_depth(nodes, set())

    def _reaches_depth(self, nodes, seen: set) -> bool:
        receives = any(d.on_receive is not None for d in self.ruleset.all(n.Condition))
        for node in walk(tuple(nodes)):
            if isinstance(node, (n.Emit, n.Act)) or (isinstance(node, n.CardOp) and receives):
                return True
            called = None
            if isinstance(node, n.CheckCall):       # a check's table may call rules in its cells
                called = ("check", node.name, self.ruleset.space("check").get(node.name))
            elif isinstance(node, n.Call):
                r = self.bound(node)              # what it calls, as the resolver bound it
                if r is None or (r.kind == "builtin" and r.target in _RUNS_RULES):
                    return True
                if r.kind == "rule":
                    called = ("rule", r.target.name, r.target)
            if called is not None and called[:2] not in seen:
                seen.add(called[:2])
                if called[2] is None or self._reaches_depth([called[2]], seen):
                    return True
        return False

    def asking_once(self, d: n.Tactic, body):
        """Where the plan says a tactic's choice changes nothing until it runs the action it chose
        (optimizer.decision_parts all pure), a rule asked of the actor alone (`ready(me)`,
        `targets(me)`) answers the same each time, from one preference to the next: each such
        question is asked once, when first needed, its answer kept in the choice's own dict `_a`
        (a dict, not a local: comprehensions ask them too). `body()` emits the decision."""
        if d.name not in self.plan.asked_once:
            body()
            return
        self.asking(d, ("_c",), body)

    def asking(self, d, fixed: tuple, body):
        """A decision whose questions of the values `fixed` (their code) are asked once each, their
        answers kept in the decision's own dict `_a` (see asking_once, _tactic_react); `body()`
        emits it. A question of an answer kept or of a field (expressions.answer_key) is kept too
        where the decision's code asks it more than once: the body is emitted a first time to
        count them, then again (the same names: the temporaries start where they did)."""
        at, tmp, tail = len(self.lines), self._tmp, len(self.tail[0])
        self.counted, self.repeated = {}, None
        self._asking(d, fixed, body)
        del self.lines[at:], self.line_spans[at:], self.line_owner[at:]
        for part in self.tail:
            del part[tail:]
        self._tmp = tmp
        self.repeated = {q for q, k in self.counted.items() if k > 1}
        try:
            self._asking(d, fixed, body)
        finally:
            self.counted, self.repeated = {}, None

    def _asking(self, d, fixed: tuple, body):
        at = len(self.lines)
        self.emit(1, "_a = {}", d.span)
        self.asked, saved = {}, self.fixed
        self.fixed, self.answers, self.specs = fixed, {}, {}
        try:
            body()
        finally:
            asked, self.asked, self.fixed, self.answers = self.asked, None, saved, {}
        if not asked:                   # nothing asked once: no dict (nothing after it holds a line's place)
            del self.lines[at], self.line_spans[at], self.line_owner[at]

    def within(self, rule: n.Rule, asked: str, args: list) -> str | None:
        """A rule asked in a decision that asks each question once (`asked`: the question, as the
        decision's `_a` knows it), whose body asks a rule of its own parameters (or their fields):
        its body compiled again as a function of its own, given `_a` (`args`: the keys of the
        arguments it is asked of), where those questions are asked once with the decision's
        (`cost(me, ev, means)` inside `prefers(me, ev, means)`, asked by the decision too). It counts the steps the rule counts; a kept answer skips the
        steps of the rule it answers, as in the decision itself. None where it keeps nothing, or
        inside such a body (one level)."""
        if self.carried or not self.asks_own(rule):
            return None
        found = self.specs.get(asked)
        if found is not None:
            return found
        self.spec_count += 1
        fname = f"{self.gid('rule', rule.name)}_k{self.spec_count}"
        saved = (self.lines, self.line_spans, self.line_owner, self.owner, self.sure, self.bind,
                 self.bound_now, self.fresh, self.question, self.chosen, self.fixed, self.answers)
        self.lines, self.line_spans, self.line_owner = [], [], []
        self.sure, self.bind, self.bound_now, self.fresh, self.question = {}, None, None, None, None
        self.chosen, self.fixed, self.answers = {}, (), {}
        self.carried = {self.slot(p): k for p, k in zip(rule.params, args)}
        kept = self.kept
        try:
            self.rule_head(fname, rule, ", _a")
            self.block(rule.body, 1)
            body = self.lines, self.line_spans, self.line_owner
        finally:
            (self.lines, self.line_spans, self.line_owner, self.owner, self.sure, self.bind,
             self.bound_now, self.fresh, self.question, self.chosen, self.fixed, self.answers) = saved
            self.carried = {}
        if self.kept == kept:
            return None
        self.kept = kept
        for tail, part in zip(self.tail, body):
            tail.extend(part)
        self.specs[asked] = fname
        return fname

    def asks_own(self, rule: n.Rule) -> bool:
        """Whether a rule's body calls a rule with its own parameters (or their fields) alone."""
        mine = {self.slot(p) for p in rule.params}
        names = {p.name for p in rule.params}
        for node in walk(rule.body):
            # a parameter bound again in the body (a local or loop of its name, a `set` of it)
            # would no longer be the value its question is keyed by
            if isinstance(node, n.Let) and node.name in names or getattr(node, "var", None) in names \
                    or isinstance(node, n.Set) and isinstance(node.target, n.Name) and node.target.id in names:
                return False

        def own(x):
            while isinstance(x, n.Attr):
                x = x.obj
            b = self.bound(x) if isinstance(x, n.Name) else None
            return b is not None and b.kind == "local" and b.target in mine
        for node in walk(rule.body):
            if isinstance(node, n.Call) and node.args:
                r = self.bound(node)
                if r is not None and r.kind == "rule" and all(own(a.value) for a in node.args):
                    return True
        return False

    def flush_tail(self):
        """The bodies compiled for a decision (within), after its functions."""
        for lines, part in zip((self.lines, self.line_spans, self.line_owner), self.tail):
            lines.extend(part)
            part.clear()

    def _first_allowed(self, event: str, reactions: list):
        """The choice of a reactor whose tactic prefers nothing for the event: as the prelude's
        option says, the first reaction allowed (H.first_reaction), or none."""
        self.emit(0, f"def RF_{self.gid('event', event)}(_E, _who, _ev):")
        self.emit(1, "if not _E.opt['first_reaction']:")
        self.emit(2, "return None")
        for r in reactions:
            self.emit(1, f"if {self.req_expr(r, [REACTOR, '_ev'])}:", r.span)
            self.emit(2, f"return R_{self.gid('reaction', r.name)}")
        self.emit(1, "return None")

    def tactic(self, d: n.Tactic):
        self.owner = f"tactic {d.name}"
        actions = self.ruleset.space("action")
        reactions = self.ruleset.space("reaction")
        for i, p in enumerate(d.act):
            self._pref(d, "a", i, p, actions[p.name])
        self._tactic_act(d, actions)
        self.flush_tail()
        for ev, prefs in d.react:
            for i, p in enumerate(prefs):
                self._pref(d, f"r_{self.gid('event', ev)}_", i, p, reactions[p.name])
            self._tactic_react(d, ev, prefs, reactions)
            self.flush_tail()
        if d.choose:
            self._tactic_choose(d)

    def _tactic_react(self, d: n.Tactic, ev: str, prefs, reactions):
        """The tactic's choice among the reactions allowed to an event as one function: its
        preferences in order, each `when` tested in place; none preferred and allowed, none.
        A second function (rt_) makes the choice testing each reaction as it comes to it, for a
        reactor the script does not answer (chooses_lazily); where the plan has the event lazy
        (Plan.lazy: all of it pure), it asks each question of the reactor and the event once."""
        name = f"{self.gid('tactic', d.name)}_{self.gid('event', ev)}"
        self.emit(0, f"def rc_{name}(_E, _who, _opts, _ev):", d.span)
        for p in prefs:
            chosen = f"R_{self.gid('reaction', p.name)}"
            self.emit(1, f"if {chosen} in _opts{self._when(p, reactions)}:", p.span)
            self.emit(2, f"return {chosen}", p.span)
        self.emit(1, "return None")
        if ev in self.lazy_events:
            self.emit(0, f"def rt_{name}(_E, _who, _ev):", d.span)
            if ev in self.plan.lazy:
                # The choice changes nothing (optimizer.lazy): a rule asked of the reactor and the
                # event alone answers the same each time it is asked, in a requirement or a `when`.
                self.asking(d, ("_who", "_ev"), lambda: self._lazy_prefs(prefs, reactions))
            else:
                self._lazy_prefs(prefs, reactions)
            self.emit(1, "return None")

    def _lazy_prefs(self, prefs, reactions):
        """The preferences of a lazy reaction choice (rt_), each reaction tested as it comes."""
        tested = {}                     # a reaction named again reuses whether it was allowed
        again = {p.name for i, p in enumerate(prefs) if any(q.name == p.name for q in prefs[:i])}
        for p in prefs:
            allowed = tested.get(p.name)
            if allowed is None:
                allowed = f"({self.req_expr(reactions[p.name], [REACTOR, '_ev'])})"
                if p.name in again:
                    tested[p.name] = f"_k{len(tested)}"
                    allowed = f"({tested[p.name]} := {allowed})"
            self.emit(1, f"if {allowed}{self._when(p, reactions)}:", p.span)
            self.emit(2, f"return R_{self.gid('reaction', p.name)}", p.span)

    def _when(self, p, reactions) -> str:
        """A reaction preference's `when`, as a further test (or nothing)."""
        return f" and {self.in_place(p.when, reactions[p.name].params, [REACTOR, '_ev'])}" if p.when is not None else ""

    def _tactic_act(self, d: n.Tactic, actions):
        """The tactic's choice of action as one function: preferences in order,
        each parameter from its list, the first option allowed runs (see hoisting.py)."""
        base = f"p_{self.gid('tactic', d.name)}_a"
        self.emit(0, f"def ta_{self.gid('tactic', d.name)}(_E, _c):", d.span)
        self.asking_once(d, lambda: emit_preferences(
            self, base, [(i, p, actions[p.name], (d.name, i) in self.plan.hoisted)
                         for i, p in enumerate(d.act)], self.asked is not None))
        self.emit(1, "return False")

    def _tactic_choose(self, d: n.Tactic):
        """The tactic's answer to choose(c, list) as one function, called with a list that is not
        empty: each pick in order walks the list (paid from the step budget) and gives the first
        item of the highest (lowest) key among those whose `when` holds; none holds, the first item."""
        asked = self.slot(d, "asked")
        self.emit(0, f"def tc_{self.gid('tactic', d.name)}(_E, {asked}, _items):", d.span)
        for p in d.choose:
            it = self.slot(p, "it")
            item, found, best, key = self.tmp(), self.tmp(), self.tmp(), self.tmp()
            better = ">" if p.order == "highest" else "<"
            self.emit(1, "_E.steps += len(_items)", p.span)
            self.emit(1, "if _E.steps > _E.budget: raise H.Budget(_E.budget)", p.span)
            self.emit(1, f"{found} = False", p.span)
            self.emit(1, f"for {it} in _items:", p.span)
            depth = 2
            if p.when is not None:
                self.emit(2, f"if {self.expr(p.when)}:", p.when.span)
                depth = 3
            self.emit(depth, f"{key} = S.choice_key({self.expr(p.key)})", p.key.span)
            self.emit(depth, f"if not {found} or {key} {better} {best}:", p.key.span)
            self.emit(depth + 1, f"{found}, {item}, {best} = True, {it}, {key}", p.key.span)
            self.emit(1, f"if {found}:", p.span)
            self.emit(2, f"return {item}", p.span)
        self.emit(1, "return _items[0]", d.span)

    def _pref(self, d, kind, i, p, target):
        names = [x.name for x in target.params]
        base = f"p_{self.gid('tactic', d.name)}_{kind}{i}"
        given = {a.name: a.value for a in p.args}
        for j, name in enumerate(names[1:], 1):
            if name in given:
                self.emit(0, f"def {base}_arg{j}(_E{self.params(target.params[:j])}):", given[name].span)
                # A value fixed as none (first() of an empty list) is no value to choose: the preference
                # is skipped, as for an empty list (docs/language.md, Tactics).
                value = self.tmp()
                self.emit(1, f"{value} = {self.expr(given[name])}", given[name].span)
                self.emit(1, f"return [] if {value} is None else [{value}]", given[name].span)

    def round(self, d: n.Round):
        """The round as one function: its loop, each step's statements in place (a step that
        returns is a function of its own, called), the check of `until` after them."""
        m = self.gid("round", d.name)
        called = {s.name for s in d.steps if any(isinstance(x, n.Return) for x in walk(s.body))}
        for s in d.steps:
            if s.name in called:
                self.owner = f"round {d.name}, step {s.name}"
                self.emit(0, f"def {self.gid('step', (d.name, s.name))}(_E):", s.span)
                self.block(s.body, 1)
        if d.start:
            self.round_start(d)
        self.owner = f"round {d.name}"
        self.emit(0, f"def r_{m}(_E):", d.span)
        if d.start:
            self.emit(1, f"{self.gid('start', d.name)}(_E)", d.span)
        self.emit(1, "while _E.round < _E.max_rounds:", d.span)
        self.emit(2, "_E.round += 1", d.span)
        self.emit(2, "_E.steps += 1", d.span)             # each round is a step
        self.emit(2, "if _E.steps > _E.budget: raise H.Budget(_E.budget)", d.span)
        for s in d.steps:
            self.owner = f"round {d.name}, step {s.name}"
            if s.name in called:
                self.emit(2, f"{self.gid('step', (d.name, s.name))}(_E)", s.span)
            else:
                self.block(s.body, 2)
        self.owner = f"round {d.name}"
        self.emit(2, "if _E.script: _E.script_left(_E.round)", d.span)
        self.emit(2, "if _E.round_checks: _E.check_round(_E.round)", d.span)
        if d.until is not None:
            with self.paying(d.until, 2, d.until.span):
                self.emit(2, f"if {self.expr(d.until)}:", d.until.span)
            self.emit(3, "break", d.until.span)
        self.emit(0, f"def f_{m}(_E):", d.span)
        if d.final:
            self.block(d.final, 1)
        else:
            self.emit(1, "pass")

    def round_start(self, d: n.Round):
        """A round's `start:` part: a function of its own (a `return` ends it), run once before round 1."""
        self.owner = f"round {d.name}, start"
        self.emit(0, f"def {self.gid('start', d.name)}(_E):", d.span)
        self.block(d.start, 1)

    def tally(self, d: n.Tally):
        """A measure taken at the end of a run: a number, or true or false."""
        self.owner = f"tally {d.name}"
        param = f", {self.slot(d, 'param')}" if d.param else ""
        self.emit(0, f"def {self.gid('tally', d.name)}(_E{param}):", d.span)
        self.emit(1, f"return {self.expr(d.value)}", d.value.span)

    def sheet_init(self, d: n.Sheet, fields, i: int):
        """A sheet's functions: sheet_defaults_I works out the defaults a combatant's lines did not give,
        fill_sheet_I sets every field at once (from defaults worked out before)."""
        self.owner = f"sheet {d.name}"
        # What every combatant holds besides its fields (run/values.py: Combatant), then its fields:
        # run/encounter.py's make_combatants gives their values in this order.
        slots = [f"c.{s}" for s in H.COMBATANT_HEAD] + [f"c.{mangle(f.name)}" for f in fields]
        self.emit(0, f"def fill_sheet_{i}(c, values):")
        self.emit(1, "c.cards, c.held = {}, {}")
        self.emit(1, f"{', '.join(slots)}, = values")
        self.emit(0, f"def sheet_defaults_{i}(_E, c, given):", d.span)
        self.emit(1, "pass")
        for f in fields:
            attr = mangle(f.name)
            if f.default is not None:
                self.emit(1, f"if {f.name!r} not in given:", f.span)
                value = self.expr(f.default)
                if f.type == "row":
                    self.emit(2, f"c.{attr} = {self.table_ref(f.table, f.span)}.lookup({value})", f.default.span)
                else:
                    self.emit(2, f"c.{attr} = {value}", f.default.span)
            self.emit(1, f"{self.slot(f)} = c.{attr}")

    def table_ref(self, name, span):
        return self.k(self.tables[name], "table")

    def compile_snippet(self, name: str, stmts=(), exprs=(), combatants=()) -> dict:
        """Compile an encounter's own statements and expectations against this program, into
        a namespace of their own: the program reads the same after a thousand encounters. The
        front end checked them first (dsl/check/front.py: check_encounter)."""
        saved = self.lines, self.line_spans, self.line_owner, self.ns, self.consts, self.bindings
        self.bindings = script_bindings(self.ruleset, stmts, exprs, combatants, self.resolver)
        self.lines, self.line_spans, self.line_owner = [], [], []
        self.ns, self.consts = dict(self.ns), dict(self.consts)
        self.plan = self.plan.with_nodes((*stmts, *exprs), self.bound)     # their facts too
        try:
            self._snippet(name, stmts, exprs, combatants)
            ns = self.ns
            ns["__spans__"] = self.line_spans
            exec(self._compile("\n".join(self.lines) + "\n", f"{FILENAME} {name}"), ns)  # noqa: S102 - checked
            return {"do": ns[f"{name}_do"], "expects": [ns[f"{name}_x{i}"] for i in range(len(exprs))]}
        finally:
            self.lines, self.line_spans, self.line_owner, self.ns, self.consts, self.bindings = saved

    def _snippet(self, name, stmts, exprs, combatants):
        self.owner = "encounter"
        self.emit(0, f"def {name}_do(_E):")
        self.block(tuple(stmts), 1)
        for i, e in enumerate(exprs):
            # An expectation returns its verdict and, for a comparison, both sides.
            self.emit(0, f"def {name}_x{i}(_E):", e.span)
            self.emit(1, f"return {self.verdict(e)}", e.span)

    def requirement_functions(self, d) -> list:
        """Each cost and requirement of an action or reaction as its own function of the
        declaration's parameters, in the order they are tested: (clause, span, function),
        compiled into a namespace of their own (see Program.requirement_checks)."""
        from ...dsl.records import replace
        parts = [(replace(d, costs=(c,), requires=()), sp, "cost") for c, sp in zip(d.costs, d.cost_spans or [d.span] * len(d.costs))]
        parts += [(replace(d, costs=(), requires=(r,)), r.span, "requires") for r in d.requires]
        self.lines, self.line_spans, self.line_owner = [], [], []
        self.ns, self.consts = dict(self.ns), dict(self.consts)
        self.owner = f"{type(d).__name__.lower()} {d.name}"
        for i, (part, span, _kind) in enumerate(parts):
            self.emit(0, f"def rq_{i}(_E{self.params(d.params)}):", span)
            self.emit(1, f"return {self.req_expr(part, [self.slot(p) for p in d.params])}", span)
        ns = self.ns
        ns["__spans__"] = self.line_spans
        exec(self._compile("\n".join(self.lines) + "\n", f"{FILENAME} requires {d.name}"), ns)  # noqa: S102
        return [(kind, span, ns[f"rq_{i}"]) for i, (_p, span, kind) in enumerate(parts)]



class Snippets:
    """The compiler of a loaded program's encounters' own code (their `do` and expectations) and of
    a scripted decision's requirement checks: each compiled by a fresh compiler over the program,
    into a namespace of its own, leaving the program as it was."""

    def __init__(self, loaded: Loaded):
        self.loaded = loaded
        self._requirements: dict = {}
        self._plan = None
        self._plain = None
        self._declared = None

    def for_code(self, stmts=(), exprs=(), combatants=(), sides=()) -> Loaded:
        """The program an encounter's own code may run on: this one, unless the code gives a field or
        a rule's parameter this one holds whole (wholes.py) a value not shown whole, sets a field
        this one holds always an outcome, gives one this one holds a text naming a field
        (fieldnames.py) anything else, sets a var this one holds a map (mapvars.py) to anything
        else, or passes a parameter this one holds a combatant (combatants.py) anything else, or
        the encounter gives a side that is no text where this one takes every side as one
        (`sides`: each combatant's; sides.py); then the same rules on the plain path (compiled
        once, for every such encounter)."""
        loaded = self.loaded
        p = loaded.program
        if not p.optimized:
            return loaded
        broken = p.text_sides and any(side.__class__ is not str for side in sides)
        if not broken:
            if not (stmts or exprs):    # no code of its own: nothing to break
                return loaded
            c = self._compiler()
            bindings = self._with_declared(script_bindings(loaded.ruleset, stmts, exprs, combatants, loaded.resolver))
            broken = (broken_by(c.plan.whole, (*stmts, *exprs), bindings, bindings.of)
                      or outcomes_broken_by(c.plan.outcomes, (*stmts, *exprs))
                      or names_broken_by(c.plan.names, (*stmts, *exprs), bindings, bindings.of)
                      or maps_broken_by(c.plan.maps, (*stmts, *exprs), bindings.of)
                      or combatants_broken_by(c.plan.combatants, (*stmts, *exprs), bindings, bindings.of)
                      or p.text_sides and sides_broken_by(
                          stmts, (), lambda x: c.plan.combatants.holds(x, bindings.of)))
        if not broken:
            return loaded
        if self._plain is None:
            self._plain = load(compile_program(loaded.ruleset, loaded.warnings, optimize=False))
        return self._plain

    def _with_declared(self, bindings):
        """An encounter's bindings, the slots of the program's parameters as it kept them (Declared)."""
        kept = self.loaded.program.plan
        if kept is None:
            return bindings
        if self._declared is None:
            self._declared = declared(kept, self.loaded.ruleset)
        return Declared(bindings, self._declared)

    def compile_snippet(self, name: str, stmts=(), exprs=(), combatants=()) -> dict:
        program = self.for_code(stmts, exprs, combatants)
        if program is not self.loaded:      # its rules called as the plain program has them
            return program.compile_snippet(name, stmts, exprs, combatants)
        # No code of its own (most encounters): an empty `do`, which no plan changes, so the
        # ruleset is not walked again for the optimizer's facts on a warm run.
        return self._compiler(planned=bool(stmts or exprs)).compile_snippet(name, stmts, exprs, combatants)

    def requirement_checks(self, d) -> list:
        """Which cost or requirement refuses a scripted decision: each as its own function, compiled
        once per declaration when a refusal first needs it."""
        found = self._requirements.get(id(d))
        if found is None:
            found = self._requirements[id(d)] = self._compiler().requirement_functions(d)
        return found

    def _compiler(self, planned: bool = True) -> Compiler:
        """A compiler over the program: its data, names and constants as the loaded code has them."""
        loaded, p = self.loaded, self.loaded.program
        c = Compiler.__new__(Compiler)
        for attr in _SHARED:
            setattr(c, attr, getattr(loaded, attr))
        c.purity = Purity(c.ruleset, c.resolver)
        # The ruleset's bindings, walked again only if code of its own reads them (a program read back).
        c.bindings = Bindings(c.resolver, base=lambda: bindings_of(c.ruleset))
        c.ns = dict(loaded.ns)
        c.consts = {id(c.ns[name]): name for names in (p.consts, p.classes) for name in names}
        c.structs, c.gids, c.purposes = dict(loaded.structs), dict(p.gids), set(p.purposes)
        c.leaves, c.weights = dict(p.leaves), dict(p.weights)
        c.reacted = list(p.reacted)
        c.lines, c.line_spans, c.line_owner = [], [], []
        c.alias, c.owner, c._tmp, c.lazy_events, c.getters = {}, "encounter", 0, set(), {}
        if not planned:
            c.plan = PLAIN
            return c
        if self._plan is None:           # what code of its own may take: rules kept or in place
            self._plan = snippet_plan(p.plan, c.ruleset, lambda: c.bindings.base, c.purity, c.counted_by_caller) \
                if p.optimized else PLAIN
        c.plan = self._plan
        return c


class Declared:
    """An encounter's bindings (`own`), where a rule's or a check's parameter and a check's roll have
    the slots the program kept (`kept`: optimizer.declared): what Snippets.for_code asks of them,
    told without resolving the whole ruleset again (its bindings, `own.base`, are walked anew in a
    process that read the program back). The rest is `own`'s."""

    def __init__(self, own, kept: dict):
        self.own, self.kept = own, kept
        self.of, self.slots, self.resolver = own.of, own.slots, own.resolver

    def has_slot(self, node, part=None) -> bool:
        key = id(node) if part is None else (id(node), part)
        if key in self.own.slots or key not in self.kept:
            return self.own.has_slot(node, part)
        return self.kept[key] is not None

    def slot(self, node, part=None) -> str:
        key = id(node) if part is None else (id(node), part)
        found = self.kept.get(key) if key not in self.own.slots else None
        return found if found is not None else self.own.slot(node, part)


# What a snippet's compiler reads of the loaded program as it is.
_SHARED = ("ruleset", "resolver", "tables", "conditions", "outcome_values", "options", "format", "sheet",
           "sheet_fields_by", "vars", "pure_defaults", "event_types", "check_types", "optimized")
