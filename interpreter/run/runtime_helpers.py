"""Small helpers the generated code calls. Kept apart so the generated module
has no access to anything else (rules are hermetic)."""
from __future__ import annotations

from .values import Combatant, ConditionType, Grade, Ranked, Struct, is_none, kind, mangle, member, same, show, unmangle  # (used by generated code)
from .refusals import EMIT_DEPTH, STEP_BUDGET, Budget, RuleFailure, StopRun  # noqa: F401 - (used by generated code)


# What a combatant holds besides its cards and its sheet's fields, in the order a sheet's fill_sheet
# sets them (compile/compiler.py: sheet_init) from the values run/encounter.py gives it.
COMBATANT_HEAD = ("a_name", "side_", "tactic", "acts", "reacts", "a_sheet")


def counted(engine, items):
    """The list a for or a comprehension walks, its length paid from the step budget first."""
    if items.__class__ is list:
        steps = engine.steps = engine.steps + len(items)
        if steps <= engine.budget:
            return items
        raise Budget(engine.budget)
    raise RuleFailure("only a list can be walked, not {0} (" + kind(items) + ")",
                      "for and comprehensions walk lists: [x for x in LIST]", "E0204", (items,))


def paid(engine, items: list) -> list:
    """H.counted of a list the compiler knows is one (a builtin that always answers a list)."""
    steps = engine.steps = engine.steps + len(items)
    if steps <= engine.budget:
        return items
    raise Budget(engine.budget)


from .maps import Map, keep  # noqa: E402,F401 - (keep: used by generated code: set m[k] = v)


def searched(engine, items):
    """The items a search (first, any, all) walks, one step of the budget each as it reaches it: a
    search that stops at its third item pays three, however long the list."""
    if type(items) is not list:
        raise RuleFailure("only a list can be searched, not {0} (" + kind(items) + ")",
                          "a search walks a list: first x in LIST where COND (any, all alike)", "E0204", (items,))
    budget = engine.budget
    for item in items:
        engine.steps += 1
        if engine.steps > budget:
            raise Budget(budget)
        yield item


def found(item, otherwise):
    """A `first` search's answer: the item it found, else the value of its `else` (worked out only then)."""
    return otherwise() if item is _MISSING else item


_MISSING = object()      # what a `first` search's walk gives when no item matched
MISSING = _MISSING
# The generated module sees no Python builtins but those the compiler gives it: the searches' own.
search_any, search_all, search_first = any, all, next


from .values import ORDER_HELP  # noqa: E402,F401 - (used by the engine)


def reactors(whos):
    """Who may react, without repeats, in order; none is nobody."""
    out = []
    for w in whos:
        if w is not None and w not in out:
            out.append(w)
    return out


def first_reaction(engine, _who, options, _event):
    """A reactor's choice where its tactic prefers nothing for the event: as the prelude's
    option says, the first reaction allowed (or none)."""
    return options[0] if engine.opt["first_reaction"] else None


def not_a_condition(value) -> RuleFailure:
    """What a builtin that asks for a condition says of anything else; a grade, which names its condition."""
    if isinstance(value, Ranked) and isinstance(getattr(value, "condition", None), str):
        return RuleFailure("{0} is a grade of " + value.condition + ", and a condition is asked here",
                           "give the condition itself: " + value.condition + " (not " + value.condition + ".{0})",
                           "E0204", (value,))
    return RuleFailure("a condition is asked here, not {0} (" + kind(value) + ")",
                       "name a condition of these rules, or a value that holds one", "E0204", (value,))


# Where a none a rule did not expect usually comes from.
NONE_HELP = ("none is what first() and choose() give for an empty list (first([x for x in enemies(me) "
             "if in_play(x)]) when no one is left), and what a field or var holds before it is set: "
             "test it first, as in if x != none:")


def not_a_combatant(value) -> RuleFailure:
    """What a card builtin or statement says of a value that is no combatant: of none, where it comes from."""
    if value is None:
        return RuleFailure("this value is none, not a combatant", NONE_HELP, "E0204", ())
    return RuleFailure("{0} is not a combatant (" + kind(value) + ")",
                       "conditions, sides and tactics belong to combatants", "E0204", (value,))


def not_a_question(who, items) -> RuleFailure:
    """choose(who, items) given no combatant first, or no list second."""
    if not isinstance(who, Combatant):
        return RuleFailure("choose()'s first argument must be a combatant, not {0} (" + kind(who) + ")",
                           "choose(COMBATANT, LIST): the combatant whose controller picks one item of the list",
                           "E0204", (who,))
    return RuleFailure("choose()'s second argument must be a list to choose from, not {0} (" + kind(items) + ")",
                       "choose(COMBATANT, LIST): the combatant whose controller picks one item of the list",
                       "E0204", (items,))


