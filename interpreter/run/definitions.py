"""What a compiled program's code is linked into, at run time: the definitions the engine calls
(actions, reactions, tactics) and the tables the rules look rows up in."""
from __future__ import annotations

from fractions import Fraction

from ...dsl.check.builtin_values import whole

from . import runtime_helpers as H
from .values import hash_key, kind, mangle, unhash_key


class ActionDef:
    __slots__ = ("name", "params", "domains", "req", "run", "decl", "cost_field")

    def __init__(self, name, params, domains, req, run, decl):
        self.name, self.params, self.domains, self.req, self.run, self.decl = name, params, domains, req, run, decl


class ReactionDef:
    __slots__ = ("name", "event", "by", "req", "run", "decl")

    def __init__(self, name, event, by, req, run, decl):
        self.name, self.event, self.by, self.req, self.run, self.decl = name, event, by, req, run, decl


class TacticDef:
    __slots__ = ("name", "act", "choose", "react", "answer")

    def __init__(self, name, act, choose, react, answer=None):
        # choose: event -> the tactic's compiled choice among the reactions allowed (compiler._tactic_react);
        # react: event -> the choice of a reactor the script does not answer, testing each reaction as its
        # preferences come to it (an event with one reactor: compiler.chooses_lazily);
        # answer: its answer to choose(c, list) (compiler._tactic_choose), or None: the first item
        self.name, self.act, self.choose, self.react, self.answer = name, act, choose, react, answer


ROLLS_INDEXED = 10_000     # a dice table covering at most this many rolls keeps a dict by roll


class Table:
    """A catalogue (keyed by its first column) or a dice table (keyed by roll)."""

    __slots__ = ("name", "rows", "index", "low", "high", "dice", "ranges", "rolls")

    def __init__(self, name, rows, index, dice=None, low=0, high=-1, ranges=()):
        self.name, self.rows, self.index, self.dice, self.low, self.high = name, rows, index, dice, low, high
        self.ranges = ranges          # (lo, hi, row) of a dice table: no dict entry per roll, dice can be huge
        # ... unless the rows cover few rolls: then each whole roll finds its row in one dict
        # look-up (the first row covering it, as the walk of the ranges finds it).
        self.rolls = None
        if ranges and sum(hi - lo + 1 for lo, hi, _row in ranges) <= ROLLS_INDEXED:
            self.rolls = {}
            for lo, hi, row in ranges:
                for v in range(lo, hi + 1):
                    self.rolls.setdefault(v, row)

    def lookup(self, key):
        if self.dice is None:
            row = self.index.get(hash_key(key))      # true is no row of 1
        elif type(key) is int and self.rolls is not None:
            row = self.rolls.get(key)
        else:
            row = self._by_roll(key)
        if row is None:
            raise self._no_row(key)
        return row

    def _no_row(self, key) -> H.RuleFailure:
        """Why no row answers `key`, its values shown by the edition's formats (each key quoted if a text)."""
        message = f'table "{self.name}" has no row for {{0}}'
        if self.dice is None:
            keys = [unhash_key(k) for k in list(self.index)[:12]]
            return H.RuleFailure(message, "its keys are " + ", ".join(f"{{{i}}}" for i in range(1, len(keys) + 1)),
                                 "E0501", (key, *keys))
        covers = f"it covers rolls {self.low} to {self.high}"
        if whole(key) is None:
            covers += ("; round a fraction first, with floor() or ceil()" if isinstance(key, Fraction) else
                       f"; it is looked up by a whole number, not {kind(key)}")
        return H.RuleFailure(message, covers, "E0501", (key,))

    def _by_roll(self, key):
        key = whole(key)                # a roll is whole (4/2 is 2); a fraction in between finds no row
        if key is None:
            return None
        return next((row for lo, hi, row in self.ranges if lo <= key <= hi), None)

    def __str__(self):
        return self.name


def kept_lists(tables: dict, conditions: dict) -> frozenset:
    """The identities of the lists the tables and conditions hold (and lists within them): the
    rules' data, which `append` must not change (a run holds them for every combatant, every
    run). Identities, so the in-place append asks one set: worked out again when a kept
    program is read back (stored.loads), as its lists are new objects."""
    out, todo = set(), [getattr(row, mangle(a)) for t in tables.values() for row in t.rows for a in row._names]
    todo += [v for ct in conditions.values() for g in ct.grades for v in g.data.values()]
    while todo:
        v = todo.pop()
        if type(v) is list and id(v) not in out:
            out.add(id(v))
            todo.extend(v)
    return frozenset(out)
