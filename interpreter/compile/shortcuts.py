"""The optimizing step: speed shortcuts over the plain compiler (expressions.py, statements.py).

The plain compiler calls semantics.py for every operator and builtin. `Shortcuts`
overrides some of its methods to emit faster code that gives the same answer: an
operator in place under a guard of its operands' types (semantics.same_in_place),
bounded as the semantics bound it; Python's own operator where the text shows both
sides are whole numbers; a decision table's rows compiled twice, once for whole
numbers; a catalogue's row, a field or a list's item read in place; a lone die rolled
in place; a run-invariant rule's list kept by the run (invariant.py); a list the run
holds walked without a copy; a tactic's pure conditions tested once (hoisting.py).
Where a shortcut does not apply it falls back to the plain method.
tests/test_plain_and_optimized.py compares both paths (docs/performance.md).
"""
from __future__ import annotations

import operator
from contextlib import contextmanager

from ...dsl.check import kinds as K
from ...dsl.diagnostics import InlinedSpan
from ...dsl.syntax import nodes as n
from ...dsl.check.names import Resolved, walk

from ..run import semantics as S
from .code import Code, const_facts, folded, is_, is_whole, marked, name, same_in_place, type_of, unmarked
from .expressions import ExpressionCompiler
from .invariant import memo_kinds

_add, _mul = operator.add, operator.mul

# What a local known to hold a whole number resolves to for K.kind.
WHOLE_LOCAL = Resolved("number")


