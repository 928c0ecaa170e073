"""Saved state: what a run leaves for the next one.

`grimorio run ENC --save-state FILE` writes, after a run that ended well,
every combatant's held cards and sheet fields and every var of the rules
(but `session` vars), as versioned JSON; `--load-state FILE` starts a run
from it. The file is written atomically (interpreter/tools/outputs.py, given by the command line), so a
run that fails or is killed never leaves a half-written file, and the
previous one stays whole.

A state file is input like any other (docs/security.md): read only if it is
a regular file of at most MAX_BYTES, decoded with bounds (whole numbers of
at most MAX_DIGITS digits, no floats, no field named twice, lists and texts
within MAX_LENGTH), and every value checked against the sheet before the
run starts: its kind, its range, a table row by its key, a grade by its
condition, a combatant by the encounter. A file that is not JSON, is cut
short, is not a grimorio state, comes from a newer grimorio, or holds what
the rules do not allow is refused with a diagnostic (E0801-E0805) at its
place in the file, naming the value's path in it (combatants.Akira.fields.FUE).

Saved state wins: a combatant the state holds takes its sheet from it, and
the encounter needs to give it nothing; a value it gives one of them is
refused (E0808) unless written as a change ("change FUE 4").
"""
from __future__ import annotations

import json
import re
import unicodedata
from fractions import Fraction
from pathlib import Path

from ...dsl.diagnostics import Diagnostic, GrimorioError, Span

from .dice import Dice
from ...dsl.bounds import MAX_DICE, MAX_DIGITS, MAX_LENGTH
from ...dsl.check.builtin_values import MAX_FACES
from .values import Combatant, ConditionType, Grade, Ranked, Scale, Struct, hash_key, json_text, kind, make_struct, mangle, record

FORMAT = "grimorio-state"
VERSION = 3          # 2: a catalogue's row saved by its key ("key"), not its place ("at");
                     # 3: the data given with cards ("held": add ... with DATA)
MAX_BYTES = 16 * 1024 * 1024


# ------------------------------------------------------------ values to JSON
class _Unsaveable(Exception):
    def __init__(self, what):
        super().__init__(what)
        self.what = what


def _encode(v, rows: dict, depth: int = 0):
    """A value as JSON; `rows` tells the table rows (saved by table and place) from records."""
    if depth > 64:
        raise _Unsaveable("a list or record that holds itself")
    for cls in type(v).__mro__:
        encoder = _ENCODERS.get(cls)
        if encoder is not None:
            return encoder(v, rows, depth + 1)
    if type(v).__name__ == "Map":
        raise _Unsaveable("a map (a session var holds one: it starts afresh in every run)")
    raise _Unsaveable("a whole table" if hasattr(v, "lookup") and hasattr(v, "rows") else "a value of the engine")


def _struct(v, rows, depth):
    if id(v) in rows:
        table, i, key = rows[id(v)]
        return {"row": table, "at": i} if key is None else {"row": table, "key": _encode(key, {}, depth)}
    # Fields as pairs: a record keeps its order (the file's tables are sorted).
    return {"record": v._title, "fields": [[n, _encode(getattr(v, mangle(n), None), rows, depth)] for n in v._names]}


_ENCODERS = {
    type(None): lambda v, rows, depth: None,
    bool: lambda v, rows, depth: v,
    str: lambda v, rows, depth: v,
    int: lambda v, rows, depth: int(v),                      # a roll keeps only its total
    list: lambda v, rows, depth: [_encode(x, rows, depth) for x in v],
    Combatant: lambda v, rows, depth: {"combatant": v.a_name},
    Grade: lambda v, rows, depth: {"grade": [v.condition, v.name]},
    Ranked: lambda v, rows, depth: {"outcome": v.name},
    ConditionType: lambda v, rows, depth: {"condition": v.name},
    Scale: lambda v, rows, depth: {"scale": [v.numerator, v.denominator]},
    Fraction: lambda v, rows, depth: {"fraction": [v.numerator, v.denominator]},
    Dice: lambda v, rows, depth: {"dice": [list(t) for t in v.terms], "const": v.const},
    Struct: _struct,
}


