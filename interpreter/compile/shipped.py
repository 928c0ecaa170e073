"""The bundled editions' compiled programs, made when the package is built (setup.py) and shipped in it, so
the first run of a fresh install compiles nothing.

A shipped program is plain data in the package's own file (grimorio/interpreter/compile/programs.shipped):
part of the installed package, trusted as its code is. It is used only while it is what a build would make
now, which `program` checks before it loads anything:

- the same code: a digest of the text of grimorio's language and interpreter files (dsl/, interpreter/compile,
  interpreter/run), of Python's version (the generated code is marshalled) and of stored.FORMAT;
- the same files, found the same way: every edition and module the program was built from is found by the
  loader's own search of the roots (edition_heads), once, under the name the program's spans give it, and
  every file it read reads the same text now (by digest; the prelude's too);
- nothing layered on it (no house files).

Anything else, and anything that does not load, builds the program as before (stored.py): never an error.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
from functools import lru_cache
from pathlib import Path, PurePosixPath

FILE = "programs.shipped"
FORMAT = 1          # the layout of the file below
# What decides a compiled program: the language's and the interpreter's code (not its tools).
CODE_FOLDERS = ("dsl", "interpreter/compile", "interpreter/run")


def code_digest(package: Path) -> str:
    """A digest of the text of grimorio's code files under `package` (the installed "grimorio" folder, or the
    source tree, whose dsl/ and interpreter/ are top-level), by their names relative to it, with Python's
    version and the program layout: a program another code or Python compiled is never used."""
    from .stored import FORMAT as STORED
    h = hashlib.sha256(f"{sys.version}\0{STORED}\0{FORMAT}\0".encode())
    files = sorted(os.path.join(folder, name) for sub in CODE_FOLDERS for folder, _, names in os.walk(package / sub)
                   for name in names if name.endswith((".py", ".lark")))
    for path in files:
        with open(path, "rb") as f:
            h.update(Path(path).relative_to(package).as_posix().encode("utf-8", "surrogateescape") + b"\0"
                     + f.read() + b"\0")
    return h.hexdigest()


def _package() -> Path:
    """grimorio's folder as this module sits in it: interpreter/compile/ is two levels down."""
    return Path(__file__).resolve().parent.parent.parent


@lru_cache(maxsize=1)
def _table() -> dict:
    try:
        table = pickle.loads((Path(__file__).resolve().parent / FILE).read_bytes())
    except (OSError, ValueError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, TypeError):
        return {}
    return table if isinstance(table, dict) and table.get("format") == FORMAT else {}


@lru_cache(maxsize=1)
def _code_matches(digest: str) -> bool:
    try:
        return code_digest(_package()) == digest
    except OSError:
        return False


def program(edition: str, roots, houses, own):
    """The shipped program of `edition`, when it is exactly what building it now would make; else None.
    `own` receives the texts of its files, as a built program's do."""
    entry = _table().get("programs", {}).get(edition)
    if entry is None or houses or not _code_matches(_table().get("code", "")):
        return None
    from ...dsl.diagnostics import GrimorioError
    try:
        texts, root = _same_files(entry, roots)
    except (OSError, ValueError, GrimorioError):      # a file gone or unreadable: the loader says what
        return None
    if texts is None:
        return None
    from .stored import loads
    try:
        program = loads(entry["program"])
    except Exception:  # noqa: BLE001 - a damaged file builds the program as before
        return None
    program.ruleset.root = root
    own.texts.update(texts)
    return program


def _same_files(entry: dict, roots):
    """The texts of the program's files as they read now, and its edition's folder, when the loader would
    find every edition and module of it where the program's spans place them and every file reads as it did
    when it was built; (None, None) otherwise."""
    from ...dsl.editions import files as loader
    from ...dsl.source import read_text
    found: dict[str, Path] = {}              # the folder, as spans name it -> where it is now
    heads = {kind: loader.edition_heads(roots, kind) for kind in {k for k, _, _ in entry["names"]}}
    for kind, name, display in entry["names"]:
        here = heads[kind].get(name)
        if not here or len(here) != 1 or loader._display(here[0].entry) != display:
            return None, None
        found[str(PurePosixPath(display).parent)] = here[0].entry.parent
    texts = {}
    for display, digest in entry["files"].items():
        path = _where(display, found)
        if path is None or (path != loader.PRELUDE and loader._display(path) != display):
            return None, None
        text = read_text(path, display)
        if hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() != digest:
            return None, None
        texts[display] = text
    return texts, found[str(PurePosixPath(entry["root"]))]


def _where(display: str, found: dict[str, Path]) -> Path | None:
    """Where the file a span names is now: the prelude, or a file under one of the folders found."""
    from ...dsl.editions.files import PRELUDE, PRELUDE_NAME
    if display == PRELUDE_NAME:
        return PRELUDE
    at = PurePosixPath(display)
    for folder in sorted(found, key=len, reverse=True):
        if at.is_relative_to(folder):
            return found[folder].joinpath(*at.relative_to(folder).parts)
    return None


# ------------------------------------------------------------------ made when the package is built
def build(package: Path, editions=None) -> bytes:
    """The file to ship: every bundled edition (or those named) compiled, with what `program` checks.
    `package` is the "grimorio" folder being built (setup.py: its code is digested as an install finds it)."""
    from ...dsl.editions import files as loader
    from ...dsl.editions.loader import load_edition
    from ...dsl.check.front import check_edition
    from .compiler import compile_program
    from .stored import dumps
    programs = {}
    roots = [loader.bundled_root()]
    heads = {kind: loader.edition_heads(roots, kind) for kind in ("edition", "module")}
    for edition in sorted(editions or heads["edition"]):
        rs = load_edition(edition, roots)
        built = compile_program(rs, check_edition(rs))
        data = dumps(built)
        if data is None:
            continue
        names = [("edition", name, loader._display(heads["edition"][name][0].entry)) for name in rs.space("edition")]
        names += [("module", name, loader._display(heads["module"][name][0].entry)) for name in rs.modules]
        files = {display: hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
                 for display, text in rs.sources.texts.items()}
        programs[edition] = {"names": names, "files": files, "program": data,
                             "root": str(PurePosixPath(loader._display(heads["edition"][edition][0].entry)).parent)}
    return pickle.dumps({"format": FORMAT, "code": code_digest(package), "programs": programs},
                        protocol=pickle.HIGHEST_PROTOCOL)
