"""Dice as values: sums of NdM terms and a constant, rolled with a passed-in RNG."""
from __future__ import annotations

import hashlib
import struct
from functools import partial
from itertools import chain, count

_EIGHT = struct.Struct("<8Q").unpack
_NAMES: dict = {}


def _block(prefix: bytes, k: int) -> tuple[int, ...]:
    """Draws 8k to 8k+7 of a stream: one blake2b digest cut into eight 64-bit numbers."""
    return _EIGHT(hashlib.blake2b(prefix + k.to_bytes(8, "little"), digest_size=64).digest())


def stream(seed, who: str | None, purpose: str | None):
    """The dice stream of (seed, who rolls, purpose): each call gives the next 64-bit
    number, and a die of s faces shows `number % s + 1` (bias below one in 2**58).

    Its n-th draw is a hash of (seed, who, purpose, n), so the n-th roll of a kind is
    the same whatever other rolls the rules make or skip: common random numbers between
    editions. Counter-mode hashing costs one digest per eight draws and nothing to
    start, where a seeded generator per stream costs more to start than its rolls."""
    return stream_at(str(seed).encode("ascii"), who, purpose)


def stream_at(seed_text: bytes, who: str | None, purpose: str | None):
    """stream, for the seed written in ASCII once (`str(seed).encode("ascii")`): a run's
    streams (engine.Streams) share it."""
    name = _NAMES.get((who, purpose))
    if name is None:
        name = _NAMES[(who, purpose)] = f"\x1f{who or ''}\x1f{purpose or ''}\x1f".encode("utf-8")
    return chain.from_iterable(map(partial(_block, seed_text + name), count())).__next__


from ...dsl.bounds import MAX_DICE, MAX_DIGITS

_BIG = 10 ** MAX_DIGITS


class ValueBound(Exception):
    """A value grew past one of the language's bounds (E0506); `bound` names it."""

    def __init__(self, message, bound):
        super().__init__(message)
        self.message, self.bound = message, bound


def _merged(terms: tuple) -> tuple:
    """Terms of the same sign and faces as one, where the first of them was: 1D8+1D4+1D8 is 2D8+1D4."""
    counts: dict = {}
    for s, c, f in terms:
        counts[(s, f)] = counts.get((s, f), 0) + c
    return tuple((s, c, f) for (s, f), c in counts.items())


