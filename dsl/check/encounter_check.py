"""The check of an encounter against the rules it names: its combatants (names, the
values their lines give, what they hold), the rolls it pins and its script's decisions.
Each function returns every diagnostic it finds and raises nothing; the interpreter
prepares only what passed.

What it needs of the rules comes as `Facts`, plain names and declarations, so the
same check serves a compiled program and anything else that knows them."""
from __future__ import annotations

from ..syntax import nodes as n
from ..syntax.constants import NotConstant, kind_of, plain, set_twice, setting_span
from ..diagnostics import Diagnostic, Span, did_you_mean
from .policy import check_policy
from ..records import dataclass, replace
from .sheets import unknown_sheet

# Lines a combatant may give besides its sheet's fields.
BUILTIN_FIELDS = ("side", "tactic", "sheet")


@dataclass(frozen=True)
class Facts:
    fields: dict            # name -> n.Field of the sheet
    tactics: tuple          # tactic names
    conditions: dict        # name -> tuple of its grade names, in order (empty: no grades)
    table_keys: dict        # table name -> the keys its rows are found by
    purposes: frozenset     # what rolls are made for
    actions: tuple = ()     # action names
    reactions: tuple = ()   # reaction names
    options: dict = None    # option name -> its value before the encounter sets it
    action_params: dict = None   # action name -> the names of the parameters a script gives values for
    combatant_params: dict = None    # action name -> for each of those, whether it is chosen among combatants
    sheets: dict = None     # sheet name -> its fields by name (`fields`: the first sheet's, the base)
    sheet: str | None = None    # the sheet `fields` are of, when a combatant names one


def check_names(enc: n.Encounter) -> list[Diagnostic]:
    """Two combatants of one name."""
    names = [c.name for c in enc.combatants]
    return [Diagnostic("E0202", f'two combatants are named "{c.name}"', c.span)
            for c in enc.combatants if names.count(c.name) > 1]


def setting_value(value):
    """An option's value as an encounter (or the command line) gives it: a plain constant, else
    what it holds (refused by kind)."""
    try:
        return plain(value)
    except NotConstant:
        return value.value if isinstance(value, n.Const) else value


def check_settings(settings, facts: Facts) -> list[Diagnostic]:
    """The options an encounter's `set` lines and the command line's `--set` give: options of these
    rules, each of its kind (the prelude's policy options by their contract, dsl/check/policy.py)."""
    out = []
    for name, value in settings:
        span = setting_span(value)
        if name not in facts.options:
            out.append(Diagnostic("E0201", f'there is no option "{name}"', span,
                                  did_you_mean(name, facts.options) or
                                  f"the options are: {', '.join(facts.options) or 'none'}"))
            continue
        v, default = setting_value(value), facts.options[name]
        policy = check_policy(name, v, span, facts.tactics)
        if policy is not None:
            out += policy
        elif type(v) is not type(default):
            out.append(Diagnostic("E0204", f'option "{name}" takes {kind_of(default)}, not {kind_of(v)}', span))
    return out


def check_encounter(enc: n.Encounter, facts: Facts, loaded: frozenset = frozenset()) -> list[Diagnostic]:
    """Every diagnostic of the encounter's combatants and pins, in the order of the text. `loaded`: the
    combatants a state file (--load-state) gives: their sheet comes from it (saved state wins), and a
    value the encounter gives one of them is refused unless written as a change ("change FUE 4")."""
    names = [c.name for c in enc.combatants]
    out = set_twice(enc.settings)
    for c in enc.combatants:
        out += _combatant(c, facts, c.name in loaded)
    for pin in enc.pins:
        out += _pin(pin, names, facts)
    return out


