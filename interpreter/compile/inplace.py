"""The in-place forms of the one emitter (compiler.Compiler), taken where the plan says so.

The plain path calls semantics.py for every operator and builtin. Where the optimizer's plan
(optimizer.py) has `in_place`, the emitter takes these forms instead, each giving the same
answer: an operator in place under a guard of its operands' types (code.same_in_place),
bounded as the semantics bound it unless the plan knows the result fits; Python's own operator
where the facts show both sides are whole numbers; a decision table's rows compiled twice, once
for whole numbers; a catalogue's row, a field or a list's item read in place; a list the run
holds walked without a copy; a small pure rule compiled in place of its calls. None of these
methods replaces a plain one: the emitter asks the plan, then calls one of them.
tests/test_plain_and_optimized.py compares both paths (docs/performance.md).
"""
from __future__ import annotations

import operator
from contextlib import contextmanager

from ...dsl.check import kinds as K
from ...dsl.syntax import nodes as n
from ...dsl.check.names import Resolved, walk

from ..run import semantics as S
from .cardtests import conjuncts, not_held, reads_only
from .sides import member, side_read
from .code import Code, is_, is_whole, marked, name, same_in_place, type_of
from ..run.values import hash_key, mangle
from .expressions import ExpressionCompiler
from .optimizer import GROWS
from .wholes import never_a_roll

# What a local known to hold a whole number resolves to for K.kind.
WHOLE_LOCAL = Resolved("number")


