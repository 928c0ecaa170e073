"""Statements to Python lines (a mixin of Program)."""
from __future__ import annotations

from ..dsl import nodes as n
from ..dsl.diagnostics import GrimorioError, did_you_mean
from ..dsl.names import Scope

from . import kinds as K
from .expressions import L
from .values import mangle


class StatementCompiler:
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
                              'set a field ("set c.FIELD = ...") or a var; use "let" for a local')
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
        if isinstance(s, n.Expect):
            return self.expect_stmt(s, depth, scope)
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
        if isinstance(s, n.Block):
            return self.block(s.body, depth, scope)      # a label only: its names stay known after it
        self.fail("E0101", "this statement is not supported here", s.span)

    def verdict(self, e, scope) -> str:
        """An expectation's condition as (verdict, left, right): a comparison keeps both sides to show them."""
        if isinstance(e, n.Binary) and e.op in ("<", "<=", ">", ">="):
            K.check_order(e, self.resolving(scope))
        if isinstance(e, n.Binary) and e.op in ("==", "!=", "<", "<=", ">", ">="):
            a, b = self.tmp(), self.tmp()
            return f"(({a} := {self.expr(e.left, scope)}) {e.op} ({b} := {self.expr(e.right, scope)}), {a}, {b})"
        return f"({self.expr(e, scope)}, None, None)"

    def expect_stmt(self, s: n.Expect, depth, scope) -> Scope:
        """An expectation in a do: block, checked when the run reaches it."""
        if self.owner != "encounter":
            self.fail("E0230", "expect belongs in an encounter script, not in the rules", s.span,
                      "write the expectation in the do: block or a round of an encounter (.enc)")
        node = self.k(s, "expect")
        if s.expr is None:
            self.emit(depth, f"_E.expect_said({node})", s.span)
        else:
            self.emit(depth, f"_E.expected({node}, *{self.verdict(s.expr, scope)})", s.span)
        return scope

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
        if s.data is None:
            self.emit(depth, f"_E.{s.op}({who}, {cref}, {grade})", s.span)
        else:
            self.card_data(s, ct, depth, f"_E.{s.op}({who}, {cref}, {grade}, {{}})", scope)

    def card_data(self, s: n.CardOp, ct, depth, call: str, scope):
        """A card given with data: `add c COND GRADE with {fuente: yo, turnos: 3}`."""
        decl = self.ruleset.space("value").get(ct.name)
        if s.op == "receive" and getattr(decl, "on_receive", None) is not None:
            self.fail("E0233", f'"{ct.name}" decides what it adds on receive: data cannot be given here', s.data.span,
                      'give the data to its "on receive" as an argument, or use add')
        self.emit(depth, call.format(self.expr(s.data, scope)), s.span)

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
