"""The check stage: what the grammar cannot reject and the compiler does not
look at. Tables whose rows clash or leave rolls uncovered, data that names
what does not exist, defaults that are not plain values.

`check_ruleset` returns every diagnostic it finds; it raises nothing.
"""
from __future__ import annotations

from . import kinds as K
from ..syntax import nodes as n
from ..syntax.constants import NotConstant, constant, kind_of, plain
from ..diagnostics import Diagnostic, GrimorioError, did_you_mean
from .format_kinds import check_formats
from .agreement import check_agreement
from .names import Resolver, Scope
from .policy import check_policy
from .resolver import resolve_ruleset
from .coverage import coverage
from .shadowing import dice_names
from .sheets import all_fields, check_sheets, sheet_texts
from .builtin_values import check_table_key
from .purity import say_arguments


def check_ruleset(rs) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    tables = {t.name: t for t in rs.all(n.Table)}
    for t in tables.values():
        out += _columns(t.name, t.columns, t.header_spans, "table")
        out += _dice_rows(t) if t.dice is not None else _keys(t)
    for c in rs.all(n.Condition):
        out += _condition(c)
    out += _sheets(rs.all(n.Sheet), tables) + sheet_texts(rs)
    fields = all_fields(rs.all(n.Sheet))
    for d in rs.all(n.Action) + rs.all(n.Reaction):
        for (name, _), sp in zip(d.costs, d.cost_spans):
            if name not in fields:
                out.append(Diagnostic("E0203", f'the sheet has no field "{name}"', sp,
                                      did_you_mean(name, fields) or "a cost is paid from a field of the sheet"))
    out += _outcomes(rs.all(n.Outcomes))
    out += _options(rs)
    out += _parameters(rs)
    out += _shapes(rs)
    out += _doings(rs)
    out += _tactics(rs)
    out += _tallies(rs)
    out += _cells(rs) + _changed_cells(rs)
    out += check_formats(rs)
    out += check_agreement(rs)
    out += dice_names(rs)
    out += say_arguments(rs)
    out += [d for d in coverage(rs) if d.severity != "warning"]
    out += resolve_ruleset(rs)
    return out


def _doings(rs) -> list[Diagnostic]:
    """Actions and reactions: who acts, what each further parameter is chosen from, which event and who reacts."""
    out = []
    for d in rs.all(n.Action):
        if not d.params:
            out.append(Diagnostic("E0206", f'action "{d.name}" needs a first parameter: who acts', d.span))
        for p in d.params[1:]:
            if p.domain is None:
                out.append(Diagnostic("E0206", f'parameter "{p.name}" needs a list to choose from, as "{p.name} in '
                                               'enemies(...)"', p.span,
                                      "a controller chooses each parameter after the first from its list"))
    events = rs.space("event")
    for d in rs.all(n.Reaction):
        if len(d.params) != 2:
            out.append(Diagnostic("E0206", f'reaction "{d.name}" takes two parameters: who reacts, and the event', d.span))
        if d.event not in events:
            out.append(Diagnostic("E0201", f'there is no event "{d.event}"', d.span, did_you_mean(d.event, events)))
        elif d.by is None:
            fields = events[d.event].fields
            out.append(Diagnostic("E0206", f'reaction "{d.name}" needs a "by" line naming who reacts', d.span,
                                  f"for example: by {d.params[1].name if len(d.params) > 1 else 'e'}."
                                  f"{fields[0][0] if fields else 'FIELD'}"))
    return out


def _tactics(rs) -> list[Diagnostic]:
    """A tactic's preferences name actions and reactions that exist, reactions to the event they answer,
    and give values only to parameters after the first."""
    out = []
    actions, reactions, events = rs.space("action"), rs.space("reaction"), rs.space("event")
    for t in rs.all(n.Tactic):
        prefs = [(p, actions, "action", None) for p in t.act]
        for event, said in t.react:
            if event not in events:
                out.append(Diagnostic("E0201", f'there is no event "{event}"', t.span, did_you_mean(event, events)))
            prefs += [(p, reactions, "reaction", event) for p in said]
        for p, space, what, event in prefs:
            target = space.get(p.name)
            if target is None:
                out.append(Diagnostic("E0201", f'there is no {what} "{p.name}"', p.span, did_you_mean(p.name, space)))
                continue
            if event is not None and target.event != event:
                out.append(Diagnostic("E0204", f'reaction "{p.name}" answers "{target.event}", not "{event}"', p.span))
            names = [x.name for x in target.params]
            for a in p.args:
                if a.name is None or a.name not in names[1:]:
                    out.append(Diagnostic("E0206", f'name the parameter this value is for: one of '
                                                   f'{", ".join(names[1:])}', a.span))
    return out


