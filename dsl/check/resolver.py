"""The resolve stage: every bare name of every body looked up once, in the
lexical scopes the language gives it (parameters, `let` for the rest of its
block, a name every branch of an `if ... else` binds, a `for` or a
comprehension's own variable, a decision table's output, `it` in an ordering
key), so an unknown name or rule is reported by `check` with the other
static errors, before anything is compiled; so are the kinds the text shows
(dsl/check/kinds.py: rolling a number, a text in arithmetic, `in` a text).

`names.Resolver` answers what a name is in a scope; this pass walks the
declarations (dispatch by node class), reports what it cannot answer, and
writes down what it found (dsl/check/bindings.py): each name node's binding,
each local's slot. The compiler reads those and knows no scope rule.
"""
from __future__ import annotations

from . import kinds as K
from .agreement import agreement_words, check_agree_call
from .builtin_values import check_builtin_values, check_divisor, check_item, check_table_key
from ..syntax import nodes as n
from .searches import search_problems, unguarded_first
from .sheets import all_fields, fields_by_sheet
from ..diagnostics import Diagnostic, GrimorioError, did_you_mean
from .bindings import Bindings
from .names import BUILTINS, Resolved, Resolver, Scope, bind_args, check_attr, check_builtin_args, emit_args, given_roll, known, walk


def resolve_ruleset(rs) -> list[Diagnostic]:
    """The ruleset's names checked; their bindings kept for `bindings_of`."""
    walker = _Walker(rs)
    out = walker.run()
    _keep(_BOUND, id(rs), (rs, walker.bound))
    return out


def bindings_of(rs) -> Bindings:
    """The bindings the resolver wrote down when it checked `rs`; walked again when it was not
    checked in this process (a program read back from the program cache)."""
    found = _BOUND.get(id(rs))
    if found is None or found[0] is not rs:
        resolve_ruleset(rs)
        found = _BOUND[id(rs)]
    return found[1]


def resolve_script(rs, stmts, exprs, combatants, names: Resolver | None = None) -> list[Diagnostic]:
    """An encounter's own statements and expectations, checked against its ruleset the same way
    (the one place `expect` may stand); their bindings kept for `script_bindings`. `names`: the
    ruleset's Resolver, if one is at hand (making one walks the whole ruleset)."""
    stmts, exprs, combatants = tuple(stmts), tuple(exprs), tuple(combatants)
    walker = _Walker(rs, script=True, names=names)
    walker.names = walker.names.knowing_records(stmts + exprs)
    walker.bound = Bindings(walker.names, (rs, stmts, exprs), base=lambda: bindings_of(rs))
    scope = Scope(combatants=combatants)
    walker.block(stmts, scope)
    for x in exprs:
        walker.expr(x, scope)
    _keep(_SCRIPTS, _script_key(rs, stmts, exprs, combatants), walker.bound)
    return walker.out


def script_bindings(rs, stmts, exprs, combatants, names: Resolver | None = None) -> Bindings:
    """The bindings of an encounter's own statements and expectations (those of its ruleset
    behind them), as `resolve_script` wrote them down when the front end checked them."""
    stmts, exprs, combatants = tuple(stmts), tuple(exprs), tuple(combatants)
    key = _script_key(rs, stmts, exprs, combatants)
    if key not in _SCRIPTS:
        resolve_script(rs, stmts, exprs, combatants, names)
    return _SCRIPTS[key]


def rule_bindings(rs, rule: n.Rule) -> Bindings:
    """The bindings of a rule that is not one of the ruleset's (a test's, compiled unchecked against
    it), those of the ruleset behind them."""
    walker = _Walker(rs, script=True)
    walker.bound = Bindings(walker.names, (rs, rule), base=lambda: bindings_of(rs))
    walker.block(rule.body, walker.params(rule.params))
    return walker.bound


def _script_key(rs, stmts, exprs, combatants) -> tuple:
    return id(rs), tuple(map(id, stmts)), tuple(map(id, exprs)), combatants


# The bindings of the last rulesets and scripts checked (each holds its nodes: their ids stay theirs;
# a few only, since each holds its ruleset: the language server checks a new one at every edit).
_BOUND: dict = {}
_SCRIPTS: dict = {}


