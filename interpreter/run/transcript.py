"""Rendering a run's events: text (the ruleset's own words) or JSON lines.

The JSON lines follow a schema of their own (SCHEMA, documented in
docs/transcript-jsonl.md): a header event first, then every event of the run
with the round it happened in, the combatants' starting sheets, and each change
of a sheet field. The text transcript is the ruleset's lines alone; the command
line puts a header line above it (header_line).
"""
from __future__ import annotations

from .values import mangle

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
    the event that follows it (a field set twice between two events shows the last value)."""
    __slots__ = ("engine", "rounds", "seen", "slots")

    def __init__(self, engine):
        super().__init__()
        self.engine, self.rounds, self.seen, self.slots = engine, [], None, ()

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
        eng = self.engine
        json = eng.p.format.json
        self.slots = tuple((f.name, mangle(f.name)) for f in eng.p.sheet.fields)
        self.seen = {}
        for c in eng.cb:
            fields = {name: json(getattr(c, attr, None)) for name, attr in self.slots}
            self.seen.update(((c.a_name, name), value) for name, value in fields.items())
            self._add(("combatant", {"name": c.a_name, "side": json(c.side_), "fields": fields}))

    def changes(self):
        """A "change" event for each sheet field that changed since the last look."""
        json, seen = self.engine.p.format.json, self.seen
        for c in self.engine.cb:
            for name, attr in self.slots:
                value = json(getattr(c, attr, None))
                key = (c.a_name, name)
                old = seen.get(key, _UNSEEN)
                if old != value or (old is not _UNSEEN and type(old) is not type(value)):
                    seen[key] = value
                    self._add(("change", {"who": c.a_name, "field": name,
                                          "from": None if old is _UNSEEN else old, "to": value}))


_UNSEEN = object()


def render_jsonl(engine, header: dict | None = None) -> str:
    """The run's events as JSON lines, after `header` (see header()) when given."""
    import json                 # not at import: a text transcript does not need it
    events = engine.events
    if isinstance(events, JsonEvents) and events.seen is not None:
        events.changes()        # what the last statements changed, after the last event
    rounds = getattr(events, "rounds", None)
    lines = [json.dumps(header, ensure_ascii=False, sort_keys=True)] if header is not None else []
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
        lines.append(json.dumps(rec, ensure_ascii=False, sort_keys=True))
    return "\n".join(lines) + ("\n" if lines else "")
