"""Small helpers the generated code calls. Kept apart so the generated module
has no access to anything else (rules are hermetic)."""
from __future__ import annotations

from .values import Combatant, ConditionType, Ranked, Struct, is_none, mangle, member, same, show  # noqa: F401 - used by generated code


class RuleFailure(Exception):
    """A rule did something the language forbids; located by the engine."""

    def __init__(self, message, help=None, code="E0501"):
        super().__init__(message)
        self.message, self.help, self.code = message, help, code


EMIT_DEPTH = 16
STEP_BUDGET = 1_000_000


class Budget(Exception):
    """A loop or a cascade of events ran past its budget."""


def counted(engine, items):
    """The list a for or a comprehension walks, its length paid from the step budget first."""
    if type(items) is list:
        steps = engine.steps = engine.steps + len(items)
        if steps <= engine.budget:
            return items
        raise Budget(engine.budget)
    raise RuleFailure(f"only a list can be walked, not {show(items)}",
                      "for and comprehensions walk lists: [x for x in LIST]", "E0204")


def cannot_order(value, named):
    raise RuleFailure(f"{show(value)} and {show(named)} cannot be compared by order", ORDER_HELP, "E0204")


ORDER_HELP = "only outcomes of the same list, or grades of the same condition, can be ordered"


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


class StopRun(Exception):
    """The `stop` statement: ends the encounter."""


def eq(value, test):
    """A decision-table cell: membership when the input is a list; else the language's `==`."""
    if type(value) is list:
        return member(test, value)
    return same(value, test)


def rank_of(value, kind, named):
    """The rank of an outcome of the list `kind`; anything else cannot be ordered against `named`."""
    if type(value) is Ranked and value.kind == kind:
        return value.rank
    return cannot_order(value, named)


FIELDED = (Combatant, Struct)


def index(obj, key):
    """obj[key]: a field named by a text of a combatant or record, or a table's row."""
    if isinstance(key, str) and isinstance(obj, (Combatant, Struct)):
        try:
            return getattr(obj, mangle(key))
        except AttributeError:
            raise RuleFailure(f'{show(obj)} has no field "{key}"', "check the spelling against the sheet "
                              "or the table's columns", "E0203") from None
    lookup = getattr(obj, "lookup", None)
    if lookup is not None:
        return lookup(key)
    if isinstance(obj, list):
        return item(obj, key)
    raise RuleFailure(f"{show(obj)} cannot be looked up by {show(key)}")


def regrade(condition: ConditionType, grade):
    """The grade of `condition` with the same name as `grade` (of any condition)."""
    if grade is None:
        return None
    g = condition.by_name.get(getattr(grade, "name", grade))
    if g is None:
        raise RuleFailure(f'condition "{condition.name}" has no grade "{show(grade)}"')
    return g


# Generic builtins (dice from numbers, keeping dice, lists), reached as H.name.
from .generic import dice_, item, keep_highest, keep_lowest, range_, slice_, without  # noqa: E402,F401
