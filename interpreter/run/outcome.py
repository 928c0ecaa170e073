"""The outcome of a run: the one notion that the transcript (through the builtin
`standing()`), `simulate`, `diff` and the Python API all read.

The rules declare who is still standing (`stands(c): ...`; the prelude's
says everyone) and may name draws (`draw NAME: ...`). A run's outcome is:
the side of the combatants still standing, when they are all of one side; else
the first declared draw that holds; else "nobody standing" or "several sides
standing" (the round limit, say), each of which says what happened.
"""
from __future__ import annotations

from ...dsl.diagnostics import Diagnostic, GrimorioError
from ...dsl.records import dataclass
from . import runtime_helpers as H

NOBODY = "nobody standing"
SEVERAL = "several sides standing"
KINDS = ("side", "draw", "nobody", "several")


@dataclass(frozen=True)
class Outcome:
    """How a run ended: `name` is the side that won, a draw's name, or NOBODY or SEVERAL."""
    name: str
    kind: str                       # one of KINDS
    standing: tuple[str, ...]       # the combatants still standing, in the encounter's order
    sides: tuple[str, ...]          # their sides, each once, in the same order


def stands_of(eng) -> list[bool]:
    """What the `stands` declaration says of each combatant, in the encounter's order."""
    p = eng.p
    fn = p.stands
    if fn is None:
        return [True] * len(eng.cb)
    out = []
    for c in eng.cb:
        v = fn(eng, c)
        if type(v) is not bool:
            refuse(p.stands_decl, v)
        out.append(v)
    return out


def standing(eng) -> list:
    """The combatants still standing (what stands_of says, in one walk)."""
    p = eng.p
    fn = p.stands
    if fn is None:
        return list(eng.cb)
    out = []
    for c in eng.cb:
        v = fn(eng, c)
        if v is True:
            out.append(c)
        elif v is not False:
            refuse(p.stands_decl, v)
    return out


def outcome_of(eng, up: list[bool] | None = None) -> Outcome:
    """The outcome of the run `eng` has ended (`up`: stands_of(eng), when already known)."""
    up = stands_of(eng) if up is None else up
    who = [c for c, u in zip(eng.cb, up) if u]
    sides = tuple(dict.fromkeys(c.a_side for c in who))
    names = tuple(c.a_name for c in who)
    if len(sides) == 1:
        return Outcome(sides[0], "side", names, sides)
    for d, fn in eng.p.draws:
        v = fn(eng)
        if type(v) is not bool:
            refuse(d, v)
        if v:
            return Outcome(d.name, "draw", names, sides)
    return Outcome(NOBODY if not sides else SEVERAL, "nobody" if not sides else "several", names, sides)


def categories(sides, draws) -> list[tuple[str, str]]:
    """Every outcome a run of these sides and draws can have, (name, kind), in a stable order."""
    return ([(s, "side") for s in sides] + [(d, "draw") for d in draws]
            + [(NOBODY, "nobody"), (SEVERAL, "several")])


def refuse(d, v):
    what = "true or false"
    raise GrimorioError(Diagnostic("E0031", f'"{d.name}" gave {H.show(v)}, not {what}', d.value.span,
                                   f"the outcome of a run reads it: it must give {what} in every run"))
