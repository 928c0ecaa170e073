"""Statements to Python lines (a part of the one emitter, compiler.Compiler): the plain forms, and
the in-place ones of inplace.py where the optimizer's plan has `in_place`."""
from __future__ import annotations

from contextlib import contextmanager
from operator import attrgetter

from ...dsl.records import fields
from ...dsl.syntax import nodes as n

from ..run import semantics as S
from ..run.values import mangle


class StatementCompiler:
    def block(self, stmts, depth):
        if not stmts:
            self.emit(depth, "pass")
        for s in stmts:
            self.stmt(s, depth)

    def stmt(self, s, depth):
        # (the expression worked out first, and the span of the line that works it out)
        first = s.value if isinstance(s, (n.Let, n.Return)) else s.branches[0][0] if isinstance(s, n.If) else None
        if first is not None:
            with self.paying(first, depth, first.span if isinstance(s, n.If) else s.span):
                return self.stmt_(s, depth)
        return self.stmt_(s, depth)

    @contextmanager
    def paying(self, x, depth, span):
        """The statement's expression `x` walks a list that is surely one first of all (`len(distinct(
        [c.side for c in combatants() if ...]))`, `[.. for c in standing()]`): its length paid from
        the step budget in place before the statement, as H.paid would pay it on the same list at the
        same moment (nothing is worked out before it), then walked as it is. The combatants are the
        run's own list; any other is worked out first, on a line told at the same span."""
        node = self.first_walked(x)
        if node is None:
            yield
            return
        if isinstance(node, n.Call) and node.func.id == "combatants":
            items = self.walked(node, lambda: self.unnamed_expr(node))
        else:
            items = self.tmp()
            self.emit(depth, f"{items} = {self.walked(node, lambda: self.expr(node))}", span)
        self.emit(depth, f"_E.steps += len({items})", span)
        self.emit(depth, "if _E.steps > _E.budget: raise H.Budget(_E.budget)", span)
        saved, self.prepaid = self.prepaid, {**self.prepaid, id(node): items}
        try:
            yield
        finally:
            self.prepaid = saved

    # Builtins whose first argument is worked out before anything else of their call.
    FIRST_ARGUMENT_FIRST = frozenset(("len", "distinct", "first"))

    def first_walked(self, x):
        """The list (a node) a comprehension walks, where it surely is a list (S.LIST_BUILTINS) and
        the first thing `x` works out whenever it is worked out (down the first argument of a
        builtin, the left side of an operator, a comprehension's first list), on the optimized
        path; else None."""
        if not self.plan.in_place:
            return None
        while True:
            if isinstance(x, n.Comprehension):
                it = x.iter
                return it if isinstance(it, n.Call) and self.surely_list(it) else None
            if isinstance(x, n.Call) and x.args and x.func.id in self.FIRST_ARGUMENT_FIRST \
                    and self.bound(x).kind == "builtin":
                x = x.args[0].value
            elif isinstance(x, n.Binary):
                x = x.left
            elif isinstance(x, n.Unary):
                x = x.operand
            else:
                return None

    def stmt_(self, s, depth):
        e = self.emit
        if isinstance(s, n.Let):
            e(depth, f"{self.slot(s)} = {self.value(s.value, depth, s.span)}", s.span)
            return
        if isinstance(s, n.Set):
            # The checker let through only fields (of no table's row), vars and locals.
            if isinstance(s.target, n.Attr):
                value = self.value(s.value, depth, s.span)      # (Python works out the value first)
                e(depth, f"{self.expr(s.target.obj)}.{mangle(s.target.name)} = {value}", s.span)
            elif isinstance(s.target, n.Index):      # a map's item (maps.keep refuses anything else)
                t = s.target
                e(depth, f"H.keep({self.expr(t.obj)}, {self.expr(t.key)}, {self.expr(s.value)})",
                  s.span)
            else:
                r = self.bound(s.target)
                target = r.target if r.kind == "local" else f"_E.v.{mangle(s.target.id)}"
                e(depth, f"{target} = {self.value(s.value, depth, s.span)}", s.span)
            return
        if isinstance(s, n.Say):
            m = self.ruleset.space("message")[s.message]
            args = self.call_args(m.params, s.args, s.span, f'message "{m.name}"')
            # Arguments are evaluated once, and only when a transcript is kept.
            e(depth, f"if _E.rec: _E.say({s.message!r}, {self.gid('message', s.message)}, "
                     f"({''.join(a + ', ' for a in args)}), {self.k((self.owner, s.span), 'at')})", s.span)
            return
        if isinstance(s, n.Return):
            e(depth, f"return {self.value(s.value, depth, s.span) if s.value is not None else 'None'}", s.span)
            return
        if isinstance(s, n.CardOp):
            self.card_op(s, depth)
            return
        if isinstance(s, n.Append):
            self.append(s, depth)
            return
        if isinstance(s, n.Act):
            e(depth, f"_E.act({self.expr(s.who)})", s.span)
            return
        if isinstance(s, n.Pass):
            e(depth, "pass", s.span)
            return
        if isinstance(s, n.Stop):
            e(depth, "raise H.StopRun()", s.span)
            return
        if isinstance(s, n.ExprStmt):
            e(depth, self.expr(s.expr), s.span)
            return
        if isinstance(s, n.Expect):
            return self.expect_stmt(s, depth)
        if isinstance(s, n.If):
            # (A name every branch binds has one slot in them all: the resolver's.)
            for i, (cond, body) in enumerate(s.branches):
                e(depth, f"{'if' if i == 0 else 'elif'} {self.expr(cond)}:", cond.span)
                self.block(body, depth + 1)
            if s.orelse is not None:
                e(depth, "else:", s.span)
                self.block(s.orelse, depth + 1)
            return
        if isinstance(s, n.For):
            items = self.walked(s.iter, lambda: self.unnamed_expr(s.iter))  # maybe a comprehension's iterable
            if s.key is not None:
                key = self.unnamed_expr(s.key)   # a lambda, maybe in a comprehension's list: no :=
                fn = ("S.whole_groups" if self.whole_key(s.key) else "S.groups") if s.group else "S.ordered"
                items = f"{fn}({items}, {self.key_function(s, key)}, {s.desc})" if not s.more else \
                    self.ordered_by_keys(s, items, key)
            var = self.slot(s)
            if s.where is not None:
                items = f"[{var} for {var} in {items} if {self.expr(s.where)}]"
            t = self.walk_list(s, items, depth)
            e(depth, f"for {var} in {t}:", s.span)
            self.block(s.body, depth + 1)
            return
        if isinstance(s, n.While):
            e(depth, f"while {self.expr(s.cond)}:", s.span)
            e(depth + 1, "_E.steps += 1", s.span)
            e(depth + 1, "if _E.steps > _E.budget: raise H.Budget(_E.budget)", s.span)
            body = [x for x in s.body if not isinstance(x, n.Pass)]      # (the loop has lines of its own)
            if body:
                self.block(body, depth + 1)
            return
        if isinstance(s, n.Decide):
            return self.decide(s, depth)
        if isinstance(s, n.Block):
            return self.block(s.body, depth)      # a label only: its names stay known after it
        raise AssertionError(f"no statement {type(s).__name__}")

    def value(self, x, depth, span) -> str:
        """The code of the value a let, a set or a return gives, its lines told at the statement: a
        record `{a: v, b: w}` is made in place first, as checks and events are (one call fewer than
        its _new), its fields set in their order, and named by a temporary that the statement gives
        once whole (so a value may read the old record of the name it is given to)."""
        if not isinstance(x, n.RecordExp):
            return self.expr(x)
        t = self.tmp()
        self.emit(depth, f"{t} = {self.record_class(x)}()", span)
        for name, value in x.fields:
            self.emit(depth, f"{t}.{mangle(name)} = {self.expr(value)}", span)
        return t

    def whole_key(self, key) -> bool:
        """An `ordered by` key the plan proves a whole number for every item: its groups need
        no ordering of mixed keys (S.whole_groups)."""
        return self.plan.in_place and self.surely_whole(key, self.resolving())

    def key_function(self, s: n.For, key: str) -> str:
        """The function `ordered by KEY` orders by: a lambda of `it`, or for `it.field` a getter of
        the field made once (operator.attrgetter: the same read, with no frame of Python a call)."""
        it = self.slot(s, 'it')
        k = s.key
        if isinstance(k, n.Attr) and isinstance(k.obj, n.Name) and self.bound(k.obj).kind == "local" \
                and self.expr(k.obj) == it:
            return self.k(self.getters.setdefault(k.name, attrgetter(mangle(k.name))), "key")
        return f"lambda {it}: {key}"

    def ordered_by_keys(self, s: n.For, items: str, first: str) -> str:
        """`ordered by` several keys: each key a tuple item, each with its direction (S.ordered_by_keys)."""
        keys = ", ".join([first] + [self.unnamed_expr(k.key) for k in s.more])
        descs = (s.desc, *(k.desc for k in s.more))
        return f"S.ordered_by_keys({items}, lambda {self.slot(s, 'it')}: ({keys},), {descs}, {s.group})"

    def verdict(self, e) -> str:
        """An expectation's condition as (verdict, left, right): a comparison keeps both sides to show them."""
        if isinstance(e, n.Binary) and e.op in ("==", "!=", "<", "<=", ">", ">="):
            a, b = self.tmp(), self.tmp()
            left, right = f"({a} := {self.expr(e.left)})", f"({b} := {self.expr(e.right)})"
            # Comparison as the language means it (none matches an empty list), not Python's.
            test = f"S.{S.COMPARISON[e.op].__name__}({left}, {right})"
            return f"({test}, {a}, {b})"
        return f"({self.expr(e)}, None, None)"

    def expect_stmt(self, s: n.Expect, depth):
        """An expectation in a do: block, checked when the run reaches it."""
        node = self.k(s, "expect")
        if s.expr is None:
            self.emit(depth, f"_E.expect_said({node})", s.span)
        else:
            self.emit(depth, f"_E.expected({node}, *{self.verdict(s.expr)})", s.span)

    def card_op(self, s: n.CardOp, depth):
        if s.condition not in self.conditions:  # the checker's: an expression (a local, a field...) holding one
            return self.held_card_op(s, depth)
        ct = self.conditions[s.condition]        # the checker's: the condition, and a grade it has
        who = self.expr(s.who)
        cref = self.k(ct, "cond")
        if s.grade_source is not None:         # a grade from an expression: taken as the held path takes it
            grade = f"H.card_grade({cref}, {self.card_grade(s)}, {s.op!r})"
        elif s.grade is None:
            grade = "None"
        elif s.grade in ct.by_name:
            grade = self.k(ct.by_name[s.grade], "grade")
        else:
            grade = f"H.regrade({cref}, {self.card_grade(s)})"
        if s.data is None:
            self.emit(depth, f"_E.{s.op}({who}, {cref}, {grade})", s.span)
        else:
            # A card given with data: `add c COND GRADE with {fuente: yo, turnos: 3}`.
            self.emit(depth, f"_E.{s.op}({who}, {cref}, {grade}, {self.expr(s.data)})", s.span)

    def card_grade(self, s: n.CardOp) -> str:
        """The code of a grade the text gives by a local or an expression; a grade's written word, as a text."""
        if s.grade_source is not None:
            return self.expr(s.grade_source)
        return self.slot(s, "grade") if self.bindings.has_slot(s, "grade") else repr(s.grade)

    def held_card_op(self, s: n.CardOp, depth):
        """A card statement on a condition held in a local (`remove c cond g`): the condition and the
        grade are taken as a written one would be, or refused, when it runs (runtime_helpers)."""
        who = self.expr(s.who)
        cond = self.tmp()
        checked = ", True" if s.op == "receive" and s.data is not None else ""
        source = s.source if s.source is not None else self.bindings.held(s)
        self.emit(depth, f"{cond} = H.card_condition({self.expr(source)}{checked})", s.span)
        given = "None" if s.grade is None and s.grade_source is None else self.card_grade(s)
        grade = f"H.card_grade({cond}, {given}, {s.op!r})"
        data = "" if s.data is None else f", {self.expr(s.data)}"
        self.emit(depth, f"_E.{s.op}({who}, {cond}, {grade}{data})", s.span)

    def decide(self, d: n.Decide, depth, out=None):
        """A decision table; `out`: where its rows give their value, if not its output's slot."""
        out = None if d.output == "then" else out or self.slot(d)
        ins = []
        for node in d.inputs:
            code = self.expr(node)
            if out is None or not self.is_local(node) or code == out:
                # Worked out once before the rows; a local read as it is where no row can set it
                # (a table giving a value chooses one row, and only then sets its output).
                t = self.tmp()
                self.emit(depth, f"{t} = {code}", node.span)
                code = t
            ins.append((code, node))
        depth = self.whole_rows(d, ins, out, depth)
        self.rows(d, ins, out, depth)

    def is_local(self, node) -> bool:
        """A name of a local (its binding, read as it is)."""
        r = self.bound(node) if isinstance(node, n.Name) else None
        return r is not None and r.kind == "local"

    def rows(self, d: n.Decide, ins, out, depth):
        ins = self.numbers(ins)
        saved = self.shared
        self.shared = {**saved, **self.shared_quotients(d, out, depth)}
        try:
            self._rows(d, ins, out, depth)
        finally:
            self.shared = saved

    def _rows(self, d: n.Decide, ins, out, depth):
        first = True
        for row in d.rows:
            conds = []
            for (var, number), alts in zip(ins, row.tests):
                tests = [self.test(var, number, t) for t in alts]
                if "True" in tests:
                    continue
                conds.append(tests[0] if len(tests) == 1 else "(" + " or ".join(tests) + ")")
            # A row of "any" cells after others, in a "first" table: the rest; no row after it is reached.
            rest = not conds and d.policy == "first" and not first
            kw = "if" if first or d.policy == "all" else "elif"
            self.emit(depth, "else:" if rest else f"{kw} {' and '.join(conds) or 'True'}:", row.span)
            first = False
            if out is not None:
                self.emit(depth + 1, f"{out} = {self.expr(row.output)}", row.output.span)
            else:
                self.block(row.output, depth + 1)
            if rest:
                return
        if d.policy == "first" and d.rows:
            self.emit(depth, "else:")
            self.emit(depth + 1, "raise H.RuleFailure('no row of this decision table matches', "
                                 "'add a last row of \"any\" cells')", d.span)

    # Code compiled in place of a node (by id): a quotient the rows of a decision table share, worked
    # out once before them (shared_quotients).
    shared: dict = {}

    def expr(self, x):
        if self.shared:
            code = self.shared.get(id(x))
            if code is not None:
                return code
        return super().expr(x)

    def shared_quotients(self, d: n.Decide, out, depth) -> dict:
        """`floor` or `ceil` of a whole number by a written one (`ceil(objetivo / 10)`) that a cell
        of the first row and a cell of a later row read: worked out once before the rows, where they
        are compiled for whole numbers (inplace.py: whole_rows) or the name is proven whole (the
        optimizer's facts: a check's parameter every call passes whole). It cannot fail, reads only names
        no row changes (the rows give a value: no statement) and counts no step, so working it out
        first changes nothing."""
        if out is None:
            return {}
        found: dict = {}                  # shape -> [(row number, node)]
        for i, row in enumerate(d.rows):
            for alts in row.tests:
                for t in alts:
                    for node in n.walk((t.value, t.high)):
                        if self.sure_quotient(node):
                            found.setdefault(shape(node), []).append((i, node))
        out = {}
        for uses in found.values():
            if uses[0][0] == 0 and any(i > 0 for i, _node in uses):
                t = self.tmp()
                self.emit(depth, f"{t} = {self.expr(uses[0][1])}", d.span)
                out.update((id(node), t) for _i, node in uses)
        return out

    def sure_quotient(self, x) -> bool:
        """floor or ceil (the builtins) of a name known here to hold a whole number, by a written
        whole number above 0: Python's own `//`, which cannot fail."""
        if not (isinstance(x, n.Call) and x.func.id in ("floor", "ceil") and len(x.args) == 1):
            return False
        r = self.bound(x)
        a = x.args[0].value
        if r is None or r.kind != "builtin" or not (isinstance(a, n.Binary) and a.op == "/"):
            return False
        right = a.right
        if not (isinstance(right, n.Const) and type(right.value) is int and right.value > 0):
            return False
        return isinstance(a.left, n.Name) and (self.expr(a.left) in self.ints       # under the rows' guard
                                               or self.surely_whole(a.left, self.resolving()))  # or proven

    def test(self, var, number: bool, t: n.Test) -> str:
        """One cell of a decision table against its input `var` (`number`: the input is surely a number)."""
        if t.kind == "any":
            return "True"
        if t.kind == "none":
            return f"_none({var})"
        if t.kind == "cmp":
            return self.compare(t.op, var, *self.cell(t.value, number), named=True)
        if t.kind == "range":
            (low, plain_low), (high, plain_high) = self.cell(t.value, number), self.cell(t.high, number)
            return (f"({self.compare('<=', low, var, plain_low, named=True)} and "
                    f"{self.compare('<=', var, high, plain_high, named=True)})")
        return f"_eq({var}, {self.expr(t.value)})"

    def cell(self, node, number: bool) -> tuple[str, bool]:
        """A cell's value, and whether its comparison with a numeric input may be Python's own
        (never, on the plain path)."""
        if self.plan.in_place:
            return self.cell_in_place(node, number)
        return self.expr(node), False

    def numbers(self, ins) -> list:
        """A decision table's inputs, each with whether it is surely a number (never, on the plain path)."""
        if self.plan.in_place:
            return self.numbers_in_place(ins)
        return [(t, False) for t, _node in ins]

    def whole_rows(self, d: n.Decide, ins, out, depth) -> int:
        """Rows compiled for whole numbers first, where the plan has them in place: the depth of the
        rows for any value."""
        return self.whole_rows_in_place(d, ins, out, depth) if self.plan.in_place else depth

    def append(self, s: n.Append, depth):
        if self.plan.in_place:
            return self.append_in_place(s, depth)
        self.emit(depth, f"S.append({self.expr(s.target)}, {self.expr(s.value)}, _KEPT)", s.span)

    def walk_list(self, s: n.For, items: str, depth) -> str:
        """The name of the list a for walks: its length paid from the step budget before it starts,
        and a stored list copied (the body may change it while we walk it)."""
        if self.plan.in_place:
            return self.walk_list_in_place(s, items, depth)
        t = self.tmp()
        self.emit(depth, f"{t} = H.counted(_E, {items})", s.span)
        if s.key is None and s.where is None and isinstance(s.iter, (n.Name, n.Attr, n.Index)):
            self.emit(depth, f"{t} = {t}[:]", s.span)
        return t


def shape(x):
    """A node as its kind and fields, its spans left out: two nodes of one shape are the same text."""
    if isinstance(x, (tuple, list)):
        return tuple(map(shape, x))
    if isinstance(x, n.Node):
        return (type(x).__name__,) + tuple(shape(getattr(x, f.name)) for f in fields(x) if f.name != "span")
    return x
