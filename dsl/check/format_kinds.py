"""The kinds of value a `format` declaration names and the placeholders each may use:
checked here with the other static errors (interpreter/compile/formats.py prints by them);
and the one option that is a template too, the side of a combatant without a side line
(dsl/check/policy.py checks its placeholders with the prelude's other policy options)."""
from __future__ import annotations

import re

from ..diagnostics import Diagnostic, did_you_mean

# Each kind of value a format declaration names, and the placeholders its text may use.
KEYS = {
    "dice": ("count", "faces"), "percentile": ("faces",), "true": (), "false": (), "none": (), "empty": (),
    "separator": (), "factor": ("n",), "divisor": ("d",), "fraction": ("n", "d"),
    "highest": ("k",), "lowest": ("k",),
    "roll": ("dice", "total"), "roll_faces": ("dice", "total", "faces"), "ratio": ("n", "d"),
    "record": ("fields",), "field": ("name", "value"), "field_separator": (),
    "plural": ("word",),
}
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def check_formats(ruleset) -> list[Diagnostic]:
    """A format of no known kind, or a placeholder its kind does not have."""
    out = []
    for d in ruleset.space("format").values():
        if d.name not in KEYS:
            out.append(Diagnostic("E0231", f'there is no format "{d.name}"', d.name_span or d.span,
                                  did_you_mean(d.name, KEYS) or f"the formats are: {', '.join(KEYS)}"))
            continue
        for name in PLACEHOLDER.findall(d.template):
            if name not in KEYS[d.name]:
                allowed = ", ".join("{" + k + "}" for k in KEYS[d.name]) or "none"
                out.append(Diagnostic("E0232", f'the format of {d.name} has no placeholder "{{{name}}}"',
                                      d.template_span or d.span,
                                      f"its placeholders: {allowed}"))
    return out


def default_side(template: str, name: str) -> str:
    """The side of the combatant `name` when it has no "side" line."""
    return PLACEHOLDER.sub(lambda m: name, template)