def _tallies(rs) -> list[Diagnostic]:
    """A tally gives a number, or true or false (`stands` and a `draw`: true or false)."""
    out, names = [], Resolver(rs)
    for d in rs.all(n.Tally):
        scope = Scope({d.param} if d.param else set())
        k = K.kind(d.value, lambda name, node=None, scope=scope: names.resolve(name, scope))
        allowed = (K.BOOL,) if isinstance(d, (n.Stands, n.Draw)) else (K.NUMBER, K.BOOL)
        if k is not None and k not in allowed:
            out.append(Diagnostic("E0030", f'"{d.name}" must give {", or ".join(allowed)}, not {k}', d.value.span,
                                  "a tally is summed over many runs: give it a number (len(...) counts a list), "
                                  "or true or false"))
    return out


class _DiceShape:
    """Stands for dice while a cell is worked out: dice add and subtract with dice and whole numbers."""

    def _join(self, other):
        return self if isinstance(other, _DiceShape) or type(other) is int else NotImplemented

    __add__ = __radd__ = __sub__ = __rsub__ = _join

    def __neg__(self):
        return self


def _cells(rs) -> list[Diagnostic]:
    """Table cells and condition columns are plain values (numbers, dice, texts, outcomes, lists of them)."""
    outcomes = {v for d in rs.all(n.Outcomes) for v in d.values}

    def outcome(name):
        if name not in outcomes:
            raise NotConstant
        return name

    makers = {"scale": lambda v: v, "dice": lambda count, sides: _DiceShape(), "name": outcome}
    cells = [c for t in rs.all(n.Table) for row in t.rows for c in (row[1:] if t.dice is not None else row)]
    cells += [c for d in rs.all(n.Condition) for _g, row in d.rows for c in row if c is not None]
    out = []
    for cell in cells:
        try:
            constant(cell, makers)
        except NotConstant:
            out.append(Diagnostic("E0204", "a table cell must be a plain value (a number, dice, a name, a list)",
                                  cell.span, "write rules in a rule, not in a table cell"))
    return out


def _changed_cells(rs) -> list[Diagnostic]:
    """E0237: a cell a layer changed (`change TABLE[KEY].COLUMN = VALUE`) that is surely of another kind
    than the rest of its column (a text where every other row holds a number or dice): the rules that
    read the column would fail in the edition's files, not at the change. The last change of a cell
    is the one it holds."""
    from ..editions.layers import row_index
    out, seen = [], set()
    for change in reversed(rs.changes):
        if change.cell is None or (change.name, change.cell[:2]) in seen:
            continue
        seen.add((change.name, change.cell[:2]))
        column, key, span = change.cell
        d = rs.space("value").get(change.name)
        if not isinstance(d, (n.Table, n.Condition)) or column not in d.columns:
            continue                        # removed or replaced since
        col = d.columns.index(column)
        if isinstance(d, n.Condition):
            rows = {g: cells for g, cells in d.rows}
            if key not in rows:
                continue
            value, others = rows[key][col], [cells for g, cells in d.rows if g != key]
        else:
            if col == 0 and d.dice is not None:
                continue                    # a roll's range: the builder read it as one
            i = row_index(d, key)
            if i is None:
                continue
            value, others = d.rows[i][col], d.rows[:i] + d.rows[i + 1:]
        misfit = K.cell_misfit(others, col, value)
        if misfit is not None:
            want, got = misfit
            quoted = isinstance(value, n.Const) and isinstance(value.value, str)
            out.append(Diagnostic(
                "E0237", f'column "{column}" of {"condition" if isinstance(d, n.Condition) else "table"} '
                         f'"{d.name}" holds {want}, not {got}', span,
                ("a word or a quoted text in a cell is a text: " if quoted else "") +
                f"write {_EXAMPLES.get(want, want)}, as its other rows do"))
    return out[::-1]