def _combatant(c: n.Combatant, facts: Facts, loaded: bool = False) -> list[Diagnostic]:
    out = []
    sheet = next(((v, sp) for k, v, sp in c.fields if k == "sheet"), None)
    if sheet is not None and facts.sheets is not None:
        if str(sheet[0]) not in facts.sheets:
            out.append(unknown_sheet(sheet[0], sheet[1], facts.sheets))
        else:
            facts = replace(facts, fields=facts.sheets[str(sheet[0])], sheet=str(sheet[0]))
    given = set()
    for name, value, span in c.fields:
        if name in given:
            out.append(Diagnostic("E0202", f'"{name}" is given twice for {c.name}', span))
            continue
        given.add(name)
        out += _line(name, value, span, facts)
        if loaded and name in facts.fields and name not in c.changes:
            at = Span(span.file, span.line, span.col, span.line, span.col + len(name))
            out.append(Diagnostic("E0808", f"{c.name}'s {name} comes from the loaded state; the encounter gives it "
                                           "too", at, f"to change the saved value on purpose, write the line as "
                                           f"\"change {name} ...\"; else remove it (saved state wins)"))
    missing = [] if loaded else [f.name for f in facts.fields.values() if f.default is None and f.name not in given]
    if missing:
        listed = ", ".join(f'"{m}"' for m in missing)
        out.append(Diagnostic("E0206", f"{c.name} needs a value for {listed}", c.span,
                              f"add {', '.join(f'{m} N' for m in missing)} to the combatant's lines"))
    for cond, grade, span in c.holds:
        out += _holds(cond, grade, span, facts)
    return out


def _line(name: str, value, span: Span, facts: Facts) -> list[Diagnostic]:
    """One line of a combatant: its tactic, its side, or a field of the sheet."""
    if name == "tactic":
        if value in facts.tactics:
            return []
        return [Diagnostic("E0201", f'there is no tactic "{value}"', span, did_you_mean(str(value), facts.tactics))]
    if name in ("side", "sheet"):
        return []
    f = facts.fields.get(name)
    if f is None:
        at = Span(span.file, span.line, span.col, span.line, span.col + len(name))
        whose = f'sheet "{facts.sheet}"' if facts.sheet else "the sheet"
        others = [s for s, fields in (facts.sheets or {}).items() if name in fields]
        help = (f'sheet "{others[0]}" has it: give the combatant the line "sheet {others[0]}"' if others
                else _fields_like(name, value, facts))
        return [Diagnostic("E0203", f'{whose} has no field "{name}"', at, help)]
    return check_value(f, value, span, facts)


def _fields_like(name: str, value, facts: Facts) -> str:
    """The help for a field the sheet lacks: the nearest name, and the sheet's fields that take the value
    given (a number or a percentage: its percentages, the skills, and its numbers), so a skill the edition
    does not have shows what it has."""
    from difflib import get_close_matches
    kinds = {bool: ("bool",), int: ("percent", "int"), str: ("text", "row"), list: ("list",)}.get(type(value), ())
    # The first kind the value fits that the sheet has (a number: its percentages, the skills, first).
    words, same = next(((KIND_WORDS[k], names) for k in kinds
                        for names in [[f.name for f in facts.fields.values() if f.type == k]] if names),
                       ("fields", []))
    near = did_you_mean(name, [f.name for f in facts.fields.values() if f.type in kinds])
    if near is None and same:
        close = get_close_matches(name.lower(), [f.lower() for f in same], n=1, cutoff=0.4)
        near = next((f'the nearest is "{f}"' for f in same if close and f.lower() == close[0]), None)
    if not same:
        near, same = did_you_mean(name, list(facts.fields) + list(BUILTIN_FIELDS)), list(facts.fields)
    listed = f"the sheet's {words}: {', '.join(same)}"
    return f"{near} ({listed})" if near else listed


KIND_WORDS = {"percent": "percentages", "int": "numbers", "bool": "yes/no fields", "text": "texts",
              "row": "rows of tables", "list": "lists"}


def _holds(cond: str, grade, span: Span, facts: Facts) -> list[Diagnostic]:
    grades = facts.conditions.get(cond)
    if grades is None:
        return [Diagnostic("E0201", f'there is no condition "{cond}"', span, did_you_mean(cond, facts.conditions))]
    if grades and grade is None:
        return [Diagnostic("E0204", f'condition "{cond}" has grades: say which', span,
                           f"for example: holds {cond} {grades[0]}")]
    if grades and grade not in grades:
        return [Diagnostic("E0201", f'condition "{cond}" has no grade "{grade}"', span,
                           did_you_mean(str(grade), grades) or f"its grades: {', '.join(grades)}")]
    if not grades and grade is not None:
        return [Diagnostic("E0204", f'"{cond}" has no grades', span)]
    return []