def snapshot(engine) -> dict:
    """Everything a run leaves that the next run can start from."""
    p = engine.p
    rows = {id(row): (t.name, i, None if t.dice is not None else getattr(row, mangle(row._names[0])))
            for t in p.tables.values() for i, row in enumerate(t.rows)}
    combatants = {}
    for c in engine.cb:
        fields = [f.name for f in p.sheet_fields_by[c.a_sheet]]
        combatants[c.a_name] = {
            "cards": {cond: [g.name if g is not None else None for g in held] for cond, held in c.cards.items()},
            "fields": {f: _encode(getattr(c, mangle(f), None), rows) for f in fields},
        }
        if c.held:                                     # the data given with cards, beside them, in step
            combatants[c.a_name]["held"] = {cond: [_encode(d, rows) for d in data] for cond, data in c.held.items()}
        if c.a_sheet != p.sheet.name:                  # a sheet other than the base is recorded
            combatants[c.a_name]["sheet"] = c.a_sheet
    return {"format": FORMAT, "version": VERSION, "edition": p.ruleset.edition.name,
            "vars": {v.name: _encode(getattr(engine.v, mangle(v.name), None), rows) for v in p.vars
                     if not getattr(v, "session", False)},
            "combatants": combatants}


# A JSON text from its opening quote to its closing one (an escaped quote does not close it).
_TEXT = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _unclosed_text(text: str, pos: int) -> bool:
    """Whether a JSON text opens at `pos` and no quote closes it: the file ends inside it."""
    return text.startswith('"', pos) and _TEXT.match(text, pos) is None


