"""A line's characters outside its quoted texts: what the builder's placeholder scanner and the
formatter's bracket counter both walk ("..." with backslash escapes is a text; nothing in it counts)."""
from __future__ import annotations

from collections.abc import Iterator


def outside_texts(line: str) -> Iterator[tuple[int, str]]:
    """(index, character) of every character of `line` that is not inside a quoted text (the quotes
    themselves are given, so that a caller sees where a text starts and ends)."""
    quoted, i = False, 0
    while i < len(line):
        ch = line[i]
        if quoted:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quoted = False
                yield i, ch
        else:
            if ch == '"':
                quoted = True
            yield i, ch
        i += 1
