"""A scripted answer matched with the values a rule offers: the word of a
`round N:` line (`atacar Beto`, `elegir sí`, `choose 2`) names the value the
edition shows that way (by its `format` declarations), or the value the
language writes that way (`true`, `false`, `none`, a number)."""
from __future__ import annotations

from .values import same

LITERALS = ((None, "none"), (True, "true"), (False, "false"))


def literal(v) -> str | None:
    """How the language writes a value that a format may show otherwise (none, true, false)."""
    for value, word in LITERALS:
        if v is value:
            return word
    return None


def matching(word: str, options, fmt) -> list:
    """The distinct options the word names: as the edition shows them, or as the language writes them
    (a list may offer one value twice, or two values the language's == finds equal: one answer)."""
    found: list = []
    for o in options:
        if (fmt.show(o) == word or literal(o) == word) and not any(same(o, f) for f in found):
            found.append(o)
    return found


def shown(options, fmt) -> str:
    """The options as the edition shows them, for a message."""
    return ", ".join(fmt.show(o) for o in options) or "none"