_EXAMPLES = {"a number": "a number in digits, without quotes (2)", "a fraction": "a number or a scale (x2, /2)",
             "dice": "dice without quotes (2D6+1)"}


def standalone(rs) -> list[Diagnostic]:
    """An edition checked on its own (grimorio check) that extends none must hold what every
    run needs: a sheet (and a round, unless its encounters are do: blocks). Forgetting
    "extends" is caught here rather than by every encounter run on it."""
    if rs.edition.extends or rs.all(n.Sheet):
        return []
    lacks = "no sheet" + ("" if rs.all(n.Round) else " and no round")
    return [Diagnostic("E0311", f'edition "{rs.edition.name}" extends no edition and has {lacks}', rs.edition.span,
                       'did you mean to write "extends" and the edition these rules change? '
                       "An edition of its own declares a sheet of what each combatant has")]


# Every combatant has these, set by the encounter; a sheet field cannot take their names.
RESERVED_FIELDS = ("name", "side", "tactic")


def _no_lists(params) -> list[Diagnostic]:
    return [Diagnostic("E0204", f'"{p.name} in ..." gives a list to choose from; only an action\'s parameters '
                                "are chosen", p.span, f'write just "{p.name}"') for p in params if p.domain is not None]


def _shapes(rs) -> list[Diagnostic]:
    """Declarations whose shape the runtime relies on."""
    out = []
    for s in rs.all(n.Sheet):
        for f in s.fields:
            if f.name in RESERVED_FIELDS:
                out.append(Diagnostic("E0202", f'"{f.name}" is a field every combatant already has', f.span,
                                      f"the encounter sets {', '.join(RESERVED_FIELDS)}; give this field another name"))
    rounds = rs.all(n.Round)
    for extra in rounds[1:]:
        out.append(Diagnostic("E0202", f'round "{extra.name}" is a second round procedure', extra.span,
                              f'an edition runs one round procedure: add its steps to "{rounds[0].name}"'))
    for kind in (n.Rule, n.Message, n.Check, n.Reaction):
        for d in rs.all(kind):
            out += _no_lists(d.params)
    for c in rs.all(n.Condition):
        out += _no_lists(c.on_receive[0] if c.on_receive else ())
        if c.on_receive is not None and len(c.on_receive[0]) != 2:
            out.append(Diagnostic("E0206", f'"on receive" of "{c.name}" takes two parameters: who receives, and the '
                                           "grade", c.span, "for example: on receive(c, grado):"))
    for t in rs.all(n.Tactic):
        seen = set()
        for event, prefs in t.react:
            if event in seen:
                out.append(Diagnostic("E0202", f'tactic "{t.name}" says twice how to react to "{event}"',
                                      prefs[0].span if prefs else t.span, "merge the two lines into one"))
            seen.add(event)
    return out


def _parameters(rs) -> list[Diagnostic]:
    """Names given twice in one declaration's parameters (or a check's result, or an event's fields)."""
    out = []
    for kind in (n.Rule, n.Action, n.Reaction, n.Message, n.Check, n.Event, n.Condition):
        for d in rs.all(kind):
            if isinstance(d, n.Event):
                named = [(f, d.span) for f, _ in d.fields]
            elif isinstance(d, n.Condition):
                named = [(p.name, p.span) for p in d.on_receive[0]] if d.on_receive else []
            else:
                named = [(p.name, p.span) for p in d.params]
            if isinstance(d, n.Check):
                named += [(d.roll_name, d.span), (d.decide.output, d.decide.span)]
            seen = set()
            for name, sp in named:
                if name in seen:
                    out.append(Diagnostic("E0202", f'"{name}" is named twice in "{d.name}"', sp,
                                          "give each parameter, field or result its own name"))
                seen.add(name)
    return out


def _rolls(lo: int, hi: int) -> str:
    return f"roll {lo}" if lo == hi else f"rolls {lo}-{hi}"