def _pin(pin: n.Pin, names: list, facts: Facts) -> list[Diagnostic]:
    """A pinned roll: [who] [purpose], each known."""
    out = []
    words = list(pin.words)
    if words and words[0] in names:
        words.pop(0)
    if words:
        purpose = words.pop(0)
        if purpose not in facts.purposes:
            out.append(Diagnostic("E0201", f'no roll of these rules is made for "{purpose}"', pin.span,
                                  did_you_mean(purpose, facts.purposes) or
                                  f"the purposes are: {', '.join(sorted(facts.purposes))}"))
    if words:
        out.append(Diagnostic("E0201", f'"{words[0]}" is not a combatant of this encounter', pin.span,
                              did_you_mean(words[0], names) or f"its combatants: {', '.join(names) or 'none'}"))
    return out


def check_value(f: n.Field, value, span: Span, facts: Facts) -> list[Diagnostic]:
    """A value given for a field of the sheet, against the field's kind."""
    kind = f.type
    if kind in ("int", "percent"):
        if type(value) is not int:
            return [Diagnostic("E0204", f'"{f.name}" is a number, not {kind_of(value)}', span)]
        lo, hi = (f.low, f.high) if kind == "int" else (0, 100)
        if lo is not None and not lo <= value <= hi:
            return [Diagnostic("E0204", f'{f.name} {value} is out of range', span,
                               f"{f.name} goes from {lo} to {hi}{'%' if kind == 'percent' else ''}")]
    elif kind == "bool" and type(value) is not bool:
        return [Diagnostic("E0204", f'"{f.name}" is true or false, not {kind_of(value)}', span)]
    elif kind == "text" and type(value) is not str:
        return [Diagnostic("E0204", f'"{f.name}" is a text', span)]
    elif kind == "list" and type(value) is not list:
        return [Diagnostic("E0204", f'"{f.name}" is a list, not {kind_of(value)}', span,
                           f"write it between brackets: {f.name} [{value}]")]
    elif kind != "list" and type(value) is list:
        return [Diagnostic("E0204", f'"{f.name}" is not a list', span)]
    elif kind == "row":
        keys = facts.table_keys.get(f.table)
        if keys is not None and value not in keys:
            return [Diagnostic("E0201", f'there is no "{value}" in table "{f.table}"', span,
                               did_you_mean(str(value), [str(k) for k in keys]))]
    return []


# ------------------------------------------------------------------ the script's decisions

# Scripted choices of a fixed number of values, and why the rules never refuse some of them.
VALUES = {"pass": 0, "none": 0, "choose": 1}
NEVER_REFUSED = {"pass": "doing nothing when asked to act", "none": "not reacting to an event"}


def decision_kind(word: str, facts: Facts) -> str | None:
    """What a scripted choice answers: an action (or pass), a reaction (or none), a choose question."""
    if word == "pass" or word in facts.actions:
        return "action"
    if word == "choose":
        return "choose"
    if word == "none" or word in facts.reactions:
        return "reaction"
    return None


def check_script(enc: n.Encounter, facts: Facts) -> list[Diagnostic]:
    """Every scripted decision: a combatant of the encounter, choices the rules know, of the right shape."""
    names = [c.name for c in enc.combatants]
    out = []
    for _rnd, decisions in enc.script:
        for d in decisions:
            if d.who not in names:
                out.append(Diagnostic("E0201", f'"{d.who}" is not a combatant of this encounter', d.span,
                                      did_you_mean(d.who, names) or f"its combatants: {', '.join(names) or 'none'}"))
                continue
            for words, span, refused in d.choices:
                out += _choice_shape(words, span, refused)
                if decision_kind(words[0], facts) is None:
                    out.append(Diagnostic("E0201", f'there is no action or reaction "{words[0]}"', span,
                                          did_you_mean(words[0], facts.actions + facts.reactions) or
                                          "a choice is an action, a reaction, pass, none, or choose and a value"))
                else:
                    out += _action_arity(words, span, facts) + _near_combatants(words[1:], span, names)
                    out += _not_combatants(words, span, names, facts)
    return out


