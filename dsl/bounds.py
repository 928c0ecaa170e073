"""The language's value bounds, shared by the builder (literals) and the runtime (computed values).

A value past one of them is E0506, at the literal or at the rule that made it."""
from __future__ import annotations

MAX_DIGITS = 1000          # digits of a whole number (a fraction: of its numerator and denominator)
MAX_LENGTH = 1_000_000     # items of a list, characters of a text
MAX_DICE = 10_000          # dice in one dice value (1D6 + 1D6 is two)


class TooLongToShow(Exception):
    """A whole number with more digits than this Python writes as text (sys.get_int_max_str_digits():
    4300 unless the process sets it lower, down to 640) where only digits will do, as in JSON (E0110).
    Raised by interpreter/run/values.py: json_text, which looks at the numbers (no message is read)."""


def int_literal(text: str) -> int | None:
    """The value of a written whole number, or None past MAX_DIGITS digits."""
    digits = text.lstrip("+-")
    return None if len(digits) > MAX_DIGITS else int(text)