def _dice_rows(t: n.Table) -> list[Diagnostic]:
    count, sides = t.dice.count, t.dice.sides
    low, high = count, count * sides
    dice = f"{'' if count == 1 else count}d{sides}"
    out, ranges = [], []
    for row, sp in zip(t.rows, t.row_spans):
        lo, hi = row[0]
        if lo > hi:
            out.append(Diagnostic("E0205", f"the range {lo}-{hi} runs backwards", sp,
                                  f"write it low to high: {hi}-{lo}"))
            continue
        if lo < low or hi > high:
            bad = (lo, min(hi, low - 1)) if lo < low else (max(lo, high + 1), hi)
            out.append(Diagnostic("E0205", f"{_rolls(*bad)} cannot come from {dice}", sp,
                                  f"{dice} rolls {low} to {high}"))
        lo, hi = max(lo, low), min(hi, high)
        if lo <= hi:
            ranges.append((lo, hi, sp))
    covered, last = low - 1, None           # highest roll covered so far, and the row that covers it
    for lo, hi, sp in sorted(ranges, key=lambda r: (r[0], r[1])):
        if lo <= covered:
            both = _rolls(lo, min(hi, covered))
            verb = "is" if both.startswith("roll ") else "are"
            out.append(Diagnostic("E0205", f'{both} of table "{t.name}" {verb} in two rows', sp,
                                  f"the row at line {last.line} covers {both} too; give each roll one row"))
        elif lo > covered + 1:
            out.append(Diagnostic("E0205", f"no row of table \"{t.name}\" covers {_rolls(covered + 1, lo - 1)}", sp,
                                  f"add a row for {covered + 1}" + (f"-{lo - 1}" if lo - 1 > covered + 1 else "")
                                  + " before this one, or widen a neighbouring range"))
        if hi > covered:
            covered, last = hi, sp
    if covered < high:
        at = last or (t.row_spans[-1] if t.row_spans else t.span)
        out.append(Diagnostic("E0205", f"no row of table \"{t.name}\" covers {_rolls(covered + 1, high)}", at,
                              f"{dice} rolls {low} to {high}: add a row for "
                              f"{covered + 1}{'' if covered + 1 == high else f'-{high}'}"))
    return out


def _keys(t: n.Table) -> list[Diagnostic]:
    out, seen = [], {}
    for row, sp in zip(t.rows, t.row_spans):
        key = row[0]
        if isinstance(key, n.ListExp) or isinstance(key, n.Const) and key.value is None:
            out.append(Diagnostic("E0204", f'each row of table "{t.name}" needs one key in its first column', sp,
                                  f'"{t.columns[0]}" names the row: write one name or number, not a list or "-"'))
            continue
        ident = (type(key.value), key.value) if isinstance(key, n.Const) else key
        if ident in seen:
            out.append(Diagnostic("E0202", f'table "{t.name}" has two rows for "{_text(key)}"', sp,
                                  f"the first is at line {seen[ident].line}; each row needs its own "
                                  f'"{t.columns[0]}"'))
        else:
            seen[ident] = sp
    return out


def _text(node) -> str:
    if isinstance(node, n.Const):
        return str(node.value)
    if isinstance(node, n.ListExp):
        return ", ".join(_text(x) for x in node.items)
    return "this key"


def _columns(owner: str, columns, spans, what: str) -> list[Diagnostic]:
    out, seen = [], {}
    for name, sp in zip(columns, spans):
        if name in seen:
            out.append(Diagnostic("E0202", f'{what} "{owner}" has two columns named "{name}"', sp,
                                  f"the first is column {seen[name]}; rename one of them"))
        else:
            seen[name] = len(seen) + 1
    return out


def _condition(c: n.Condition) -> list[Diagnostic]:
    out = []
    for i, g in enumerate(c.grades):
        if g in c.grades[:i]:
            out.append(Diagnostic("E0202", f'condition "{c.name}" lists grade "{g}" twice', c.span,
                                  "each grade appears once in the order of severity"))
    if not c.header_spans:
        return out
    out += _columns(c.name, ("",) + c.columns, c.header_spans, "the table of condition")
    if not c.grades:
        return out + _state_row(c)
    seen = {}
    for (grade, _), sp in zip(c.rows, c.row_spans):
        if grade not in c.grades:
            out.append(Diagnostic("E0201", f'condition "{c.name}" has no grade "{grade}"', sp,
                                  did_you_mean(grade, c.grades) or
                                  (f"its grades are {', '.join(c.grades)}" if c.grades else
                                   f"declare its grades: condition {c.name} grades {grade} < ...")))
        elif grade in seen:
            out.append(Diagnostic("E0202", f'grade "{grade}" has two rows', sp,
                                  f"the first is at line {seen[grade].line}; keep one"))
        else:
            seen[grade] = sp
    for g in c.grades:
        if g not in seen:
            out.append(Diagnostic("E0206", f'the table of condition "{c.name}" has no row for grade "{g}"',
                                  c.header_spans[0], f'add a row "| {g} | ... |"; write "-" in cells it does not use'))
    return out