def offers_combatants(x, rules: dict, depth: int = 0) -> bool:
    """Whether the list an action's parameter is chosen from holds only combatants, as the text shows:
    combatants(), a comprehension that keeps the items of such a list, or a rule every `return` of which
    gives one (enemies(c), others(c) over it)."""
    from .names import walk
    if isinstance(x, n.Comprehension):
        return isinstance(x.elt, n.Name) and x.elt.id == x.var and offers_combatants(x.iter, rules, depth)
    if not isinstance(x, n.Call) or not isinstance(x.func, n.Name):
        return False
    rule = rules.get(x.func.id)
    if rule is None:
        return x.func.id == "combatants"
    if depth > 8:
        return False
    returns = [r.value for r in walk(rule.body) if isinstance(r, n.Return)]
    return bool(returns) and all(v is not None and offers_combatants(v, rules, depth + 1) for v in returns)


def combatant_choices(rs) -> dict:
    """Action name -> for each parameter after the first, whether it is chosen among combatants."""
    rules = rs.space("rule")
    return {a.name: tuple(p.domain is not None and offers_combatants(p.domain, rules) for p in a.params[1:])
            for a in rs.all(n.Action)}


def _not_combatants(words, span: Span, names: list, facts: Facts) -> list[Diagnostic]:
    """E0326: a scripted value for a parameter chosen among combatants that names none of the encounter's
    (the rules can never offer it; a near spelling is reported by _near_combatants)."""
    flags = (facts.combatant_params or {}).get(words[0], ())
    out = []
    for word, among in zip(words[1:], flags):
        if among and word not in names and not did_you_mean(word, names):
            out.append(Diagnostic("E0326", f'"{word}" is not a combatant of this encounter', span,
                                  f'"{words[0]}" chooses it among combatants: {", ".join(names)}'))
    return out


def _action_arity(words, span: Span, facts: Facts) -> list[Diagnostic]:
    """E0504 before the run: a scripted action given more or fewer values than it has parameters to choose
    (the run stopped at that round with the same words)."""
    params = (facts.action_params or {}).get(words[0])
    if params is None or len(words) - 1 == len(params) or words[0] in facts.reactions:   # a reaction of that name
        return []
    return [Diagnostic("E0504", f'"{words[0]}" takes {len(params)} choice{"s" if len(params) != 1 else ""} '
                                f"after it, not {len(words) - 1}", span,
                       f"its parameters: {', '.join(params) or 'none'}")]


def _near_combatants(values, span: Span, names: list) -> list[Diagnostic]:
    """E0326: a value of a scripted choice spelled like a combatant of the encounter but none of them
    (`atacar Bandid`): no rule can offer it, and the run would stop at this round."""
    out = []
    for word in values:
        if word in names or not isinstance(word, str):
            continue
        near = did_you_mean(word, names)
        if near:
            out.append(Diagnostic("E0326", f'"{word}" is not a combatant of this encounter', span,
                                  f"{near} (its combatants: {', '.join(names)})"))
    return out


def _choice_shape(words, span, refused) -> list[Diagnostic]:
    """What a scripted choice gets wrong before any rule runs: values where none go, or a
    refusal expected of a decision the rules always allow."""
    out = []
    want = VALUES.get(words[0])
    if want is not None and len(words) - 1 != want:
        out.append(Diagnostic("E0504", f'"{words[0]}" takes {want or "no"} value{"s" if want != 1 else ""} '
                                       f'after it, not {len(words) - 1}', span,
                              'write one value as the rules show it: choose Beto, choose "Cota de malla", choose 2'
                              if want else f'"{words[0]}" alone is the whole choice'))
    if refused is not None and words[0] in NEVER_REFUSED:
        out.append(Diagnostic("E0602", f'the rules never refuse "{words[0]}", so this expectation cannot hold',
                              span, f"{NEVER_REFUSED[words[0]]} is always allowed: remove "
                                    f'"refused", or expect the refusal of the choice the rules may refuse'))
    return out
