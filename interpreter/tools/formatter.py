"""The canonical layout of rule and encounter files: `grimorio fmt`.

The formatter works on lines, not on the syntax tree, so every comment stays
where it was written. It changes layout only:

* indentation: two spaces per block level (the levels are found the way the
  parser finds them); comment-only lines take the level of the code around them;
  lines that continue inside brackets keep their indentation relative to the
  line that opened the bracket;
* tables: cells padded so the columns line up, counting display width (accented
  letters are one column, wide East Asian characters two, combining marks none);
  separator rows redrawn as dashes;
* trailing spaces removed, runs of blank lines cut to one, no blank lines at the
  start or the end, one newline at the end.

`format_source` formats only a file that reads without errors, and checks that
the result builds the same syntax tree (spans aside) before handing it back.
"""
from __future__ import annotations

import unicodedata

from ...dsl.syntax.builder import build_encounter, build_rules
from ...dsl.syntax.texts import outside_texts
from ...dsl.diagnostics import Diagnostic, Span
from ...dsl.records import dataclass, fields, is_record

INDENT = "  "
TAB_WIDTH = 4               # as the parser counts a tab in indentation


# ------------------------------------------------------------------ widths
def display_width(text: str) -> int:
    """Columns a text takes in a monospaced editor."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def _pad(text: str, width: int) -> str:
    return text + " " * (width - display_width(text))


# ------------------------------------------------------------------ lines
@dataclass
class _Line:
    text: str               # without its leading indentation, trailing spaces removed
    width: int              # the old indentation, as the parser measures it
    kind: str               # blank, comment, row, code, inside (continues an open bracket)
    depth: int = 0          # brackets still open at the end of the line
    level: int = 0
    indent: str = ""        # the new indentation


def _indent_width(lead: str) -> int:
    return lead.count(" ") + lead.count("\t") * TAB_WIDTH


def _bracket_depth(text: str, depth: int) -> int:
    """Brackets open after a code line, skipping texts and comments."""
    for _i, ch in outside_texts(text):
        if ch == "#":
            break
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
    return depth


def _classify(text: str) -> list[_Line]:
    out, depth = [], 0
    for raw in text.split("\n"):
        body = raw.lstrip(" \t")
        line = _Line(body.rstrip(), _indent_width(raw[:len(raw) - len(body)]), "code")
        if not line.text:
            line.kind = "blank"
        elif depth > 0:
            line.kind = "inside"
        elif line.text.startswith("#"):
            line.kind = "comment"
        elif line.text.startswith("|"):
            line.kind = "row"
        if line.kind in ("code", "inside"):
            depth = _bracket_depth(line.text, depth)
        line.depth = depth
        out.append(line)
    return out


def _levels(lines: list[_Line]) -> None:
    """Block levels, with the parser's stack of indentation widths."""
    stack = [0]
    opener = None           # the line whose bracket is open
    for i, line in enumerate(lines):
        if line.kind in ("code", "row"):
            if line.width > stack[-1]:
                stack.append(line.width)
            while len(stack) > 1 and line.width < stack[-1]:
                stack.pop()
            line.level = len(stack) - 1
            line.indent = INDENT * line.level
            opener = line
        elif line.kind == "comment":
            line.level = _comment_level(line.width, stack, _next_width(lines, i))
            line.indent = INDENT * line.level
        elif line.kind == "inside" and opener is not None:
            shift = len(opener.indent) - opener.width
            width = line.width + shift
            closing = line.text.lstrip()[:1] in (")", "]", "}") and width == len(opener.indent)
            if width <= len(opener.indent) and not closing:   # written with tabs, say, less deep than its opener
                width = len(opener.indent) + 2 * len(INDENT)      # once spaced; a line at the margin would start a declaration
            line.indent = " " * width


def _next_width(lines: list[_Line], i: int) -> int | None:
    for line in lines[i + 1:]:
        if line.kind in ("code", "row"):
            return line.width
    return None