class InPlace:
    """The in-place forms: a part of the one emitter, read where its plan has `in_place`."""

    def index_in_place(self, x):
        if isinstance(x.obj, n.Name):
            r = self.bound(x.obj)
            if r is not None and r.kind == "table":
                return self.catalogue_row(self.tables[x.obj.id], x.key)
            if r is not None and r.kind == "var" and x.obj.id in self.plan.maps:
                return self.map_item(self.expr(x.obj), x.key)
        obj, key = self.expr(x.obj), self.expr(x.key)
        names = self.plan.names
        if names.holds_or_none(x.key, self.bound):
            # The key is always a text naming a field every combatant has, or none (fieldnames.py):
            # a combatant's field is read in place, anything else is looked up as H.index does.
            written = x.key.value if isinstance(x.key, n.Const) else None
            return self.named_field(obj, key, names.holds(x.key, self.bound), written)
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

    def catalogue_row(self, table, key_node):
        """A table's row by its key. A catalogue's row by a written text or number it has is a
        constant of the program (a table is checked data no rule changes: the same row, always);
        by any other key, its index asked in place (the dict itself a constant), a key it lacks
        by lookup, which refuses it; a dice table's by its rolls' dict where it keeps one."""
        ref = self.k(table, "table")
        written = key_node.value if isinstance(key_node, n.Const) else None
        if table.dice is None and type(written) in (str, int) and hash_key(written) in table.index:
            return name(self.k(table.index[hash_key(written)], "row"))
        key = self.expr(key_node)
        if table.dice is not None and table.rolls is not None and not self.unnamed:
            # A dice table covering few rolls: a whole roll's row from its dict of rolls, in place
            # (a constant); anything else, or a roll it lacks, by lookup (which refuses it).
            rolls, row = self.k(table.rolls, "rolls"), self.tmp()
            tree = self.whole_tree(key_node) if isinstance(key_node, n.Binary) and key_node.op in self.TREE else None
            if tree is not None:
                # An arithmetic key over pure leaves: its leaves asked once, its row in place; else
                # the semantics work the key out again (the same value, or their refusal) for lookup.
                fast, guard, slow = tree
                return f"({row} if {guard} and ({row} := {rolls}.get({fast})) is not None else {ref}.lookup({slow}))"
            if self.surely_whole(key_node, self.resolving()) and self.pure(key):
                return f"({row} if ({row} := {rolls}.get({key})) is not None else {ref}.lookup({key}))"
            k = key if self.pure(key) else self.tmp()
            given = key if k is key else f"{k} := {key}"
            return (f"({row} if {type_of(given)} is int and ({row} := {rolls}.get({k})) is not None "
                    f"else {ref}.lookup({k}))")
        if table.dice is not None or self.unnamed:
            return f"{ref}.lookup({key})"
        # A catalogue's row by its key, in place; a key it lacks, by lookup (which refuses it).
        index, row = self.k(table.index, "index"), self.tmp()
        if self.plan.names.holds_or_none(key_node, self.bound):
            # (a text or none, never a truth: fieldnames.py)
            k = key if self.pure(key) else self.tmp()
            given = key if k is key else f"{k} := {key}"
            return f"({row} if ({row} := {index}.get({given})) is not None else {ref}.lookup({k}))"
        # (True equals 1 as a Python key: a truth goes through lookup, which keeps them apart.)
        k = self.tmp()
        return (f"({row} if {type_of(f'{k} := {key}')} is not bool and ({row} := {index}.get({k})) "
                f"is not None else {ref}.lookup({k}))")

    def map_item(self, obj, key_node) -> str:
        """m[k] of a var that only ever holds a map (mapvars.py): its own dict asked in place, as
        Map.lookup asks it (a key of a kind it keeps as it is, any other through map_key, which
        refuses a key that can change); the map is read first, then the key."""
        key = self.expr(key_node)
        if isinstance(key_node, n.Const) and type(key_node.value) in (str, int):
            return f"{obj}._d.get({key})"           # (a text or a number is its own key)
        if self.pure(key):
            return f"{obj}._d.get({key} if {type_of(key)} in _MAPKEYS else _mapkey({key}))"
        if self.unnamed:
            return f"{obj}.lookup({key})"
        k = self.tmp()
        return f"{obj}._d.get({k} if ({k} := {key}).__class__ in _MAPKEYS else _mapkey({k}))"

    def named_field(self, obj, key, sure: bool, written=None) -> str:
        """obj[key] where the key is surely a text naming a field every combatant has (or none,
        unless `sure`): that field where the object is surely a combatant (Code.combatant), else
        under a test of its class (the program's combatants share one: `_CB`); a none, and
        anything but a combatant, by H.index. The object is worked out first, then the key, as
        H.index is given them."""
        if is_(obj, "literal"):                 # (a written value: H.index refuses it)
            return f"H.index({obj}, {key})"
        tests = []
        if not is_(obj, "combatant"):
            if not self.pure(obj):
                if self.unnamed:
                    return f"H.index({obj}, {key})"
                o = self.tmp()
                tests.append(f"({o} := {obj}).__class__ is _CB")
                obj = o
            else:
                tests.append(f"{type_of(obj)} is _CB")
        joined = " and "
        if not self.pure(key) and written is None and (tests or not sure):
            # A computed key is named once, after the object, whatever the object is (`&`).
            if self.unnamed:
                return f"H.index({obj}, {key})"
            k = self.tmp()
            tests.append(f"({k} := {key}) is not None")
            key, joined = k, " & "
        elif not sure:
            tests.append(f"{key} is not None")
        # (a written text: its field by name; else the field's getter, which Python asks for after
        # the key: where the key is computed, the object is a name, which nothing in the key changes)
        field = f"{obj}.{mangle(written)}" if written is not None else \
            f"_G[{key}]({obj})" if self.pure(key) or is_(obj, "name") else f"getattr({obj}, _F[{key}])"
        guard = " and ".join(tests) if joined == " and " else " & ".join(f"({t})" for t in tests)
        return f"({field} if {guard} else H.index({obj}, {key}))" if tests else field

    # The rules being compiled in place, innermost last (a rule never goes in place inside itself).
    inlining: tuple = ()

    def inlined(self, rule: n.Rule, args) -> Code | None:
        """A call of a small rule that only returns a pure expression, compiled in place for
        arguments that are pure code (each read where the rule reads its parameter: the same
        value, as nothing in between changes anything); None where the call stays a call. The
        rule must be no step of its own (counted_by_caller), so the step count is the same."""
        if rule.name not in self.plan.inline or rule.name in self.inlining or not all(is_(a, "pure") for a in args):
            return None
        value = rule.body[0].value
        saved, self.inlining = self.inlining, self.inlining + (rule.name,)
        try:
            return Code(marked(rule.name, f"({self.in_place(value, rule.params, args)})"))
        finally:
            self.inlining = saved

    def _listed(self, x) -> bool:
        """The first argument is a list by its very syntax, or a call of a builtin whose answer is
        always a list (S.LIST_BUILTINS: `len(distinct(...))`)."""
        return self.surely_list(x.args[0].value)

    def b_len(self, name, x, args):
        if self._listed(x):
            counted = self.distinct_count(x)
            return counted if counted is not None else f"len({args[0]})"
        read, first = self.reread(args[0])
        if read is None:
            return self.b_function(name, x, args)
        # Python's own len on a list (what H.len_ does with it), else the builtin's refusal.
        return f"(len({read}) if {type_of(first)} is list else b_len({read}))"

    def distinct_count(self, x) -> str | None:
        """len(distinct(L)) of a list L made here: where its items are texts and whole numbers
        (Python's equality and hash are the language's: S.distinct), the size of their set, with
        no list of them made; else the builtin. None where the form does not apply."""
        inner = x.args[0].value
        if self.unnamed or not (type(inner) is n.Call and isinstance(inner.func, n.Name) and len(inner.args) == 1
                                and inner.args[0].name is None and self.surely_list(inner.args[0].value)):
            return None
        r = self.bound(inner)
        if r is None or r.kind != "builtin" or r.target != "distinct":
            return None
        items = inner.args[0].value
        if type(items) is n.Comprehension and self.plan.text_sides and side_read(items.elt, self.combatant_node):
            # Combatants' sides, every one a text (sides.py): the size of their set, made as it walks.
            return f"len({{{self.expr(items)[1:-1]}}})"
        t = self.tmp()
        return f"len({{*{t}}} if _KEYED.issuperset(_TYPES({t} := {self.expr(items)})) else b_distinct({t}))"

    def b_first(self, name, x, args):
        read, first = self.reread(args[0])
        if read is None or is_(args[0], 'literal'):       # (-3)[0]: Python warns, even where it never runs
            return self.b_function(name, x, args)
        if self._listed(x):                                 # surely a list: S.first in place
            return f"({read}[0] if {first} else None)"
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
        if self.all_whole(x):               # the optimizer proved every argument whole
            own = f"{name}({', '.join(args)})"
            return own if all(never_a_roll(a.value) for a in x.args) else f"int({own})"
        sides = self.whole_sides_of(args)
        if sides is None:
            return self.b_function(name, x, args)
        reads, guard = sides
        return self.if_whole(f"{name}({', '.join(reads)})", guard, self.b_function(name, x, reads))

    def all_whole(self, x) -> bool:
        """Every argument of the call `x` is surely a whole number, given by position."""
        if x is None:                       # (code asked of its texts alone: no node, no fact)
            return False
        resolve = self.resolving()
        return all(a.name is None and self.surely_whole(a.value, resolve) for a in x.args)

    def b_abs(self, name, x, args):
        """abs of a whole number: Python's own (the semantics' answer); under a guard of its type
        where it can be read twice; else the function."""
        if len(args) != 1:
            return self.b_function(name, x, args)
        if self.all_whole(x):
            return f"abs({args[0]})"
        read, first = self.reread(args[0])
        if read is None:
            return self.b_function(name, x, args)
        return f"(abs({read}) if {type_of(first)} is int else {self.b_function(name, x, [read])})"

    def b_rounded(self, name, x, args):
        """floor and ceil: of a quotient without building the fraction, of a product by a scale in
        whole numbers, else the function."""
        a = x.args[0].value
        if isinstance(a, n.Binary) and a.op == "/":
            fn, whole = S.ROUNDED_DIVISION[name]
            left, right = self.expr(a.left), self.expr(a.right)
            call = f"S.{fn.__name__}({left}, {right})"
            resolve = self.resolving()
            # (a divisor read in the guard before a computed left side: only a written one)
            if (is_whole(right) or self.pure(left) and self.pure(right)) and self.surely_whole(a.left, resolve) \
                    and self.surely_whole(a.right, resolve):       # the optimizer proved both whole
                return self.if_whole(whole.format(a=left, b=right), self.nonzero(right, "True"), call)
            if self.pure(left) and self.pure(right):
                guard = self.nonzero(right, self.whole_guard(left, right))
                return self.if_whole(whole.format(a=left, b=right), guard, call)
            return call
        if name == "floor" and isinstance(a, n.Binary) and a.op == "*":
            left, right = self.expr(a.left), self.expr(a.right)
            call = f"S.floor_mul({left}, {right})"
            if self.unnamed or not self.pure(right):
                return call
            # S.floor_mul in place: a whole number times a table's factor, within the bound, floored
            # without the fraction; the left side named as its type is asked (worked out first, as
            # the call has it), the factor (pure: read again for the call) named as its is.
            la, f, p = (left, left) if self.pure(left) else self.once(left), self.tmp(), self.tmp()
            read_a, first_a = la
            return (f"({p} // {f}._denominator if {type_of(first_a)} is int and ({f} := {right}).__class__ is _SCALE "
                    f"and ({p} := {read_a} * {f}._numerator) * {p} < _BIG2 else S.floor_mul({read_a}, {right}))")
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
            # Its tactic chooses directly; in a run with a script, `acts` asks the script first
            # (run/encounter.py: _scripted_act).
            return f"{args[0]}.acts(_E, {args[0]})"
        return self.b_engine(name, x, args)

    def b_combatants(self, name, x, args):
        return "_E.cb" if x is self.walking else "list(_E.cb)"

    IN_PLACE_BUILTINS = {**ExpressionCompiler.BUILTIN_CODE,
                    "len": b_len, "first": b_first, "min": b_extreme, "max": b_extreme, "abs": b_abs,
                    "floor": b_rounded, "ceil": b_rounded, "has": b_has, "act": b_act, "combatants": b_combatants}

    def unary_in_place(self, x):
        if x.op == "not":
            return f"(not {self.expr(x.operand)})"
        operand = self.expr(x.operand)
        if isinstance(x.operand, n.Const) and type(x.operand.value) is int:
            # A written negative number (Python folds it): a written value, and its number.
            return Code(f"(-{operand})", literal=True, number=-x.operand.value)
        if self.number(x.operand):
            return f"(-{operand})"
        read, first = self.reread(operand)
        if read is None:
            return f"S.neg({operand})"
        return f"(-{read} if {type_of(first)} is int else S.neg({read}))"      # S.neg of a whole number

    def holds_none(self, x):
        """An `and` whose sides test, one after another, that one combatant (read purely) does not
        hold conditions (`not has(c, A) and not has(c, B)`, cardtests.py): those tests asked at
        once, the other sides as they are; None (nothing compiled) where no two such tests of one
        combatant stand together."""
        sides = conjuncts(x)
        tests = [self.card_test(side) for side in sides]
        if not any(a is not None and b is not None and a[0] == b[0] for a, b in zip(tests, tests[1:])):
            return None
        parts, run = [], []
        for side, test in zip(sides, tests):
            if run and (test is None or test[0] != run[0][0]):
                parts.append(self.none_of(run))
                run = []
            if test is not None:
                run.append((*test, side))
            else:
                parts.append(self.expr(side))
        if run:
            parts.append(self.none_of(run))
        return f"({' and '.join(parts)})" if len(parts) > 1 else parts[0]

    def card_test(self, side):
        """(the combatant's code, the condition) of a side `not has(W, C)` whose W reads names and
        fields only (compiling it asks nothing), read purely; else None."""
        test = not_held(side, self.bound)
        if test is None or not reads_only(test[0]):
            return None
        who = self.expr(test[0])
        return (who, test[1]) if self.pure(who) else None

    def none_of(self, run) -> str:
        """Tests that a combatant holds none of some conditions (holds_none): "holds no condition"
        where they are every condition these rules declare; else each test, asked only of a
        combatant holding some."""
        who, named = run[0][0], [c for _w, c, _side in run]
        if len(run) == 1:
            return self.expr(run[0][2])
        if set(named) >= set(self.conditions):
            return f"(not {who}.cards)"
        tests = " and ".join(f"{c!r} not in {{0}}" for c in named)
        if self.unnamed:
            return f"({tests.format(f'{who}.cards')})"
        held = self.tmp()
        return f"(not ({held} := {who}.cards) or ({tests.format(held)}))"

    RANK_ORDER = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}

    def binary_in_place(self, x):
        if x.op == "and":
            none_held = self.holds_none(x)
            if none_held is not None:
                return none_held
        resolve = self.resolving()
        if x.op in self.TREE and not self.unnamed and (self.tree_ops(x) > 1 or not self.pure(self.fact_of(x.left))
                                                           and not self.surely_whole(x.left, resolve)):
            # (one operator: only where its first side is computed, named in the tree's first test)
            tree = self.whole_tree(x)
            if tree is not None:
                fast, guard, slow = tree
                return self.if_whole(fast, guard, slow)
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
                if self.always_outcome(x.left, known):     # the optimizer proved it one of the list
                    answers = self.k({o: self.RANK_ORDER[x.op](o.rank, known.rank) for o in self.outcome_values.values()
                                      if o.kind == known.kind}, "ranks")
                    return f"{answers}[{a}]"
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
            numbers = self.number(x.left) and self.number(x.right)
            # A written text or a named outcome equals only itself, as the semantics say too.
            # So does a combatant's side where every side is a text (sides.py).
            text = x.op in ("==", "!=") and any(isinstance(v, n.Const) and type(v.value) is str
                                                or self._const_ranked(v) is not None
                                                or self.plan.text_sides and side_read(v, self.combatant_node)
                                                for v in (x.left, x.right))
            return self.compare_in_place(x.op, a, b, plain=numbers or text, named=not self.unnamed)
        return f"({a} {self.OPS[x.op]} {b})"

    def combatant_node(self, node) -> bool:
        """The node surely gives a combatant of the run (combatants.py, sides.member)."""
        return self.plan.combatants.holds(node, self.bound) or member(node, self.bound, self.plan.members)

    def compare_in_place(self, op, a, b, plain=False, named=False) -> str:
        """A comparison as the semantics mean it: Python's own operator when both sides are surely
        numbers or one is a written text (`plain`), or under the guard that makes them agree
        (semantics.same_in_place) when both sides can be read twice; else the function. `named`:
        the code stands where Python allows `:=` (not in a comprehension's iterable), so one
        computed side can be named once in the guard and read again after it."""
        if plain:
            return f"({a} {op} {b})"
        call = f"S.{S.COMPARISON[op].__name__}"
        written = [self.written_number(side) for side in (a, b)]
        if written[0] != written[1] and all(w or self.pure(side) for side, w in zip((a, b), written)):
            # Against a written number (negative ones too), a pure side's type alone is asked: an
            # int, and Python's own comparison is the semantics' (code.same_in_place).
            other = b if written[0] else a
            return f"({a} {op} {b} if {type_of(other)} is int else {call}({a}, {b}))"
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
    def written_number(code) -> bool:
        """Code of a written whole number, negative or not (code.const_facts, unary_in_place)."""
        return is_(code, "literal") and type(is_(code, "number")) is int

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
    GROWS = GROWS

    def operator(self, x, a, b, resolve) -> str:
        """An arithmetic operator or `in`: in place (bounded) when both sides are surely whole
        numbers, or guarded for whole numbers when both sides can be read twice; else the semantics."""
        if x.op == "in":
            return self.member(a, b, self.surely_list(x.right))
        fits = id(x) in self.plan.fits             # within the bound, as the optimizer found
        if x.op in self.PLAIN and self.surely_whole(x.left, resolve) and self.surely_whole(x.right, resolve):
            if fits:                               # within the bound, as the text shows
                return f"({a} {x.op} {b})"
            if self.unnamed:                       # no `:=` here: the value is bounded by a call
                return f"S.bounded({a} {x.op} {b})"
            return self.within_bound(x.op, a, b, "", "S.bounded({p})")
        if x.op == "%" and (is_whole(b) or self.pure(a) and self.pure(b)) and self.surely_whole(x.left, resolve) \
                and self.surely_whole(x.right, resolve):    # whole sides: only a zero divisor refused
            return self.if_whole(f"{a} % {b}", self.nonzero(b, "True"), f"S.mod({a}, {b})")
        return self.guarded(x.op, a, b, f"S.{S.BINARY[x.op].__name__}({a}, {b})", fits)

    def member(self, a, b, listed=False) -> str:
        """`a in b` on two pure sides: Python's own `in` where it is the language's equality
        (values.member: for a text, and a value that equals only itself, such as a combatant or an
        outcome) and b is a list; else, and for computed sides, the semantics."""
        call = f"S.contains({a}, {b})"
        if not (self.pure(a) and self.pure(b)) or self.unnamed or is_(a, "literal"):
            return call             # (a written value: never equal only to itself, and `3 is not None` warns)
        cls = self.tmp()
        listed = "" if listed else f"{type_of(b)} is list and "        # (`listed`: b is surely a list)
        return (f"({a} in {b} if {listed}(({cls} := {type_of(a)}) is str or "
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

    # The operators an arithmetic tree is worked out of in one piece (whole_tree).
    TREE = frozenset(("+", "-", "*", "%"))

    def tree_ops(self, x) -> int:
        """How many operators of TREE the tree under `x` holds, down to its first other node."""
        if isinstance(x, n.Binary) and x.op in self.TREE:
            return 1 + self.tree_ops(x.left) + self.tree_ops(x.right)
        return 0

    def whole_tree(self, x):
        """An arithmetic tree of + - * % whose leaves are pure code (names and fields, read
        again harmlessly) or written whole numbers, worked out in one piece: the leaves' types
        asked once, in the order the semantics read them, each result that can grow past the
        bound (not in plan.fits) named as it is tested to be within it, a divisor not written
        asked to be non-zero; then Python's own operators. (fast, guard, slow): `slow` is the
        semantics' path over the same leaves, read again (the same values: the leaves are
        pure), which gives the same answer or the same refusal where the guard fails. None
        where a leaf is computed, where no leaf needs asking, or where `:=` is not allowed."""
        tests, asked = [], {}

        def walk_tree(node):
            if isinstance(node, n.Binary) and node.op in self.TREE:
                (fl, sl), (fr, sr) = walk_tree(node.left), walk_tree(node.right)
                slow = f"S.{S.BINARY[node.op].__name__}({sl}, {sr})"
                if node.op == "%":
                    if not (is_whole(fr) and fr.number != 0):
                        tests.append(fr)            # (the semantics refuse a zero divisor, E0501)
                    return f"({fl} % {fr})", slow
                if node.op in self.GROWS and id(node) not in self.plan.fits:
                    p = self.tmp()
                    tests.append(self.bound_test(node.op, fl, fr, p))
                    return name(p), slow
                return f"({fl} {node.op} {fr})", slow
            code = self.expr(node)
            if self.written_number(code):
                return code, code
            if not self.pure(code):
                # A computed leaf only where no test comes before it: named as its type is asked,
                # always worked out, once, before anything can fail (the fallback reads the name).
                if tests or self.unnamed or is_(code, "literal"):
                    raise LookupError(node)
                t = name(self.tmp())
                tests.append(f"{type_of(f'{t} := {code}')} is int")
                asked[t] = t
                return t, t
            if code in asked:
                return asked[code], code
            if not is_whole(code) and not self.surely_whole(node, self.resolving()):
                # (a field read once: named as its type is asked, where Python allows `:=`)
                read = code if is_(code, "name") or self.unnamed else name(self.tmp())
                asked[code] = read
                tests.append(f"{type_of(code if read is code else f'{read} := {code}')} is int")
                return read, code
            return code, code

        try:
            fast, slow = walk_tree(x)
        except LookupError:
            return None
        if not asked or self.unnamed and any(":=" in t for t in tests):
            return None
        return fast, " and ".join(tests), slow

    @staticmethod
    def bound_test(op, a, b, p: str) -> str:
        """The test that `a op b`, named `p` as it is worked out, is within the bound (within_bound)."""
        value = f"({p} := {a} {op} {b})"
        written_a, written_b = is_whole(a), is_whole(b)
        if op == "+" and (written_a or written_b) or op == "-" and written_a:
            return f"{value} < _BIG"
        if op == "-" and written_b:
            return f"_NBIG < {value}"
        return f"{value} * {p} < _BIG2"           # |p| < BIG: both ends in one comparison

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

    # Builtins that give a whole number from anything they take.
    WHOLE_BUILTINS = frozenset(("len", "floor", "ceil", "round_number"))

    def surely_whole(self, node, resolve) -> bool:
        """A node the text shows gives a whole number (a Python int): a written one, a roll, a
        whole builtin, a local known to hold one, and + - * % of such (no fraction among them)."""
        if self.plan.whole.holds(node, self.bound) or self.whole_field(node):    # as the optimizer proved
            return True
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

    def always_outcome(self, node, known) -> bool:
        """A field that only ever holds a named outcome of `known`'s list (optimizer: outcome_fields)."""
        names = self.plan.outcomes.get(node.name) if type(node) is n.Attr else None
        return bool(names) and all(self.outcome_values[name].kind == known.kind for name in names)

    def _const_ranked(self, node):
        """The outcome named here, if the node names one."""
        if isinstance(node, n.Name):
            r = self.bound(node)
            if r is not None and r.kind == "outcome":
                return self.outcome_values[node.id]
        return None

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

    def number(self, node) -> bool:
        """Whether the node gives a number: as the plan says (optimizer.numeric), a combatant's
        whole field named by a text (whole_field), or, in code that stands under a test that some
        locals hold whole numbers (whole_numbers), as K.kind finds with those locals taken as numbers."""
        return id(node) in self.plan.numeric or self.whole_field(node) or \
            bool(self.ints) and K.kind(node, self.resolving()) == K.NUMBER

    def whole_field(self, node) -> bool:
        """`c[text]` where the text surely names a field every combatant has that holds only whole
        numbers (fieldnames.py, wholes.py) and `c` is surely a combatant here (Code.combatant: the
        chooser of a tactic's decision): the field itself, a Python int."""
        return type(node) is n.Index and self.plan.names.holds_whole(node.key, self.bound) \
            and is_(self.fact_of(node.obj), "combatant")

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
                if r is not None and r.kind == "local" and not self.plan.whole.holds(node, self.bound):
                    code = self.alias.get(r.target, r.target)       # a binding, or a name (req_expr)
                    code = code if isinstance(code, Code) else name(code)
                    if is_(code, "name") and not is_whole(code):
                        names.append(code)
        return names

    # ------------------------------------------------------------ statements
    def append_in_place(self, s: n.Append, depth):
        # S.append in place: the list, then the value, as the call reads them; else the call refuses.
        e = self.emit
        t = self.tmp()
        e(depth, f"{t} = {self.expr(s.target)}", s.span)
        v = self.expr(s.value)
        if not self.pure(v):
            # (a pure value is read where the call would read it: nothing between changes it)
            value, v = v, self.tmp()
            e(depth, f"{v} = {value}", s.span)
        e(depth, f"if {type_of(t)} is list and len({t}) < {S.MAX_LENGTH} and id({t}) not in _KEPT: "
                 f"{t}.append({v})", s.span)
        e(depth, f"else: S.append({t}, {v}, _KEPT)", s.span)

    def walk_list_in_place(self, s: n.For, items: str, depth) -> str:
        # H.counted, in place: the loop's length is paid from the step budget before it starts.
        e = self.emit
        t = self.tmp()
        e(depth, f"{t} = {items}", s.span)
        if s.key is None and s.where is None:   # else a list made here (sorted, groups, a comprehension)
            if not self.surely_list(s.iter):
                e(depth, f"if {type_of(t)} is not list: H.counted(_E, {t})", s.span)     # refuses it
            if isinstance(s.iter, (n.Name, n.Attr, n.Index)) and not self.purity.block(s.body, self.bindings.around(s)):
                e(depth, f"{t} = {t}[:]", s.span)       # a stored list may change while we walk it
        e(depth, f"_E.steps += len({t})", s.span)
        e(depth, "if _E.steps > _E.budget: raise H.Budget(_E.budget)", s.span)
        return t

    # ------------------------------------------------------------ decision tables
    def whole_rows_in_place(self, d: n.Decide, ins, out, depth) -> int:
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

    def numbers_in_place(self, ins) -> list:
        return [(t, t in self.ints or self.number(node)) for t, node in ins]

    def cell_in_place(self, node, number: bool) -> tuple[str, bool]:
        """A cell's value, and whether its comparison with a numeric input may be Python's own."""
        return self.expr(node), number and self.number(node)

    ORDERING = frozenset(("<", "<=", ">", ">="))

    def ordered_names(self, d: n.Decide, ins, out) -> list[str]:
        """The Python names whose being whole numbers takes the guards off a decision table's
        ordering cells: the inputs they test and the locals they read, not yet known to be numbers.
        Only a table whose rows give a value (no statements, which could rebind a local), and never
        the name it binds (a later row of an "all" table would read it changed)."""
        if out is None:
            return []
        names = []
        for row in d.rows:
            for (var, node), alts in zip(ins, row.tests):
                for t in alts:
                    # (an ordering against a named outcome compares ranks: no number there)
                    if t.kind == "range" or (t.kind == "cmp" and t.op in self.ORDERING
                                             and self._const_ranked(t.value) is None):
                        if not self.number(node):
                            names.append(var)
                        names.extend(self.local_names((t.value, t.high)))
        return [w for w in dict.fromkeys(names) if w != out]
