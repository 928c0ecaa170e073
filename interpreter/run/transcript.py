"""Rendering a run's events: text (the ruleset's own words) or JSON lines.

The JSON lines follow a schema of their own (SCHEMA, documented in
docs/transcript-jsonl.md): a header event first, then every event of the run
with the round it happened in, the combatants' starting sheets, and each change
of a sheet field. The text transcript is the ruleset's lines alone; the command
line puts a header line above it (header_line).
"""
from __future__ import annotations

from .values import Struct, json_text, mangle

SCHEMA = 1          # the version of the JSON lines' schema: raised when a key changes meaning or goes


def header(enc_name, enc_file, program, seed, version) -> dict:
    """What a run was: its encounter, its edition and layers (lowest first), its seed, grimorio's version."""
    rs = program.ruleset
    return {"event": "header", "schema": SCHEMA, "grimorio": version, "encounter": enc_name, "file": enc_file,
            "edition": rs.edition.name, "layers": [layer.name for layer in rs.layers], "seed": seed}


def header_line(fields: dict) -> str:
    """The header of a text transcript: a comment line, in grimorio's words (the lines below are the rules').
    It names the encounter by its title (else its file's name, not its path: the same inputs give the
    same bytes from any folder)."""
    import os
    title = f'"{fields["encounter"]}"' if fields["encounter"] else os.path.basename(fields["file"])
    layers = ", ".join(fields["layers"]) or "none"
    return f'# encounter {title}, edition {fields["edition"]}, layers: {layers}, seed {fields["seed"]}\n'


def render_text(engine, explain=False) -> str:
    out = [f"{text}    [{why}]" if explain else text for text, why in lines(engine, explain)]
    return "\n".join(out) + ("\n" if out else "")


def lines(engine, explain=True) -> list[tuple[str, str | None]]:
    """Each transcript line, and (with explain) the rule, place and layer that said it."""
    out = []
    program = engine.p
    for ev in engine.events:
        if ev[0] != "say":
            continue
        _, name, text, payload = ev
        why = None
        if explain:
            owner, span = payload["line"]
            why = f"{owner} at {span}; {_source(program.ruleset, span)}{_words(program.ruleset, name)}"
        out.append((text, why))
    return out


def _source(rs, span) -> str:
    """The layer whose file holds this line, or the edition it belongs to."""
    layer = rs.layer_files.get(getattr(span, "file", None))
    if layer is not None and layer in rs.layers:
        return f"layer {layer.name} ({layer.file})"
    return f"edition {layer.name if layer is not None else rs.edition.name}"


def _words(rs, message: str) -> str:
    """Where the message's words come from, when a layer gave them."""
    decl = rs.space("message").get(message)
    layer = rs.layer_files.get(decl.span.file) if decl is not None else None
    return f"; message {message} from layer {layer.name} ({layer.file})" if layer in rs.layers else ""


