"""How values print in the transcript, as an edition's `format` declarations say
(the prelude declares them all; an edition replaces the ones it wants): the templates, gathered
here; the runtime's Format (interpreter/run/formats.py) prints by them."""
from __future__ import annotations

from ...dsl.syntax import nodes as n
from ...dsl.editions.files import prelude

from ..run.formats import Format, python_format  # noqa: F401 - python_format: the API


def build_format(ruleset) -> "Format":
    templates = {d.name: d.template for d in prelude()[1] if isinstance(d, n.Format)}
    templates.update((d.name, d.template) for d in ruleset.space("format").values())
    return Format(templates)
