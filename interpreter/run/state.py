"""Saved state: what a run leaves for the next one.

`grimorio run ENC --save-state FILE` writes, after a run that ended well,
every combatant's held cards and sheet fields and every var of the rules, as
versioned JSON; `--load-state FILE` starts a run from it. The file is written
atomically (a temporary file beside it, flushed and synced, then renamed over
it), so a run that fails or is killed never leaves a half-written file, and
the previous one stays whole. A file that is not JSON, is cut short, is not a
grimorio state, comes from a newer grimorio, or names what the rules do not
know is refused with a diagnostic at its place in the file.
"""
from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

from ...dsl.diagnostics import Diagnostic, GrimorioError, Span

from .dice import Dice
from .values import Combatant, ConditionType, Grade, Ranked, Scale, Struct, make_struct, mangle, record

FORMAT = "grimorio-state"
VERSION = 1


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
    raise _Unsaveable("a whole table" if hasattr(v, "lookup") and hasattr(v, "rows") else "a value of the engine")


def _struct(v, rows, depth):
    if id(v) in rows:
        table, i = rows[id(v)]
        return {"row": table, "at": i}
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
    rows = {id(row): (t.name, i) for t in p.tables.values() for i, row in enumerate(t.rows)}
    combatants = {}
    for c in engine.cb:
        fields = [f.name for f in p.sheet_fields_by[c.a_sheet]]
        combatants[c.a_name] = {
            "cards": {cond: [g.name if g is not None else None for g in held] for cond, held in c.cards.items()},
            "fields": {f: _encode(getattr(c, mangle(f), None), rows) for f in fields},
        }
        if c.a_sheet != p.sheet.name:                  # a sheet other than the base is recorded
            combatants[c.a_name]["sheet"] = c.a_sheet
    return {"format": FORMAT, "version": VERSION, "edition": p.ruleset.edition.name,
            "vars": {v.name: _encode(getattr(engine.v, mangle(v.name), None), rows) for v in p.vars},
            "combatants": combatants}