def eq(value, test):
    """A decision-table cell: membership when the input is a list; else the language's `==`."""
    if type(value) is list:
        return member(test, value)
    return same(value, test)


FIELDED = (Combatant, Struct)


def index(obj, key):
    """obj[key]: a field named by a text of a combatant or record, or a table's row."""
    if obj.__class__ is list:                   # the usual cases first: a list's item, a map's value
        return item(obj, key)
    if obj.__class__ is Map:
        return obj.lookup(key)
    if isinstance(key, str) and isinstance(obj, (Combatant, Struct)):
        try:
            return getattr(obj, mangle(key))
        except AttributeError:
            raise RuleFailure("{0} has no field {1}", "check the spelling against the sheet or the table's columns",
                              "E0203", (obj, key)) from None
    if isinstance(key, str) and isinstance(obj, (Grade, ConditionType)):
        return grade_column(obj, key)
    lookup = getattr(obj, "lookup", None)
    if lookup is not None:
        return lookup(key)
    if isinstance(obj, list):
        return item(obj, key)
    raise RuleFailure("{0} cannot be looked up by {1}", "a list is looked up by a position from 1, a table by a key, "
                      "a combatant, a record or a grade by the name of a field or column", "E0501", (obj, key))


def grade_column(grade, column: str):
    """g["column"]: a column of a grade's row in its condition's table (or of a state's row), named by a text."""
    data = grade.data
    if mangle(column) in data:
        return data[mangle(column)]
    raise RuleFailure("{0} has no column {1}", "its condition's table has the columns: " +
                      (", ".join(map(unmangle, data)) or "none (the condition has no table)"), "E0203",
                      (grade, column))


def card_condition(value, receive_with_data: bool = False) -> ConditionType:
    """The condition a card statement names through a local (`remove c cond`): a condition, or a refusal;
    data given to `receive` only for one that does not decide what it adds (E0233, as where it is written)."""
    if not isinstance(value, ConditionType):
        raise not_a_condition(value)
    if receive_with_data and value.on_receive is not None:
        raise RuleFailure(f'"{value.name}" decides what it adds on receive: data cannot be given here',
                          'give the data to its "on receive" as an argument, or use add', "E0233", ())
    return value


def card_grade(condition: ConditionType, grade, op: str):
    """The grade a card statement gives a condition held in a local: as a written condition would take it."""
    if grade is None:
        if condition.grades and op != "remove":
            raise RuleFailure(f'condition "{condition.name}" has grades: say which',
                              f"one of {', '.join(g.name for g in condition.grades)}", "E0204", ())
        return None
    if not condition.grades:
        raise RuleFailure(f'"{condition.name}" is a state without grades: {{0}} is none of its grades',
                          f"{op} it without a grade", "E0204", (grade,))
    return regrade(condition, grade)


def asked_grade(condition: ConditionType, grade, what: str):
    """The grade a builtin asks about (has(c, COND, GRADE)): what a card statement takes, a grade or a
    grade's name as a text; anything else is refused, never quietly false."""
    if not isinstance(grade, Grade) and type(grade) is not str:
        raise RuleFailure(what + " takes a grade, not {0} (" + kind(grade) + ")",
                          "a grade (CONDITION.GRADE, or a value that holds one), or a grade's name as a text",
                          "E0204", (grade,))
    if not condition.grades:
        raise RuleFailure(f'"{condition.name}" is a state without grades: {{0}} is none of its grades',
                          f"ask {what} without a grade", "E0204", (grade,))
    return regrade(condition, grade)


def regrade(condition: ConditionType, grade):
    """The grade of `condition` with the same name as `grade` (of any condition)."""
    if grade is None:
        return None
    g = condition.by_name.get(getattr(grade, "name", grade))
    if g is None:
        raise RuleFailure(f'condition "{condition.name}" has no grade {{0}}',
                          f"its grades: {', '.join(g.name for g in condition.grades)}", "E0501",
                          (getattr(grade, "name", grade),))
    return g


# Generic builtins (dice from numbers, keeping dice, lists), reached as H.name.
from .generic import dice_, item, keep_highest, keep_lowest, range_, slice_, without  # noqa: E402,F401
from .generic import dice_count, dice_faces, dice_modifier, dice_times, repeated, rows  # noqa: E402,F401
