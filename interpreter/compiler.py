"""A checked Ruleset to plain Python callables.

Every rule, action, reaction, check, message and step becomes one Python
function in one generated module, compiled once and reused by every run.
Generated lines remember the span they came from, so an error raised while
running is reported at the rule text, never as a Python traceback.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

from dsl import nodes as n
from dsl.diagnostics import Diagnostic, GrimorioError, Span, did_you_mean
from dsl.names import BUILTINS, Resolver, Scope

from . import runtime_helpers as H
from .dice import Dice
from .values import Combatant, ConditionType, Grade, Ranked, Scale, make_struct, mangle

FILENAME = "<grimorio>"


def L(name: str) -> str:
    """A DSL local as a Python local."""
    return "l_" + mangle(name)[2:]


class ActionDef:
    __slots__ = ("name", "params", "domains", "req", "run", "decl", "cost_field")

    def __init__(self, name, params, domains, req, run, decl):
        self.name, self.params, self.domains, self.req, self.run, self.decl = name, params, domains, req, run, decl


class ReactionDef:
    __slots__ = ("name", "event", "by", "req", "run", "decl")

    def __init__(self, name, event, by, req, run, decl):
        self.name, self.event, self.by, self.req, self.run, self.decl = name, event, by, req, run, decl


class TacticDef:
    __slots__ = ("name", "act", "react")

    def __init__(self, name, act, react):
        self.name, self.act, self.react = name, act, react


class Table:
    """A catalogue (keyed by its first column) or a dice table (keyed by roll)."""

    __slots__ = ("name", "rows", "index", "low", "high", "dice", "ranges")

    def __init__(self, name, rows, index, dice=None, low=0, high=-1, ranges=()):
        self.name, self.rows, self.index, self.dice, self.low, self.high = name, rows, index, dice, low, high
        self.ranges = ranges          # (lo, hi, row) of a dice table: no dict entry per roll, dice can be huge

    def lookup(self, key):
        row = self.index.get(key) if self.dice is None else self._by_roll(key)
        if row is None:
            raise H.RuleFailure(f'table "{self.name}" has no row for {H.show(key)}',
                                f"its keys are {H.show(list(self.index)[:12])}" if self.dice is None
                                else f"it covers rolls {self.low} to {self.high}")
        return row

    def _by_roll(self, key):
        for lo, hi, row in self.ranges:
            try:
                if lo <= key <= hi:
                    return row
            except TypeError:
                return None
        return None

    def __str__(self):
        return self.name


def compile_checked(ruleset) -> "Program":
    """Check, then compile; raise one GrimorioError with the diagnostics of both stages."""
    from dsl.checker import check_ruleset
    diags = check_ruleset(ruleset)
    try:
        program = Program(ruleset)
    except GrimorioError as exc:
        # The compiler repeats a few checks (a cost field, a row table): keep the checker's, better placed.
        seen = {(d.code, d.message, d.span.file) for d in diags} | {(d.span.file, d.span.line, d.span.col) for d in diags}
        diags += [d for d in exc.diagnostics
                  if (d.code, d.message, d.span.file) not in seen and (d.span.file, d.span.line, d.span.col) not in seen]
    except Exception:  # noqa: BLE001 - the compiler assumes a checked ruleset; the checker's errors explain it
        if not diags:
            raise
    if diags:
        raise GrimorioError(diags)
    return program


class Program:
    """A compiled ruleset. Build once; `interpreter.engine.run` runs encounters on it."""

    def __init__(self, ruleset):
        self.ruleset = ruleset
        self.resolver = Resolver(ruleset)
        self.ns: dict = {"__builtins__": {"list": list, "sorted": sorted, "bool": bool, "int": int, "type": type}, "H": H, "_floor": H.floor, "_ceil": H.ceil, "Fraction": Fraction,
                         "_show": H.show, "_eq": H.eq, "_none": H.is_none, "math": math}
        self.lines: list[str] = []
        self.line_spans: list[Span | None] = []
        self.line_owner: list[str] = []
        self.owner = ""
        self.diags: list[Diagnostic] = []
        self.consts: dict[int, str] = {}
        self.purposes: set[str] = set()
        self.structs: dict[tuple, type] = {}
        self._tmp = 0
        self.alias: dict[str, str] = {}       # parameter -> argument, while inlining a rule
        self.inlining: list[str] = []
        self._build_data()
        self._build_code()
        if self.diags:
            raise GrimorioError(self.diags)
        source = "\n".join(self.lines) + "\n"
        self.source = source
        exec(self._compile(source), self.ns)  # noqa: S102 - generated from a checked ruleset
        self._link()

    def _compile(self, source: str):
        """Python's compile, its limits (nesting, size) reported at the rule text that reached them."""
        try:
            return compile(source, FILENAME, "exec")
        except (SyntaxError, RecursionError, MemoryError, ValueError) as exc:
            line = (getattr(exc, "lineno", None) or 0) - 1
            span = self.line_spans[line] if 0 <= line < len(self.line_spans) else None
            raise GrimorioError(Diagnostic("E0106", "this is too complex to run", span or self.ruleset.edition.span,
                                           "split it: give a part its own rule, or a name with let")) from None

    # ------------------------------------------------------------ data
    def k(self, obj, hint="k") -> str:
        key = id(obj)
        if key not in self.consts:
            name = f"K{len(self.consts)}_{hint}"
            self.consts[key] = name
            self.ns[name] = obj
        return self.consts[key]

    def _const_value(self, node):
        """Evaluate a constant cell or default (numbers, dice, texts, lists, scales)."""
        if isinstance(node, n.Const):
            v = node.value
            return Scale(v) if isinstance(v, Fraction) else v
        if isinstance(node, n.DiceLit):
            return Dice.of(node.count, node.sides)
        if isinstance(node, n.ListExp):
            return [self._const_value(x) for x in node.items]
        if isinstance(node, n.Unary) and node.op == "-":
            return -self._const_value(node.operand)
        if isinstance(node, n.Binary) and node.op in "+-":
            a, b = self._const_value(node.left), self._const_value(node.right)
            try:
                return a + b if node.op == "+" else a - b
            except TypeError:
                pass
        if isinstance(node, n.Name) and node.id in self.resolver.outcomes:
            return self.outcome_values[node.id]
        raise GrimorioError(Diagnostic("E0204", "a table cell must be a plain value (a number, dice, a name, a list)",
                                       node.span, "write rules in a rule, not in a table cell"))

    def _build_data(self):
        rs = self.ruleset
        self.outcome_values: dict[str, Ranked] = {}
        for d in rs.all(n.Outcomes):
            for i, v in enumerate(d.values):
                self.outcome_values.setdefault(v, Ranked(v, i, d.name))
        self.conditions: dict[str, ConditionType] = {}
        for d in rs.all(n.Condition):
            ct = ConditionType(d.name, [])
            rows = {g: cells for g, cells in d.rows}
            for i, g in enumerate(d.grades):
                cells = rows.get(g, (None,) * len(d.columns))
                data = {}
                for col, cell in zip(d.columns, cells):
                    try:
                        data[mangle(col)] = self._const_value(cell) if cell is not None else None
                    except GrimorioError as exc:
                        self.diags.extend(exc.diagnostics)
                ct.grades.append(Grade(g, i, d.name, data))
            ct.by_name = {g.name: g for g in ct.grades}
            self.conditions[d.name] = ct
        self.graded = [c for c in self.conditions.values() if c.grades]
        self.tables: dict[str, Table] = {}
        for d in rs.all(n.Table):
            self.tables[d.name] = self._table(d)
        self.event_types = {d.name: make_struct(d.name, [f for f, _ in d.fields]) for d in rs.all(n.Event)}
        self.check_types = {}
        for d in rs.all(n.Check):
            names = [p.name for p in d.params] + [d.roll_name, d.decide.output]
            self.check_types[d.name] = make_struct(d.name, names)
        self.options = {}
        for d in rs.all(n.Option):
            try:
                self.options[d.name] = self._const_value(d.default)
            except GrimorioError as exc:
                self.diags.extend(exc.diagnostics)
        for name, value in rs.edition.settings:
            if name in self.options:
                self.options[name] = self._const_value(value)

    def _table(self, d: n.Table) -> Table:
        cols = list(d.columns[1:]) if d.dice is not None else list(d.columns)
        if d.dice is not None:
            cols = [d.columns[0]] + cols
        cls = make_struct(d.name, cols, key=d.columns[0] if d.dice is None else cols[1] if len(cols) > 1 else None)
        rows, index, ranges = [], {}, []
        for row in d.rows:
            try:
                if d.dice is not None:
                    lo, hi = row[0]
                    values = [lo if lo == hi else f"{lo}-{hi}"] + [self._const_value(c) for c in row[1:]]
                else:
                    values = [self._const_value(c) for c in row]
            except GrimorioError as exc:
                self.diags.extend(exc.diagnostics)
                continue
            obj = cls(*values)
            rows.append(obj)
            if d.dice is not None:
                ranges.append((row[0][0], row[0][1], obj))
            else:
                index[values[0]] = obj
        if d.dice is not None:
            dice = Dice.of(d.dice.count, d.dice.sides)
            return Table(d.name, rows, index, dice, dice.min, dice.max, tuple(ranges))
        return Table(d.name, rows, index)

    # ------------------------------------------------------------ code
    def emit(self, depth: int, text: str, span: Span | None = None):
        self.lines.append("    " * depth + text)
        self.line_spans.append(span)
        self.line_owner.append(self.owner)

    def tmp(self) -> str:
        self._tmp += 1
        return f"_t{self._tmp}"

    def _build_code(self):
        rs = self.ruleset
        self.emit(0, "# generated by grimorio from edition " + rs.edition.name)
        self.reacted = list(dict.fromkeys(d.event for d in rs.all(n.Reaction) if d.event in self.event_types))
        for d in rs.all(n.Rule):
            self._guard(self.rule, d)
        for d in rs.all(n.Check):
            self._guard(self.check, d)
        for d in rs.all(n.Message):
            self._guard(self.message, d)
        for d in rs.all(n.Condition):
            if d.on_receive is not None:
                self._guard(self.on_receive, d)
        for d in rs.all(n.Action):
            self._guard(self.action, d)
        for d in rs.all(n.Reaction):
            self._guard(self.reaction, d)
        for event in self.reacted:
            # A reaction without "by" is reported by self.reaction; the emitter does without it.
            able = [r for r in rs.all(n.Reaction) if r.event == event and r.by is not None]
            if able:
                self._guard(lambda ev, reactions=able: self.emitter(ev, reactions), event)
        for d in rs.all(n.Tactic):
            self._guard(self.tactic, d)
        for d in rs.all(n.Round):
            self._guard(self.round, d)
        sheets = rs.all(n.Sheet)
        self.sheet = sheets[0] if sheets else n.Sheet(Span("<none>", 0, 0), "sheet", ())
        self._guard(self.sheet_init, self.sheet)
        self.vars = rs.all(n.Var)
        self.emit(0, "def init_vars(_E):")
        self.owner = "var"
        self.emit(1, "pass")
        for v in self.vars:
            self._guard(lambda d: self.emit(1, f"_E.v.{mangle(d.name)} = {self.expr(d.value, Scope())}", d.span), v)

    def _guard(self, fn, d):
        mark = len(self.lines)
        try:
            fn(d)
        except GrimorioError as exc:
            self.diags.extend(exc.diagnostics)
            del self.lines[mark:], self.line_spans[mark:], self.line_owner[mark:]

    def fail(self, code, msg, span, help=None):
        raise GrimorioError(Diagnostic(code, msg, span, help))

    def known(self, space: dict, name: str, what: str, span):
        """The declaration called `name`, or an error with the closest name."""
        found = space.get(name)
        if found is None:
            self.fail("E0201", f'there is no {what} "{name}"', span, did_you_mean(name, space))
        return found

    def params(self, params) -> str:
        return "".join(", " + L(p.name) for p in params)

    def rule(self, d: n.Rule):
        self.owner = f"rule {d.name}"
        self.emit(0, f"def r_{mangle(d.name)}(_E{self.params(d.params)}):", d.span)
        scope = Scope({p.name for p in d.params})
        self.block(d.body, 1, scope)

    def check(self, d: n.Check):
        self.owner = f"check {d.name}"
        self.purposes.add(d.name)
        self.emit(0, f"def c_{mangle(d.name)}(_E, _by, _purpose{self.params(d.params)}):", d.span)
        scope = Scope({p.name for p in d.params})
        self.emit(1, f"{L(d.roll_name)} = {self.roll_code(self.expr(d.dice, scope), d.dice, '_by', '_purpose')}",
                  d.dice.span)
        scope = scope.child(d.roll_name)
        self.decide(d.decide, 1, scope)
        names = [p.name for p in d.params] + [d.roll_name, d.decide.output]
        cls = self.k(self.check_types[d.name], "check")
        self.emit(1, f"_r = {cls}({', '.join(L(x) for x in names)})")
        self.emit(1, f"if _E.rec: _E.record_check({d.name!r}, _by, _purpose, _r)")
        self.emit(1, "return _r")

    def message(self, d: n.Message):
        self.owner = f"message {d.name}"
        from dsl.parser import parse_cell
        from dsl.builder import Builder
        scope = Scope({p.name for p in d.params})
        parts, text, i = [], d.template, 0
        lit = ""
        while i < len(text):
            ch = text[i]
            if ch == "{" and text[i:i + 2] == "{{":
                lit += "{"
                i += 2
            elif ch == "}" and text[i:i + 2] == "}}":
                lit += "}"
                i += 2
            elif ch == "{":
                j = text.find("}", i)
                if j < 0:
                    self.fail("E0105", "this placeholder has no closing \"}\"", d.span, 'write "{{" for a brace')
                if lit:
                    parts.append(repr(lit))
                    lit = ""
                b = Builder(d.span.file)
                at = Span(d.span.file, d.span.line, d.span.col, d.span.line, d.span.end_col)
                tree = parse_cell(text[i + 1:j] or " ", "cell_value", d.span.file, d.span.line, d.span.col)
                node = b.expr(tree.children[0])
                from dsl.builder import _relocate
                node = _relocate(node, at)
                parts.append(f"_show({self.expr(node, scope)})")
                i = j + 1
            else:
                lit += ch
                i += 1
        if lit:
            parts.append(repr(lit))
        self.emit(0, f"def m_{mangle(d.name)}(_E{self.params(d.params)}):", d.span)
        self.emit(1, f"return ''.join(({', '.join(parts)},))" if parts else "return ''", d.span)

    def on_receive(self, d: n.Condition):
        self.owner = f"condition {d.name}"
        params, body = d.on_receive
        self.emit(0, f"def o_{mangle(d.name)}(_E{self.params(params)}):", d.span)
        self.block(body, 1, Scope({p.name for p in params}, condition=d))

    def _cost_and_req(self, d, scope, depth):
        self.emit(depth, f"return {self.req_expr(d)}")

    def req_expr(self, d, args: list[str] | None = None) -> str:
        """Whether an action or reaction is allowed: its costs are affordable and its
        requirements hold. With `args`, compiled in place for those arguments."""
        names = [p.name for p in d.params]
        saved = self.alias
        if args is not None:
            self.alias = dict(zip(names, args))
        try:
            scope = Scope(set(names))
            actor = self.alias.get(names[0], L(names[0]))
            conds = []
            for f, amount in d.costs:
                self._check_field(f, d.span)
                conds.append(f"{actor}.{mangle(f)} >= ({self.expr(amount, scope)})")
            conds += [f"({self.expr(r, scope)})" for r in d.requires]
            return " and ".join(conds) if conds else "True"
        finally:
            self.alias = saved

    def in_place(self, node, params, args) -> str:
        """An expression over some parameters, compiled for the given arguments."""
        saved = self.alias
        self.alias = dict(zip([p.name for p in params], args))
        try:
            return self.expr(node, Scope({p.name for p in params}))
        finally:
            self.alias = saved

    def _check_field(self, f, span):
        if f not in {x.name for x in self.sheet_fields()}:
            self.fail("E0203", f'the sheet has no field "{f}"', span, did_you_mean(f, [x.name for x in self.sheet_fields()]))

    def sheet_fields(self):
        sheets = self.ruleset.all(n.Sheet)
        return sheets[0].fields if sheets else ()

    def _pay(self, d, scope, depth):
        actor = L(d.params[0].name)
        for f, amount in d.costs:
            self.emit(depth, f"{actor}.{mangle(f)} -= ({self.expr(amount, scope)})", d.span)

    def action(self, d: n.Action):
        self.owner = f"action {d.name}"
        if not d.params:
            self.fail("E0206", f'action "{d.name}" needs a first parameter: who acts', d.span)
        m = mangle(d.name)
        names = [p.name for p in d.params]
        for i, p in enumerate(d.params[1:], 1):
            if p.domain is None:
                self.fail("E0206", f'parameter "{p.name}" needs a list to choose from, as "{p.name} in enemies(...)"',
                          p.span, "a controller chooses each parameter after the first from its list")
            self.emit(0, f"def d_{m}_{i}(_E{self.params(d.params[:i])}):", p.span)
            self.emit(1, f"return {self.expr(p.domain, Scope(set(names[:i])))}", p.domain.span)
        scope = Scope(set(names))
        self.emit(0, f"def q_{m}(_E{self.params(d.params)}):", d.span)
        self._cost_and_req(d, scope, 1)
        self.emit(0, f"def x_{m}(_E{self.params(d.params)}):", d.span)
        self._pay(d, scope, 1)
        self.block(d.body, 1, scope)

    def reaction(self, d: n.Reaction):
        self.owner = f"reaction {d.name}"
        if len(d.params) != 2:
            self.fail("E0206", f'reaction "{d.name}" takes two parameters: who reacts, and the event', d.span)
        self.known(self.event_types, d.event, "event", d.span)
        if d.by is None:
            self.fail("E0206", f'reaction "{d.name}" needs a "by" line naming who reacts', d.span,
                      f'for example: by {d.params[1].name}.defensor')
        m = mangle(d.name)
        ev = d.params[1].name
        self.emit(0, f"def w_{m}(_E, {L(ev)}):", d.by.span)
        self.emit(1, f"return {self.expr(d.by, Scope({ev}))}", d.by.span)
        scope = Scope({p.name for p in d.params})
        self.emit(0, f"def q_{m}(_E{self.params(d.params)}):", d.span)
        self._cost_and_req(d, scope, 1)
        self.emit(0, f"def x_{m}(_E{self.params(d.params)}):", d.span)
        self._pay(d, scope, 1)
        self.block(d.body, 1, scope)

    def emitter(self, event: str, reactions: list):
        """Emitting an event as one function: each reactor, in the order its first
        reaction is declared, is offered the reactions it may take, once."""
        m = mangle(event)
        self.owner = f"event {event}"
        self.emit(0, f"def em_{m}(_E, _ev):")
        self.emit(1, "if _E.depth >= H.EMIT_DEPTH:")
        self.emit(2, "raise H.Budget()")
        self.emit(1, "_E.depth += 1")
        whos, seen = [], {}
        # Once per reaction: compiling an expression twice can name its constants twice.
        bys = [self.in_place(r.by, r.params[1:], ["_ev"]) for r in reactions]
        for r, by in zip(reactions, bys):
            if by not in seen:                      # reactions by the same expression share it
                seen[by] = f"_w{len(seen)}"
                self.emit(1, f"{seen[by]} = {by}", r.by.span)
                whos.append(seen[by])
        self.emit(1, f"for _who in H.reactors(({', '.join(whos)},)):" if len(whos) > 1 else
                  f"for _who in (() if {whos[0]} is None else ({whos[0]},)):")
        self.emit(2, "_opts = []")
        for r, by in zip(reactions, bys):
            w = seen[by]
            self.emit(2, f"if {w} is _who and {self.req_expr(r, ['_who', '_ev'])}:", r.span)
            self.emit(3, f"_opts.append(R_{mangle(r.name)})")
        self.emit(2, f"_ch = _E.choose_reaction(_who, {event!r}, _opts, _ev)")
        self.emit(2, "if _ch is not None:")
        self.emit(3, "_E.steps += 1")
        self.emit(3, "_ch.run(_E, _who, _ev)")
        self.emit(1, "_E.depth -= 1")
        self.emit(1, "return _ev")

    def tactic(self, d: n.Tactic):
        self.owner = f"tactic {d.name}"
        actions = self.ruleset.space("action")
        reactions = self.ruleset.space("reaction")
        for i, p in enumerate(d.act):
            a = self.known(actions, p.name, "action", p.span)
            self._pref(d, "a", i, p, a)
        self._tactic_act(d, actions)
        for ev, prefs in d.react:
            self.known(self.event_types, ev, "event", d.span)
            for i, p in enumerate(prefs):
                r = self.known(reactions, p.name, "reaction", p.span)
                if r.event != ev:
                    self.fail("E0204", f'reaction "{p.name}" answers "{r.event}", not "{ev}"', p.span)
                self._pref(d, f"r_{mangle(ev)}_", i, p, r)

    def _tactic_act(self, d: n.Tactic, actions):
        """The tactic's choice of action as one function: preferences in order,
        each parameter from its list, the first option allowed runs."""
        base = f"p_{mangle(d.name)}_a"
        self.emit(0, f"def ta_{mangle(d.name)}(_E, _c):", d.span)
        for i, p in enumerate(d.act):
            a = actions[p.name]
            m = mangle(a.name)
            given = {arg.name for arg in p.args}
            args = ["_c"]
            depth = 1
            for j, param in enumerate(a.params[1:], 1):
                if param.name in given:
                    source = f"{base}{i}_arg{j}(_E, {', '.join(args)})"
                else:
                    source = self.in_place(param.domain, a.params[:j], args)
                self.emit(depth, f"for _v{j} in {source}:", p.span)
                args.append(f"_v{j}")
                depth += 1
            call = ", ".join(args)
            when = f" and ({self.in_place(p.when, a.params, args)})" if p.when is not None else ""
            self.emit(depth, f"if {self.req_expr(a, args)}{when}:", p.span)
            self.emit(depth + 1, "_E.steps += 1")
            self.emit(depth + 1, f"x_{m}(_E, {call})", p.span)
            self.emit(depth + 1, "return True")
        self.emit(1, "return False")

    def _pref(self, d, kind, i, p, target):
        names = [x.name for x in target.params]
        scope = Scope(set(names))
        base = f"p_{mangle(d.name)}_{kind}{i}"
        given = {}
        for a in p.args:
            if a.name is None or a.name not in names[1:]:
                self.fail("E0206", f'name the parameter this value is for: one of {", ".join(names[1:])}', a.span)
            given[a.name] = a.value
        for j, name in enumerate(names[1:], 1):
            if name in given:
                self.emit(0, f"def {base}_arg{j}(_E{self.params(target.params[:j])}):", given[name].span)
                self.emit(1, f"return [{self.expr(given[name], Scope(set(names[:j])))}]", given[name].span)
        self.emit(0, f"def {base}_when(_E{self.params(target.params)}):", p.span)
        self.emit(1, f"return {self.expr(p.when, scope) if p.when is not None else 'True'}", p.span)

    def round(self, d: n.Round):
        self.owner = f"round {d.name}"
        for s in d.steps:
            self.owner = f"round {d.name}, step {s.name}"
            self.emit(0, f"def s_{mangle(d.name)}_{mangle(s.name)}(_E):", s.span)
            self.block(s.body, 1, Scope())
        self.owner = f"round {d.name}"
        self.emit(0, f"def u_{mangle(d.name)}(_E):", d.span)
        self.emit(1, f"return {self.expr(d.until, Scope()) if d.until is not None else 'False'}",
                  d.until.span if d.until is not None else d.span)
        self.emit(0, f"def f_{mangle(d.name)}(_E):", d.span)
        if d.final:
            self.block(d.final, 1, Scope())
        else:
            self.emit(1, "pass")

    def sheet_init(self, d: n.Sheet):
        self.owner = f"sheet {d.name}"
        self.emit(0, "def sheet_defaults(_E, c, given):", d.span)
        self.emit(1, "pass")
        scope = Scope()
        for f in d.fields:
            attr = mangle(f.name)
            if f.default is not None:
                self.emit(1, f"if {f.name!r} not in given:", f.span)
                value = self.expr(f.default, scope)
                if f.type == "row":
                    self.emit(2, f"c.{attr} = {self.table_ref(f.table, f.span)}.lookup({value})", f.default.span)
                else:
                    self.emit(2, f"c.{attr} = {value}", f.default.span)
            self.emit(1, f"{L(f.name)} = c.{attr}")
            scope = scope.child(f.name)

    def table_ref(self, name, span):
        return self.k(self.known(self.tables, name, "table", span), "table")

    # ------------------------------------------------------------ statements
    def block(self, stmts, depth, scope) -> Scope:
        if not stmts:
            self.emit(depth, "pass")
        for s in stmts:
            try:
                scope = self.stmt(s, depth, scope)
            except GrimorioError as exc:
                self.diags.extend(exc.diagnostics)
                self.emit(depth, "pass")
        return scope

    def stmt(self, s, depth, scope) -> Scope:
        e = self.emit
        if isinstance(s, n.Let):
            value = self.expr(s.value, scope)
            e(depth, f"{L(s.name)} = {value}", s.span)
            return scope.child(s.name)
        if isinstance(s, n.Set):
            if isinstance(s.target, n.Attr):
                e(depth, f"{self.expr(s.target.obj, scope)}.{mangle(s.target.name)} = {self.expr(s.value, scope)}", s.span)
            elif isinstance(s.target, n.Name):
                r = self.resolver.resolve(s.target.id, scope)
                if r is None or r.kind not in ("var", "local"):
                    self.fail("E0204", f'"{s.target.id}" cannot be set', s.target.span,
                              'set a field ("set c.pv = ...") or a var; use "let" for a local')
                target = L(s.target.id) if r.kind == "local" else f"_E.v.{mangle(s.target.id)}"
                e(depth, f"{target} = {self.expr(s.value, scope)}", s.span)
            else:
                self.fail("E0204", "only a field or a var can be set", s.target.span)
            return scope
        if isinstance(s, n.Say):
            m = self.known(self.ruleset.space("message"), s.message, "message", s.span)
            args = self.call_args(m.params, s.args, s.span, f'message "{m.name}"', scope)
            # Arguments are evaluated once, and only when a transcript is kept.
            e(depth, f"if _E.rec: _E.say({s.message!r}, m_{mangle(s.message)}, "
                     f"({''.join(a + ', ' for a in args)}), {len(self.line_spans)})", s.span)
            return scope
        if isinstance(s, n.Return):
            e(depth, f"return {self.expr(s.value, scope) if s.value is not None else 'None'}", s.span)
            return scope
        if isinstance(s, n.CardOp):
            self.card_op(s, depth, scope)
            return scope
        if isinstance(s, n.Append):
            e(depth, f"{self.expr(s.target, scope)}.append({self.expr(s.value, scope)})", s.span)
            return scope
        if isinstance(s, n.Act):
            e(depth, f"_E.act({self.expr(s.who, scope)})", s.span)
            return scope
        if isinstance(s, n.Pass):
            e(depth, "pass", s.span)
            return scope
        if isinstance(s, n.Stop):
            e(depth, "raise H.StopRun()", s.span)
            return scope
        if isinstance(s, n.ExprStmt):
            e(depth, self.expr(s.expr, scope), s.span)
            return scope
        if isinstance(s, n.If):
            # After an if, a name is known only if every branch gave it a value.
            bound = []
            for i, (cond, body) in enumerate(s.branches):
                e(depth, f"{'if' if i == 0 else 'elif'} {self.expr(cond, scope)}:", cond.span)
                bound.append(self.block(body, depth + 1, scope).locals)
            if s.orelse is None:
                return scope
            e(depth, "else:", s.span)
            bound.append(self.block(s.orelse, depth + 1, scope).locals)
            return scope.child(*set.intersection(*bound))
        if isinstance(s, n.For):
            items = self.expr(s.iter, scope)
            if s.key is not None:
                key = self.expr(s.key, scope.child("it"))
                fn = "H.groups" if s.group else "sorted"
                items = f"{fn}({items}, key=lambda l_it: {key}, reverse={s.desc})"
            var = L(s.var)
            if s.where is not None:
                inner = scope.child(s.var)
                items = f"[{var} for {var} in {items} if {self.expr(s.where, inner)}]"
            if s.key is None and s.where is None and isinstance(s.iter, (n.Name, n.Attr, n.Index)):
                items = f"list({items})"        # a stored list may change while we walk it
            e(depth, f"for {var} in {items}:", s.span)
            self.block(s.body, depth + 1, scope.child(s.var))
            return scope
        if isinstance(s, n.While):
            e(depth, f"while {self.expr(s.cond, scope)}:", s.span)
            e(depth + 1, "_E.steps += 1", s.span)
            e(depth + 1, "if _E.steps > H.STEP_BUDGET: raise H.Budget()", s.span)
            self.block(s.body, depth + 1, scope)
            return scope
        if isinstance(s, n.Decide):
            return self.decide(s, depth, scope)
        self.fail("E0101", "this statement is not supported here", s.span)

    def card_op(self, s: n.CardOp, depth, scope):
        ct = self.known(self.conditions, s.condition, "condition", s.cond_span or s.span)
        who = self.expr(s.who, scope)
        cref = self.k(ct, "cond")
        if s.grade is None:
            grade = "None"
            if ct.grades and s.op != "remove":
                self.fail("E0204", f'condition "{ct.name}" has grades: say which', s.span,
                          f"one of {', '.join(g.name for g in ct.grades)}")
        elif s.grade in ct.by_name:
            grade = self.k(ct.by_name[s.grade], "grade")
        elif s.grade in scope.locals:
            grade = f"H.regrade({cref}, {L(s.grade)})"
        else:
            if not ct.grades:
                self.fail("E0204", f'"{ct.name}" is a state without grades', s.span)
            self.fail("E0201", f'condition "{ct.name}" has no grade "{s.grade}"', s.span,
                      did_you_mean(s.grade, ct.by_name) or f"its grades are {', '.join(ct.by_name)}")
        self.emit(depth, f"_E.{s.op}({who}, {cref}, {grade})", s.span)

    def decide(self, d: n.Decide, depth, scope) -> Scope:
        ins = []
        for node in d.inputs:
            t = self.tmp()
            self.emit(depth, f"{t} = {self.expr(node, scope)}", node.span)
            ins.append(t)
        out = None if d.output == "then" else L(d.output)
        if d.policy == "all" and out is not None:
            self.fail("E0204", 'a "decide all" table runs actions: name its last column "then"', d.span)
        first = True
        for row in d.rows:
            conds = []
            for var, alts in zip(ins, row.tests):
                tests = [self.test(var, t, scope) for t in alts]
                if "True" in tests:
                    continue
                conds.append(tests[0] if len(tests) == 1 else "(" + " or ".join(tests) + ")")
            cond = " and ".join(conds) or "True"
            kw = "if" if first or d.policy == "all" else "elif"
            self.emit(depth, f"{kw} {cond}:", row.span)
            first = False
            if out is not None:
                self.emit(depth + 1, f"{out} = {self.expr(row.output, scope)}", row.output.span)
            else:
                self.block(row.output, depth + 1, scope)
        if d.policy == "first" and d.rows:
            self.emit(depth, "else:")
            self.emit(depth + 1, "raise H.RuleFailure('no row of this decision table matches', "
                                 "'add a last row of \"any\" cells')", d.span)
        return scope.child(d.output) if out is not None else scope

    def test(self, var, t: n.Test, scope) -> str:
        if t.kind == "any":
            return "True"
        if t.kind == "none":
            return f"_none({var})"
        if t.kind == "cmp":
            return f"{var} {t.op} {self.expr(t.value, scope)}"
        if t.kind == "range":
            return f"{self.expr(t.value, scope)} <= {var} <= {self.expr(t.high, scope)}"
        return f"_eq({var}, {self.expr(t.value, scope)})"

    # ------------------------------------------------------------ expressions
    def call_args(self, params, args, span, what, scope) -> list[str]:
        names = [p.name for p in params]
        out: list[str | None] = [None] * len(names)
        pos = 0
        for a in args:
            if a.name is None:
                if pos >= len(names):
                    self.fail("E0206", f"{what} takes {len(names)} argument{'s' if len(names) != 1 else ''}, "
                                       f"this gives more", a.span, f"its parameters are: {', '.join(names) or 'none'}")
                out[pos] = self.expr(a.value, scope)
                pos += 1
            else:
                if a.name not in names:
                    self.fail("E0206", f'{what} has no parameter "{a.name}"', a.span, did_you_mean(a.name, names))
                out[names.index(a.name)] = self.expr(a.value, scope)
        missing = [nm for nm, v in zip(names, out) if v is None]
        if missing:
            self.fail("E0206", f"{what} needs {', '.join(missing)}", span, f"its parameters are: {', '.join(names)}")
        return out

    def expr(self, x, scope: Scope) -> str:
        m = getattr(self, "x_" + type(x).__name__)
        return m(x, scope)

    def x_Const(self, x, scope):
        v = x.value
        if isinstance(v, Fraction):
            return self.k(Scale(v), "scale")
        return repr(v)

    def x_DiceLit(self, x, scope):
        return self.k(Dice.of(x.count, x.sides), "dice")

    def x_Name(self, x, scope):
        r = self.resolver.resolve(x.id, scope)
        if r is None:
            self.fail("E0201", f'unknown name "{x.id}"', x.span, did_you_mean(x.id, self.resolver.candidates(scope)))
        k = r.kind
        if k == "local":
            return self.alias.get(x.id, L(x.id))
        if k == "grade":
            return self.k(self.conditions[r.target[0].name].by_name[r.target[1]], "grade")
        if k == "combatant":
            return f"_E.cb[{r.target}]"
        if k == "table":
            return self.k(self.tables[x.id], "table")
        if k == "condition":
            return self.k(self.conditions[x.id], "cond")
        if k == "var":
            return f"_E.v.{mangle(x.id)}"
        if k == "outcome":
            return self.k(self.outcome_values[x.id], "out")
        if k == "rule":
            self.fail("E0204", f'"{x.id}" is a rule: call it with its arguments', x.span,
                      f"{x.id}({', '.join(p.name for p in r.target.params)})")
        self.fail("E0204", f'"{x.id}" cannot be used as a value', x.span)

    def x_OptionRef(self, x, scope):
        self.known(self.options, x.name, "option", x.span)
        return f"_E.opt[{x.name!r}]"

    def x_Attr(self, x, scope):
        if isinstance(x.obj, n.Name):
            r = self.resolver.resolve(x.obj.id, scope)
            if r is not None and r.kind == "condition":
                ct = self.conditions[x.obj.id]
                if x.name not in ct.by_name:
                    self.fail("E0201", f'condition "{ct.name}" has no grade "{x.name}"', x.name_span or x.span,
                              did_you_mean(x.name, ct.by_name))
                return self.k(ct.by_name[x.name], "grade")
        return f"({self.expr(x.obj, scope)}).{mangle(x.name)}"

    def x_Index(self, x, scope):
        if isinstance(x.obj, n.Name):
            r = self.resolver.resolve(x.obj.id, scope)
            if r is not None and r.kind == "table":
                return f"{self.k(self.tables[x.obj.id], 'table')}.lookup({self.expr(x.key, scope)})"
        return f"H.index({self.expr(x.obj, scope)}, {self.expr(x.key, scope)})"

    def x_Call(self, x, scope):
        if not isinstance(x.func, n.Name):
            self.fail("E0204", "only rules and builtins can be called", x.span)
        name = x.func.id
        r = self.resolver.resolve(name, scope)
        if r is None:
            self.fail("E0201", f'unknown rule "{name}"', x.func.span,
                      did_you_mean(name, [k for k, v in self.ruleset.space("value").items() if isinstance(v, n.Rule)]
                                   + list(BUILTINS)))
        if r.kind == "rule":
            args = self.call_args(r.target.params, x.args, x.span, f'rule "{name}"', scope)
            inlined = self.inline(r.target, args)
            if inlined is not None:
                return inlined
            return f"r_{mangle(name)}(_E{''.join(', ' + a for a in args)})"
        if r.kind != "builtin":
            self.fail("E0204", f'"{name}" is not a rule and cannot be called', x.func.span)
        lo, hi, _ = BUILTINS[name]
        if any(a.name for a in x.args):
            self.fail("E0206", f'builtin "{name}" takes its arguments in order, without names', x.span)
        if not lo <= len(x.args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            self.fail("E0206", f'"{name}" takes {want} argument{"s" if hi != 1 else ""}, not {len(x.args)}', x.span)
        args = [self.expr(a.value, scope) for a in x.args]
        if name in ("len", "abs", "sum"):
            return f"H.{name}_({args[0]})"
        if name in ("min", "max"):
            return f"H.{name}_({', '.join(args)})"
        if name == "floor":
            a = x.args[0].value
            if isinstance(a, n.Binary) and a.op == "/":
                return f"(({self.expr(a.left, scope)}) // ({self.expr(a.right, scope)}))"
            if isinstance(a, n.Binary) and a.op == "*":
                return f"H.mulfloor({self.expr(a.left, scope)}, {self.expr(a.right, scope)})"
            return f"_floor({args[0]})"
        if name == "ceil":
            a = x.args[0].value
            if isinstance(a, n.Binary) and a.op == "/":
                return f"(-((-({self.expr(a.left, scope)})) // ({self.expr(a.right, scope)})))"
            return f"_ceil({args[0]})"
        if name == "has" and len(args) == 2 and isinstance(x.args[1].value, n.Name):
            r2 = self.resolver.resolve(x.args[1].value.id, scope)
            if r2 is not None and r2.kind == "condition":
                # The condition is known here: test the combatant's cards directly.
                return f"bool({args[0]}.cards.get({x.args[1].value.id!r}))"
        if name in ("round_number", "combatants", "conditions", "act", "enemies", "allies", "has", "cards"):
            return f"_E.{name}({', '.join(args)})"
        return f"H.{name}({', '.join(args)})"

    SIMPLE = re.compile(r"^[\w.\[\]]+$")

    def inline(self, rule: n.Rule, args: list[str]) -> str | None:
        """A rule that only returns an expression, called with plain arguments,
        is compiled in place: no call on the hot path."""
        body = rule.body
        if len(body) != 1 or not isinstance(body[0], n.Return) or body[0].value is None:
            return None
        if len(self.inlining) > 3 or rule.name in self.inlining or not all(self.SIMPLE.match(a) for a in args):
            return None
        saved = self.alias
        self.alias = {p.name: a for p, a in zip(rule.params, args)}
        self.inlining.append(rule.name)
        try:
            return "(" + self.expr(body[0].value, Scope({p.name for p in rule.params})) + ")"
        finally:
            self.alias = saved
            self.inlining.pop()

    def x_Unary(self, x, scope):
        if x.op == "not":
            return f"(not {self.expr(x.operand, scope)})"
        return f"(-{self.expr(x.operand, scope)})"

    OPS = {"and": "and", "or": "or", "in": "in", "notin": "not in"}

    def x_Binary(self, x, scope):
        a, b = self.expr(x.left, scope), self.expr(x.right, scope)
        if x.op == "/":
            return f"H.div({a}, {b})"
        if x.op == "%":
            return f"H.mod({a}, {b})"
        if x.op in ("<", "<=", ">", ">="):
            known = self._const_ranked(x.right, scope)
            if known is not None:
                # Against a named outcome: compare ranks in place, after making sure
                # the other side is an outcome of the same list.
                t = self.tmp()
                return (f"({t}.rank {x.op} {known.rank} if type({t} := {a}) is H.Ranked and {t}.kind == "
                        f"{known.kind!r} else H.cannot_order({t}, {b}))")
        if x.op in ("==", "!="):
            return f"({a} {'is' if x.op == '==' else 'is not'} {b})" if "None" in (a, b) else f"({a} {x.op} {b})"
        return f"({a} {self.OPS.get(x.op, x.op)} {b})"

    def _const_ranked(self, node, scope):
        """The outcome named here, if the node names one."""
        if isinstance(node, n.Name):
            r = self.resolver.resolve(node.id, scope)
            if r is not None and r.kind == "outcome":
                return self.outcome_values[node.id]
        return None

    def x_IfExp(self, x, scope):
        return f"({self.expr(x.then, scope)} if {self.expr(x.cond, scope)} else {self.expr(x.other, scope)})"

    def x_ListExp(self, x, scope):
        return "[" + ", ".join(self.expr(i, scope) for i in x.items) + "]"

    def x_Comprehension(self, x, scope):
        inner = scope.child(x.var)
        cond = f" if {self.expr(x.cond, inner)}" if x.cond is not None else ""
        return f"[{self.expr(x.elt, inner)} for {L(x.var)} in {self.expr(x.iter, scope)}{cond}]"

    def x_RecordExp(self, x, scope):
        names = tuple(f for f, _ in x.fields)
        if len(set(names)) != len(names):
            self.fail("E0202", "a record names a field twice", x.span)
        cls = self.structs.get(names)
        if cls is None:
            cls = self.structs[names] = make_struct("record", names)
        return f"{self.k(cls, 'rec')}({', '.join(self.expr(v, scope) for _, v in x.fields)})"

    def x_Roll(self, x, scope):
        if x.purpose:
            self.purposes.add(x.purpose)
        by = self.expr(x.by, scope) if x.by is not None else "None"
        return self.roll_code(self.expr(x.dice, scope), x.dice, by, repr(x.purpose))

    def roll_code(self, dice: str, node, by: str, purpose: str) -> str:
        if isinstance(node, n.DiceLit) and node.count == 1:
            # A lone literal die: roll it in place when nothing is pinned or shown.
            return f"(int(_E.random() * {node.sides}) + 1 if _E.plain else _E.roll({dice}, {by}, {purpose}))"
        return f"_E.roll({dice}, {by}, {purpose})"

    def x_CheckCall(self, x, scope):
        d = self.known(self.ruleset.space("check"), x.name, "check", x.span)
        if x.purpose:
            self.purposes.add(x.purpose)
        args = self.call_args(d.params, x.args, x.span, f'check "{x.name}"', scope)
        by = self.expr(x.by, scope) if x.by is not None else "None"
        purpose = x.purpose or x.name
        return f"c_{mangle(x.name)}(_E, {by}, {purpose!r}{''.join(', ' + a for a in args)})"

    def x_Emit(self, x, scope):
        d = self.known(self.ruleset.space("event"), x.event, "event", x.span)
        params = [n.Param(x.span, f) for f, _ in d.fields]
        given = {a.name for a in x.args}
        args = list(x.args)
        for (f, default), p in zip(d.fields, params):
            if f not in given and default is not None:
                args.append(n.Arg(x.span, f, default))
        if any(a.name is None for a in x.args):
            self.fail("E0206", "name each value an event carries, as atacante: yo", x.span)
        values = self.call_args(params, args, x.span, f'event "{x.event}"', scope)
        cls = self.k(self.event_types[x.event], "event")
        if x.event in self.reacted:
            return f"em_{mangle(x.event)}(_E, {cls}({', '.join(values)}))"
        return f"{cls}({', '.join(values)})"

    def x_Maximum(self, x, scope):
        return f"H.maximum({self.expr(x.dice, scope)})"

    # ------------------------------------------------------------ linking
    def _link(self):
        g = self.ns
        rs = self.ruleset
        self.actions = {}
        for d in rs.all(n.Action):
            m = mangle(d.name)
            if f"x_{m}" not in g:
                continue
            domains = [g[f"d_{m}_{i}"] for i in range(1, len(d.params))]
            self.actions[d.name] = ActionDef(d.name, [p.name for p in d.params], domains, g[f"q_{m}"], g[f"x_{m}"], d)
        self.reactions: dict[str, list[ReactionDef]] = {}
        self.reaction_by_name = {}
        for d in rs.all(n.Reaction):
            m = mangle(d.name)
            r = ReactionDef(d.name, d.event, g[f"w_{m}"], g[f"q_{m}"], g[f"x_{m}"], d)
            self.reactions.setdefault(d.event, []).append(r)
            self.reaction_by_name[d.name] = r
            g[f"R_{m}"] = r
        self.tactics = {}
        for d in rs.all(n.Tactic):
            base = f"p_{mangle(d.name)}_"
            react = {}
            for ev, prefs in d.react:
                react[ev] = [(self.reaction_by_name[p.name], self._pref_fns(base + f"r_{mangle(ev)}_{i}", None))
                             for i, p in enumerate(prefs)]
            self.tactics[d.name] = TacticDef(d.name, g[f"ta_{mangle(d.name)}"], react)
        self.rounds = []
        for d in rs.all(n.Round):
            m = mangle(d.name)
            steps = [(s.name, g[f"s_{m}_{mangle(s.name)}"]) for s in d.steps]
            self.rounds.append((d.name, steps, g[f"u_{m}"], g[f"f_{m}"]))
        for name, ct in self.conditions.items():
            ct.on_receive = g.get(f"o_{mangle(name)}")
        self.sheet_defaults = g["sheet_defaults"]
        self.init_vars = g["init_vars"]
        fields = [mangle(f.name) for f in self.sheet.fields]
        self.combatant_class = type("combatant", (Combatant,), {"__slots__": tuple(fields)})

    def _pref_fns(self, base, action):
        g = self.ns
        args = []
        if action is not None:
            for j in range(1, len(action.params)):
                args.append(g.get(f"{base}_arg{j}"))
        return args, g[f"{base}_when"]

    def compile_snippet(self, name: str, stmts=(), exprs=(), combatants=()) -> dict:
        """Compile an encounter's own statements and expectations against this program."""
        mark = len(self.lines)
        self.diags = []
        scope = Scope(combatants=tuple(combatants))
        self.owner = "encounter"
        self.emit(0, f"def {name}_do(_E):")
        self.block(tuple(stmts), 1, scope)
        for i, e in enumerate(exprs):
            # An expectation returns its verdict and, for a comparison, both sides.
            self.emit(0, f"def {name}_x{i}(_E):", e.span)
            try:
                if isinstance(e, n.Binary) and e.op in ("==", "!=", "<", "<=", ">", ">="):
                    self.emit(1, f"_a = {self.expr(e.left, scope)}", e.left.span)
                    self.emit(1, f"_b = {self.expr(e.right, scope)}", e.right.span)
                    self.emit(1, f"return ((_a {e.op} _b), _a, _b)", e.span)
                else:
                    self.emit(1, f"return ({self.expr(e, scope)}, None, None)", e.span)
            except GrimorioError as exc:
                self.diags.extend(exc.diagnostics)
                self.emit(1, "return (True, None, None)")
        if self.diags:
            del self.lines[mark:], self.line_spans[mark:], self.line_owner[mark:]
            raise GrimorioError(self.diags)
        # Padding keeps line numbers of this snippet equal to its index in line_spans.
        src = "\n" * mark + "\n".join(self.lines[mark:]) + "\n"
        ns = self.ns
        exec(self._compile(src), ns)  # noqa: S102 - generated from a checked encounter
        return {"do": ns[f"{name}_do"], "expects": [ns[f"{name}_x{i}"] for i in range(len(exprs))]}
