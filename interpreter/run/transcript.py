"""Rendering a run's events: text (the ruleset's own words) or JSON lines."""
from __future__ import annotations


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


def render_jsonl(engine) -> str:
    import json                 # not at import: a text transcript does not need it
    lines = []
    for ev in engine.events:
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
        lines.append(json.dumps(rec, ensure_ascii=False, sort_keys=True))
    return "\n".join(lines) + ("\n" if lines else "")