class JsonEvents(list):
    """The events of a run recorded for JSON lines: each with the round it happened in (`rounds`, in step),
    and, once the combatants are made (`start`), their sheets: a "combatant" event each, then a "change"
    event for every sheet field whose value differs from what it was at the event before, just before
    the event that follows it (a field set twice between two events shows the last value).

    Looking costs one C-level comparison of each combatant's field values with the last ones (a change
    of a number, a text or a row shows there) and a fingerprint of the lists and records (which can
    change in place); JSON is made only of the fields that changed, never of every field at every event."""
    __slots__ = ("engine", "rounds", "seen", "names", "fields")
    # seen: each combatant's (field values, their JSON, [(index, fingerprint)] of those that change in place)

    def __init__(self, engine):
        super().__init__()
        self.engine, self.rounds, self.seen, self.names, self.fields = engine, [], None, (), None

    def append(self, event):
        if self.seen is not None:
            self.changes()
        super().append(event)
        self.rounds.append(self.engine.round)

    def _add(self, event):
        super().append(event)
        self.rounds.append(self.engine.round)

    def start(self):
        """The combatants are made: record each one's starting sheet; from now on, what changes."""
        from operator import attrgetter
        eng = self.engine
        self.names = tuple(f.name for f in eng.p.sheet.fields)
        getter = attrgetter(*(mangle(name) for name in self.names)) if self.names else (lambda c: ())
        self.fields = getter if len(self.names) != 1 else (lambda c: (getter(c),))
        self.seen = {}
        for c in eng.cb:
            state = self._look(c)
            self._add(("combatant", {"name": c.a_name, "side": eng.p.format.json(c.side_),
                                     "fields": dict(zip(self.names, state[1]))}))

    def _look(self, c):
        """c's field values now, their JSON, and which of them can change in place; kept as the last look."""
        json = self.engine.p.format.json
        values = self.fields(c)
        state = self.seen[c.a_name] = (values, [json(v) for v in values], _in_place(values))
        return state

    def changes(self):
        """A "change" event for each sheet field that changed since the last look: the JSON is made only
        of the fields whose value is another, or whose list or record changed inside."""
        json = self.engine.p.format.json
        for c in self.engine.cb:
            state = self.seen.get(c.a_name)
            if state is None:                        # a combatant made during the run
                for name, new in zip(self.names, self._look(c)[1]):
                    self._add(("change", {"who": c.a_name, "field": name, "from": None, "to": new}))
                continue
            values, shown, inside = state
            now = self.fields(c)
            moved = [k for k, before in inside if _fingerprint(now[k]) != before]
            if now != values:
                moved += [k for k, (a, b) in enumerate(zip(now, values)) if a is not b and a != b]
            elif not moved:
                continue
            for k in sorted(set(moved)):
                old, new = shown[k], json(now[k])
                if old != new or type(old) is not type(new):
                    shown[k] = new
                    self._add(("change", {"who": c.a_name, "field": self.names[k], "from": old, "to": new}))
            self.seen[c.a_name] = (now, shown, _in_place(now))


_SCALARS = frozenset((int, str, bool, float, type(None)))


def _in_place(values) -> list:
    """The values that can change while the field holds the same object, by index, with what they hold
    now: lists and records; not numbers, texts or a table's rows (a row is the same row, by identity)."""
    return [(k, _fingerprint(v)) for k, v in enumerate(values)
            if type(v) not in _SCALARS and getattr(v, "_key", None) is None]


def _fingerprint(value):
    """What a list or a record holds, all the way down, as tuples Python compares in C: what can change
    in place is copied; anything else (a combatant, a grade, a row, dice) is itself, compared as the same."""
    kind = type(value)
    if kind is list:
        return (list, *map(_fingerprint, value))
    if isinstance(value, Struct) and value._key is None:
        return (kind, *[_fingerprint(getattr(value, s, None)) for s in kind.__slots__])
    return value


def render_jsonl(engine, header: dict | None = None) -> str:
    """The run's events as JSON lines, after `header` (see header()) when given."""
    events = engine.events
    if isinstance(events, JsonEvents) and events.seen is not None:
        events.changes()        # what the last statements changed, after the last event
    rounds = getattr(events, "rounds", None)
    lines = [json_text(header, ensure_ascii=False, sort_keys=True)] if header is not None else []
    for i, ev in enumerate(events):
        kind = ev[0]
        if kind == "say":
            _, name, text, payload = ev
            rec = {"event": "say", "message": name, "text": text.strip(), "args": payload.get("args", [])}
        elif kind == "roll":
            _, by, purpose, r = ev
            rec = {"event": "roll", "by": getattr(by, "a_name", None), "purpose": purpose, "dice": engine.p.format.dice(r.dice),
                   "faces": list(r.faces), "total": int(r)}
        else:
            rec = {"event": kind, **ev[1]}
        if rounds is not None:
            rec["round"] = rounds[i]
        lines.append(json_text(rec, ensure_ascii=False, sort_keys=True))
    return "\n".join(lines) + ("\n" if lines else "")
