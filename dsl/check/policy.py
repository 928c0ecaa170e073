"""What the prelude's policy options must hold, wherever they get their value.

The options themselves (their names, defaults and meaning) are the prelude's
(dsl/editions/prelude.rules): the runtime reads them to decide on a game's behalf. What
each must hold for the runtime to read it is the language's contract with the
prelude, stated here once and applied to every place that gives one a value:
the prelude's own declaration, an edition that declares the option again
(`option reactions_per_event = 2`) or sets it, an encounter's `set` and the
command line's `--set` (interpreter/run/encounter.py). Each diagnostic is at the
value that breaks the contract, never later while the rules run.
"""
from __future__ import annotations

from collections.abc import Callable, Collection

from ..syntax.constants import written
from ..diagnostics import Diagnostic, did_you_mean
from .format_kinds import PLACEHOLDER


def _count(least: int, meaning: str) -> Callable:
    def check(name, v, span, _tactics):
        if type(v) is int and v >= least:
            return []
        return [Diagnostic("E0204", f'option "{name}" takes a whole number from {least}, not {written(v)}', span,
                           meaning)]
    return check


def _switch(meaning: str) -> Callable:
    def check(name, v, span, _tactics):
        if type(v) is bool:
            return []
        return [Diagnostic("E0204", f'option "{name}" takes true or false, not {written(v)}', span, meaning)]
    return check


def _tactic(name, v, span, tactics: Collection[str]):
    """A tactic of these rules by its name, or "" for the edition's first."""
    if type(v) is not str:
        return [Diagnostic("E0204", f'option "{name}" takes the name of a tactic, as a text, not {written(v)}',
                           span, 'for example "prudente"; "" stands for the edition\'s first tactic')]
    if v == "" or v in tactics:
        return []
    return [Diagnostic("E0201", f'there is no tactic "{v}"', span,
                       did_you_mean(v, tactics) or
                       f"the tactics are: {', '.join(tactics) or 'none'}; \"\" stands for the edition's first")]


# The prelude's option that names the side of a combatant without a "side" line.
DEFAULT_SIDE = "default_side"


def _side(name, v, span, _tactics):
    """default_side is a text whose only placeholder is {name}, the combatant's name."""
    if not isinstance(v, str):
        return [Diagnostic("E0204", f'option "{name}" takes a text, not {written(v)}', span,
                           'for example "{name}" (each its own side) or "libres" (one side for all)')]
    return [Diagnostic("E0208", f'option "{name}" has no placeholder "{{{p}}}"', span,
                       "its only placeholder is {name}, the combatant's name")
            for p in PLACEHOLDER.findall(v) if p != "name"]


def _agreement(name, v, span, _tactics):
    """agreement names a table, as a text ("": none); that the table exists and holds words and
    forms, dsl/check/agreement.py checks (it sees the tables)."""
    if isinstance(v, str):
        return []
    return [Diagnostic("E0204", f'option "{name}" takes the name of a table, as a text, not {written(v)}', span,
                       'for example "concordancia"; "" for none')]


# Each policy option of the prelude -> its check (name, value, span, the tactics of the rules).
POLICY: dict[str, Callable] = {
    DEFAULT_SIDE: _side,
    "default_tactic": _tactic,
    "agreement": _agreement,
    "first_reaction": _switch("true: with no preference of its tactic, a combatant takes the first reaction "
                              "allowed; false: none"),
    "reactions_per_event": _count(0, "how many reactions a combatant may take to one event: 0 for none, "
                                     "1 (the prelude's) for one"),
}


def check_policy(name: str, value, span, tactics: Collection[str]) -> list[Diagnostic] | None:
    """The diagnostics of giving the prelude's option `name` this value; None when `name` is not one
    of the prelude's policy options (then the value need only have its default's kind)."""
    check = POLICY.get(name)
    return None if check is None else check(name, value, span, tactics)