def dumps(data: dict) -> str:
    return json_text(data, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def save(path, engine, at: Span, write_atomically) -> None:
    """Write the state with `write_atomically(path, text)` (the command line gives
    interpreter/tools/outputs.py's: the runtime imports no tool); the target was checked before the run."""
    try:
        text = dumps(snapshot(engine))
    except _Unsaveable as exc:
        raise GrimorioError(Diagnostic("E0806", f"the rules hold a value that cannot be saved ({exc.what})", at,
                                       "a saved state keeps numbers, texts, lists, records, combatants, "
                                       "conditions, grades, outcomes, dice and table rows")) from None
    try:
        write_atomically(Path(path), text)
    except OSError as exc:
        raise GrimorioError(Diagnostic("E0807", f'the state cannot be written to "{path}": {exc.strerror or exc}',
                                       at, "check the folder exists and can be written")) from None


# ------------------------------------------------------------ JSON to values
class _Refused(Exception):
    def __init__(self, message, needle=None):
        super().__init__(message)
        self.message, self.needle = message, needle


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Refused(f"it holds a number of {len(text.lstrip('-'))} digits; numbers hold at most {MAX_DIGITS}",
                       text[:40])
    return int(text)


def _float(text: str):
    raise _Refused(f"it holds the number {text[:40]}, which grimorio never writes (fractions are saved as "
                   "[numerator, denominator])", text[:40])


def _constant(text: str):
    raise _Refused(f"it holds {text}, which is no number", text)


def _pairs(pairs):
    seen = {}
    for k, v in pairs:
        k = unicodedata.normalize("NFC", k)         # names as the rules write them

        if k in seen:
            raise _Refused(f'it names "{k}" twice in one table', k)
        seen[k] = v
    return seen


class _Checking:
    """A combatant named in a saved value, while the file is checked (before there are combatants)."""

    def __init__(self, name):
        self.a_name = name


class StateFile:
    """A state file read and checked against a program and an encounter's combatants, ready to be put
    into a run."""

    def __init__(self, path, program, sources, at: Span, combatants=()):
        self.path, self.p, self.at = str(path), program, at
        self.names = list(combatants)
        raw = self._read(path, at)
        try:
            self.text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GrimorioError(Diagnostic("E0801", "the state file is not text (it is damaged or no state file)",
                                           Span(self.path, 1, 1), f"its byte {exc.start} is not UTF-8")) from None
        sources.texts[self.path] = self.text
        try:
            self.data = json.loads(self.text, parse_int=_int, parse_float=_float, parse_constant=_constant,
                                   object_pairs_hook=_pairs)
        except _Refused as exc:
            self.fail("E0805", f"the state file cannot be read: {exc.message}", exc.needle, raw_needle=True)
        except json.JSONDecodeError as exc:
            # The text ended where more was due; or inside a text, which JSON reports where the text began.
            rest = self.text[exc.pos:].strip()          # or inside a word: "fal" of false
            cut = exc.pos >= len(self.text.rstrip()) or _unclosed_text(self.text, exc.pos) \
                or any(word.startswith(rest) for word in ("true", "false", "null")) and bool(rest)
            raise GrimorioError(Diagnostic(
                "E0801", "the state file ends before its data does (it was cut short)" if cut
                else f"the state file is damaged: {exc.msg.lower()}", Span(self.path, exc.lineno, exc.colno),
                "write it again with --save-state; a run never leaves a half-written state")) from None
        except RecursionError:
            raise GrimorioError(Diagnostic("E0801", "the state file nests its data deeper than grimorio reads",
                                           Span(self.path, 1, 1), "give the file a run wrote with --save-state")) \
                from None
        self._check_header()
        self._check()

    def _read(self, path, at: Span) -> bytes:
        from ...dsl.source import NotRegular, TooLarge, read_bounded
        why = None
        try:
            return read_bounded(path, MAX_BYTES)
        except IsADirectoryError:
            why = "it is a folder"
        except NotRegular:
            why = "it is not a regular file (a pipe, a device or a socket)"
        except TooLarge:
            why = f"it is larger than {MAX_BYTES // (1024 * 1024)} MiB"
        except (OSError, ValueError) as exc:
            why = getattr(exc, "strerror", None) or str(exc)
        raise GrimorioError(Diagnostic("E0801", f'the state file "{path}" cannot be read: {why}', at,
                                       "give the file a run wrote with --save-state"))

    def span(self, needle: str | None = None, raw: bool = False) -> Span:
        """Where `needle` (a key or value as JSON writes it; `raw`: as it is) first is in the file."""
        if needle:
            written = needle if raw else json.dumps(needle, ensure_ascii=False)
            i = self.text.find(written)
            if i >= 0:
                line = self.text.count("\n", 0, i) + 1
                col = i - (self.text.rfind("\n", 0, i) + 1) + 1
                return Span(self.path, line, col, line, col + len(written))
        return Span(self.path, 1, 1)

    def fail(self, code, message, needle=None, help=None, raw_needle=False):
        raise GrimorioError(Diagnostic(code, message, self.span(needle, raw_needle), help))

    def _check_header(self):
        d = self.data
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            self.fail("E0802", "this is not a grimorio state file", "format" if isinstance(d, dict) else None,
                      "give the file a run wrote with --save-state")
        version = d.get("version")
        if type(version) is not int or version < 1:
            self.fail("E0802", "this state file has no version grimorio knows", "version")
        if version > VERSION:
            self.fail("E0803", f"this state file was written by a newer grimorio (format {version}; "
                               f"this one reads up to {VERSION})", "version", "update grimorio to read it")
        if d.get("edition") != self.p.ruleset.edition.name:
            self.fail("E0804", f'this state was saved with edition "{d.get("edition")}", '
                               f'not "{self.p.ruleset.edition.name}"', "edition",
                      "load it into an encounter of the same edition")
        for key, kind_ in (("vars", dict), ("combatants", dict)):
            if not isinstance(d.get(key), kind_):
                self.fail("E0805", f'the state file has no "{key}" table', key)

    # -------------------------------------------------------- checked before anything runs
    def _check(self) -> None:
        """Every value of the file against these rules and this encounter, before the run starts."""
        by_name = {name: _Checking(name) for name in self.names}
        known_vars = {v.name for v in self.p.vars}
        for name, value in self.data["vars"].items():
            if name not in known_vars:
                self.fail("E0805", f'the state has a var "{name}" these rules do not declare (at vars.{name})', name)
            self.decode(value, by_name, f"vars.{name}", name)
        for who, saved in self.data["combatants"].items():
            self._saved(who, saved)
            if who not in by_name:
                continue                 # someone of the last session who is not in this encounter
            cards = self.cards(who, saved.get("cards", {}))
            self.held(who, saved.get("held", {}), cards, by_name)
            for field, value in saved.get("fields", {}).items():
                self.field_value(who, field, value, by_name)

    def _saved(self, who, saved) -> None:
        if not isinstance(saved, dict) or not isinstance(saved.get("cards", {}), dict) \
                or not isinstance(saved.get("fields", {}), dict) or not isinstance(saved.get("held", {}), dict):
            self.fail("E0805", f"the state of {who} is not a table of cards and fields (at combatants.{who})", who)

    def field_value(self, who, field, value, by_name):
        """A saved field's value, decoded and checked against the sheet's field."""
        path = f"combatants.{who}.fields.{field}"
        f = self.fields_of(who).get(field)
        if f is None:
            self.fail("E0805", f'the state gives {who} a field "{field}" the sheet does not have (at {path})', field)
        v = self.decode(value, by_name, path, field)
        problem = _field_problem(f, v, self.p)
        if problem:
            self.fail("E0805", f"the saved {field} of {who} is {problem} (at {path})", field,
                      "a state holds what the sheet allows: give the file a run wrote with --save-state")
        return v

    def saved_sheet(self, who) -> str:
        """The sheet the state saved `who` with (a base-sheet combatant's is not written)."""
        return self.data["combatants"][who].get("sheet", self.p.sheet.name)

    def fields_of(self, who) -> dict:
        sheet = self.saved_sheet(who)
        if not isinstance(sheet, str) or sheet not in self.p.sheet_fields_by:
            self.fail("E0805", f'the state gives {who} sheet "{sheet}", which these rules do not declare '
                               f'(at combatants.{who}.sheet)', sheet)
        return {f.name: f for f in self.p.sheet_fields_by[sheet]}

    def check_sheets(self, sheet_of: dict) -> None:
        """Each combatant the state holds has the sheet the encounter gives it (`sheet_of`: name -> sheet)."""
        for who in self.loaded():
            if self.saved_sheet(who) != sheet_of[who]:
                self.fail("E0805", f'the state saved {who} with sheet "{self.saved_sheet(who)}", and the encounter '
                                   f'gives it sheet "{sheet_of[who]}" (at combatants.{who})', who,
                          "give the combatant the sheet it was saved with, or start it afresh")

    def loaded(self) -> frozenset:
        """The encounter's combatants the state holds: their sheets come from it."""
        return frozenset(name for name in self.names if name in self.data["combatants"])

    def loaded_sheets(self) -> dict:
        """The encounter's combatants the state holds, each with the sheet it was saved with: a loaded
        combatant is named and nothing more, its `sheet` line too."""
        out = {}
        for name in sorted(self.loaded()):
            self.fields_of(name)                   # a sheet these rules declare (else E0805)
            out[name] = self.saved_sheet(name)
        return out

    def field_names(self, who) -> frozenset:
        return frozenset(self.data["combatants"][who].get("fields", {}))

    def plain_fields(self, who) -> dict:
        """The saved fields of `who` that name no combatant (those are set once the combatants are made)."""
        out = {}
        for field, value in self.data["combatants"][who].get("fields", {}).items():
            v = self.decode(value, {}, f"combatants.{who}.fields.{field}", field, combatants=False)
            if v is not _NAMES_COMBATANT:
                out[field] = v
        return out

    # -------------------------------------------------------- putting it into a run
    def apply(self, engine, changes: dict) -> None:
        """Cards, fields (but those the encounter changes on purpose) and vars of the file, into a fresh run.
        Everything was checked when the file was read: nothing here is refused but a var whose kind the
        rules' own start contradicts."""
        by_name = {c.a_name: c for c in engine.cb}
        for name, value in self.data["vars"].items():
            v = self.decode(value, by_name, f"vars.{name}", name)
            start = getattr(engine.v, mangle(name), None)
            if _plain_kind(start) is not None and _plain_kind(v) is not None and _plain_kind(start) != _plain_kind(v):
                self.fail("E0805", f"the saved var {name} is {kind(v)}; these rules start it as {kind(start)} "
                                   f"(at vars.{name})", name)
            setattr(engine.v, mangle(name), v)
        for who, saved in self.data["combatants"].items():
            c = by_name.get(who)
            if c is None:
                continue
            c.cards = self.cards(who, saved.get("cards", {}))
            c.held = self.held(who, saved.get("held", {}), c.cards, by_name)
            for field, value in saved.get("fields", {}).items():
                if field not in changes.get(who, ()):
                    setattr(c, mangle(field), self.decode(value, by_name, f"combatants.{who}.fields.{field}", field))

    def cards(self, who, saved) -> dict:
        out = {}
        for cond, grades in saved.items():
            ct = self.p.conditions.get(cond)
            if ct is None or not isinstance(grades, list):
                self.fail("E0805", f'the state gives {who} cards of "{cond}", which these rules do not declare '
                                   f"(at combatants.{who}.cards.{cond})", cond)
            if len(grades) > MAX_LENGTH:
                self.fail("E0805", f"the state gives {who} more cards of {cond} than a list holds", cond)
            held = []
            for g in grades:
                if g is None and not ct.grades:
                    held.append(None)
                elif isinstance(g, str) and g in ct.by_name:
                    held.append(ct.by_name[g])
                else:
                    self.fail("E0805", f'condition "{cond}" has no grade "{g}" (at combatants.{who}.cards.{cond})',
                              cond)
            if held:
                out[cond] = held
        return out

    def held(self, who, saved, cards, by_name) -> dict:
        """The data given with the cards (`add ... with DATA`, none where none was), one item per card
        the state gives of the condition (a file of version 2 has none)."""
        out = {}
        for cond, data in saved.items():
            path = f"combatants.{who}.held.{cond}"
            count = len(cards.get(cond, ()))
            if not isinstance(data, list) or len(data) != count:
                self.fail("E0805", f"the state gives {who} data for the cards of {cond} that do not match its "
                                   f"{count} card{'' if count == 1 else 's'} of {cond} (at {path})", cond,
                          "one item of data per card, none where a card came without: give the file a run "
                          "wrote with --save-state")
            out[cond] = [self.decode(d, by_name, f"{path}[{i + 1}]", cond) for i, d in enumerate(data)]
        return out

    def decode(self, v, by_name, path, needle, combatants=True):
        t = type(v)
        if v is None or t is bool or t is int:
            return v
        if t is str:
            if len(v) > MAX_LENGTH:
                self.fail("E0805", f"the saved text at {path} is longer than a text holds ({MAX_LENGTH})", needle)
            return v
        if t is list:
            if len(v) > MAX_LENGTH:
                self.fail("E0805", f"the saved list at {path} holds {len(v)} items; a list holds at most "
                                   f"{MAX_LENGTH}", needle)
            out = []
            for i, x in enumerate(v):
                item = self.decode(x, by_name, f"{path}[{i + 1}]", needle, combatants)
                if item is _NAMES_COMBATANT:
                    return _NAMES_COMBATANT
                out.append(item)
            return out
        if t is not dict or len(v) == 0:
            self.fail("E0805", f"the saved value at {path} is not one grimorio writes", needle)
        kind_ = next((k for k in _DECODERS if k in v), None)
        if kind_ is None:
            self.fail("E0805", f"the saved value at {path} is not one grimorio writes", needle)
        if kind_ == "combatant" and not combatants:
            return _NAMES_COMBATANT
        try:
            return _DECODERS[kind_](self, v, by_name, path, needle, combatants)
        except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError, AttributeError, OverflowError):
            self.fail("E0805", f"the saved value at {path} does not fit these rules", needle)

    def _d_combatant(self, v, by_name, path, needle, combatants):
        c = by_name.get(v["combatant"])
        if c is None:
            self.fail("E0805", f'the saved value at {path} names {v["combatant"]}, who is not in this encounter',
                      v["combatant"], "a state is loaded into an encounter with the same combatants")
        return c

    def _d_grade(self, v, by_name, path, needle, combatants):
        cond, grade = v["grade"]
        return self.p.conditions[cond].by_name[grade]

    def _d_outcome(self, v, by_name, path, needle, combatants):
        return self.p.outcome_values[v["outcome"]]

    def _d_condition(self, v, by_name, path, needle, combatants):
        return self.p.conditions[v["condition"]]

    def _d_scale(self, v, by_name, path, needle, combatants):
        num, den = v["scale"]
        if type(num) is not int or type(den) is not int or den <= 0 or num < 0:
            raise ValueError("a scale")
        return Scale(num, den)

    def _d_fraction(self, v, by_name, path, needle, combatants):
        num, den = v["fraction"]
        if type(num) is not int or type(den) is not int or den == 0:
            raise ValueError("a fraction of whole numbers")
        return Fraction(num, den)

    def _d_dice(self, v, by_name, path, needle, combatants):
        terms, const = v["dice"], v["const"]
        if type(const) is not int or not isinstance(terms, list) or not 1 <= len(terms) <= MAX_DICE:
            raise ValueError("dice")
        out = []
        for term in terms:
            s, c, f = term
            if s not in (1, -1) or type(s) is not int or type(c) is not int or type(f) is not int \
                    or not 1 <= c <= MAX_DICE or not 1 <= f <= MAX_FACES:
                raise ValueError("dice")
            out.append((s, c, f))
        if sum(c for _s, c, _f in out) > MAX_DICE:
            raise ValueError("dice")
        return Dice(tuple(out), const)

    def _d_row(self, v, by_name, path, needle, combatants):
        table = self.p.tables[v["row"]]
        if "key" in v:
            key = self.decode(v["key"], by_name, path, needle, combatants)
            row = table.index.get(hash_key(key)) if table.dice is None else None
            if row is None:
                self.fail("E0805", f'table "{table.name}" has no row "{key}" (at {path})', needle)
            return row
        at = v["at"]
        if type(at) is not int or not 0 <= at < len(table.rows):
            raise IndexError(at)
        return table.rows[at]

    def _d_record(self, v, by_name, path, needle, combatants):
        pairs = v["fields"]
        names = tuple(str(name) for name, _value in pairs)
        if len(set(names)) != len(names) or not names or len(names) > MAX_LENGTH:
            self.fail("E0805", f"the saved record at {path} names a field twice (or none)", needle)
        values = []
        for name, value in pairs:
            item = self.decode(value, by_name, f"{path}.{name}", needle, combatants)
            if item is _NAMES_COMBATANT:
                return _NAMES_COMBATANT
            values.append(item)
        cls = self.p.structs.get(names) or make_struct(str(v["record"]), names)
        return record(cls, values)


