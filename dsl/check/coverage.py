"""What a lookup or a decision table can meet that no row answers, from the whole numbers the text
shows it can take (ranges.key_range: written numbers, lone rolls, + - *, % N, clamp, min, max):

- E0238 a lookup of a dice table whose key can fall outside its rows (`zona[roll 1D20]` on a
  table of 1 to 10: the run would stop at 11);
- E0239 a check, or a `decide first`, whose rows leave values of a known range unanswered;
- W0239 a `decide first` on a number whose range the text does not show, whose rows leave numbers
  unanswered (`>= 25`, `>= 20`, `>= 15` and no `any`: below 15 nothing matches).

Only tables of one input whose tests are all written whole numbers are looked at; anything else may
be covered in ways a number line does not show, and is left alone."""
from __future__ import annotations

from ..syntax import nodes as n
from ..diagnostics import Diagnostic
from .ranges import key_range
from .shadowing import nodes_of

INF = float("inf")


def coverage(rs) -> list[Diagnostic]:
    tables = {t.name: t for t in rs.all(n.Table)}
    out = []
    seen = set()
    for _d, x in nodes_of(rs):
        if type(x) not in (n.Index, n.Decide) or id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, n.Index) and isinstance(x.obj, n.Name):
            out += _lookup(x, tables.get(x.obj.id), tables)
        elif isinstance(x, n.Decide) and x.policy == "first" and len(x.inputs) == 1:
            out += _decide(x, key_range(x.inputs[0], tables), "decide")
    for c in rs.all(n.Check):
        dice = c.dice
        reach = (dice.count, dice.count * dice.sides) if isinstance(dice, n.DiceLit) else key_range(dice, tables)
        if len(c.decide.inputs) == 1:
            out += _decide(c.decide, reach, f'check "{c.name}"')
    return out


# ------------------------------------------------------------------ intervals of whole numbers


def _minus(have: list, cut: tuple) -> list:
    lo, hi = cut
    out = []
    for a, b in have:
        if b < lo or a > hi:
            out.append((a, b))
            continue
        if a < lo:
            out.append((a, lo - 1))
        if b > hi:
            out.append((hi + 1, b))
    return out


def _words(gaps: list) -> str:
    def one(a, b):
        if a == -INF and b == INF:
            return "every number"
        if a == -INF:
            return f"below {b + 1}"
        if b == INF:
            return f"above {a - 1}"
        return f"{a}" if a == b else f"{a} to {b}"
    return ", ".join(one(a, b) for a, b in gaps)


# ------------------------------------------------------------------ lookups


def _lookup(x: n.Index, t, tables) -> list[Diagnostic]:
    if t is None or t.dice is None or not t.rows:
        return []
    reach = key_range(x.key, tables)
    if reach is None:
        return []
    gaps = [reach]
    for row in t.rows:
        gaps = _minus(gaps, row[0])
    if not gaps:
        return []
    rows = f"{t.rows[0][0][0]} to {max(r[0][1] for r in t.rows)}"
    return [Diagnostic("E0238", f'this lookup can reach {_words(gaps)}, and table "{t.name}" has no row for it',
                       x.key.span, f'its key goes from {reach[0]} to {reach[1]}; the table\'s rows cover {rows}: '
                                   f"look it up with dice of the table ({t.dice.count}D{t.dice.sides}), or add rows")]


# ------------------------------------------------------------------ decision tables


def _number(node):
    r = key_range(node) if node is not None else None
    return r[0] if r is not None and r[0] == r[1] else None


def _covers(test: n.Test):
    """The intervals a test answers, or None when it is not about written whole numbers."""
    if test.kind == "any":
        return [(-INF, INF)]
    if test.kind == "range":
        lo, hi = _number(test.value), _number(test.high)
        return None if lo is None or hi is None else [(lo, hi)]
    v = _number(test.value)
    if v is None:
        return None
    if test.kind == "eq" or test.op == "==":
        return [(v, v)]
    return {"<": [(-INF, v - 1)], "<=": [(-INF, v)], ">": [(v + 1, INF)], ">=": [(v, INF)],
            "!=": [(-INF, v - 1), (v + 1, INF)]}.get(test.op)


def _decide(d: n.Decide, reach, what: str) -> list[Diagnostic]:
    gaps = [reach if reach is not None else (-INF, INF)]
    for row in d.rows:
        for test in row.tests[0]:
            covered = _covers(test)
            if covered is None:
                return []
            for cut in covered:
                gaps = _minus(gaps, cut)
    if not gaps:
        return []
    values = _words(gaps)
    if reach is None:
        return [Diagnostic("W0239", f"no row of this table answers {values}", d.span,
                           'if those can come, add a last row "| any | ... |" that says what they give; '
                           "the run stops at a value no row answers", "warning")]
    return [Diagnostic("E0239", f"no row of {what} answers {values}", d.span,
                       f"its input goes from {reach[0]} to {reach[1]}; add a row for them, or a last row "
                       '"| any | ... |"')]
