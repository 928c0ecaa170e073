"""One compiled program per edition (and house-rule files) in a process, loaded to run: every
encounter that names the edition runs on it. Built, or read from the program cache (stored.py)
or the package's shipped programs (shipped.py), then loaded once (as compiler.load loads one; the
compiler itself imported only when an encounter has code of its own to compile)."""
from __future__ import annotations

from pathlib import Path

from ...dsl.diagnostics import Sources, Span
from ...dsl.editions.files import bundled_root
from . import shipped, stored
from ..run.loaded import Loaded

_programs: dict = {}


def program_for(edition: str, span: Span | None = None, sources: Sources | None = None, roots=None,
                houses=()) -> Loaded:
    """One compiled program per edition (and house-rule files), shared by every run in this process."""
    house_key = tuple((str(Path(h).resolve()), _text_or_none(h)) for h in houses)
    # The first root that holds a name wins, so a root named twice changes nothing: an encounter
    # beside the bundled editions (roots: its folder's parent, then the bundled root) shares
    # the program of no roots at all.
    key = (edition, tuple(dict.fromkeys(str(r) for r in roots or [bundled_root()])), house_key)
    prog = _programs.get(key)
    if prog is None:
        own = Sources()
        try:
            prog = Loaded(stored.program(edition, span, own, roots, houses, shipped.program), _snippets)
        finally:
            if sources is not None:
                sources.texts.update(own.texts)
        _programs[key] = prog
    elif sources is not None:
        sources.texts.update(prog.ruleset.sources.texts)
    return prog


def _text_or_none(path) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None            # the loader reports it, at the command line


def _snippets(loaded: Loaded):
    """What compiles the encounters' own code on `loaded` (compiler.Snippets, as compiler.load gives it),
    imported when an encounter first has some: a run of one without any never imports the compiler."""
    from .compiler import Snippets
    return Snippets(loaded)
