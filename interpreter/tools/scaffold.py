"""`grimorio new NAME`: a new edition's folder, made from the templates in new_edition/.

The folder holds an entry file named after the edition, a sheet, a check, one action, a round,
its messages and one encounter whose dice are pinned and whose `expect` lines hold, so that
`grimorio check` finds nothing and `grimorio run` meets every expectation from the first minute.
"""
from __future__ import annotations

import re
from pathlib import Path

from ...dsl.diagnostics import Diagnostic, GrimorioError, Span
from ...dsl.syntax.keywords import KEYWORDS

TEMPLATES = Path(__file__).resolve().parent / "new_edition"
# Template -> the file it becomes ("@name@": the edition's name).
FILES = {"entry.rules": "@name@.rules", "sheet.rules": "sheet.rules", "actions.rules": "actions.rules",
         "round.rules": "round.rules", "messages.rules": "messages.rules", "first.enc": "first.enc"}
NAME = re.compile(r"[^\W\d]\w*")
WORDS = frozenset(w for group in KEYWORDS.values() for w in group)


def edition_name(folder: Path, at: Span) -> str:
    """The edition's name: the folder's last part, if it is a name of the language."""
    name = folder.name
    if NAME.fullmatch(name) and name not in WORDS:
        return name
    suggestion = re.sub(r"\W+", "_", name).strip("_")
    suggestion = suggestion if NAME.fullmatch(suggestion or "0") and suggestion not in WORDS else "my_game"
    why = f'"{name}" is a word of the language' if name in WORDS else f'"{name}" is not a name'
    raise GrimorioError(Diagnostic(
        "E0241", f"{why}: the folder's name is the edition's name", at,
        f"a name starts with a letter and goes on with letters, digits and _; for example: grimorio new "
        f"{str(folder.parent / suggestion) if str(folder.parent) != '.' else suggestion}"))


def files_for(folder: Path, name: str) -> dict[str, str]:
    """File name -> its text, for a new edition `name` in `folder`."""
    title = name.replace("_", " ").strip().capitalize()
    out = {}
    for template, target in FILES.items():
        text = (TEMPLATES / template).read_text(encoding="utf-8")
        text = text.replace("@name@", name).replace("@title@", title).replace("@folder@", folder.as_posix())
        out[target.replace("@name@", name)] = text
    return out


def create(folder: Path, at: Span) -> list[Path]:
    """Writes the new edition's files in `folder` (made if missing, which must hold nothing yet)."""
    name = edition_name(folder, at)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        what = "a file" if not folder.is_dir() else "a folder that is not empty"
        raise GrimorioError(Diagnostic("E0242", f'"{folder}" is already {what}', at,
                                       "grimorio new writes only into a new or empty folder: choose another name, "
                                       "or move what is there"))
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for file, text in files_for(folder, name).items():
        (folder / file).write_text(text, encoding="utf-8")
        written.append(folder / file)
    return written
