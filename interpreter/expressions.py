"""Expressions to Python source text (a mixin of Program)."""
from __future__ import annotations

import re
from fractions import Fraction

from ..dsl import nodes as n
from ..dsl.diagnostics import did_you_mean
from ..dsl.names import BUILTINS, Scope, bind_args, check_attr, check_builtin_args, emit_args, walk

from ..dsl import kinds as K
from . import semantics as S
from .dice import Dice, ValueBound
from .invariant import memo_kinds
from .values import Scale, make_struct, mangle
from .semantics import bound_help


def L(name: str) -> str:
    """A DSL local as a Python local."""
    return "l" + mangle(name)


class ExpressionCompiler:
    def call_args(self, params, args, span, what, scope) -> list[str]:
        return [self.expr(node, scope) for node in bind_args(params, args, span, what)]

    def expr(self, x, scope: Scope) -> str:
        m = getattr(self, "x_" + type(x).__name__)
        return m(x, scope)

    def x_Const(self, x, scope):
        v = x.value
        if isinstance(v, Fraction):
            return self.k(Scale(v), "scale")
        return repr(v)

    def x_DiceLit(self, x, scope):
        try:
            return self.k(Dice.of(x.count, x.sides), "dice")
        except ValueBound as exc:
            self.fail("E0506", exc.message, x.span, bound_help(exc.bound))

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
        check_attr(self.resolver, x, scope)
        if isinstance(x.obj, n.Name):
            r = self.resolver.resolve(x.obj.id, scope)
            if r is not None and r.kind == "condition":
                return self.k(self.conditions[x.obj.id].by_name[x.name], "grade")
        return f"({self.expr(x.obj, scope)}).{mangle(x.name)}"

    def x_Index(self, x, scope):
        if isinstance(x.obj, n.Name):
            r = self.resolver.resolve(x.obj.id, scope)
            if r is not None and r.kind == "table":
                return f"{self.k(self.tables[x.obj.id], 'table')}.lookup({self.expr(x.key, scope)})"
        obj, key = self.expr(x.obj, scope), self.expr(x.key, scope)
        if self.pure(obj) and self.pure(key):
            # A field named by a value (c[row.column]), read in place when the value names
            # a field of these rules and the object has fields; H.index does the same, slower.
            return (f"(getattr({obj}, _F[{key}]) if type({key}) is str and {key} in _F and isinstance({obj}, H.FIELDED)"
                    f" else H.index({obj}, {key}))")
        return f"H.index({obj}, {key})"

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
            kinds = memo_kinds(r.target, self.resolver.resolve)
            if kinds is not None:                   # the same list all run: see invariant.py
                return f"_E.memo({self.gid('rule', name)}, {kinds!r}{''.join(', ' + a for a in args)})"
            inlined = self.inline(r.target, args)
            if inlined is not None:
                return inlined
            return f"{self.gid('rule', name)}(_E{''.join(', ' + a for a in args)})"
        if r.kind != "builtin":
            self.fail("E0204", f'"{name}" is not a rule and cannot be called', x.func.span)
        check_builtin_args(name, x.args, x.span)
        if name in ("has", "cards"):
            K.expect_condition(x.args[1].value, self.resolving(scope), f"{name}()")
        args = [self.expr(a.value, scope) for a in x.args]
        listed = bool(x.args) and isinstance(x.args[0].value, (n.ListExp, n.Comprehension))
        if name == "len" and listed:
            return f"len({args[0]})"                      # a list by its very syntax
        if name == "distinct" and listed:
            return f"list(dict.fromkeys({args[0]}))"
        if name in ("len", "abs", "sum"):
            return f"H.{name}_({args[0]})"
        if name in ("min", "max") and len(args) > 1:
            # Two or more values: the builtin, unless a transcript could show a roll through it.
            return f"(H.{name}_({', '.join(args)}) if _E.rec else {name}({', '.join(args)}))"
        if name in ("min", "max"):
            return f"H.{name}_({', '.join(args)})"
        if name == "floor":
            a = x.args[0].value
            if isinstance(a, n.Binary) and a.op == "/":
                K.check_arithmetic(a, self.resolving(scope))
                left, right = self.expr(a.left, scope), self.expr(a.right, scope)
                if self.pure(left) and self.pure(right):
                    return f"({left} // {right} if type({left}) is int is type({right}) else S.floor_div({left}, {right}))"
                return f"S.floor_div({left}, {right})"
            if isinstance(a, n.Binary) and a.op == "*":
                K.check_arithmetic(a, self.resolving(scope))
                return f"H.mulfloor({self.expr(a.left, scope)}, {self.expr(a.right, scope)})"
            return f"_floor({args[0]})"
        if name == "ceil":
            a = x.args[0].value
            if isinstance(a, n.Binary) and a.op == "/":
                K.check_arithmetic(a, self.resolving(scope))
                left, right = self.expr(a.left, scope), self.expr(a.right, scope)
                if self.pure(left) and self.pure(right):
                    return f"(-(-{left} // {right}) if type({left}) is int is type({right}) else S.ceil_div({left}, {right}))"
                return f"S.ceil_div({left}, {right})"
            return f"_ceil({args[0]})"
        if name == "has" and len(args) == 2 and isinstance(x.args[1].value, n.Name):
            r2 = self.resolver.resolve(x.args[1].value.id, scope)
            if r2 is not None and r2.kind == "condition":
                # The condition is known here: test the combatant's cards directly.
                return f"({x.args[1].value.id!r} in {args[0]}.cards)"
        if name == "act" and self.SIMPLE.match(args[0]):
            # Unscripted, a combatant's tactic chooses directly.
            return f"(_E.act({args[0]}) if _E.script else {args[0]}.acts(_E, {args[0]}))"
        if name == "combatants":
            return "list(_E.cb)"
        if name in ("dice", "range", "slice"):              # Python's own names: the helpers end in "_"
            return f"H.{name}_({', '.join(args)})"
        if name in ("round_number", "all_conditions", "grades", "act", "has", "cards", "choose", "held"):
            return f"_E.{name}({', '.join(args)})"
        return f"H.{name}({', '.join(args)})"

    SIMPLE = re.compile(r"^[\w.\[\]]+$")

    def inline(self, rule: n.Rule, args: list[str]) -> str | None:
        """A rule that only returns an expression, called with plain arguments,
        is compiled in place: no call on the hot path."""
        body = rule.body
        if len(body) != 1 or not isinstance(body[0], n.Return) or body[0].value is None:
            return None
        if rule.name in self.inlining or not all(self.SIMPLE.match(a) for a in args) or not self.is_leaf(rule):
            return None
        saved = self.alias
        self.alias = {p.name: a for p, a in zip(rule.params, args)}
        self.inlining.append(rule.name)
        try:
            return "(" + self.expr(body[0].value, Scope({p.name for p in rule.params})) + ")"
        finally:
            self.alias = saved
            self.inlining.pop()

    def is_leaf(self, rule: n.Rule) -> bool:
        """A rule that calls no rule: compiling it in place costs its own size, never more."""
        leaf = self.leaves.get(rule.name)
        if leaf is None:
            rules = self.ruleset.space("value")
            leaf = self.leaves[rule.name] = not any(
                isinstance(node, n.Call) and isinstance(node.func, n.Name)
                and isinstance(rules.get(node.func.id), n.Rule) for node in walk(rule.body))
        return leaf

    def x_Unary(self, x, scope):
        if x.op == "not":
            return f"(not {self.expr(x.operand, scope)})"
        if K.kind(x.operand, self.resolving(scope)) == K.NUMBER:
            return f"(-{self.expr(x.operand, scope)})"
        return f"S.neg({self.expr(x.operand, scope)})"

    OPS = {"and": "and", "or": "or", "in": "in", "notin": "not in"}

    def x_Binary(self, x, scope):
        resolve = self.resolving(scope)
        if x.op in ("+", "-", "*", "/", "%"):
            K.check_arithmetic(x, resolve)
        elif x.op in ("<", "<=", ">", ">="):
            K.check_order(x, resolve)
        elif x.op in ("in", "notin"):
            K.check_membership(x, resolve)
        a, b = self.expr(x.left, scope), self.expr(x.right, scope)
        if x.op in S.BINARY:
            return self.operator(x, a, b, resolve)
        if x.op == "notin":
            return f"(not S.contains({a}, {b}))"
        if x.op in ("<", "<=", ">", ">="):
            known = self._const_ranked(x.right, scope)
            if known is not None:
                # Against a named outcome: compare ranks, after making sure the
                # other side is an outcome of the same list.
                if self.pure(a):
                    return (f"({a}.rank {x.op} {known.rank} if type({a}) is H.Ranked and {a}.kind == {known.kind!r} "
                            f"else H.rank_of({a}, {known.kind!r}, {b}) {x.op} {known.rank})")
                return f"(H.rank_of({a}, {known.kind!r}, {b}) {x.op} {known.rank})"
        if x.op in ("==", "!=") and "None" in (a, b):
            other = b if a == "None" else a
            test = f"({other} is None or {other} == [])" if self.pure(other) else f"S.is_none({other})"
            return f"({'' if x.op == '==' else 'not '}{test})"
        return f"({a} {self.OPS.get(x.op, x.op)} {b})"

    # Operators whose meaning on two numbers is Python's own (tests/test_semantics.py proves it).
    PLAIN = {"+": "+", "-": "-", "*": "*"}
    # On two whole numbers, + - % in place (a loop adds at most a bit a turn, and the step budget
    # bounds the turns; show() refuses what grew past MAX_DIGITS); * can square, so never.
    GUARDED = {"+": "+", "-": "-", "%": "%"}

    def operator(self, x, a, b, resolve) -> str:
        """An arithmetic operator or `in`: in place when both sides are surely numbers, or
        guarded for whole numbers when both sides can be read twice; else the semantics."""
        call = f"S.{S.BINARY[x.op].__name__}({a}, {b})"
        if x.op in self.PLAIN and K.kind(x.left, resolve) == K.kind(x.right, resolve) == K.NUMBER:
            return f"({a} {self.PLAIN[x.op]} {b})"
        return self.guarded(x.op, a, b, call)

    def guarded(self, op, a, b, call) -> str:
        if op in self.GUARDED and self.pure(a) and self.pure(b):
            return f"({a} {self.GUARDED[op]} {b} if type({a}) is int is type({b}) else {call})"
        return call

    OPERAND = re.compile(r"^[\w.()]+$")
    CALL = re.compile(r"\w\(")

    def pure(self, code: str) -> bool:
        """Generated code that reads names and fields only: evaluating it twice is harmless."""
        return bool(self.OPERAND.match(code)) and not self.CALL.search(code)

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
        items = f"H.counted(_E, {self.expr(x.iter, scope)})"
        saved = self.alias
        # The comprehension binds its own name: an argument compiled in place for a
        # parameter of that name must not reach inside.
        self.alias = {k: v for k, v in saved.items() if k != x.var}
        try:
            cond = f" if {self.expr(x.cond, inner)}" if x.cond is not None else ""
            return f"[{self.expr(x.elt, inner)} for {L(x.var)} in {items}{cond}]"
        finally:
            self.alias = saved

    def x_RecordExp(self, x, scope):
        names = tuple(f for f, _ in x.fields)
        if len(set(names)) != len(names):
            self.fail("E0202", "a record names a field twice", x.span)
        cls = self.structs.get(names)
        if cls is None:
            cls = self.structs[names] = make_struct("record", names)
        return f"{self.k(cls, 'rec')}({', '.join(self.expr(v, scope) for _, v in x.fields)})"

    def resolving(self, scope):
        return lambda name: self.resolver.resolve(name, scope)

    def x_Roll(self, x, scope):
        K.expect_dice(x.dice, self.resolving(scope), "roll")
        if x.purpose:
            self.purposes.add(x.purpose)
        by = self.expr(x.by, scope) if x.by is not None else "None"
        # The fast path names who rolls twice: only for a name or a field, never a call.
        plain_by = x.by is None or all(isinstance(v, (n.Name, n.Attr)) for v in walk(x.by))
        return self.roll_code(self.expr(x.dice, scope), x.dice, by, repr(x.purpose), plain_by)

    def roll_code(self, dice: str, node, by: str, purpose: str, plain_by: bool = True) -> str:
        if isinstance(node, n.DiceLit) and node.count == 1 and plain_by:
            # A lone literal die: roll it in place when nothing is pinned or shown.
            return (f"((_E.streams.get(({by}, {purpose})) or _E.stream({by}, {purpose}))() % {node.sides} + 1 "
                    f"if _E.plain else _E.roll({dice}, {by}, {purpose}))")
        return f"_E.roll({dice}, {by}, {purpose})"

    def x_CheckCall(self, x, scope):
        d = self.known(self.ruleset.space("check"), x.name, "check", x.span)
        if x.purpose:
            self.purposes.add(x.purpose)
        args = self.call_args(d.params, x.args, x.span, f'check "{x.name}"', scope)
        by = self.expr(x.by, scope) if x.by is not None else "None"
        purpose = x.purpose or x.name
        return f"{self.gid('check', x.name)}(_E, {by}, {purpose!r}{''.join(', ' + a for a in args)})"

    def x_Emit(self, x, scope):
        d = self.known(self.ruleset.space("event"), x.event, "event", x.span)
        values = [self.expr(v, scope) for v in emit_args(d, x.args, x.span)]
        cls = self.k(self.event_types[x.event], "event")
        if x.event in self.reacted:
            return f"{self.gid('event', x.event)}(_E, {cls}({', '.join(values)}))"
        return f"{cls}({', '.join(values)})"

    def x_Maximum(self, x, scope):
        K.expect_dice(x.dice, self.resolving(scope), "maximum()")
        return f"H.maximum({self.expr(x.dice, scope)})"
