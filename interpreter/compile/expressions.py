"""Expressions to Python source text (a part of the one emitter, compiler.Compiler).

On the plain path (the empty plan) every operator and builtin compiles to a call of
semantics.py (or of the running encounter, for the builtins that ask it). Where the
optimizer's plan (optimizer.py) says so, the emitter takes the in-place forms of
inplace.py instead, keeps a run-invariant rule's list, asks a question once per decision
or compiles a small rule in place: each method here asks the plan, never the code's text.
"""
from __future__ import annotations

from fractions import Fraction

from ...dsl.syntax import nodes as n
from ...dsl.check.names import bind_args, emit_args, given_roll, walk

from ..run import semantics as S
from .code import Code, const_facts, folded, name
from ..run.dice import Dice
from ..run.values import Scale, make_struct, mangle


class ExpressionCompiler:
    # ------------------------------------------------------------ names, as the resolver bound them
    def bound(self, node):
        """What a name node (or a call) means, as the resolver wrote it down (dsl/check/bindings.py):
        the compiler never looks a name up. A local's target is its slot, the Python name of its
        binding (a number, never the DSL spelling)."""
        return self.bindings.of(node)

    def slot(self, node, part=None) -> str:
        """The Python name of the local a binding place gives (dsl/check/bindings.py: `slot`)."""
        return self.bindings.slot(node, part)

    def params(self, params) -> str:
        """A function's parameters after _E, each by its slot."""
        return "".join(", " + self.slot(p) for p in params)

    def call_args(self, params, args, span, what) -> list[str]:
        return [self.expr(node) for node in bind_args(params, args, span, what)]

    def expr(self, x) -> Code:
        """The code of an expression, with the facts its node shows (code.py)."""
        code = getattr(self, "x_" + type(x).__name__)(x)
        return code if isinstance(code, Code) else Code(code, **self.code_facts(x))

    def code_facts(self, x) -> dict:
        """What the node shows of its code: a written value, a name, a read of names and fields."""
        if isinstance(x, n.Const):
            return const_facts(x.value)
        if isinstance(x, n.DiceLit):
            return {"name": True}                       # a constant of the program
        if isinstance(x, n.Name):
            r = self.bound(x)
            given = self.alias.get(r.target) if r is not None and r.kind == "local" else None
            if given is None and r is not None and r.kind == "local" and self.plan.combatants.holds(x, self.bound):
                return {"name": True, "combatant": True}     # a local that only holds a combatant (combatants.py)
            return given.facts() if isinstance(given, Code) else self.NAME_FACTS.get(r and r.kind, {"name": True})
        if isinstance(x, n.Attr):
            obj = self.fact_of(x.obj)
            # a condition's grade is a constant of the program (x_Attr)
            graded = isinstance(x.obj, n.Name) and obj.name and self.grade_of(x.obj)
            return {"name": True} if graded else {"pure": obj.pure}
        return {"literal": folded(x, self.fact_of)}

    def grade_of(self, x: n.Name) -> bool:
        """Whether the name is a condition with grades (its attribute is one of them)."""
        r = self.bound(x)
        return r is not None and r.kind == "condition" and bool(self.conditions[x.id].grades)

    def fact_of(self, x) -> Code:
        """The facts of a node's code, without its text."""
        return Code("", **self.code_facts(x))

    # What a name's code is, by what it names (NAME_CODE): a local is its binding or the name of
    # the argument it is tested for (compiler.req_expr), every constant a name of the program.
    NAME_FACTS = {"combatant": {"steady": True, "combatant": True}, "var": {"pure": True}}

    def x_Const(self, x):
        v = x.value
        if isinstance(v, Fraction):
            return self.k(Scale(v), "scale")
        return repr(v)

    def x_DiceLit(self, x):
        return self.k(Dice.of(x.count, x.sides), "dice")      # the builder refused more than a few dice

    def x_Name(self, x):
        r = self.bound(x)          # the checker reported every name it could not bind
        return self.NAME_CODE[r.kind](self, x, r)      # rules and builtins as values: the checker's E0204

    # What a bare name compiles to, by what it names.
    NAME_CODE = {
        # A local: its binding, or the argument compiled in place for a parameter (a requirement
        # tested for given arguments: compiler.req_expr).
        "local": lambda self, x, r: self.alias.get(r.target, r.target),
        "grade": lambda self, x, r: self.k(self.conditions[r.target[0].name].by_name[r.target[1]], "grade"),
        "combatant": lambda self, x, r: f"_E.cb[{r.target}]",
        "table": lambda self, x, r: self.k(self.tables[x.id], "table"),
        "condition": lambda self, x, r: self.k(self.conditions[x.id], "cond"),
        "var": lambda self, x, r: f"_E.v.{mangle(x.id)}",
        "outcome": lambda self, x, r: self.k(self.outcome_values[x.id], "out"),
    }

    def x_OptionRef(self, x):
        return Code(f"_E.opt[{x.name!r}]", pure=True)        # (no rule changes an option during a run)

    def x_Attr(self, x):
        if isinstance(x.obj, n.Name):
            r = self.bound(x.obj)
            if r is not None and r.kind == "condition" and not self.conditions[x.obj.id].grades:
                return f"{self.k(self.conditions[x.obj.id], 'cond')}.{mangle(x.name)}"     # a state's data
            if r is not None and r.kind == "condition":
                return self.k(self.conditions[x.obj.id].by_name[x.name], "grade")
        obj = self.expr(x.obj)
        code = f"({obj}).{mangle(x.name)}"
        if self.asked is not None and self.widened:
            # a field of a value a question may be asked of (answer_key): one too
            key = self.answer_key(obj)
            if key is not None:
                self.answers[code] = f"({key}).{mangle(x.name)}"
        return code

    def x_Index(self, x):
        if self.plan.in_place:
            return self.index_in_place(x)
        return f"H.index({self.expr(x.obj)}, {self.expr(x.key)})"

    def x_Call(self, x):
        name = x.func.id                    # the checker refused calls of anything but rules and builtins
        r = self.bound(x)
        if r.kind == "rule":
            args = self.call_args(r.target.params, x.args, x.span, f'rule "{name}"')
            return self.rule_call(x, name, r.target, args)
        args = [self.expr(a.value) for a in x.args]
        builtins = self.IN_PLACE_BUILTINS if self.plan.in_place else self.BUILTIN_CODE
        return builtins.get(name, ExpressionCompiler.b_function)(self, name, x, args)

    # The questions asked once in the tactic decision being compiled (code -> key of `_a`), or None.
    asked = None
    # The code of the values a question asked once is asked of (the actor `_c`; in a lazy
    # reaction choice the reactor `_who` and the event `_ev`).
    fixed = ("_c",)

    def rule_call(self, x, name, rule, args) -> str:
        """A call of a rule: as the plan has it, its list kept by the run (invariant.py), asked
        once per tactic decision (compiler.asking_once), compiled in place (inplace.inlined),
        or a plain call."""
        kinds = self.plan.memo.get(name)
        walked = x is self.walking              # only walked: the kept list itself, not a copy
        if kinds == "s":                        # the same list all run, by a side: see invariant.py
            if walked and args[0] == "_c":      # the actor (a combatant): its list looked up first
                rule_id = self.gid('rule', name)
                return f"(_E.walks.get(({rule_id}, _c)) or _E.walk_side({rule_id}, _c))"
            return f"_E.{'side_walked' if walked else 'memo_side'}({self.gid('rule', name)}, {args[0]})"
        if kinds is not None:                   # the same list all run: see invariant.py
            return (f"_E.{'memo_walked' if walked else 'memo'}({self.gid('rule', name)}, {kinds!r}"
                    f"{''.join(', ' + a for a in args)})")
        inlined = self.inlined(rule, args) if self.plan.in_place and (self.asked is None or args != ["_c"]) else None
        if inlined is not None:
            return inlined
        call = f"{self.gid('rule', name)}(_E{''.join(', ' + a for a in args)})"
        asked = self.asked_question(name, args)
        if asked is None:
            return call
        # its body asks questions of its own parameters: asked in the decision's own `_a`
        within = self.within(rule, asked, [self.answer_key(a) for a in args])
        if within is not None:
            call = f"{within}(_E, _a{''.join(', ' + a for a in args)})"
        if any(a not in self.fixed and a not in self.chosen for a in args):
            # of an answer kept or a field (answer_key): kept where the decision asks it again
            if self.repeated is None:
                self.counted[asked] = self.counted.get(asked, 0) + 1
            elif asked not in self.repeated:
                return call
        self.kept += 1
        self.question = (x, asked)
        if asked in self.sure:                  # surely answered before: its answer named
            self.answers[self.sure[asked]] = asked
            return self.sure[asked]
        # asked here first (hoisting.emit_preference: nothing before it in the decision asks it,
        # and it is in no walk): no answer kept yet to look for
        fresh = x is self.fresh and asked not in self.asked
        key = self.asked.setdefault(asked, len(self.asked))   # asked once per decision
        memo = f"_a.setdefault({key}, {call})" if fresh else f"(_a[{key}] if {key} in _a else _a.setdefault({key}, {call}))"
        if x is self.bind:                      # surely asked here, asked again later: named
            self.bound_now = (asked, f"_q{key}")
            memo = f"(_q{key} := {memo})"
        self.answers[memo] = asked              # its answer, an argument of a further question
        return memo

    # In a tactic's decision (hoisting.emit_preferences): the questions surely answered where the
    # code being compiled runs -> the local naming the answer; the call to name, and what it named.
    sure: dict = {}
    bind = None
    bound_now = None
    fresh = None            # the call asked for the first time in the decision, where it is compiled
    question = None         # the last call asked once: (node, the question as `_a` knows it)

    # In a decision that asks each question once: a preference's parameter (`_v1`) -> the code of
    # the value of the actor alone it stands for (hoisting._asked_value).
    chosen: dict = {}

    def asked_question(self, name, args) -> str | None:
        """The question a rule call asks, as the decision's dict `_a` knows it, where it is asked
        once per decision (compiler.asking_once): of the actor alone, or of the actor and values
        chosen from the actor alone (each named by the code that worked it out), or, in a lazy
        reaction choice (compiler._tactic_react), of the reactor and the event; else None."""
        if self.asked is None or not args:
            return None
        keys = [self.answer_key(a) for a in args]
        if None in keys:
            return None
        return f"{self.gid('rule', name)}(_E{''.join(', ' + k for k in keys)})"

    # In a decision that asks each question once: the code of an answer kept in `_a` (or of the
    # local naming it) -> the question it answers, as `_a` knows it (rule_call).
    answers: dict = {}

    def answer_key(self, code: str) -> str | None:
        """What an argument stands for in a question asked once per decision, or None: a value the
        decision fixes (`self.fixed`), a value chosen from those (`self.chosen`), a question's
        answer kept in the same decision (`self.answers`: its own question), or a field of one
        of these (x_Attr notes it; the decision changes nothing, so it reads the same each time).
        Keyed by the questions and fields, never by a temporary's name."""
        if code in self.fixed:
            return code
        if code in self.chosen:
            return self.chosen[code]
        if code in self.carried:
            return self.carried[code]
        if not self.widened:
            return None
        if code in self.answers:
            return self.answers[code]
        return None

    # The fields of the values above, and the answers, are asked of too (see answer_key).
    widened = True
    # In a decision's first emission (compiler.asking): how many times its code asks each
    # question of an answer or a field; in the second, those it asks more than once.
    counted: dict = {}
    repeated = None
    # In the body of a rule asked in a decision (compiler.within): its parameters' slots -> the
    # questions or values its arguments stand for there; how many answers were kept so far.
    carried: dict = {}
    kept = 0

    # ------------------------------------------------------------ builtins, by name
    def b_function(self, name, x, args):
        """A builtin whose meaning is a function of its values (semantics.BUILTIN_FUNCTIONS)."""
        return f"b_{name}({', '.join(args)})"

    def b_engine(self, name, x, args):
        """A builtin that asks the running encounter (semantics.ENGINE_BUILTINS)."""
        return f"_E.{name}({', '.join(args)})"

    # The builtins that ask the running encounter; every other is a function of its values.
    BUILTIN_CODE = dict.fromkeys(S.ENGINE_BUILTINS, b_engine)

    def is_leaf(self, rule: n.Rule) -> bool:
        """A rule that calls no rule: compiling it in place costs its own size, never more."""
        leaf = self.leaves.get(rule.name)
        if leaf is None:
            leaf = self.leaves[rule.name] = not self.called(rule)
        return leaf

    def called(self, rule: n.Rule) -> list[n.Rule]:
        """The rules `rule` calls, as written in its body."""
        rules = self.ruleset.space("rule")
        return [rules[node.func.id] for node in walk(rule.body) if isinstance(node, n.Call)
                and isinstance(node.func, n.Name) and isinstance(rules.get(node.func.id), n.Rule)]

    def calls_only_leaves(self, rule: n.Rule) -> bool:
        """A rule whose calls all go to leaf rules: a call of it costs at most its size times the
        largest leaf's (their loops and walks count where they run), so it is no step of its own."""
        return all(self.is_leaf(r) for r in self.called(rule))

    # Calls a rule may make, all the way down, and still be counted by its caller (docs/errors.md, E0502).
    FEW_CALLS = 16

    def counted_by_caller(self, rule: n.Rule) -> bool:
        """A rule that is no step of its own: it calls only leaf rules, or its calls, all the way
        down, are at most FEW_CALLS and never come back to it. Each call of it then costs at most
        a bounded multiple of its caller's step (loops and walks count where they run)."""
        return self.calls_only_leaves(rule) or self.calls_below(rule) is not None

    def calls_below(self, rule: n.Rule, path: tuple = ()) -> int | None:
        """How many rule calls a call of `rule` makes, all the way down (each call site once: a loop
        pays for its turns); None past FEW_CALLS or where the calls come back (a rule reaching one on
        its own path is on a cycle, so None is its own answer too, and is kept)."""
        if rule.name in self.weights:
            return self.weights[rule.name]
        total = 0
        for callee in self.called(rule):
            below = None if callee.name in path or callee.name == rule.name else \
                self.calls_below(callee, path + (rule.name,))
            total = None if below is None else total + 1 + below
            if total is None or total > self.FEW_CALLS:
                total = None
                break
        self.weights[rule.name] = total
        return total

    def x_Unary(self, x):
        if self.plan.in_place:
            return self.unary_in_place(x)
        operand = self.expr(x.operand)
        return f"(not {operand})" if x.op == "not" else f"S.neg({operand})"

    OPS = {"and": "and", "or": "or"}

    def x_Binary(self, x):
        if self.plan.in_place:
            return self.binary_in_place(x)
        a, b = self.expr(x.left), self.expr(x.right)
        if x.op in S.BINARY:
            return f"S.{S.BINARY[x.op].__name__}({a}, {b})"
        if x.op == "notin":
            return f"(not S.contains({a}, {b}))"
        if x.op in S.COMPARISON:
            return self.compare(x.op, a, b)
        return f"({a} {self.OPS[x.op]} {b})"

    def compare(self, op, a, b, plain=False, named=False) -> str:
        """A comparison, as the semantics mean it (`plain`, `named`: inplace.compare_in_place)."""
        if self.plan.in_place:
            return self.compare_in_place(op, a, b, plain, named)
        return f"S.{S.COMPARISON[op].__name__}({a}, {b})"

    # The node whose list is only walked, then dropped (see walked).
    walking = None

    def walked(self, node, compile):
        """`compile()`, the code of `node`, for a list that is only walked, then dropped: nobody
        can keep it or change it while it is walked, so where the plan keeps lists in place, a
        list the run already holds (the combatants, a run-invariant rule's list) is walked as it
        is instead of a copy. Only `node` itself is compiled so (x_Call, b_combatants), never a
        call inside it."""
        saved, self.walking = self.walking, node
        try:
            return compile()
        finally:
            self.walking = saved

    # The lists (nodes, by id) that the statement being compiled has paid for before it runs: the code
    # that walks each.
    prepaid: dict = {}

    # Inside a comprehension's iterable, where Python refuses `:=`: how deep (0: naming allowed).
    unnamed = 0

    def unnamed_expr(self, node) -> str:
        """An expression for a comprehension's iterable: computed sides are never named there."""
        self.unnamed += 1
        try:
            return self.expr(node)
        finally:
            self.unnamed -= 1

    def tmp(self) -> Code:
        """A fresh Python name: for a value named once, or a variable a comprehension binds."""
        self._tmp += 1
        return name(f"_t{self._tmp}")

    def x_IfExp(self, x):
        return f"({self.expr(x.then)} if {self.expr(x.cond)} else {self.expr(x.other)})"

    def x_ListExp(self, x):
        return "[" + ", ".join(self.expr(i) for i in x.items) + "]"

    def x_Comprehension(self, x):
        # The comprehension's variables are bindings of their own: neither an argument compiled in
        # place for a parameter (a requirement tested in place) nor a name of the caller can meet them.
        # Each clause's list is paid for from the step budget every time it is walked, as a loop's is.
        clauses = []
        for i, (_var, items, cond) in enumerate(x.clauses()):
            walked = self.prepaid.get(id(items))         # its statement paid for it (StatementCompiler.paying)
            if walked is None:
                walked = f"{self.counter(items)}(_E, {self.walked(items, lambda: self.unnamed_expr(items))})"
            test = f" if {self.expr(cond)}" if cond is not None else ""
            clauses.append(f"for {self.slot(x, i)} in {walked}{test}")
        return f"[{self.expr(x.elt)} {' '.join(clauses)}]"

    def surely_list(self, node) -> bool:
        """The node is a list by its very syntax, a call of a builtin whose answer is always a
        list (S.LIST_BUILTINS: `combatants()`, `distinct(...)`), or one the optimizer proved a list."""
        return isinstance(node, (n.ListExp, n.Comprehension)) or (
            isinstance(node, n.Call) and node.func.id in S.LIST_BUILTINS and self.bound(node).kind != "rule") \
            or self.plan.whole.listed(node, self.bound)     # a field, local or rule's result (wholes.py)

    def counter(self, items) -> str:
        """The helper that pays for walking `items`: H.counted asks that it is a list (else refuses);
        where the optimizer's plan holds and the list is sure, H.paid only pays."""
        return "H.paid" if self.plan.in_place and self.surely_list(items) else "H.counted"

    def x_Search(self, x):
        # A generator over the list, paid item by item (H.searched): `any` and `all` stop as soon as they
        # know, `first` at the first item whose condition holds.
        items = f"H.searched(_E, {self.walked(x.iter, lambda: self.unnamed_expr(x.iter))})"
        var, cond = self.slot(x), self.expr(x.cond)
        if x.kind != "first":
            return f"H.search_{x.kind}({cond} for {var} in {items})"
        found = f"H.search_first(({var} for {var} in {items} if {cond}), "
        if x.default is None or isinstance(x.default, n.Const):
            return found + ("None" if x.default is None else self.expr(x.default)) + ")"
        otherwise = self.unnamed_expr(x.default)           # a lambda's body: worked out only if needed
        return f"H.found({found}H.MISSING), lambda: {otherwise})"

    def x_RecordExp(self, x):
        return f"{self.record_class(x)}._new({', '.join(self.expr(v) for _, v in x.fields)})"

    def record_class(self, x) -> str:
        """The constant naming the class of a record `{a: .., b: ..}` (one class for each set of names)."""
        names = tuple(f for f, _ in x.fields)
        cls = self.structs.get(names)
        if cls is None:
            cls = self.structs[names] = make_struct("record", names)
        return self.k(cls, 'rec')

    def x_Roll(self, x):
        if x.purpose:
            self.purposes.add(x.purpose)
        by = self.expr(x.by) if x.by is not None else "None"
        # The fast path names who rolls twice: only for a name or a field, never a call.
        plain_by = x.by is None or all(isinstance(v, (n.Name, n.Attr)) for v in walk(x.by))
        return self.roll_code(self.expr(x.dice), x.dice, by, repr(x.purpose), plain_by)

    def roll_code(self, dice: str, node, by: str, purpose: str, plain_by: bool = True) -> str:
        fast = self.lone_die(node, by, purpose) if plain_by else None
        if fast is not None:
            # A lone literal die: roll it in place when nothing is pinned or shown.
            return f"({fast} if _E.plain else _E.roll({dice}, {by}, {purpose}))"
        return f"_E.roll({dice}, {by}, {purpose})"

    def lone_die(self, node, by: str, purpose: str) -> str | None:
        """A lone literal die rolled in place, where the plan has it and nothing is pinned or shown
        (`_E.plain`): a whole number; else None."""
        if self.plan.in_place and isinstance(node, n.DiceLit) and node.count == 1:
            return f"_E.streams[{by}, {purpose}]() % {node.sides} + 1"
        return None

    def x_CheckCall(self, x):
        d = self.ruleset.space("check")[x.name]
        if x.purpose:
            self.purposes.add(x.purpose)
        plain, given = given_roll(d, x.args)
        args = self.call_args(d.params, plain, x.span, f'check "{x.name}"')
        by = self.expr(x.by) if x.by is not None else "None"
        purpose = x.purpose or x.name
        name, roll = self.gid('check', x.name), ""
        if given is not None:                   # the roll named: the check's function that reads it
            name, roll = f"{name}_given", f", {self.expr(given)}"
        return f"{name}(_E, {by}, {purpose!r}{''.join(', ' + a for a in args)}{roll})"

    def x_Emit(self, x):
        d = self.ruleset.space("event")[x.event]
        # A field left out takes its default, read where the event is declared (its names bound there).
        values = [self.expr(v) for v in emit_args(d, x.args, x.span)]
        cls = self.k(self.event_types[x.event], "event")
        if x.event in self.reacted:
            return f"{self.gid('event', x.event)}(_E, {', '.join(values)})"     # the event makes its record
        return f"{cls}._new({', '.join(values)})"

    def x_Maximum(self, x):
        return f"S.maximum({self.expr(x.dice)})"