class Shortcuts:
    """A mixin placed before the plain compiler: each method here overrides a plain one."""

    def x_Index(self, x):
        if isinstance(x.obj, n.Name):
            r = self.bound(x.obj)
            if r is not None and r.kind == "table":
                table, key = self.tables[x.obj.id], self.expr(x.key)
                ref = self.k(table, "table")
                if table.dice is None and not self.unnamed:
                    # A catalogue's row by its key, in place; a key it lacks, by lookup (which refuses it).
                    row, k = self.tmp(), self.tmp()
                    # (True equals 1 as a Python key: a truth goes through lookup, which keeps them apart.)
                    return (f"({row} if {type_of(f'{k} := {key}')} is not bool and ({row} := {ref}.index.get({k})) "
                            f"is not None else {ref}.lookup({k}))")
                return f"{ref}.lookup({key})"
        obj, key = self.expr(x.obj), self.expr(x.key)
        # (Both pure: read after the key, the object is the one H.index would be given first.)
        # (A written value, even one a rule compiled in place returns, indexed in place would make
        # Python warn "not subscriptable": H.index says it.)
        if self.pure(obj) and self.pure(key) and not self.unnamed and not is_(obj, 'literal'):
            # A field named by a value (c[row.column]), read in place when the value names
            # a field of these rules and the object has fields; H.index does the same, slower.
            # So is a list's item by a whole position from 1 that it has (generic.item otherwise).
            k, f = self.tmp(), self.tmp()
            return (f"(getattr({obj}, {f}) if {type_of(f'{k} := {key}')} is str and ({f} := _F.get({k})) is not None"
                    f" and isinstance({obj}, H.FIELDED) else {obj}[{k} - 1] if {type_of(k)} is int and {type_of(obj)} is list"
                    f" and 0 < {k} <= len({obj}) else H.index({obj}, {k}))")
        return f"H.index({obj}, {key})"

    def rule_call(self, x, name, rule, args) -> str:
        """A rule whose list is the same all run (invariant.py): kept by the run, worked out once."""
        kinds = memo_kinds(rule, self.bound)
        walked = x is self.walking              # only walked: the kept list itself, not a copy
        if kinds == "s":                        # the same list all run, by a side: see invariant.py
            return f"_E.{'side_walked' if walked else 'memo_side'}({self.gid('rule', name)}, {args[0]})"
        if kinds is not None:                   # the same list all run: see invariant.py
            return (f"_E.{'memo_walked' if walked else 'memo'}({self.gid('rule', name)}, {kinds!r}"
                    f"{''.join(', ' + a for a in args)})")
        asked = getattr(self, "asked", None)
        if asked is None or args != ["_c"]:
            inlined = self.inlined(rule, args)
            return inlined if inlined is not None else super().rule_call(x, name, rule, args)
        code = super().rule_call(x, name, rule, args)
        key = asked.setdefault(code, len(asked))   # a question of the actor alone, asked once per decision
        return f"(_a[{key}] if {key} in _a else _a.setdefault({key}, {code}))"

    # The most nodes a rule's returned expression may have to be compiled in place of its calls
    # (the largest the bundled rules call often has 25).
    INLINE_NODES = 32

    # The rules being compiled in place, innermost last (a rule never goes in place inside itself).
    inlining: tuple = ()

    def inlined(self, rule: n.Rule, args) -> Code | None:
        """A call of a small rule that only returns a pure expression, compiled in place for
        arguments that are pure code (each read where the rule reads its parameter: the same
        value, as nothing in between changes anything); None where the call stays a call. The
        rule must be no step of its own (counted_by_caller), so the step count is the same."""
        body = rule.body
        if not (len(body) == 1 and isinstance(body[0], n.Return) and body[0].value is not None):
            return None
        if rule.name in self.inlining or not all(is_(a, "pure") for a in args):
            return None
        value = body[0].value
        if sum(1 for _ in walk(value)) > self.INLINE_NODES or not self.purity.rule(rule) \
                or not self.counted_by_caller(rule):
            return None
        saved, self.inlining = self.inlining, self.inlining + (rule.name,)
        try:
            return Code(marked(rule.name, f"({self.in_place(value, rule.params, args)})"))
        finally:
            self.inlining = saved

    def emit(self, depth: int, text: str, span=None):
        """A line, without the marks of the rules compiled in place in it (code.marked): its span
        tells where each stands, so a failure inside one is told at the rule's own line."""
        if "\x01" in text:
            text, inner = unmarked("    " * depth + text)
            depth, rules = 0, self.ruleset.space("rule")
            if span is not None:
                span = InlinedSpan.of(span, [(start, end, rules[name].body[0].span) for start, end, name in inner])
        super().emit(depth, text, span)

    @staticmethod
    def _listed(x) -> bool:
        """The first argument is a list by its very syntax."""
        return isinstance(x.args[0].value, (n.ListExp, n.Comprehension))

    def b_len(self, name, x, args):
        if self._listed(x):
            return f"len({args[0]})"
        read, first = self.reread(args[0])
        if read is None:
            return self.b_function(name, x, args)
        # Python's own len on a list (what H.len_ does with it), else the builtin's refusal.
        return f"(len({read}) if {type_of(first)} is list else b_len({read}))"

    def b_first(self, name, x, args):
        read, first = self.reread(args[0])
        if read is None or is_(args[0], 'literal'):       # (-3)[0]: Python warns, even where it never runs
            return self.b_function(name, x, args)
        # S.first, in place on a list; anything else, its refusal.
        return f"(({read}[0] if {read} else None) if {type_of(first)} is list else b_first({read}))"

    def reread(self, code) -> tuple[str | None, str | None]:
        """Code to test, then use: how to read it again, and how to read it first (naming it
        then, where Python allows `:=`); (None, None) where it cannot be read twice."""
        if self.pure(code):
            return code, code
        if self.unnamed:
            return None, None
        return self.once(code)

    def b_extreme(self, name, x, args):
        """min and max of two or more values: Python's own on whole numbers (the semantics' answer,
        tests/test_semantics.py), each computed value named once as the guard asks its type;
        else the function (which also turns a roll into a plain number)."""
        if len(args) < 2:
            return self.b_function(name, x, args)
        sides = self.whole_sides_of(args)
        if sides is None:
            return self.b_function(name, x, args)
        reads, guard = sides
        return self.if_whole(f"{name}({', '.join(reads)})", guard, self.b_function(name, x, reads))

    def b_rounded(self, name, x, args):
        """floor and ceil: of a quotient without building the fraction, of a product by a scale in
        whole numbers, else the function."""
        a = x.args[0].value
        if isinstance(a, n.Binary) and a.op == "/":
            fn, whole = S.ROUNDED_DIVISION[name]
            left, right = self.expr(a.left), self.expr(a.right)
            call = f"S.{fn.__name__}({left}, {right})"
            if self.pure(left) and self.pure(right):
                guard = self.nonzero(right, self.whole_guard(left, right))
                return self.if_whole(whole.format(a=left, b=right), guard, call)
            return call
        if name == "floor" and isinstance(a, n.Binary) and a.op == "*":
            return f"S.floor_mul({self.expr(a.left)}, {self.expr(a.right)})"
        return self.b_function(name, x, args)

    def b_has(self, name, x, args):
        cond = x.args[1].value
        if len(args) == 2 and isinstance(cond, n.Name):
            r = self.bound(cond)
            if r is not None and r.kind == "condition":
                # The condition is known here: test the combatant's cards directly.
                return f"({cond.id!r} in {args[0]}.cards)"
        return self.b_engine(name, x, args)

    def b_act(self, name, x, args):
        if is_(args[0], 'steady'):
            # Unscripted, a combatant's tactic chooses directly.
            return f"(_E.act({args[0]}) if _E.script else {args[0]}.acts(_E, {args[0]}))"
        return self.b_engine(name, x, args)

    def b_combatants(self, name, x, args):
        return "_E.cb" if x is self.walking else "list(_E.cb)"

    BUILTIN_CODE = {**ExpressionCompiler.BUILTIN_CODE,
                    "len": b_len, "first": b_first, "min": b_extreme, "max": b_extreme,
                    "floor": b_rounded, "ceil": b_rounded, "has": b_has, "act": b_act, "combatants": b_combatants}

    def x_Unary(self, x):
        if x.op == "not":
            return f"(not {self.expr(x.operand)})"
        operand = self.expr(x.operand)
        if K.kind(x.operand, self.resolving()) == K.NUMBER:
            return f"(-{operand})"
        read, first = self.reread(operand)
        if read is None:
            return f"S.neg({operand})"
        return f"(-{read} if {type_of(first)} is int else S.neg({read}))"      # S.neg of a whole number

    RANK_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}

    def x_Binary(self, x):
        resolve = self.resolving()
        a, b = self.expr(x.left), self.expr(x.right)
        if x.op in S.BINARY:
            return self.operator(x, a, b, resolve)
        if x.op == "notin":
            return f"(not S.contains({a}, {b}))"
        if x.op in ("<", "<=", ">", ">="):
            known = self._const_ranked(x.right)
            if known is not None:
                # Against a named outcome: compare ranks when the other side is an outcome of the
                # same list; anything else, as the semantics compare it (or refuse it).
                call = f"S.{S.COMPARISON[x.op].__name__}"
                if not self.unnamed:
                    # Each outcome of the list is answered by a dict made here.
                    v, other = self.tmp(), self.tmp()
                    answers = self.k({o: self.RANK_ORDER[x.op](o.rank, known.rank) for o in self.outcome_values.values()
                                      if o.kind == known.kind}, "ranks")
                    # (only an outcome asks the dict: a list or a map is no key of it)
                    return (f"({v} if ({other} := {a}).__class__ is H.Ranked and ({v} := {answers}.get({other})) "
                            f"is not None else {call}({other}, {b}))")
                if self.pure(a):
                    return (f"({a}.rank {x.op} {known.rank} if {type_of(a)} is H.Ranked and {a}.kind == {known.kind!r} "
                            f"else {call}({a}, {b}))")
                return f"{call}({a}, {b})"
        if x.op in ("==", "!=") and any(self.is_none(side) for side in (x.left, x.right)):
            other = b if self.is_none(x.left) else a
            read, first = self.reread(other)
            if read is None or is_(other, 'literal'):       # `3 is None`: Python warns, even unrun
                test = f"S.is_none({other})"
            else:
                test = f"({first} is None or {read} == [])"
            return f"({'' if x.op == '==' else 'not '}{test})"
        if x.op in S.COMPARISON:
            numbers = K.kind(x.left, resolve) == K.kind(x.right, resolve) == K.NUMBER
            # A written text or a named outcome equals only itself, as the semantics say too.
            text = x.op in ("==", "!=") and any(isinstance(v, n.Const) and type(v.value) is str
                                                or self._const_ranked(v) is not None for v in (x.left, x.right))
            return self.compare(x.op, a, b, plain=numbers or text, named=not self.unnamed)
        return f"({a} {self.OPS[x.op]} {b})"

    def compare(self, op, a, b, plain=False, named=False) -> str:
        """A comparison as the semantics mean it: Python's own operator when both sides are surely
        numbers or one is a written text (`plain`), or under the guard that makes them agree
        (semantics.same_in_place) when both sides can be read twice; else the function. `named`:
        the code stands where Python allows `:=` (not in a comprehension's iterable), so one
        computed side can be named once in the guard and read again after it."""
        if plain:
            return f"({a} {op} {b})"
        call = f"S.{S.COMPARISON[op].__name__}"
        if named and not (self.pure(a) and self.pure(b)):
            # A computed side: each side but a written whole number named once, in order, as the
            # guard asks its type (a field read first keeps the value the call would have read,
            # though the computed side after it changes it).
            sides = [(side, side) if is_whole(side) else self.once(side) for side in (a, b)]
            (a, first_a), (b, first_b) = sides
            guard = self.same_kind(op, first_a, first_b)
            return f"({a} {op} {b} if {guard} else {call}({a}, {b}))"
        if self.pure(a) and self.pure(b):
            guard = same_in_place(op, a, b)        # against a written whole number: the other side only
            if op == "==" and not any(is_(side, 'literal') for side in (a, b)):
                # The same value is equal to itself, whatever it is (`is` only between names: Python
                # refuses it against a written value).
                return f"({a} is {b} or ({a} == {b} if {guard} else {call}({a}, {b})))"
            return f"({a} {op} {b} if {guard} else {call}({a}, {b}))"
        return f"{call}({a}, {b})"

    @staticmethod
    def is_none(node) -> bool:
        """A written `none`."""
        return isinstance(node, n.Const) and node.value is None

    def same_kind(self, op, a: str, b: str) -> str:
        """The guard under which Python's `op` means what the semantics mean (code.same_in_place), each
        side worked out once and both always (`&` where the `is` chain could stop early)."""
        if op in ("==", "!="):
            return same_in_place(op, a, b)
        asked = [side for side in (a, b) if not is_whole(side)]
        return " & ".join(f"({type_of(side)} is int)" for side in asked)

    def once(self, code) -> tuple[str, str]:
        """Computed code to read twice: how to read it, and how to read it first (naming it then)."""
        t = self.tmp()
        return t, f"({t} := {code})"

    # Operators whose meaning on two whole numbers is Python's own, bounded (tests/test_semantics.py proves it).
    PLAIN = {"+": "+", "-": "-", "*": "*"}

    # On two whole numbers, + - % in place under a guard of their types (and * : see guarded).
    GUARDED = {"+": "+", "-": "-", "%": "%"}

    # Results that can grow: in place, each is bounded as the semantics bound it (MAX_DIGITS, E0506).
    GROWS = frozenset(("+", "-", "*"))

    def operator(self, x, a, b, resolve) -> str:
        """An arithmetic operator or `in`: in place (bounded) when both sides are surely whole
        numbers, or guarded for whole numbers when both sides can be read twice; else the semantics."""
        if x.op == "in":
            return self.member(a, b)
        fits = x.op in self.GROWS and self.result_size(x, resolve) < S.BIG
        if x.op in self.PLAIN and self.surely_whole(x.left, resolve) and self.surely_whole(x.right, resolve):
            if fits:                               # within the bound, as the text shows
                return f"({a} {x.op} {b})"
            if self.unnamed:                       # no `:=` here: the value is bounded by a call
                return f"S.bounded({a} {x.op} {b})"
            return self.within_bound(x.op, a, b, "", "S.bounded({p})")
        return self.guarded(x.op, a, b, f"S.{S.BINARY[x.op].__name__}({a}, {b})", fits)

    def member(self, a, b) -> str:
        """`a in b` on two pure sides: Python's own `in` where it is the language's equality
        (values.member: for a text, and a value that equals only itself, such as a combatant or an
        outcome) and b is a list; else, and for computed sides, the semantics."""
        call = f"S.contains({a}, {b})"
        if not (self.pure(a) and self.pure(b)) or self.unnamed or is_(a, "literal"):
            return call             # (a written value: never equal only to itself, and `3 is not None` warns)
        cls = self.tmp()
        return (f"({a} in {b} if {type_of(b)} is list and (({cls} := {type_of(a)}) is str or "
                f"{cls}.__eq__ is _OBJ_EQ and {a} is not None) else {call})")

    def guarded(self, op, a, b, call, fits=False) -> str:
        """`fits`: the text shows the result is within the bound (magnitude), so only the
        types are asked."""
        if op not in self.GUARDED and op != "*":
            return call
        if op in self.GROWS and self.unnamed and not fits:     # the result is named as it is bounded
            return call
        sides = self.whole_sides(a, b)
        if sides is None:
            return call
        a, b, guard = sides
        fn = f"S.{S.BINARY[op].__name__}({a}, {b})"
        if op in self.GROWS and not fits:
            # Past the bound, the semantics work it out again and refuse it (E0506).
            return self.within_bound(op, a, b, "" if guard == "True" else guard + " and ", fn)
        if op == "%":
            guard = self.nonzero(b, guard)
        return self.if_whole(f"{a} {op} {b}", guard, fn)

    @staticmethod
    def nonzero(divisor: str, guard: str) -> str:
        """`guard`, and the divisor not zero (the semantics refuse a zero divisor, E0501),
        unless it is a written whole number other than 0."""
        if is_whole(divisor) and divisor.number != 0:
            return guard
        return divisor if guard == "True" else f"{guard} and {divisor}"

    def within_bound(self, op, a, b, guard: str, otherwise: str) -> str:
        """`a op b` on two whole numbers (once `guard` holds), named as it is tested to be within
        the bound (strictly between -S.BIG and S.BIG: its square below _BIG2, as the generated
        code holds them, S.IN_PLACE); `otherwise` (which may read the result as {p}) where either
        test fails. A written
        whole number (never negative) beside the other side, within the bound itself, leaves only
        one way out: up for a sum and for a written number minus anything, down for anything
        minus a written number; then one comparison is enough."""
        p = self.tmp()
        value = f"({p} := {a} {op} {b})"
        written_a, written_b = is_whole(a), is_whole(b)
        if op == "+" and (written_a or written_b) or op == "-" and written_a:
            test = f"{value} < _BIG"
        elif op == "-" and written_b:
            test = f"_NBIG < {value}"
        else:
            test = f"{value} * {p} < _BIG2"           # |p| < BIG: both ends in one comparison
        return f"({p} if {guard}{test} else {otherwise.format(p=p)})"

    def magnitude(self, node, resolve) -> int:
        """How large a number `node` gives can be, as the text shows (an upper bound of its
        absolute value): S.BIG - 1 (any number within the bound) where the text shows nothing
        smaller. Every number is within the bound, so a written one, a remainder (smaller than
        what divides), a rounded quotient by a written number and len() are small, and a sum or
        product of small ones stays within it: no need to test it in place."""
        most = S.BIG - 1
        if isinstance(node, n.Const):
            return abs(node.value) if type(node.value) is int else most
        if isinstance(node, n.Unary):
            return self.magnitude(node.operand, resolve) if node.op == "-" else most
        if isinstance(node, n.Binary) and node.op in self.SIZE:
            return min(most, self.result_size(node, resolve))        # (past the bound, it is refused)
        if isinstance(node, n.Call) and isinstance(node.func, n.Name) and node.args:
            r = resolve(node.func.id, node.func)
            arg = node.args[0].value
            if r is None or r.kind != "builtin":
                return most
            if r.target == "len":
                return S.MAX_LENGTH
            if r.target in ("floor", "ceil") and isinstance(arg, n.Binary) and arg.op == "/" \
                    and isinstance(arg.right, n.Const) and type(arg.right.value) is int and arg.right.value:
                return self.magnitude(arg.left, resolve) // abs(arg.right.value) + 1
        return most

    def result_size(self, node: n.Binary, resolve) -> int:
        """The magnitude of an operator's result from its sides', before the bound is asked of it
        (S.BIG or more where only the bound keeps it within)."""
        return self.SIZE[node.op](self.magnitude(node.left, resolve), self.magnitude(node.right, resolve))

    # The magnitude of a result, from its sides' (a remainder is smaller than what divides).
    SIZE = {"+": _add, "-": _add, "*": _mul, "%": lambda _a, b: b}

    # Builtins that give a whole number from anything they take.
    WHOLE_BUILTINS = frozenset(("len", "floor", "ceil", "round_number"))

    def surely_whole(self, node, resolve) -> bool:
        """A node the text shows gives a whole number (a Python int): a written one, a roll, a
        whole builtin, a local known to hold one, and + - * % of such (no fraction among them)."""
        if isinstance(node, n.Const):
            return type(node.value) is int
        if isinstance(node, (n.Roll, n.Maximum)):
            return True
        if isinstance(node, n.Name):
            return resolve(node.id, node) is WHOLE_LOCAL
        if isinstance(node, n.Unary):
            return node.op == "-" and self.surely_whole(node.operand, resolve)
        if isinstance(node, n.Binary):
            return node.op in ("+", "-", "*", "%") and self.surely_whole(node.left, resolve) \
                and self.surely_whole(node.right, resolve)
        if isinstance(node, n.Call) and isinstance(node.func, n.Name):
            r = resolve(node.func.id, node.func)
            return r is not None and r.kind == "builtin" and r.target in self.WHOLE_BUILTINS
        return False

    @staticmethod
    def if_whole(fast: str, guard: str, slow: str) -> str:
        """`fast` where `guard` holds, else `slow`; `fast` alone where the guard is known true."""
        return f"({fast})" if guard == "True" else f"({fast} if {guard} else {slow})"

    def whole_sides(self, a: str, b: str):
        """Both sides to read again, and the test that both are whole numbers (whole_sides_of)."""
        sides = self.whole_sides_of((a, b))
        return None if sides is None else (*sides[0], sides[1])

    def whole_sides_of(self, sides):
        """The sides (code) to read again, and the test that all are whole numbers: pure sides as
        they are; otherwise each side that is not a written whole number named once, in order,
        as the guard asks its type (a pure side too: a computed one after it could change it),
        where Python allows `:=`. None where it does not."""
        if all(self.pure(side) for side in sides):
            return list(sides), self.whole_guard(*sides)
        if self.unnamed:
            return None
        reads, tests = [], []
        for side in sides:
            if is_whole(side):
                reads.append(side)
                continue
            read, first = self.once(side)
            reads.append(read)
            tests.append(f"{type_of(first)} is int")
        # `&`, not `and`: every side is worked out whatever the first one is.
        guard = tests[0] if len(tests) == 1 else " & ".join(f"({t})" for t in tests)
        return reads, guard

    def whole_guard(self, *sides: str) -> str:
        """The test that the sides are whole numbers (Python ints); a written whole number is
        one already, so only the others are asked (no `type(1)` worked out at run time)."""
        asked = [side for side in sides if not is_whole(side) and side not in self.ints]
        return " is int is ".join(type_of(side) for side in asked) + (" is int" if len(asked) == 1 else "") \
            if asked else "True"

    @staticmethod
    def pure(code) -> bool:
        """Code that reads names and fields only: evaluating it twice is harmless (code.py)."""
        return is_(code, "pure")

    # ------------------------------------------------------------ the facts of each expression's code
    def expr(self, x) -> Code:
        """The code of an expression, with the facts its node shows (code.py)."""
        code = super().expr(x)
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
            return given.facts() if isinstance(given, Code) else self.NAME_FACTS.get(r and r.kind, {"name": True})
        if isinstance(x, n.Attr):
            obj = self.fact_of(x.obj)
            # a condition's grade is a constant of the program (expressions.x_Attr)
            graded = isinstance(x.obj, n.Name) and obj.name and self.grade_of(x.obj)
            return {"name": True} if graded else {"pure": obj.pure}
        return {"literal": folded(x, lambda node: self.fact_of(node))}

    def grade_of(self, x: n.Name) -> bool:
        """Whether the name is a condition with grades (its attribute is one of them)."""
        r = self.bound(x)
        return r is not None and r.kind == "condition" and bool(self.conditions[x.id].grades)

    def fact_of(self, x) -> Code:
        """The facts of a node's code, without its text."""
        return Code("", **self.code_facts(x))

    # What a name's code is, by what it names (expressions.NAME_CODE): a local is its binding or the
    # name of the argument it is tested for (compiler.req_expr), every constant a name of the program.
    NAME_FACTS = {"combatant": {"steady": True}, "var": {"pure": True}}

    def tmp(self) -> Code:
        return name(super().tmp())

    def _const_ranked(self, node):
        """The outcome named here, if the node names one."""
        if isinstance(node, n.Name):
            r = self.bound(node)
            if r is not None and r.kind == "outcome":
                return self.outcome_values[node.id]
        return None

    # The node whose list is only walked, then dropped (see walked).
    walking = None

    def walked(self, node, compile):
        """`compile()`, the code of `node`, for a list that is only walked, then dropped: nobody
        can keep it or change it while it is walked, so a list the run already holds (the
        combatants, a run-invariant rule's list) is walked as it is instead of a copy. Only
        `node` itself is compiled so (x_Call, b_combatants), never a call inside it."""
        saved, self.walking = self.walking, node
        try:
            return compile()
        finally:
            self.walking = saved

    def resolving(self):
        """How K.kind resolves a name here: as the resolver does, and a local this code is known
        to hold a whole number in (see whole_numbers) as a number."""
        ints = self.ints
        if not ints:
            return lambda name, node=None: self.bound_name(name, node)

        def resolve(name, node=None):
            r = self.bound_name(name, node)
            if r is not None and r.kind == "local" and self.alias.get(r.target, r.target) in ints:
                return WHOLE_LOCAL
            return r
        return resolve

    def bound_name(self, name, node):
        """What K.kind asks: the binding of the Name node (none for a check's name, kinds.CHECK)."""
        if node is None:
            assert name.startswith(K.CHECK), f"K.kind asked {name!r} without its node"
            return None
        return self.bound(node)

    # Python names known to hold whole numbers (Python ints) in the code being compiled: the code
    # stands under a test of their types (a decision table's rows, compiled twice).
    ints: frozenset = frozenset()

    @contextmanager
    def whole_numbers(self, names):
        saved, self.ints = self.ints, self.ints | frozenset(names)
        try:
            yield
        finally:
            self.ints = saved

    def local_names(self, nodes) -> list[str]:
        """The Python names of the locals read in `nodes` (a parameter compiled in place is one
        only while its argument is a plain name)."""
        names = []
        for node in walk(nodes):
            if isinstance(node, n.Name):
                r = self.bound(node)
                if r is not None and r.kind == "local":
                    code = self.alias.get(r.target, r.target)       # a binding, or a name (req_expr)
                    code = code if isinstance(code, Code) else name(code)
                    if is_(code, "name") and not is_whole(code):
                        names.append(code)
        return names

    def roll_code(self, dice: str, node, by: str, purpose: str, plain_by: bool = True) -> str:
        if isinstance(node, n.DiceLit) and node.count == 1 and plain_by:
            # A lone literal die: roll it in place when nothing is pinned or shown.
            return (f"((_E.streams.get(({by}, {purpose})) or _E.stream({by}, {purpose}))() % {node.sides} + 1 "
                    f"if _E.plain else _E.roll({dice}, {by}, {purpose}))")
        return f"_E.roll({dice}, {by}, {purpose})"

    # ------------------------------------------------------------ statements
    def append(self, s: n.Append, depth):
        # S.append in place: the list, then the value, as the call reads them; else the call refuses.
        e = self.emit
        t, v = self.tmp(), self.tmp()
        e(depth, f"{t} = {self.expr(s.target)}", s.span)
        e(depth, f"{v} = {self.expr(s.value)}", s.span)
        e(depth, f"if {type_of(t)} is list and len({t}) < S.MAX_LENGTH and id({t}) not in _KEPT: "
                 f"{t}.append({v})", s.span)
        e(depth, f"else: S.append({t}, {v}, _KEPT)", s.span)

    def walk_list(self, s: n.For, items: str, depth) -> str:
        # H.counted, in place: the loop's length is paid from the step budget before it starts.
        e = self.emit
        t = self.tmp()
        e(depth, f"{t} = {items}", s.span)
        if s.key is None and s.where is None:   # else a list made here (sorted, groups, a comprehension)
            e(depth, f"if {type_of(t)} is not list: H.counted(_E, {t})", s.span)     # refuses it
            if isinstance(s.iter, (n.Name, n.Attr, n.Index)) and not self.purity.block(s.body, self.bindings.around(s)):
                e(depth, f"{t} = {t}[:]", s.span)       # a stored list may change while we walk it
        e(depth, f"_E.steps += len({t})", s.span)
        e(depth, "if _E.steps > _E.budget: raise H.Budget(_E.budget)", s.span)
        return t

    # ------------------------------------------------------------ decision tables
    def whole_rows(self, d: n.Decide, ins, out, depth) -> int:
        whole = self.ordered_names(d, ins, out)
        if whole:
            # What a decision table orders is almost always whole numbers: its rows are
            # compiled once for them, without a guard per cell, and once for any value.
            self.emit(depth, "if " + " and ".join(f"{type_of(w)} is int" for w in whole) + ":", d.span)
            with self.whole_numbers(whole):
                self.rows(d, ins, out, depth + 1)
            self.emit(depth, "else:", d.span)
            depth += 1
        return depth

    def numbers(self, ins) -> list:
        resolve = self.resolving()
        return [(t, t in self.ints or K.kind(node, resolve) == K.NUMBER) for t, node in ins]

    def cell(self, node, number: bool) -> tuple[str, bool]:
        """A cell's value, and whether its comparison with a numeric input may be Python's own."""
        return self.expr(node), number and K.kind(node, self.resolving()) == K.NUMBER

    ORDERING = frozenset(("<", "<=", ">", ">="))

    def ordered_names(self, d: n.Decide, ins, out) -> list[str]:
        """The Python names whose being whole numbers takes the guards off a decision table's
        ordering cells: the inputs they test and the locals they read, not yet known to be numbers.
        Only a table whose rows give a value (no statements, which could rebind a local), and never
        the name it binds (a later row of an "all" table would read it changed)."""
        if out is None:
            return []
        resolve = self.resolving()
        names = []
        for row in d.rows:
            for (var, node), alts in zip(ins, row.tests):
                for t in alts:
                    # (an ordering against a named outcome compares ranks: no number there)
                    if t.kind == "range" or (t.kind == "cmp" and t.op in self.ORDERING
                                             and self._const_ranked(t.value) is None):
                        if K.kind(node, resolve) != K.NUMBER:
                            names.append(var)
                        names.extend(self.local_names((t.value, t.high)))
        return [w for w in dict.fromkeys(names) if w != out]

    # ------------------------------------------------------------ tactics and reactions
    def hoisted(self, parts) -> bool:
        """Whether a tactic's conditions may be tested once each, as soon as they can (hoisting.py)."""
        return all(self.purity.expr(x) for x in parts)

    @contextmanager
    def asking_once(self, d: n.Tactic, actions):
        """A tactic's choice of action changes nothing until it runs the action it chose, when every
        cost, requirement, `when` and list of its preferences is pure (hoisting.py): then a rule asked
        of the actor alone (`ready(me)`, `targets(me)`) answers the same each time, from one
        preference to the next. Each such question is asked once, when first needed, its answer kept
        in the choice's own dict `_a` (a dict, not a local: comprehensions ask them too)."""
        parts = []
        for p in d.act:
            a = actions[p.name]
            given = {arg.name: arg.value for arg in p.args}
            parts += [amount for _f, amount in a.costs] + list(a.requires) + ([p.when] if p.when is not None else [])
            parts += [given.get(param.name, param.domain) for param in a.params[1:]]
        if not self.hoisted(parts):
            yield
            return
        at = len(self.lines)
        self.emit(1, "_a = {}", d.span)
        self.asked = {}
        try:
            yield
        finally:
            asked, self.asked = self.asked, None
        if not asked:
            self.lines[at] = "    pass"

    def lazy_choice(self, event: str, single: bool = False) -> bool:
        """Whether an unscripted reactor may choose its reaction to an event testing only what its
        choice needs, in its order: the event has one reactor (`single`, as its emitter found, which
        asks first) and every reaction's `by`, costs and requirements, and every tactic's `when`
        for it, are pure. Testing a pure condition fewer times changes no answer (hoisting.py);
        otherwise every reaction is tested first, as written."""
        known = self._lazy.get(event)
        if known is None:
            rs = self.ruleset
            reactions = [r for r in rs.all(n.Reaction) if r.event == event]
            parts = [x for r in reactions for x in (r.by, *r.requires, *(a for _f, a in r.costs))]
            parts += [p.when for t in rs.all(n.Tactic) for ev, prefs in t.react if ev == event
                      for p in prefs if p.when is not None]
            known = self._lazy[event] = single and all(self.purity.expr(x) for x in parts)
        return known