def _comment_level(width: int, stack: list[int], following: int | None) -> int:
    """The deepest block whose indentation the comment reaches, among the open ones and the next line's."""
    widths = list(stack)
    if following is not None and following > widths[-1]:
        widths.append(following)
    return max(i for i, w in enumerate(widths) if w <= width)


# ------------------------------------------------------------------ tables
def split_cells(row: str) -> list[str]:
    """The cells of a table row, split as the builder splits them ("|" inside quotes is text)."""
    cells, start, quoted = [], 1, False
    for i, ch in enumerate(row):
        if ch == '"':
            quoted = not quoted
        elif ch == "|" and not quoted and i > 0:
            cells.append(row[start:i].strip())
            start = i + 1
    return cells


def _is_separator(cells: list[str]) -> bool:
    return all(set(c) <= set("-: ") for c in cells) and any("-" in c for c in cells)


def _separator_cell(cell: str, width: int) -> str:
    left = ":" if cell.startswith(":") else "-"
    right = ":" if cell.endswith(":") and len(cell) > 1 else "-"
    return left + "-" * width + right


def _align(rows: list[_Line]) -> None:
    """Pad the cells of one table's rows to common column widths."""
    cells = [split_cells(r.text) for r in rows]
    if not cells or len({len(c) for c in cells}) != 1 or not cells[0]:
        return
    data = [c for c in cells if not _is_separator(c)]
    widths = [max((display_width(c[k]) for c in data), default=1) for k in range(len(cells[0]))]
    widths = [max(1, w) for w in widths]
    for row, row_cells in zip(rows, cells):
        if _is_separator(row_cells):
            row.text = "|" + "|".join(_separator_cell(c, w) for c, w in zip(row_cells, widths)) + "|"
        else:
            row.text = "|" + "|".join(f" {_pad(c, w)} " for c, w in zip(row_cells, widths)) + "|"


def _tables(lines: list[_Line]) -> list[list[_Line]]:
    """Runs of rows at one level; blank and comment lines between rows do not end a table."""
    out, current = [], []
    for line in lines:
        if line.kind == "row":
            if current and current[-1].level != line.level:
                out.append(current)
                current = []
            current.append(line)
        elif line.kind not in ("blank", "comment"):
            if current:
                out.append(current)
            current = []
    if current:
        out.append(current)
    return out


# ------------------------------------------------------------------ the whole text
def format_text(text: str) -> str:
    """The canonical layout of a file's text (which should read without errors)."""
    # "\r\n" ends a line as "\n" does; a "\r" alone is a character (inside a comment, say), not a line end.
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = _classify(text)
    _levels(lines)
    for table in _tables(lines):
        _align(table)
    out: list[str] = []
    for line in lines:
        if line.kind == "blank":
            if out and out[-1] != "":
                out.append("")
            continue
        out.append((line.indent + line.text).rstrip())
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n" if out else ""


# ------------------------------------------------------------------ meaning kept
def shape(node):
    """A node as plain data without its spans: two files mean the same when their shapes are equal."""
    if isinstance(node, Span):
        return None
    if isinstance(node, (tuple, list)):
        return tuple(shape(x) for x in node)
    if isinstance(node, dict):
        return tuple(sorted((k, shape(v)) for k, v in node.items()))
    if is_record(node):
        return (type(node).__name__,) + tuple(
            (f.name, shape(getattr(node, f.name))) for f in fields(node) if f.compare)
    return node


def build(text: str, file: str):
    """The syntax tree of a rules file or an encounter (by the file's extension), and its errors."""
    if file.endswith(".enc"):
        return build_encounter(text, file)
    return build_rules(text, file)


def format_source(text: str, file: str) -> tuple[str | None, list[Diagnostic]]:
    """The formatted text, or None and the diagnostics that stop formatting."""
    before, diags = build(text, file)
    if diags:
        return None, diags
    result = format_text(text)
    after, diags_after = build(result, file)
    if diags_after or shape(before) != shape(after):
        return None, [Diagnostic("E0020", "formatting this file would change what it means, so it is left as it is",
                                 Span(file, 1, 1, 1, 2),
                                 "please report it with the file; the file itself is fine to use")]
    return result, []