def dumps(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def save(path, engine, at: Span) -> None:
    """Write the state atomically: a temporary file, flushed and synced, renamed over `path`."""
    try:
        text = dumps(snapshot(engine))
    except _Unsaveable as exc:
        raise GrimorioError(Diagnostic("E0806", f"the rules hold a value that cannot be saved ({exc.what})", at,
                                       "a saved state keeps numbers, texts, lists, records, combatants, "
                                       "conditions, grades, outcomes, dice and table rows")) from None
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _sync_folder(path.parent)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise GrimorioError(Diagnostic("E0807", f'the state cannot be written to "{path}": {exc.strerror or exc}',
                                       at, "check the folder exists and can be written")) from None


def _sync_folder(folder: Path) -> None:
    """The rename itself survives a power cut only once the folder is synced (where the system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ------------------------------------------------------------ JSON to values
class StateFile:
    """A state file read and checked against a program, ready to be put into a run."""

    def __init__(self, path, program, sources, at: Span):
        self.path, self.p, self.at = str(path), program, at
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise GrimorioError(Diagnostic("E0801", f'the state file "{path}" cannot be read: '
                                           f"{exc.strerror or exc}", at, "give the file a run wrote with --save-state"))
        try:
            self.text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GrimorioError(Diagnostic("E0801", "the state file is not text (it is damaged or no state file)",
                                           Span(self.path, 1, 1), f"its byte {exc.start} is not UTF-8")) from None
        sources.texts[self.path] = self.text
        try:
            self.data = json.loads(self.text)
        except json.JSONDecodeError as exc:
            # The text ended where more was due; or inside a text, which JSON reports where the text began.
            cut = exc.pos >= len(self.text.rstrip()) or exc.msg.startswith("Unterminated string")
            raise GrimorioError(Diagnostic(
                "E0801", "the state file ends before its data does (it was cut short)" if cut
                else f"the state file is damaged: {exc.msg.lower()}", Span(self.path, exc.lineno, exc.colno),
                "write it again with --save-state; a run never leaves a half-written state")) from None
        except RecursionError:
            raise GrimorioError(Diagnostic("E0801", "the state file nests its data deeper than grimorio reads",
                                           Span(self.path, 1, 1), "give the file a run wrote with --save-state")) \
                from None
        self._check_header()

    def span(self, needle: str | None = None) -> Span:
        """Where `needle` (a key or value as JSON writes it) first is in the file."""
        if needle:
            i = self.text.find(json.dumps(needle, ensure_ascii=False))
            if i >= 0:
                line = self.text.count("\n", 0, i) + 1
                col = i - (self.text.rfind("\n", 0, i) + 1) + 1
                return Span(self.path, line, col, line, col + len(json.dumps(needle, ensure_ascii=False)))
        return Span(self.path, 1, 1)

    def fail(self, code, message, needle=None, help=None):
        raise GrimorioError(Diagnostic(code, message, self.span(needle), help))

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
        for key, kind in (("vars", dict), ("combatants", dict)):
            if not isinstance(d.get(key), kind):
                self.fail("E0805", f'the state file has no "{key}" table', key)

    # -------------------------------------------------------- putting it into a run
    def apply(self, engine, given_fields: dict) -> None:
        """Cards, fields (those the encounter does not give) and vars of the file, into a fresh run."""
        p = self.p
        by_name = {c.a_name: c for c in engine.cb}
        known_vars = {v.name for v in p.vars}
        for name, value in self.data["vars"].items():
            if name not in known_vars:
                self.fail("E0805", f'the state has a var "{name}" these rules do not declare', name)
            setattr(engine.v, mangle(name), self.decode(value, by_name, name))
        for who, saved in self.data["combatants"].items():
            c = by_name.get(who)
            if c is None:
                continue                 # someone of the last session who is not in this encounter
            if not isinstance(saved, dict) or not isinstance(saved.get("cards", {}), dict) \
                    or not isinstance(saved.get("fields", {}), dict):
                self.fail("E0805", f"the state of {who} is not a table of cards and fields", who)
            if saved.get("sheet", p.sheet.name) != c.a_sheet:
                self.fail("E0805", f'the state saved {who} with sheet "{saved.get("sheet", p.sheet.name)}", '
                                   f'and the encounter gives it sheet "{c.a_sheet}"', who)
            fields = {f.name for f in p.sheet_fields_by[c.a_sheet]}
            c.cards = self.cards(who, saved.get("cards", {}))
            for field, value in saved.get("fields", {}).items():
                if field not in fields:
                    self.fail("E0805", f'the state gives {who} a field "{field}" the sheet does not have', field)
                if field not in given_fields.get(who, ()):
                    setattr(c, mangle(field), self.decode(value, by_name, field))

    def cards(self, who, saved) -> dict:
        out = {}
        for cond, grades in saved.items():
            ct = self.p.conditions.get(cond)
            if ct is None or not isinstance(grades, list):
                self.fail("E0805", f'the state gives {who} cards of "{cond}", which these rules do not declare', cond)
            held = []
            for g in grades:
                if g is None and not ct.grades:
                    held.append(None)
                elif isinstance(g, str) and g in ct.by_name:
                    held.append(ct.by_name[g])
                else:
                    self.fail("E0805", f'condition "{cond}" has no grade "{g}"', cond)
            if held:
                out[cond] = held
        return out

    def decode(self, v, by_name, where):
        if v is None or isinstance(v, (bool, str, int)):
            return v
        if isinstance(v, list):
            return [self.decode(x, by_name, where) for x in v]
        if not isinstance(v, dict) or len(v) == 0:
            self.fail("E0805", f'the saved value of "{where}" is not one grimorio writes', where)
        kind = next(k for k in ("combatant", "grade", "outcome", "condition", "scale", "fraction", "dice",
                                "row", "record", "") if k == "" or k in v)
        decoder = getattr(self, "_d_" + kind, None) if kind else None
        if decoder is None:
            self.fail("E0805", f'the saved value of "{where}" is not one grimorio writes', where)
        try:
            return decoder(v, by_name, where)
        except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError):
            self.fail("E0805", f'the saved value of "{where}" does not fit these rules', where)

    def _d_combatant(self, v, by_name, where):
        c = by_name.get(v["combatant"])
        if c is None:
            self.fail("E0805", f'the saved "{where}" names {v["combatant"]}, who is not in this encounter',
                      v["combatant"], "a state is loaded into an encounter with the same combatants")
        return c

    def _d_grade(self, v, by_name, where):
        cond, grade = v["grade"]
        return self.p.conditions[cond].by_name[grade]

    def _d_outcome(self, v, by_name, where):
        return self.p.outcome_values[v["outcome"]]

    def _d_condition(self, v, by_name, where):
        return self.p.conditions[v["condition"]]

    def _d_scale(self, v, by_name, where):
        return Scale(*v["scale"])

    def _d_fraction(self, v, by_name, where):
        return Fraction(*v["fraction"])

    def _d_dice(self, v, by_name, where):
        return Dice(tuple((int(s), int(c), int(f)) for s, c, f in v["dice"]), int(v["const"]))

    def _d_row(self, v, by_name, where):
        return self.p.tables[v["row"]].rows[v["at"]]

    def _d_record(self, v, by_name, where):
        pairs = v["fields"]
        names = tuple(str(name) for name, _value in pairs)
        cls = self.p.structs.get(names) or make_struct(str(v["record"]), names)
        return record(cls, [self.decode(value, by_name, name) for name, value in pairs])
