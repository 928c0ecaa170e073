"""One notion of the outcome (run/outcome.py): the rules' `stands` and `draw` lines, the
builtin standing() a transcript reads, and the outcome simulate, diff and the API count; and
the W0701 suggestion, which must be a line the parser takes."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

import grimorio
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent

RULES = """
sheet pj:
  vida: int = 1
condition fuera
condition huido
stands(c): not has(c, fuera) and not has(c, huido)
draw todos_huidos: len([c for c in combatants() if has(c, huido)]) == len(combatants())
message fin(quedan) "Quedan: {quedan}"
"""

# A die decides: 1 both flee (the draw), 2 both fall (nobody), 3-4 B falls (rojos win), 5-6 both stay (several).
ENCOUNTER = """
edition mini
combatant A:
  side rojos
combatant B:
  side azules
do:
  let d = roll 1D6
  if d == 1:
    receive A huido
    receive B huido
  elif d == 2:
    receive A fuera
    receive B fuera
  elif d <= 4:
    receive B fuera
  say fin(standing())
"""

WANT = {1: ("todos_huidos", "draw", "-"), 2: ("nobody standing", "nobody", "-"), 3: ("rojos", "side", "A"),
        4: ("rojos", "side", "A"), 5: ("several sides standing", "several", "A, B"),
        6: ("several sides standing", "several", "A, B")}


def mini(tmp_path, rules=RULES, encounter=ENCOUNTER) -> str:
    (tmp_path / "mini").mkdir(exist_ok=True)
    (tmp_path / "mini" / "edicion.rules").write_text('edition mini:\n  title "Mini"\n  include "reglas.rules"\n',
                                                     encoding="utf-8")
    (tmp_path / "mini" / "reglas.rules").write_text(textwrap.dedent(rules).lstrip(), encoding="utf-8")
    enc = tmp_path / "mini" / "e.enc"
    enc.write_text(textwrap.dedent(encounter).lstrip(), encoding="utf-8")
    return str(enc)


@pytest.mark.parametrize("face", range(1, 7))
def test_the_outcome_of_each_ending(tmp_path, face):
    enc = mini(tmp_path, encounter=ENCOUNTER.replace("roll 1D6", str(face)))
    r = grimorio.run(enc, seed=1)
    name, kind, said = WANT[face]
    assert (r.outcome.name, r.outcome.kind) == (name, kind)
    # The transcript's line reads the same declaration, through standing().
    assert r.transcript[-1] == f"Quedan: {said}"
    assert r.winner == (name if kind == "side" else None)


def test_a_side_alone_standing_wins_before_any_draw(tmp_path):
    enc = mini(tmp_path, RULES + "draw siempre: true\n", ENCOUNTER.replace("roll 1D6", "3"))
    assert grimorio.run(enc).outcome.name == "rojos"
    (tmp_path / "b").mkdir()
    enc = mini(tmp_path / "b", RULES.replace("draw todos_huidos", "draw siempre: true\ndraw todos_huidos"),
               ENCOUNTER.replace("roll 1D6", "1"))
    assert grimorio.run(enc).outcome.name == "siempre"          # the first draw that holds


def test_without_stands_everyone_stands(tmp_path):
    enc = mini(tmp_path, RULES.replace("stands(c)", "tally quieto(c)"), ENCOUNTER.replace("roll 1D6", "2"))
    r = grimorio.run(enc)
    assert (r.outcome.name, r.outcome.standing) == ("several sides standing", ("A", "B"))


def test_a_draw_gives_true_or_false(tmp_path, capsys):
    enc = mini(tmp_path, RULES + "draw raro: 3\n")
    assert main(["run", enc]) == 2
    err = capsys.readouterr().err
    assert 'error[E0030]: "raro" must give true or false, not a number' in err


@pytest.mark.slow
def test_simulate_counts_every_outcome(tmp_path, capsys):
    import json
    enc = mini(tmp_path)
    assert main(["simulate", enc, "-n", "600", "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)
    rows = {x["outcome"]: (x["kind"], x["runs"]) for x in s["outcomes"]}
    assert [k for k, _n in rows.values()] == ["side", "side", "draw", "nobody", "several"]
    assert rows["azules"] == ("side", 0) and sum(n for _k, n in rows.values()) == 600
    for name, (_kind, n) in rows.items():
        share = {"rojos": 2 / 6, "azules": 0, "todos_huidos": 1 / 6, "nobody standing": 1 / 6,
                 "several sides standing": 2 / 6}[name]
        assert abs(n / 600 - share) < 0.07, name


@pytest.mark.slow
def test_diff_says_each_sides_outcome(tmp_path, capsys):
    duelo = str(ROOT / "rulesets" / "aquelarre" / "duelo.enc")
    quinto = str(ROOT / "rulesets" / "casa" / "criticos_quinto.rules")
    for seed in range(1, 40):
        main(["diff", duelo, "--house", quinto, "--seed", str(seed)])
        out = capsys.readouterr().out
        if "part at line" in out:
            break
    lines = out.rstrip("\n").splitlines()
    a, b = (grimorio.run(duelo, seed=seed).outcome.name,
            grimorio.run(duelo, seed=seed, house=[quinto]).outcome.name)
    assert f"outcome: {a} under aquelarre, {b} under aquelarre + {quinto}" in lines


# ---------------------------------------------------------------- the W0701 suggestion
DECLARATIONS = [
    "stands(c): en_pie(c)\n",
    "draw caen_todos: false\n",
    "tally muertos: 0\n",
    "rule en_pie(c):  # comentario\n  return true\n",
    'message fin(quedan) "Fin. En pie: {quedan}"\n',
    "condition huido\n",
]


@pytest.mark.slow
@pytest.mark.parametrize("text", DECLARATIONS)
def test_the_replace_suggestion_is_a_line_that_parses_and_silences_the_warning(tmp_path, text):
    house = tmp_path / "casa.rules"
    house.write_text(text, encoding="utf-8")
    warnings = [w for w in load_edition("aquelarre", houses=[house]).warnings if w.code == "W0701"]
    if text.startswith("condition"):                 # the same as the one below: no warning to follow
        assert warnings == []
        return
    w, = warnings
    suggested = re.fullmatch(r'write "(.*)" to say so; .*', w.help).group(1)
    assert suggested.startswith("replace ") and "stands stands" not in suggested
    first, *rest = text.split("\n", 1)
    house.write_text(suggested + "\n" + "".join(rest), encoding="utf-8")
    assert [w.code for w in load_edition("aquelarre", houses=[house]).warnings] == []