def _keep(kept: dict, key, value, most: int = 8):
    kept.pop(key, None)
    kept[key] = value
    while len(kept) > most:
        del kept[next(iter(kept))]


class _Walker:
    def __init__(self, rs, script: bool = False, names: Resolver | None = None):
        self.rs = rs
        self.names = names if names is not None and names.rs is rs else Resolver(rs)
        self.out: list[Diagnostic] = []
        self.rules = list(rs.space("rule"))
        self.conditions = {c.name: c for c in rs.all(n.Condition)}
        self.options = {o.name: o for o in rs.all(n.Option)}
        self.agree_words = agreement_words(rs)
        self.script = script
        self.loops = 0                  # loops around the statement walked, in its compiled function
        self.named_columns: set = set()       # (table, column) that condition_named reads, checked once
        self.bound = Bindings(self.names, (rs,))      # what it found: each name's binding, each local's slot
        self.prefix = "_e" if script else "_l"      # a script's slots never meet its ruleset's
        self.frame: dict[str, str] = {}       # a name -> the slot a statement gives it where it is new
        self.made = 0                   # slots made so far

    # ------------------------------------------------------------ slots
    def new_slot(self) -> str:
        self.made += 1
        return f"{self.prefix}{self.made}"

    def fresh(self, scope: Scope, node, part, name, kind=None) -> Scope:
        """`name` bound anew at `node` (a parameter, a comprehension's or a search's variable, `it`),
        shadowing any local of the same name: a slot of its own. A parameter or a field keeps its
        one slot wherever its declaration is walked."""
        key = id(node) if part is None else (id(node), part)
        slot = self.bound.slots.get(key) or self.bound.slots.setdefault(key, self.new_slot())
        return scope.bound({name: slot}, kind)

    def params(self, params, **given) -> Scope:
        scope = Scope(**given)
        for p in params:
            scope = self.fresh(scope, p, None, p.name)
        return scope

    def let(self, scope: Scope, node, part, name) -> Scope:
        """`name` bound by a statement at `node` (let, a loop's variable, a decision table's output): a
        local keeps its slot (a second let replaces the value, as the language says); a new name takes
        the one slot its walk gives that name, so every branch of an `if` binds it alike and the name
        is known after it."""
        slot = scope.ids.get(name) or self.frame.get(name) or self.frame.setdefault(name, self.new_slot())
        self.bound.slots[id(node) if part is None else (id(node), part)] = slot
        return scope.bound({name: slot})

    def fail(self, code, message, span, help=None):
        self.out.append(Diagnostic(code, message, span, help))

    def run(self) -> list[Diagnostic]:
        rs = self.rs
        for d in rs.all(n.Rule):
            self.block(d.body, self.params(d.params))
        for d in rs.all(n.Check):
            scope = self.params(d.params)
            self.expr(d.dice, scope)
            self.decide(d.decide, self.let(scope, d, "roll", d.roll_name))
        for d in rs.all(n.Message):
            scope = self.params(d.params)
            for part in d.parts:
                if not isinstance(part, str):
                    self.expr(part, scope)
        for d in rs.all(n.Condition):
            if d.on_receive is not None:
                params, body = d.on_receive
                self.block(body, self.params(params, condition=d))
        for d in rs.all(n.Action) + rs.all(n.Reaction):
            self.doing(d)
        for d in rs.all(n.Tactic):
            self.tactic(d)
        for d in rs.all(n.Round):
            self.block(d.start or (), Scope())      # once, before round 1: a function of its own
            for s in d.steps:               # inside the round's loop, unless a step that returns (a function)
                self.loops = 0 if any(isinstance(x, n.Return) for x in walk(s.body)) else 1
                self.block(s.body, Scope())
                self.loops = 0
            if d.until is not None:
                self.expr(d.until, Scope())
            self.block(d.final or (), Scope())
        inherited = fields_by_sheet(rs.all(n.Sheet))
        for d in rs.all(n.Sheet):
            scope = Scope()
            for f in inherited[d.name][:len(inherited[d.name]) - len(d.fields)]:
                scope = self.fresh(scope, f, None, f.name)
            for f in d.fields:
                if f.default is not None:
                    self.expr(f.default, scope)
                scope = self.fresh(scope, f, None, f.name)
        for d in rs.all(n.Var):
            self.expr(d.value, Scope())
        for d in rs.all(n.Event):                 # a field's default, read where the event is declared
            for _field, default in d.fields:
                if default is not None:
                    self.expr(default, Scope())
        for d in rs.all(n.Tally):
            self.expr(d.value, self.fresh(Scope(), d, "param", d.param) if d.param else Scope())
        return self.out

    # ------------------------------------------------------------ declarations
    def doing(self, d):
        """An action or a reaction: its lists, costs, requirements and body."""
        if isinstance(d, n.Reaction) and d.by is not None and len(d.params) == 2:
            self.expr(d.by, self.params(d.params[1:2]))
        for i, p in enumerate(d.params):
            if p.domain is not None:
                self.expr(p.domain, self.params(d.params[:i]))
        scope = self.params(d.params)
        for _f, amount in d.costs:
            self.expr(amount, scope)
        for r in d.requires:
            self.expr(r, scope)
        self.block(d.body, scope)

    def tactic(self, d: n.Tactic):
        spaces = [(p, self.rs.space("action").get(p.name)) for p in d.act]
        spaces += [(p, self.rs.space("reaction").get(p.name)) for _ev, prefs in d.react for p in prefs]
        for p, target in spaces:
            if target is None:
                continue                    # the compiler names the missing action or reaction
            names = [x.name for x in target.params]
            for a in p.args:
                if a.name in names[1:]:
                    self.expr(a.value, self.params(target.params[:names.index(a.name)]))
            if p.when is not None:
                self.expr(p.when, self.params(target.params))
        asked = self.bound.slots.setdefault((id(d), "asked"), self.new_slot()) if d.choose else None
        for i, p in enumerate(d.choose):
            if p.who == "it" and (i == 0 or d.choose[i - 1].who_span != p.who_span):     # once per line
                self.fail("E0202", '"it" is the item being chosen: the combatant asked needs another name',
                          p.who_span, "name it otherwise in the brackets after choose, such as choose(who)")
            self.pick(p, asked)

    def pick(self, p: n.Pick, asked: str):
        """A tactic's answer to choose(c, list): `it` is the item, the line's name the combatant asked
        (one slot, `asked`, for every line of the tactic)."""
        scope = self.fresh(Scope().bound({p.who: asked} if p.who else {}), p, "it", "it")
        self.collect(K.expect_number, p.key, self.resolving(scope), f'the key of "{p.order}"')
        self.expr(p.key, scope)
        if p.when is not None:
            self.expr(p.when, scope)

    # ------------------------------------------------------------ statements
    def block(self, stmts, scope: Scope) -> Scope:
        for s in stmts:
            scope = getattr(self, "s_" + type(s).__name__, self.s_other)(s, scope)
        return scope

    def s_other(self, s, scope):
        for value in vars(s).values():
            if isinstance(value, n.Node):
                self.expr(value, scope)
        return scope

    def s_Let(self, s: n.Let, scope):
        self.expr(s.value, scope)
        return self.let(scope, s, None, s.name).typed(s.name, K.held(K.kind(s.value, self.resolving(scope))))

    def s_Set(self, s: n.Set, scope):
        t = s.target
        if isinstance(t, n.Name):
            r = self.names.resolve(t.id, scope)
            self.bound.names[id(t)] = r
            if r is None or r.kind not in ("var", "local"):
                self.fail("E0204", f'"{t.id}" cannot be set', t.span,
                          'set a field ("set c.FIELD = ...") or a var; use "let" for a local')
            elif r.kind == "local":                 # from here on, it holds the kind of its new value
                self.expr(s.value, scope)
                return scope.typed(t.id, K.held(K.kind(s.value, self.resolving(scope))))
        elif isinstance(t, n.Attr):
            self.expr(t, scope)
            self.settable(t.obj, scope)
        elif isinstance(t, n.Index):              # a map's item: set m[k] = v (only a map's, when it runs)
            self.collect(K.expect_map, t, self.resolving(scope))
            self.expr(t, scope)
        else:
            self.fail("E0204", "only a field, a var or a map's item can be set", t.span, K.set_help(t))
        self.expr(s.value, scope)
        return scope

    def s_Append(self, s: n.Append, scope):
        """A list a table's row holds is the table's too: appending to it would change the table for everyone."""
        if isinstance(s.target, n.Attr):
            self.settable(s.target.obj, scope)
        return self.s_other(s, scope)

    def settable(self, obj, scope):
        """A field set on a table's row (tabla["clave"].columna, c.fila.columna, a local or an item
        that holds a row) would change the table for everyone."""
        table = K.row_table(obj, self.resolving(scope))
        if table is None and isinstance(obj, n.Attr):
            fields = all_fields(self.rs.all(n.Sheet)).values()
            table = next((f.table for f in fields if f.name == obj.name and f.type == "row"), None)
        if table is not None:
            self.fail("E0204", f'"{table}" is a table: its rows cannot be changed', obj.span,
                      "keep what changes on the combatant: set a field of its sheet")

    def s_Expect(self, s: n.Expect, scope):
        if not self.script:
            self.fail("E0230", "expect belongs in an encounter script, not in the rules", s.span,
                      "write the expectation in the do: block or a round of an encounter (.enc)")
        return self.s_other(s, scope)

    def s_Say(self, s: n.Say, scope):
        m = self.rs.space("message").get(s.message)
        self.collect(known, self.rs.space("message"), s.message, "message", s.span)
        if m is not None:
            self.collect(bind_args, m.params, s.args, s.span, f'message "{m.name}"')
        self.args(s.args, scope)
        return scope

    def s_CardOp(self, s: n.CardOp, scope):
        if s.grade is not None and s.grade in scope.locals:         # a grade held in a local
            self.bound.slots[(id(s), "grade")] = scope.ids[s.grade]
        self.expr(s.who, scope)
        ct = self.conditions.get(s.condition)
        if s.grade_source is not None:
            self.collect(K.expect_grade, s.grade_source, self.resolving(scope), f'"{s.op}"')
            self.expr(s.grade_source, scope)
        if s.source is not None:
            self.collect(K.expect_condition, s.source, self.resolving(scope), f'"{s.op}"')
            self.expr(s.source, scope)
            self.held_grade(s, scope)
        elif ct is None and (s.condition in scope.locals or self.names.resolve(s.condition, scope) is not None):
            self.held_condition(s, scope)
        elif ct is None:
            self.fail("E0201", f'there is no condition "{s.condition}"', s.cond_span or s.span,
                      did_you_mean(s.condition, self.conditions) or
                      f"{s.op} takes a condition declared with \"condition\", or a name that holds one (a local, "
                      f"a field, condition_named(TEXT))")
        else:
            self.card_grade(s, ct, scope)
        if isinstance(getattr(s, "data", None), n.Node):      # add ... with VALUE
            self.expr(s.data, scope)
        return scope

    def held_condition(self, s: n.CardOp, scope):
        """`remove c cond [g]` with `cond` a local: it must hold a condition (where the text shows what it
        holds); a grade named by a word must be a grade of some condition (which one holds is read when
        it runs)."""
        named = self.bound.held_names[id(s)] = n.Name(s.cond_span or s.span, s.condition)
        self.collect(K.expect_condition, named, self.resolving(scope), f'"{s.op}"')
        self.expr(named, scope)             # a local, a var, or a name of another kind (a rule is no value)
        self.held_grade(s, scope)

    def held_grade(self, s: n.CardOp, scope):
        """The grade given to a condition the text does not name: a word must be a grade of some condition."""
        if s.grade is not None and s.grade not in scope.locals:
            grades = {g for c in self.conditions.values() for g in c.grades}
            if s.grade not in grades:
                self.fail("E0201", f'no condition has a grade "{s.grade}"', s.span,
                          did_you_mean(s.grade, grades) or "a grade's name, or a local holding a grade")

    def card_grade(self, s: n.CardOp, ct: n.Condition, scope):
        """The grade a card op names: one the condition has, or a local holding one; none only to remove."""
        if s.grade_source is not None:
            g = s.grade_source
            if isinstance(g, n.Const) and isinstance(g.value, str) and ct.grades and g.value not in ct.grades:
                self.fail("E0201", f'condition "{ct.name}" has no grade "{g.value}"', g.span,
                          did_you_mean(g.value, ct.grades) or f"its grades are {', '.join(ct.grades)}")
            return self.card_data(s, ct)
        if s.grade is None:
            if ct.grades and s.op != "remove":
                self.fail("E0204", f'condition "{ct.name}" has grades: say which', s.span, f"one of {', '.join(ct.grades)}")
        elif s.grade not in ct.grades and s.grade not in scope.locals:
            if not ct.grades:
                self.fail("E0204", f'"{ct.name}" is a state without grades', s.span)
            else:
                self.fail("E0201", f'condition "{ct.name}" has no grade "{s.grade}"', s.span,
                          did_you_mean(s.grade, ct.grades) or f"its grades are {', '.join(ct.grades)}")
        self.card_data(s, ct)

    def card_data(self, s: n.CardOp, ct: n.Condition):
        if s.data is not None and s.op == "receive" and ct.on_receive is not None:
            self.fail("E0233", f'"{ct.name}" decides what it adds on receive: data cannot be given here', s.data.span,
                      'give the data to its "on receive" as an argument, or use add')

    def s_Block(self, s: n.Block, scope):
        return self.block(s.body, scope)          # a label only: its names stay known after it

    def s_If(self, s: n.If, scope):
        ends = []
        for cond, body in s.branches:
            self.expr(cond, scope)
            ends.append(self.block(body, scope))
        ends.append(self.block(s.orelse, scope) if s.orelse is not None else scope)
        # After it, a name is known if every way through binds it, of a kind if every way gives it that kind.
        after = scope
        for name in set.intersection(*(e.locals for e in ends)):
            after = after.bound({name: ends[0].ids[name]}, K.join_all([e.kinds.get(name) for e in ends]))
        return after

    def s_For(self, s: n.For, scope):
        self.bound.arounds[id(s)] = scope.locals
        self.collect(K.expect_list, s.iter, self.resolving(scope))
        self.expr(s.iter, scope)
        item = K.held(K.item_kind(s.iter, self.resolving(scope)))
        loop = self.looping(scope, s.body, s.var)        # a local it walks with holds an item after it
        keyed = self.fresh(loop, s, "it", "it", item)
        for key in (s.key, *(k.key for k in s.more)) if s.key is not None else ():
            self.expr(key, keyed)
        # `for group`: the name holds the list of the items of one key (never empty), not an item.
        inner = self.let(loop, s, None, s.var).typed(s.var, K.Kind(K.LIST, item, True) if s.group else item)
        if s.where is not None:
            self.expr(s.where, inner)
        self.nested(s, lambda: self.block(s.body, inner))
        return loop

    def s_While(self, s: n.While, scope):
        loop = self.looping(scope, s.body)
        self.expr(s.cond, loop)
        self.nested(s, lambda: self.block(s.body, loop))
        return loop

    def looping(self, scope, body, *walking):
        """The scope a loop's body starts each turn in (and the loop ends in): the kinds of the names
        it binds or sets forgotten."""
        return scope.forget(_assigned(body) | set(walking)) if scope.kinds else scope

    def nested(self, s, walk):
        """A loop inside loops: no deeper than Python compiles (COMPILED_LOOPS, counted as the compiler
        emits them: one for each for and while, one more for a round's step)."""
        self.loops += 1
        try:
            if self.loops == COMPILED_LOOPS + 1:
                self.fail("E0106", f"this loop is nested too deeply: more than {COMPILED_LOOPS} loops one "
                                   "inside another", s.span,
                          "give the inner loops a rule of their own and call it (a round's steps run inside "
                          "the round's own loop, which counts as one)")
            walk()
        finally:
            self.loops -= 1

    def s_Decide(self, s: n.Decide, scope):
        return self.decide(s, scope)

    def decide(self, d: n.Decide, scope) -> Scope:
        if d.policy == "all" and d.output != "then":
            self.fail("E0204", 'a "decide all" table runs actions: name its last column "then"', d.span)
        for node in d.inputs:
            self.expr(node, scope)
        for row in d.rows:
            for alts in row.tests:
                for t in alts:
                    for value in (t.value, t.high):
                        if value is not None:
                            self.expr(value, scope)
            if isinstance(row.output, tuple):
                self.block(row.output, scope.forget(_assigned(row.output)))
            else:
                self.expr(row.output, scope)
        if d.output == "then":
            return scope.forget({x for row in d.rows if isinstance(row.output, tuple) for x in _assigned(row.output)})
        return self.let(scope, d, None, d.output)

    # ------------------------------------------------------------ expressions
    def expr(self, x, scope: Scope):
        getattr(self, "x_" + type(x).__name__, self.x_other)(x, scope)

    def x_other(self, x, scope):
        for value in vars(x).values():
            if isinstance(value, n.Node):
                self.expr(value, scope)
            elif isinstance(value, tuple):
                for item in value:
                    if isinstance(item, n.Node):
                        self.expr(item, scope)

    def collect(self, check, *args):
        """A check that raises (kinds, arity, fields): its error joins the others instead of stopping the walk."""
        try:
            check(*args)
        except GrimorioError as exc:
            self.out.extend(exc.diagnostics)

    def x_Binary(self, x: n.Binary, scope):
        resolve = self.resolving(scope)
        check = {"<": K.check_order, "<=": K.check_order, ">": K.check_order, ">=": K.check_order,
                 "in": K.check_membership, "notin": K.check_membership,
                 "==": K.check_equality, "!=": K.check_equality}.get(x.op)
        if x.op in ("+", "-", "*", "/", "%"):
            check = K.check_arithmetic
        if check is not None:
            self.collect(check, x, resolve)
        if x.op in ("/", "%"):
            self.collect(check_divisor, x.right)
        self.expr(x.left, scope)
        self.expr(x.right, scope)

    def x_Unary(self, x: n.Unary, scope):
        self.collect(K.check_negation, x, self.resolving(scope))
        self.expr(x.operand, scope)

    def x_Roll(self, x: n.Roll, scope):
        self.collect(K.expect_dice, x.dice, self.resolving(scope), "roll")
        self.x_other(x, scope)

    def x_Maximum(self, x: n.Maximum, scope):
        self.collect(K.expect_dice, x.dice, self.resolving(scope), "maximum()")
        self.x_other(x, scope)

    def resolving(self, scope):
        """How dsl/check/kinds.py resolves a name here: a local whose kind the text shows, as that kind."""
        kinds = scope.kinds

        def resolve(name, node=None):
            if name in kinds and name in scope.locals:
                return Resolved("known", kinds[name])
            if name.startswith(K.CHECK):
                check = self.rs.space("check").get(name[len(K.CHECK):])
                return Resolved("check", check) if isinstance(check, n.Check) else None
            return self.names.resolve(name, scope)
        return resolve

    def x_CheckCall(self, x: n.CheckCall, scope):
        d = self.rs.space("check").get(x.name)
        self.collect(known, self.rs.space("check"), x.name, "check", x.span)
        if d is not None:
            self.collect(bind_args, d.params, given_roll(d, x.args)[0], x.span, f'check "{x.name}"')
        self.x_other(x, scope)

    def x_Emit(self, x: n.Emit, scope):
        d = self.rs.space("event").get(x.event)
        self.collect(known, self.rs.space("event"), x.event, "event", x.span)
        if d is not None:
            self.collect(emit_args, d, x.args, x.span)
        self.args(x.args, scope)

    def x_Index(self, x: n.Index, scope):
        self.unguarded(x.obj)
        self.collect(K.check_map_key, x, self.resolving(scope))
        if isinstance(x.obj, n.Name):
            r = self.names.resolve(x.obj.id, scope)
            if r is not None and r.kind == "table":
                self.collect(check_table_key, r.target, x.key)
        if isinstance(x.obj, n.ListExp):
            self.collect(check_item, x.obj, x.key)
        self.x_other(x, scope)

    def unguarded(self, obj):
        problem = unguarded_first(obj)
        if problem is not None:
            self.fail(*problem)

    def x_Attr(self, x: n.Attr, scope):
        self.unguarded(x.obj)
        before = len(self.out)
        self.collect(check_attr, self.names, x, scope)
        if len(self.out) == before:
            self.collect(K.check_field, x, self.resolving(scope))
        self.expr(x.obj, scope)

    def x_Name(self, x: n.Name, scope):
        r = self.bound.names[id(x)] = self.names.resolve(x.id, scope)
        if x.id in scope.kinds and x.id in scope.locals:
            self.bound.kinds[id(x)] = scope.kinds[x.id]
        if r is None:
            self.fail("E0201", f'unknown name "{x.id}"', x.span, did_you_mean(x.id, self.names.candidates(scope)) or
                      "a name is a local (let, a parameter, a loop's variable), a combatant, or a table, condition, "
                      "var or list of outcomes the rules declare")
        elif r.kind == "rule":
            self.fail("E0204", f'"{x.id}" is a rule: call it with its arguments', x.span,
                      f"{x.id}({', '.join(p.name for p in r.target.params)})")
        elif r.kind in ("builtin", "outcomes"):
            self.fail("E0204", f'"{x.id}" cannot be used as a value', x.span)

    def x_OptionRef(self, x: n.OptionRef, scope):
        self.collect(known, self.options, x.name, "option", x.span)

    def x_Call(self, x: n.Call, scope):
        if not isinstance(x.func, n.Name):
            self.fail("E0204", "only rules and builtins can be called", x.span,
                      "this is dice, not a name: a rule cannot be named like dice (d20, 2d6); rename it"
                      if isinstance(x.func, n.DiceLit) else None)
            self.expr(x.func, scope)
            self.args(x.args, scope)
            return
        r = self.bound.names[id(x)] = self.names.callee(x.func.id)
        named = self.bound.names[id(x.func)] = self.names.resolve(x.func.id, scope)      # as a value (kinds.py)
        if r is None and named is not None:
            self.fail("E0204", f'"{x.func.id}" is not a rule and cannot be called', x.func.span)
        elif r is None:
            self.fail("E0201", f'unknown rule "{x.func.id}"', x.func.span,
                      did_you_mean(x.func.id, self.rules + list(BUILTINS)))
        elif r.kind == "rule":
            self.collect(bind_args, r.target.params, x.args, x.span, f'rule "{x.func.id}"')
        elif r is not None and r.kind == "builtin":
            before = len(self.out)
            self.collect(check_builtin_args, r.target, x.args, x.span)
            if len(self.out) == before:                 # the arguments it takes, in order: their kinds, their values
                self.collect(K.check_builtin_kinds, r.target, x.args, self.resolving(scope))
                self.collect(check_builtin_values, r.target, x.args, x.span)
        if r is not None and r.kind == "builtin" and r.target in ("has", "cards", "held") and len(x.args) >= 2:
            self.collect(K.expect_combatant, x.args[0].value, self.resolving(scope), f"{x.func.id}()")
            self.collect(K.expect_condition, x.args[1].value, self.resolving(scope), f"{x.func.id}()")
        if r is not None and r.kind == "builtin" and r.target == "has" and len(x.args) == 3:
            self.collect(K.expect_grade, x.args[2].value, self.resolving(scope), "has()")    # as add takes it
            self.has_grade_named(x.args[1].value, x.args[2].value, scope)
        if r is not None and r.kind == "builtin" and r.target == "agree":
            self.collect(check_agree_call, x.args, self.resolving(scope), self.agree_words)
        if r is not None and r.kind == "builtin" and r.target == "grades" and x.args:
            self.collect(K.expect_condition, x.args[0].value, self.resolving(scope), "grades()")
        if r is not None and r.kind == "builtin" and r.target == "rows" and x.args:
            self.collect(K.expect_table, x.args[0].value, self.resolving(scope), "rows()")
        if r is not None and r.kind == "builtin" and r.target == "condition_named" and x.args:
            self.condition_named(x.args[0].value, scope)
        self.args(x.args, scope)

    def has_grade_named(self, cond, grade, scope):
        """has(c, COND, "TEXT") with the condition written: the text must name one of its grades now."""
        if not (isinstance(cond, n.Name) and isinstance(grade, n.Const) and type(grade.value) is str):
            return
        r = self.names.resolve(cond.id, scope)
        ct = r.target if r is not None and r.kind == "condition" else None
        if isinstance(ct, n.Condition) and grade.value not in ct.grades:
            self.fail("E0201" if ct.grades else "E0204", f'condition "{ct.name}" has no grade "{grade.value}"',
                      grade.span, did_you_mean(grade.value, ct.grades) or
                      (f"its grades are {', '.join(ct.grades)}" if ct.grades else "it has no grades: ask has(c, "
                       f"{ct.name}) without one"))

    def condition_named(self, arg, scope):
        """condition_named("TEXT") with a written text, or a table's column (ROW.column, the row's table
        known): the text, each text of the column, must name a condition now (E0280); any other text is
        looked up when it runs."""
        if isinstance(arg, n.Const) and isinstance(arg.value, str):
            self.no_condition_named(arg.value, arg.span)
        elif isinstance(arg, n.Attr):
            table = self.rs.space("value").get(self.row_table(arg.obj, scope) or "")
            if isinstance(table, n.Table) and arg.name in table.columns and (table.name, arg.name) not in self.named_columns:
                self.named_columns.add((table.name, arg.name))
                i = table.columns.index(arg.name)
                for row in table.rows:
                    cell = row[i] if i < len(row) else None
                    if isinstance(cell, n.Const) and isinstance(cell.value, str):
                        self.no_condition_named(cell.value, cell.span, f' (condition_named reads column "{arg.name}" '
                                                                       f"at {arg.span.file}:{arg.span.line})")

    def row_table(self, obj, scope) -> str | None:
        """The table whose row `obj` surely is: by its kind, or a field that every sheet declaring it
        types by one table (`c.kind` of `kind: monster_kinds`), read of what may be a combatant."""
        known = K.kind(obj, self.resolving(scope))
        if getattr(known, "table", None) or not isinstance(obj, n.Attr):
            return getattr(known, "table", None)
        if K.kind(obj.obj, self.resolving(scope)) not in (None, K.COMBATANT):
            return None
        tables = {f.table if f.type == "row" else None
                  for fields in fields_by_sheet(self.rs.all(n.Sheet)).values() for f in fields if f.name == obj.name}
        return next(iter(tables)) if len(tables) == 1 else None

    def no_condition_named(self, text: str, span, why: str = ""):
        if text not in self.conditions:
            self.fail("E0280", f'no condition is named "{text}"', span,
                      (did_you_mean(text, self.conditions) or
                       f"the conditions are: {', '.join(self.conditions) or 'none'}") + why)

    def x_Comprehension(self, x: n.Comprehension, scope):
        inner = scope
        for i, (var, items, cond) in enumerate(x.clauses()):     # each clause sees the variables of those before it
            self.collect(K.expect_list, items, self.resolving(inner))
            self.expr(items, inner)
            inner = self.fresh(inner, x, i, var, K.held(K.item_kind(items, self.resolving(inner))))
            if cond is not None:
                self.expr(cond, inner)
        self.expr(x.elt, inner)

    def x_Search(self, x: n.Search, scope):
        self.collect(K.expect_list, x.iter, self.resolving(scope), x.kind)
        self.expr(x.iter, scope)
        inner = self.fresh(scope, x, None, x.var, K.held(K.item_kind(x.iter, self.resolving(scope))))
        self.expr(x.cond, inner)
        if x.default is not None:
            self.expr(x.default, scope)
        for problem in search_problems(x):
            self.fail(*problem)

    def x_RecordExp(self, x: n.RecordExp, scope):
        names = [f for f, _ in x.fields]
        if len(set(names)) != len(names):
            self.fail("E0202", "a record names a field twice", x.span)
        for _name, value in x.fields:
            self.expr(value, scope)

    def x_Arg(self, x: n.Arg, scope):
        self.expr(x.value, scope)

    def args(self, args, scope):
        for a in args:
            self.expr(a.value, scope)


def _assigned(body) -> set:
    """The names a block binds or sets anywhere in it (its loops and branches too)."""
    out = set()
    for x in walk(body):
        if isinstance(x, n.Let):
            out.add(x.name)
        elif isinstance(x, n.Set) and isinstance(x.target, n.Name):
            out.add(x.target.id)
        elif isinstance(x, n.For):
            out.add(x.var)
        elif isinstance(x, n.Decide):
            out.add(x.output)
    return out


# Loops Python compiles one inside another in one function (CPython's CO_MAXBLOCKS).
COMPILED_LOOPS = 20
