"""Rendering a run's events: text (the ruleset's own words) or JSON lines."""
from __future__ import annotations

import json


def render_text(engine, explain=False) -> str:
    out = []
    program = engine.p
    for ev in engine.events:
        if ev[0] != "say":
            continue
        _, name, text, payload = ev
        if explain:
            owner, span = payload["line"]
            layer = program.ruleset.origin.get(("message", name), program.ruleset.edition.name)
            text = f"{text}    [{owner} at {span}; edition {layer}]"
        out.append(text)
    return "\n".join(out) + ("\n" if out else "")


def render_jsonl(engine) -> str:
    lines = []
    for ev in engine.events:
        kind = ev[0]
        if kind == "say":
            _, name, text, payload = ev
            rec = {"event": "say", "message": name, "text": text.strip(), "args": payload.get("args", [])}
        elif kind == "roll":
            _, by, purpose, r = ev
            rec = {"event": "roll", "by": getattr(by, "a_name", None), "purpose": purpose, "dice": str(r.dice),
                   "faces": list(r.faces), "total": int(r)}
        else:
            rec = {"event": kind, **ev[1]}
        lines.append(json.dumps(rec, ensure_ascii=False, sort_keys=True))
    return "\n".join(lines) + ("\n" if lines else "")
