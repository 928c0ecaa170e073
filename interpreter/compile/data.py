"""Runtime objects built once from a ruleset's data: outcomes, conditions and
their grades, tables, and the definitions the engine calls (actions,
reactions, tactics)."""
from __future__ import annotations

from ...dsl.syntax import nodes as n
from ...dsl.syntax.constants import NotConstant, constant

from ..run.definitions import ActionDef, ReactionDef, TacticDef, Table, kept_lists  # noqa: F401 - the API
from ..run.dice import Dice
from ..run.values import ConditionType, Grade, Ranked, Scale, hash_key, make_struct, mangle


class DataBuilder:
    """Mixin of Program: the ruleset's data as runtime values."""

    def k(self, obj, hint="k") -> str:
        key = id(obj)
        if key not in self.consts:
            name = f"K{len(self.consts)}_{hint}"
            self.consts[key] = name
            self.ns[name] = obj
        return self.consts[key]

    def _outcome(self, name):
        if name not in self.outcome_values:
            raise NotConstant
        return self.outcome_values[name]

    def _const_value(self, node):
        """A constant cell or default (numbers, dice, texts, lists, scales, outcomes)."""
        return constant(node, {"scale": Scale, "dice": Dice.of, "name": self._outcome})   # plain: the checker's E0204

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
                    data[mangle(col)] = self._const_value(cell) if cell is not None else None
                ct.grades.append(Grade(g, i, d.name, data))
            ct.by_name = {g.name: g for g in ct.grades}
            if not d.grades and d.rows:         # a state's one row of data (the checker's)
                ct.data = {mangle(col): self._const_value(cell) if cell is not None else None
                           for col, cell in zip(d.columns, d.rows[0][1])}
            self.conditions[d.name] = ct
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
            self.options[d.name] = self._const_value(d.default)
        for name, value in rs.edition.settings:
            if name in self.options:
                self.options[name] = self._const_value(value)

    def _table(self, d: n.Table) -> Table:
        cols = list(d.columns[1:]) if d.dice is not None else list(d.columns)
        if d.dice is not None:
            cols = [d.columns[0]] + cols
        cls = make_struct(d.name, cols, key=d.columns[0] if d.dice is None else cols[1] if len(cols) > 1 else None,
                          frozen=True)
        rows, index, ranges = [], {}, []
        for row in d.rows:
            if d.dice is not None:
                lo, hi = row[0]
                values = [lo if lo == hi else f"{lo}-{hi}"] + [self._const_value(c) for c in row[1:]]
            else:
                values = [self._const_value(c) for c in row]
            obj = cls(*values)
            rows.append(obj)
            if d.dice is not None:
                ranges.append((row[0][0], row[0][1], obj))
            else:
                index[hash_key(values[0])] = obj
        if d.dice is not None:
            dice = Dice.of(d.dice.count, d.dice.sides)
            return Table(d.name, rows, index, dice, dice.min, dice.max, tuple(ranges))
        return Table(d.name, rows, index)