_NAMES_COMBATANT = object()     # plain_fields: a value that names a combatant, set once they are made
_DECODERS = {"combatant": StateFile._d_combatant, "grade": StateFile._d_grade, "outcome": StateFile._d_outcome,
             "condition": StateFile._d_condition, "scale": StateFile._d_scale, "fraction": StateFile._d_fraction,
             "dice": StateFile._d_dice, "row": StateFile._d_row, "record": StateFile._d_record}


def _plain_kind(v):
    """The kind a var's value must keep from its start: number, truth or text (anything else: not compared)."""
    t = type(v)
    return "truth" if t is bool else "number" if t in (int, Fraction) else "text" if t is str else None


def _field_problem(f, v, program) -> str | None:
    """Why `v` cannot be the field `f` of the sheet (its kind, its range, its table), or None."""
    t = type(v)
    if f.type in ("int", "percent"):
        if t is not int:
            return f"{kind(v)}, not a whole number"
        lo, hi = (f.low, f.high) if f.type == "int" else (0, 100)
        if lo is not None and not lo <= v <= hi:
            return f"{v}, out of its range {lo} to {hi}{'%' if f.type == 'percent' else ''}"
    elif f.type == "bool" and t is not bool:
        return f"{kind(v)}, not true or false"
    elif f.type == "text" and t is not str:
        return f"{kind(v)}, not a text"
    elif f.type == "list" and t is not list:
        return f"{kind(v)}, not a list"
    elif f.type == "row":
        table = program.tables.get(f.table)
        if table is None or not any(v is row for row in table.rows):
            return f"{kind(v)}, not a row of table \"{f.table}\""
    return None