def _state_row(c: n.Condition) -> list[Diagnostic]:
    """A state's table: one row, named after the state, its data read as `STATE.column`."""
    out = []
    for i, ((name, _), sp) in enumerate(zip(c.rows, c.row_spans)):
        if name != c.name:
            out.append(Diagnostic("E0201", f'the row of state "{c.name}" names "{name}"', sp,
                                  f'a state without grades has one row, named after it: "| {c.name} | ... |"'))
        elif i > 0:
            out.append(Diagnostic("E0202", f'state "{c.name}" has two rows', sp,
                                  "a state without grades has one row of data; keep one"))
    return out


def _sheets(sheets, tables) -> list[Diagnostic]:
    out = check_sheets(sheets)
    for s in sheets:
        seen = {}
        for f in s.fields:
            if f.name in seen:
                out.append(Diagnostic("E0202", f'the sheet has two fields named "{f.name}"', f.span,
                                      f"the first is at line {seen[f.name].line}; rename one of them"))
            seen.setdefault(f.name, f.span)
            if f.type == "row" and f.table not in tables:
                out.append(Diagnostic("E0201", f'there is no table "{f.table}"', f.type_span or f.span,
                                      did_you_mean(f.table, tables) or _types_help(tables)))
            elif f.type == "row" and tables[f.table].dice is not None:
                out.append(Diagnostic("E0204", f'"{f.table}" is a dice table: a field cannot hold one of its rows',
                                      f.type_span or f.span, "name a catalogue table, keyed by its first column"))
            elif f.type == "row" and f.default is not None:
                out += _caught(check_table_key, tables[f.table], f.default)     # a default naming no row
    return out


def _caught(check, *args) -> list[Diagnostic]:
    try:
        check(*args)
    except GrimorioError as e:
        return list(e.diagnostics)
    return []


def _types_help(tables) -> str:
    names = ", ".join(sorted(tables)) or "none yet"
    return f"a field's type is int, percent, bool, text, list or a table name (the tables are: {names})"


def _outcomes(decls) -> list[Diagnostic]:
    out, seen = [], {}
    for d in decls:
        spans = d.value_spans or (d.span,) * len(d.values)
        for v, sp in zip(d.values, spans):
            first = seen.get(v)
            if first is None:
                seen[v] = (d.name, sp)
            elif first[0] == d.name:
                out.append(Diagnostic("E0202", f'outcome "{v}" is listed twice in "{d.name}"', sp,
                                      "each outcome appears once, from worst to best"))
            else:
                out.append(Diagnostic("E0202", f'"{v}" is already an outcome of "{first[0]}"', sp,
                                      f"it is at line {first[1].line}; "
                                      "outcomes of different lists need different names"))
    return out


PLAIN = "an option holds a number, a percentage, true or false, or a quoted text"


def _options(rs) -> list[Diagnostic]:
    out, defaults = [], {}
    tactics = list(rs.space("tactic"))
    for o in rs.all(n.Option):
        try:
            defaults[o.name] = plain(o.default)
        except NotConstant:
            out.append(Diagnostic("E0204", f'the default of option "{o.name}" must be a plain value', o.default.span,
                                  PLAIN + "; compute with it in the rules"))
            continue
        out += check_policy(o.name, defaults[o.name], o.default.span, tactics) or []
    for name, value in rs.edition.settings:
        span = value.span if value.span.line else rs.edition.span
        if name not in {o.name for o in rs.all(n.Option)}:
            out.append(Diagnostic("E0201", f'there is no option "{name}"', span,
                                  did_you_mean(name, defaults) or "declare it with: option NAME = VALUE"))
            continue
        try:
            v = plain(value)
        except NotConstant:
            out.append(Diagnostic("E0204", f'option "{name}" must be set to a plain value', span, PLAIN))
            continue
        policy = check_policy(name, v, span, tactics)
        if policy is not None:
            out += policy
        elif name in defaults and type(v) is not type(defaults[name]):
            out.append(Diagnostic("E0204", f'option "{name}" takes {kind_of(defaults[name])}, not {kind_of(v)}', span))
    return out
