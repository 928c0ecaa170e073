"""The JSON lines transcript keeps the schema docs/transcript-jsonl.md documents: a header
event first, then every event with its round, and each event with exactly its documented keys;
the combatants' starting sheets and their changes replay to the sheets the run ends with."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import grimorio
from grimorio.interpreter.run.transcript import SCHEMA
from grimorio.interpreter.tools.cli import main

from .conftest import run_text

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "transcript-jsonl.md"
RUNS = {
    "scripted duel": ["tests/scenarios/duelo_guionizado.enc"],
    "a melee of five": ["rulesets/aquelarre/emboscada.enc"],
    "estados alterados": ["rulesets/aquelarre_estados/duelo.enc"],
    "yokai's clock": ["rulesets/yokai/recuperacion.enc"],
    "a house rule": ["rulesets/aquelarre/duelo.enc", "--house", "tests/house_rules/critico5/critico5.rules"],
}
# Those that compile an edition of their own (over a second each) are in the slow profile.
SLOW = ("estados alterados", "a house rule")
CASES = [pytest.param(args, id=name, marks=[pytest.mark.slow] if name in SLOW else []) for name, args in RUNS.items()]


def documented() -> dict[str, tuple[set, set]]:
    """The schema table: each event's keys that must be there, and those marked "?" that may be."""
    out = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\| `(\w+)` \| ([^|]*) \|", line)
        if m:
            keys = re.findall(r"`(\w+)(\??)`", m.group(2))
            out[m.group(1)] = ({k for k, q in keys if not q}, {k for k, q in keys if q})
    return out


def jsonl(capsys, args) -> list[dict]:
    assert main(["run", *[str(ROOT / a) if a.endswith((".enc", ".rules")) else a for a in args],
                 "--format", "jsonl"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_the_documented_table_names_every_event_kind():
    assert set(documented()) == {"header", "combatant", "change", "say", "roll", "check", "card"}
    assert f"This is schema {SCHEMA}" in DOC.read_text(encoding="utf-8")


@pytest.mark.parametrize("args", CASES)
def test_every_event_has_exactly_its_documented_keys(capsys, args):
    schema = documented()
    events = jsonl(capsys, args)
    head, rest = events[0], events[1:]
    assert head["event"] == "header" and all(e["event"] != "header" for e in rest)
    seen = set()
    for e in events:
        required, optional = schema[e["event"]]
        keys = set(e) - {"event"} - ({"round"} if e["event"] != "header" else set())
        assert required <= keys <= required | optional, e
        assert ("round" in e) == (e["event"] != "header")
        seen.add(e["event"])
    assert {"combatant", "say", "roll", "check"} <= seen
    assert "change" in seen or args[0].startswith("rulesets/yokai/")       # Yôkai's sheets stay put: conditions move


@pytest.mark.parametrize("args", CASES)
def test_the_header_names_the_run(capsys, args):
    head = jsonl(capsys, args)[0]
    program = grimorio.prepare(ROOT / args[0])
    assert head["schema"] == SCHEMA and head["grimorio"] == grimorio.__version__
    assert head["file"] == str(ROOT / args[0]) and head["encounter"] == program.enc.title
    assert head["edition"] == program.enc.edition
    assert head["seed"] == (program.enc.seed or 0)
    assert head["layers"] == ([] if args[0].startswith("rulesets/aquelarre/") and len(args) == 1
                              else ["aquelarre_estados"] if "estados" in args[0]
                              else ["critico5"] if "--house" in args else [])


@pytest.mark.slow
def test_the_header_gives_the_seed_of_the_command_line_and_the_layers_in_order(capsys):
    args = ["rulesets/aquelarre/duelo.enc", "--edition", "aquelarre_estados", "--seed", "42",
            "--house", "tests/house_rules/critico5/critico5.rules"]
    head = jsonl(capsys, args)[0]
    assert head["seed"] == 42 and head["edition"] == "aquelarre_estados"
    assert head["layers"] == ["aquelarre_estados", "critico5"]          # lowest first


def test_round_numbers_follow_the_rounds(capsys):
    events = jsonl(capsys, RUNS["a melee of five"])[1:]
    rounds = [e["round"] for e in events]
    assert rounds == sorted(rounds) and rounds[0] == 0 and rounds[-1] >= 2
    # Aquelarre says "Asalto N" as round N starts: that line is in round N.
    heads = [e for e in events if e["event"] == "say" and e["message"] == "asalto"]
    assert [e["round"] for e in heads] == [e["args"][0] for e in heads] == list(range(1, len(heads) + 1))
    assert all(e["round"] == 0 for e in events if e["event"] == "combatant")


def _replayed(events) -> dict:
    sheets = {e["name"]: dict(e["fields"]) for e in events if e["event"] == "combatant"}
    for e in events:
        if e["event"] == "change":
            assert sheets[e["who"]][e["field"]] == e["from"] and e["from"] != e["to"], e
            sheets[e["who"]][e["field"]] = e["to"]
    return sheets


@pytest.mark.parametrize("name", ["duelo", "emboscada", "carga"])
def test_changes_replay_the_start_to_the_end(name):
    """Each change starts from the value the one before left, and together they make the final sheets."""
    run = run_text((ROOT / "rulesets" / "aquelarre" / f"{name}.enc").read_text(encoding="utf-8"), json=True)
    events = [json.loads(line) for line in run.jsonl().splitlines()]
    fmt, fields = run.engine.p.format, [f.name for f in run.engine.p.sheet.fields]
    final = {c.a_name: {f: fmt.json(c.get(f)) for f in fields} for c in run.engine.cb}
    assert _replayed(events) == final
    points = [e for e in events if e["event"] == "change" and e["field"] == "pv"]
    assert points and all(e["to"] < e["from"] for e in points)           # points only go down in a fight


def test_a_change_comes_after_the_roll_that_caused_it_and_before_the_line_that_tells_it(capsys):
    events = jsonl(capsys, RUNS["scripted duel"])
    i = next(i for i, e in enumerate(events) if e["event"] == "change" and e["field"] == "pv")
    assert events[i] == {"event": "change", "who": "Bandido", "field": "pv", "from": 13, "to": 9, "round": 1}
    roll = max(j for j in range(i) if events[j]["event"] == "roll")
    assert events[roll]["purpose"] == "daño" and events[roll]["total"] == 5          # the blow of 5 (4 after armour)
    told = next(e for e in events[i:] if e["event"] == "say")
    assert told["text"] == "Bandido: puntos de Resistencia 13 -> 9"


def test_a_text_run_records_no_sheets():
    """The text transcript's runs (and simulate's) pay nothing for JSON lines: no combatant or change events."""
    run = run_text((ROOT / "rulesets" / "aquelarre" / "duelo.enc").read_text(encoding="utf-8"))
    assert {ev[0] for ev in run.engine.events} <= {"say", "roll", "card"}
    assert type(run.engine.events) is list
