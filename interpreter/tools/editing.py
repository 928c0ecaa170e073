"""What an editor offers where the cursor is, without any editor protocol: completion by context,
quick fixes for a diagnostic's "did you mean", and the outline of a file.

The language server (lsp.py) only translates these into the protocol's records; analysis.py
knows the file's edition and declarations.
"""
from __future__ import annotations

import difflib
import re

from ...dsl.records import dataclass
from ...dsl.syntax import nodes as n

NAME = re.compile(r"[^\W\d]\w*")
# What the text before the cursor ends with, tried in order: the first that matches says the context.
AFTER_DOT = re.compile(r"(?P<owner>(?:[^\W\d]\w*(?:\[[^\[\]]*\])?\.)*[^\W\d]\w*(?:\[[^\[\]]*\])?)\.\w*$")
IN_BRACKET = re.compile(r"(?P<table>[^\W\d]\w*)\[\s*\"?[^\"\]]*$")
AFTER_SET = re.compile(r"^\s*(?:set|change)\s+\w*$")
AFTER_CONDITION = re.compile(r"(?:\b(?:add|remove|receive)\s+[^\W\d][\w.]*\s+|\b(?:has|held)\(\s*[^,()]+,\s*)\w*$")
CONDITION_TEXT = re.compile(r"\bcondition_named\(\s*\"\w*$")         # a condition's name, as a text
AFTER_ACT = re.compile(r"\b(?:act|react)\s+\w*$")
SCRIPT_LINE = re.compile(r"^\s+[^\W\d][\w ]*:\s*(?:[^,:]+,\s*)*\w*$")      # "  Ana: act1 Bea, " in a round
STATEMENT_START = re.compile(r"^\s+\w*$")
DECLARED = ("rule", "action", "reaction", "table", "condition", "var", "outcomes", "check", "message",
            "event", "tactic", "option", "sheet", "round", "tally", "stands", "format", "edition")


def context_at(before: str, encounter: bool = False) -> tuple[str, str | None]:
    """What the cursor completes, from the text of its line before it: ("field", owner) after a dot,
    ("key", table) inside a table's brackets, ("option", None) after `set`, ("condition", None) where
    a condition goes (("condition", "text") inside the quotes of condition_named), ("action", None) where an action is named (after `act`, or in an encounter's
    script line), ("statement", None) at the start of
    a statement, else ("any", None)."""
    m = AFTER_DOT.search(before)
    if m and not _in_text(before[:m.start("owner")]):
        return "field", m.group("owner")
    m = IN_BRACKET.search(before)
    if m:
        return "key", m.group("table")
    if CONDITION_TEXT.search(before):
        return "condition", "text"
    if _in_text(before):
        return "text", None
    if encounter and SCRIPT_LINE.search(before):
        return "action", None
    for kind, pattern in (("option", AFTER_SET), ("condition", AFTER_CONDITION), ("action", AFTER_ACT),
                          ("statement", STATEMENT_START)):
        if pattern.search(before):
            return kind, None
    return "any", None


def _in_text(before: str) -> bool:
    return before.count('"') % 2 == 1


def _declared(ruleset, own) -> list[n.Decl]:
    decls = [d for space in (ruleset.spaces.values() if ruleset else ()) for d in space.values()]
    return decls + [d for d in own if d.name]


def _catalogue_keys(table: n.Table) -> list[str]:
    if table.dice is not None:
        return []
    return [row[0].value for row in table.rows if isinstance(row[0], n.Const) and isinstance(row[0].value, str)]


def _owner_table(owner: str) -> str | None:
    """The table an owner reads a row of (`things["key"]`, `t[x]`), if it ends in a lookup."""
    m = re.search(r"([^\W\d]\w*)\[[^\[\]]*\]$", owner)
    return m.group(1) if m else None


def _row_field_table(name: str, decls: list[n.Decl]) -> str | None:
    """The table a sheet's row field (`gear: row things`) reads its row from."""
    for d in decls:
        if isinstance(d, n.Sheet):
            for f in d.fields:
                if f.name == name and f.table:
                    return f.table
    return None


