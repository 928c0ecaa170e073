"""How values print in the transcript: the runtime's Format, made from an edition's `format`
templates (interpreter/compile/formats.py gathers them)."""
from __future__ import annotations

from fractions import Fraction

from ...dsl.check.format_kinds import KEYS, PLACEHOLDER

from .dice import Dice, Roll
from .values import _BIG as BIG, HUGE, Scale, Struct, _nested, _shown, in_words, mangle


def python_format(template: str, keys) -> str:
    """A format's text as a Python format string: its placeholders of `keys` filled by
    str.format, everything else (a brace around a placeholder included) kept as written."""
    parts = PLACEHOLDER.split(template)        # literal, name, literal, name, ..., literal
    out = []
    for i, part in enumerate(parts):
        if i % 2 and part in keys:
            out.append("{" + part + "}")
        else:
            literal = part if i % 2 == 0 else "{" + part + "}"
            out.append(literal.replace("{", "{{").replace("}", "}}"))
    return "".join(out)


class Format:
    """Values to transcript text, by an edition's templates."""

    def __init__(self, templates: dict[str, str]):
        self.t = templates
        self.f = {kind: python_format(text, KEYS.get(kind, ())) for kind, text in templates.items()}
        self.words = {None: templates["none"], True: templates["true"], False: templates["false"]}
        self.sep, self.empty = templates["separator"], templates["empty"]
        self.field_sep = templates["field_separator"]
        self._dice: dict[Dice, str] = {}

    def show(self, v) -> str:
        if type(v) is str:                            # the common cases, before any slower isinstance
            return v
        if type(v) is int:
            return self.number(v) if -BIG < v < BIG else HUGE
        if v is None or v is True or v is False:
            return self.words[v]
        if isinstance(v, list):
            return _nested(lambda: self.sep.join(self.show(x) for x in _shown(v)), "...") if v else self.empty
        if isinstance(v, Roll):
            return self.roll(v)
        if isinstance(v, Dice):
            return self.dice(v)
        if isinstance(v, Scale):
            return self.scale(v)
        if isinstance(v, Fraction):
            if v.denominator == 1:
                return self.number(v.numerator)
            try:
                return self.f["ratio"].format(n=v.numerator, d=v.denominator)
            except ValueError:
                return in_words(v)
        if isinstance(v, Struct):
            if v._key is not None:
                return self.show(getattr(v, mangle(v._key)))
            return _nested(lambda: self.f["record"].format(fields=self.field_sep.join(
                self.f["field"].format(name=k, value=self.show(getattr(v, mangle(k)))) for k in v._names)), "...")
        return str(v)

    @staticmethod
    def number(v: int) -> str:
        """A whole number's digits, or in words past what Python converts (values.in_words)."""
        try:
            return str(v)
        except ValueError:
            return in_words(v)

    def json(self, v):
        """A value in the jsonl transcript: numbers, texts, true, false, none, lists and records
        as JSON's own; a roll as its dice, faces and total; anything else (dice, factors,
        outcomes, grades, combatants) as the text transcript prints it, by these formats."""
        if v is None or type(v) is bool or type(v) is str:
            return v
        if isinstance(v, Roll):
            return {"dice": self.dice(v.dice), "faces": list(v.faces), "total": int(v)}
        if isinstance(v, int):
            return int(v) if -BIG < v < BIG else HUGE
        if isinstance(v, list):
            return _nested(lambda: [self.json(x) for x in _shown(v)], "...")
        if isinstance(v, Struct):
            if v._key is not None:
                return self.json(getattr(v, mangle(v._key)))
            return _nested(lambda: {k: self.json(getattr(v, mangle(k), None)) for k in v._names}, "...")
        return self.show(v)

    def dice(self, d: Dice) -> str:
        text = self._dice.get(d)
        if text is None:
            parts = []
            for sign, count, faces in d.terms:
                key = "percentile" if (count == 1 and faces == 100) else "dice"
                word = self.f[key].format(count=count, faces=faces)
                parts.append(("-" if sign < 0 else ("+" if parts else "")) + word)
            if d.keep is not None:
                parts[0] += self.f[d.keep[1]].format(k=d.keep[0])
            if d.const:
                parts.append(f"{d.const:+d}")
            text = self._dice[d] = "".join(parts) or "0"
        return text

    def roll(self, r: Roll) -> str:
        if len(r.faces) <= 1:
            return self.f["roll"].format(dice=self.dice(r.dice), total=int(r))
        signs = [s for s, c, _f in r.dice.terms for _ in range(c)]
        faces = "".join(("-" if s < 0 else "+" if i else "") + str(f) for i, (s, f) in enumerate(zip(signs, r.faces)))
        return self.f["roll_faces"].format(dice=self.dice(r.dice), total=int(r), faces=faces)

    def scale(self, s: Scale) -> str:
        if s.denominator == 1:
            return self.f["factor"].format(n=s.numerator)
        if s.numerator == 1:
            return self.f["divisor"].format(d=s.denominator)
        return self.f["fraction"].format(n=s.numerator, d=s.denominator)
