"""MkDocs hooks for the documentation site (mkdocs.yml names this file).

The docs mark their rules blocks by what the tests do with them: ```grimorio
(a rules file), ```grimorio-encounter, ```grimorio-fragment, ```grimorio-broken
(an example of a mistake), ```grimorio-encounter-broken. All of them are
grimorio, and the site highlights all of them with the Pygments lexer
registered as "grimorio" (grimorio.interpreter.tools.highlight).
"""
from __future__ import annotations

import re
from pathlib import Path

FENCE = re.compile(r"^(\s*```+)grimorio(?:-[\w-]+)?[ \t]*$", re.M)


def on_page_markdown(markdown: str, **_kwargs) -> str:
    return FENCE.sub(r"\1grimorio", markdown)


def on_post_build(config, **_kwargs) -> None:
    """The colours of the highlighted code: Pygments' default style, for the classes codehilite writes."""
    from pygments.formatters import HtmlFormatter
    css = Path(config["site_dir"]) / "css" / "pygments.css"
    css.parent.mkdir(parents=True, exist_ok=True)
    css.write_text(HtmlFormatter(style="default").get_style_defs(".highlight"), encoding="utf-8")