def fields_of(owner: str, decls: list[n.Decl]) -> dict[str, list[str]]:
    """The names that can follow `owner.`: a table row's columns, a condition's columns, else the
    fields of the sheets and of the events (a combatant, an event, a record)."""
    by_name = {d.name: d for d in decls}
    out: dict[str, list[str]] = {}
    table = by_name.get(_owner_table(owner) or _row_field_table(owner.rpartition(".")[2], decls) or "")
    if isinstance(table, n.Table):
        for col in table.columns[1:] if table.dice is None else table.columns:
            out.setdefault(col, []).append("column")
        return out
    cond = by_name.get(owner)
    if isinstance(cond, n.Condition):
        for col in cond.columns:
            out.setdefault(col, []).append("column")
        return out
    if sum(isinstance(d, n.Sheet) for d in decls) > 1:
        out["sheet"] = ["field"]                 # the name of a combatant's sheet, when there are several
    for d in decls:
        if isinstance(d, n.Sheet):
            for f in d.fields:
                out.setdefault(f.name, []).append("field")
        elif isinstance(d, n.Event):
            for name, _ in d.fields:
                if "field" not in out.setdefault(name, []):
                    out[name].append("field")
    return out


def completions_at(before: str, ruleset, own: list[n.Decl], everything: dict[str, list[str]],
                   encounter: bool = False) -> dict[str, list[str]]:
    """The words to offer at a cursor, each with what it is. `everything` is what the file can name at
    all (analysis.completions); the context narrows it."""
    kind, arg = context_at(before, encounter)
    decls = _declared(ruleset, own)
    if kind == "field":
        return fields_of(arg, decls)
    if kind == "key":
        table = next((d for d in decls if d.name == arg and isinstance(d, n.Table)), None)
        return {f'"{k}"' if '"' not in before[before.rfind("["):] else k: ["key"]
                for k in (_catalogue_keys(table) if table else [])}
    if kind == "text":
        return {}
    if kind == "condition":         # a condition's name; where any expression may hold one, the lookup by text
        out = {w: ["condition"] for w, k in everything.items() if "condition" in k}
        return out if arg == "text" else {**out, "condition_named": ["builtin"]}
    wanted = {"option": ("option", "var"), "action": ("action", "reaction"),
              "statement": ("rule", "action", "message", "keyword")}.get(kind)
    if wanted is None:      # anywhere else: every name but fields, columns and keys, which have their place
        wanted = {kind for kinds in everything.values() for kind in kinds} - {"field", "key", "column"}
    return {w: [x for x in k if x in wanted] for w, k in everything.items() if set(k) & set(wanted)}


# ------------------------------------------------------------------ quick fixes
@dataclass(frozen=True)
class Fix:
    """Replace the text between two 0-based (line, column) places, columns in characters."""
    title: str
    line: int
    start: int
    end: int
    new_text: str


def quick_fix(lines: list[str], line: int, start: int, end_line: int, end: int, suggestion: str) -> Fix | None:
    """The edit that writes `suggestion` over the misspelled name a diagnostic points at: the name in its
    range most like the suggestion (the range may hold more than the name)."""
    if not (0 <= line < len(lines)):
        return None
    text = lines[line]
    stop = end if end_line == line else len(text)
    names = [m for m in NAME.finditer(text) if m.end() > start and m.start() < max(stop, start + 1)]
    names = [m for m in names if m.group() != suggestion]
    if not names:
        return None
    best = max(names, key=lambda m: difflib.SequenceMatcher(None, m.group(), suggestion).ratio())
    return Fix(f'change "{best.group()}" to "{suggestion}"', line, best.start(), best.end(), suggestion)


# ------------------------------------------------------------------ outline
@dataclass(frozen=True)
class Outline:
    """A named part of a file for the editor's outline: its kind, where it is, and its parts."""
    name: str
    kind: str
    span: object
    children: tuple = ()


def _children(d: n.Decl) -> tuple:
    if isinstance(d, n.Sheet):
        return tuple(Outline(f.name, "field", f.span) for f in d.fields)
    if isinstance(d, n.Outcomes):
        return tuple(Outline(v, "outcome", sp) for v, sp in zip(d.values, d.value_spans))
    if isinstance(d, n.Condition):
        return tuple(Outline(g, "grade", sp) for g, sp in zip((r[0] for r in d.rows), d.row_spans))
    if isinstance(d, n.Table) and d.dice is None:
        return tuple(Outline(str(row[0].value), "key", sp) for row, sp in zip(d.rows, d.row_spans)
                     if isinstance(row[0], n.Const))
    if isinstance(d, n.Round):
        return tuple(Outline(s.name, "step", s.span) for s in d.steps)
    return ()


def outline(decls: list[n.Decl]) -> list[Outline]:
    """The declarations of a file, in order, with their fields, outcomes, grades, keys and steps."""
    return [Outline(d.name or type(d).__name__.lower(), n.KIND_OF.get(type(d), type(d).__name__.lower()), d.span,
                    _children(d)) for d in decls]


def encounter_outline(enc: n.Encounter) -> list[Outline]:
    """An encounter's combatants, for the editor's outline."""
    return [Outline(c.name, "combatant", c.span) for c in enc.combatants]