class Dice:
    """terms: tuple of (sign, count, sides); const: int; keep: None, or (k, "highest"|"lowest"):
    only the k highest (lowest) faces of a one-term roll count."""

    __slots__ = ("terms", "const", "_text", "max", "min", "single", "sides", "signed", "keep")

    def __init__(self, terms: tuple, const: int = 0, keep: tuple | None = None):
        if len(terms) > 1 and len({(s, f) for s, _c, f in terms}) < len(terms):
            terms = _merged(terms)
        if sum(c for _s, c, _f in terms) > MAX_DICE or len(terms) > MAX_DICE:
            raise ValueBound(f"dice of more than {MAX_DICE} dice", "MAX_DICE")
        self.terms = terms
        self.const = const
        self.keep = keep
        # One entry per die, in order: its faces, and whether it is subtracted.
        self.sides = tuple(f for _s, c, f in terms for _ in range(c))
        self.signed = any(s < 0 for s, _c, _f in terms)
        # The faces of a lone positive die (1D10, d100), for the fast path; else 0.
        self.single = terms[0][2] if len(terms) == 1 and terms[0][:2] == (1, 1) else 0
        self.max = sum(s * (c * f if s > 0 else c) for s, c, f in terms) + const
        self.min = sum(s * (c if s > 0 else c * f) for s, c, f in terms) + const
        if keep is not None:                 # one positive term: k of its dice count
            k, faces = keep[0], terms[0][2]
            self.single, self.signed = 0, True   # the general path, through total()
            self.max, self.min = k * faces + const, k + const
        if not -_BIG < self.min <= self.max < _BIG:
            # (every total it can roll within the bound, as every number a rule makes)
            raise ValueBound(f"dice whose total can pass {MAX_DIGITS} digits", "MAX_DIGITS")
        self._text = None

    @staticmethod
    def of(count: int, sides: int) -> "Dice":
        return Dice(((1, count, sides),))

    def __add__(self, other):
        if isinstance(other, Dice) and self.keep is None and other.keep is None:
            return Dice(self.terms + other.terms, self.const + other.const)
        if isinstance(other, int) and not isinstance(other, bool):
            return Dice(self.terms, self.const + other, self.keep)
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, Dice) and self.keep is None and other.keep is None:
            return Dice(self.terms + tuple((-s, c, f) for s, c, f in other.terms), self.const - other.const)
        if isinstance(other, int) and not isinstance(other, bool):
            return Dice(self.terms, self.const - other, self.keep)
        return NotImplemented

    def __rsub__(self, other):
        if isinstance(other, int) and not isinstance(other, bool) and self.keep is None:
            return Dice(tuple((-s, c, f) for s, c, f in self.terms), other - self.const)
        return NotImplemented

    def __neg__(self):
        return 0 - self

    def __eq__(self, other):
        """The same dice, whatever the order they were written in: 1D8+1D4 is 1D4+1D8 (and 1D8+1D8 is 2D8)."""
        return isinstance(other, Dice) and self.const == other.const and self.keep == other.keep \
            and sorted(self.terms) == sorted(other.terms)

    def __hash__(self):
        return hash((tuple(sorted(self.terms)), self.const, self.keep))

    def roll(self, draw) -> "Roll":
        """Roll once, remembering the faces (the recording path; see engine.roll)."""
        one = self.single
        if one:
            face = draw() % one + 1
            faces = [face]
            value = face + self.const
        elif len(self.sides) == 2 and not self.signed:       # 2D6, 1D10+1D4: the next most common
            a, b = self.sides
            a, b = draw() % a + 1, draw() % b + 1
            faces = [a, b]
            value = a + b + self.const
        else:
            faces = [draw() % s + 1 for s in self.sides]
            value = self.const + sum(faces) if not self.signed else total(self, faces)
        obj = _new_int(Roll, value)
        obj.dice = self
        obj.faces = faces
        return obj

    def face_count(self) -> int:
        return sum(c for _, c, _ in self.terms)

    def __str__(self):
        if self._text is None:
            parts = []
            for s, c, f in self.terms:
                word = f"d{f}" if (c == 1 and f == 100) else f"{c}D{f}"
                parts.append(("-" if s < 0 else ("+" if parts else "")) + word)
            if self.keep is not None:
                parts[0] += ("kh" if self.keep[1] == "highest" else "kl") + str(self.keep[0])
            if self.const:
                parts.append(f"{self.const:+d}")
            self._text = "".join(parts) or "0"
        return self._text

    __repr__ = __str__


def roll_faces(dice: Dice, draw) -> list[int]:
    """One face per die, in the order the expression names them."""
    return [draw() % s + 1 for s in dice.sides]


def total(dice: Dice, faces) -> int:
    if dice.keep is not None:
        k, which = dice.keep
        return dice.const + sum(sorted(faces, reverse=which == "highest")[:k])
    if not dice.signed:
        return dice.const + sum(faces)
    t, i = dice.const, 0
    for s, count, _sides in dice.terms:
        for _ in range(count):
            t += s * faces[i]
            i += 1
    return t


_new_int = int.__new__


class Roll(int):
    """A rolled total that remembers its dice and faces (made only when a transcript is kept)."""

    def __new__(cls, value, dice, faces):
        return make_roll(value, dice, faces)

    def __str__(self):
        text = f"{self.dice}={int(self)}"
        if len(self.faces) > 1:
            signs = [s for s, c, _f in self.dice.terms for _ in range(c)]
            parts = [("-" if s < 0 else "+" if i else "") + str(f) for i, (s, f) in enumerate(zip(signs, self.faces))]
            text += " (" + "".join(parts) + ")"
        return text

    __repr__ = __str__


def make_roll(value, dice, faces) -> Roll:
    obj = _new_int(Roll, value)
    obj.dice = dice
    obj.faces = faces
    return obj
