"""A tactic answers `choose(c, list)`: its `choose` line picks the item with the
highest (or lowest) key among those its `when` lets through (docs/language.md,
Tactics). A script's `choose VALUE` comes first; with no pick that answers, or no
`choose` line, the first item, as for a combatant nobody plays."""
from __future__ import annotations

import textwrap

import pytest

from grimorio.dsl.syntax.builder import build_encounter, build_rules
from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.compile.compiler import compile_checked
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.run.values import mangle
from tests.test_checker import check, write_edition

# Up to four combatants, each on its own side; `tirar` rolls each one's luck (pinned below),
# `elige` asks a question of c about the others.
RULES = """
sheet ficha:
  FUE: int 1..20
  suerte: int = 0
  bolsa: list = []

rule tirar(c):
  set c.suerte = roll 1D10 by c as "suerte"

rule elige(c):
  return choose(c, [x for x in combatants() if x != c])

action esperar(yo):
  pass

tactic alta:
  act: esperar
  choose: highest it.suerte

tactic baja:
  choose(yo): lowest it.suerte

tactic fuerte:
  choose(yo): highest it.suerte when it.FUE > yo.FUE

tactic dos:
  choose(yo): lowest it.suerte when it.FUE > 10
  choose(yo): highest it.FUE

tactic sin:
  act: esperar
"""

LUCK = {"Ana": 2, "Beto": 9, "Carla": 7, "Dora": 9}       # pinned: each one's roll of "suerte"


def encounter(tactics: dict[str, str], tail: str) -> str:
    fue = {"Ana": 3, "Beto": 4, "Carla": 5, "Dora": 6}
    text = 'encounter "x"\nedition prueba\n'
    for name, tactic in tactics.items():
        text += f"combatant {name}:\n  FUE {fue[name]}\n  tactic {tactic}\n"
    text += "dice:\n" + "".join(f"  {name} suerte {LUCK[name]}\n" for name in tactics)
    return text + "do:\n  for c in combatants():\n    tirar(c)\n" + tail


def run(tmp_path, tactics, tail, rules=RULES, houses=(), budget=None, script=""):
    """Run the encounter of these combatants (name -> tactic), its do: block ending with `tail`."""
    if not (tmp_path / "prueba").exists():
        write_edition(tmp_path, rules)
    text = encounter(tactics, tail) + script
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    program = program_for("prueba", sources=Sources({"x.enc": text}), roots=[tmp_path], houses=houses)
    return Prepared(enc, program).run(budget=budget)


def answers(tmp_path, tactics, asked, houses=(), script=""):
    """Who elige(...) gives for each combatant in `asked`, in order."""
    tail = "".join(f"  set {who}.bolsa = [elige({who})]\n" for who in asked)
    out = run(tmp_path, tactics, tail, houses=houses, script=script)
    assert not out.failed
    bags = {c.a_name: getattr(c, mangle("bolsa")) for c in out.engine.cb}
    return [str(bags[who][0]) for who in asked]


def expectations(tmp_path, tactics, tail, script=""):
    return [v.ok for v in run(tmp_path, tactics, tail, script=script).expectations]


# ------------------------------------------------------------------ what the tactic picks


def test_highest_takes_the_item_with_the_largest_key(tmp_path):
    # Ana asks: Beto 9, Carla 7. Carla asks: Ana 2, Beto 9.
    assert answers(tmp_path, {"Ana": "alta", "Beto": "sin", "Carla": "alta"}, ["Ana", "Carla"]) == ["Beto", "Beto"]


def test_lowest_takes_the_item_with_the_smallest_key_and_names_who_is_asked(tmp_path):
    assert answers(tmp_path, {"Ana": "baja", "Beto": "baja", "Carla": "baja"}, ["Ana", "Beto", "Carla"]) == \
        ["Carla", "Ana", "Ana"]


def test_when_lets_through_only_some_items_and_sees_who_is_asked(tmp_path):
    # Ana (FUE 3) among Beto (FUE 4, 9) and Carla (FUE 5, 7): both stronger, highest luck Beto.
    # Beto (FUE 4): only Carla is stronger. Carla (FUE 5): nobody is: the first item, Ana.
    assert answers(tmp_path, {"Ana": "fuerte", "Beto": "fuerte", "Carla": "fuerte"}, ["Ana", "Beto", "Carla"]) == \
        ["Beto", "Carla", "Ana"]


def test_picks_are_tried_in_order_the_next_when_none_passes_the_first(tmp_path):
    # Nobody has FUE over 10: the second line's pick decides, the strongest other.
    assert answers(tmp_path, {"Ana": "dos", "Beto": "sin", "Carla": "sin"}, ["Ana"]) == ["Carla"]


def test_a_tie_takes_the_earliest_item_in_the_list(tmp_path):
    # Beto and Dora both rolled 9; Beto comes first in the list, for highest and for lowest.
    assert answers(tmp_path, {"Ana": "alta", "Beto": "sin", "Dora": "sin"}, ["Ana"]) == ["Beto"]
    assert expectations(tmp_path, {"Ana": "baja", "Beto": "sin", "Dora": "sin"},
                        "  expect choose(Ana, [Dora, Beto]) == Dora\n  expect choose(Ana, [Beto, Dora]) == Beto\n"
                        "  expect choose(Ana, [Dora, Ana, Beto]) == Ana\n") == [True, True, True]


def test_an_empty_list_gives_none_and_a_tactic_without_choose_the_first_item(tmp_path):
    assert expectations(tmp_path, {"Ana": "alta", "Beto": "sin", "Carla": "sin"},
                        "  expect choose(Ana, []) == none\n  expect elige(Beto) == Ana\n"
                        "  expect elige(Carla) == Ana\n") == [True, True, True]


def test_a_when_keeps_a_pick_to_the_questions_it_fits(tmp_path):
    rules = RULES + "\ntactic gente:\n  choose: highest it.suerte when it in combatants()\n"
    out = run(tmp_path, {"Ana": "gente", "Beto": "sin", "Carla": "sin"},
              "  expect choose(Ana, [3, 1, 2]) == 3\n  expect elige(Ana) == Beto\n", rules=rules)
    assert [v.ok for v in out.expectations] == [True, True]


def test_the_script_answers_before_the_tactic(tmp_path):
    # Ana's tactic would pick Beto; the script's answer comes first, then the tactic again.
    assert answers(tmp_path, {"Ana": "alta", "Beto": "sin", "Carla": "sin"}, ["Ana"],
                   script="round 0:\n  Ana: choose Carla\n") == ["Carla"]
    assert expectations(tmp_path, {"Ana": "alta", "Beto": "sin", "Carla": "sin"},
                        "  expect elige(Ana) == Carla\n  expect elige(Ana) == Beto\n",
                        script="round 0:\n  Ana: choose Carla\n") == [True, True]


def test_each_pick_pays_a_step_per_item_from_the_budget(tmp_path):
    # The same question within a budget of 600 steps when the first item answers it (about 400
    # steps for the list), past it when a pick walks the 399 items too.
    tail = "  let x = choose(Ana, [Beto for i in range(1, 400)])\n"
    assert not run(tmp_path, {"Ana": "sin", "Beto": "sin"}, tail, budget=600).failed
    with pytest.raises(GrimorioError) as exc:
        run(tmp_path, {"Ana": "alta", "Beto": "sin"}, tail, budget=600)
    assert [d.code for d in exc.value.diagnostics] == ["E0502"]


# ------------------------------------------------------------------ layers


def test_a_layer_replaces_the_choose_line_and_keeps_it_when_it_replaces_act(tmp_path):
    house = tmp_path / "casa.rules"
    house.write_text("replace choose(yo) of tactic alta: lowest it.suerte when it != yo\n"
                     "replace act of tactic baja: esperar\n", encoding="utf-8")
    assert answers(tmp_path, {"Ana": "alta", "Beto": "baja", "Carla": "sin"}, ["Ana", "Beto"], houses=[house]) == \
        ["Carla", "Ana"]


def test_a_whole_tactic_replaced_by_a_layer_answers_as_its_new_line_says(tmp_path):
    house = tmp_path / "casa.rules"
    house.write_text("replace tactic alta:\n  choose: lowest it.suerte\n", encoding="utf-8")
    assert answers(tmp_path, {"Ana": "alta", "Beto": "sin", "Carla": "sin"}, ["Ana"], houses=[house]) == ["Carla"]


def test_replacing_the_choose_line_of_a_tactic_that_does_not_exist(tmp_path):
    write_edition(tmp_path, RULES)
    house = tmp_path / "casa.rules"
    house.write_text("replace choose of tactic altísima: lowest it.suerte\n", encoding="utf-8")
    with pytest.raises(GrimorioError) as exc:
        compile_checked(load_edition("prueba", roots=[tmp_path], houses=[house]))
    [d] = exc.value.diagnostics
    assert (d.code, d.span.line, "alta" in d.help) == ("E0307", 1, True)


# ------------------------------------------------------------------ the text: syntax, check (fmt: test_formatter)


def test_the_line_builds_picks_with_who_is_asked():
    [t], diags = build_rules("tactic t:\n  choose(yo): highest it.FUE when it != yo, lowest 1\n  choose: lowest 2\n", "x")
    assert not diags
    assert [(p.who, p.order, p.when is not None) for p in t.choose] == \
        [("yo", "highest", True), ("yo", "lowest", False), (None, "lowest", False)]


@pytest.mark.parametrize("line, expected", [
    ("choose: max it.FUE", '"highest" or "lowest"'),
    ("choose: highest", "stops before it is complete"),
    ("choose yo: highest it.FUE", '"("'),
])
def test_a_choose_line_that_does_not_read(line, expected):
    _, diags = build_rules(f"tactic t:\n  {line}\n", "x")
    assert [d.code for d in diags] == ["E0101"]
    assert expected in diags[0].message + " " + (diags[0].help or "")
    assert diags[0].span.line == 2


def _checked(tmp_path, line):
    return check(tmp_path, RULES + f"\ntactic mala:\n  {line}\n")


@pytest.mark.parametrize("line, code, message, column", [
    ("choose(it): highest it.FUE", "E0202", '"it" is the item being chosen: the combatant asked needs another name', 10),
    ('choose: highest "a"', "E0204", 'the key of "highest" must be a number, not a text', 19),
    ("choose: lowest it.FUE > 3", "E0204", 'the key of "lowest" must be a number, not true or false', 18),
    ("choose: lowest it.FUE when it.FUEGO", "E0203", 'nothing in these rules has a field "FUEGO"', 33),
    ("choose(yo): lowest it.FUE when it != tu", "E0201", 'unknown name "tu"', 40),
    ("choose: lowest yo.FUE", "E0201", 'unknown name "yo"', 18),
])
def test_a_choose_line_the_checker_refuses(tmp_path, line, code, message, column):
    diags = _checked(tmp_path, line)
    assert [(d.code, d.message, d.span.col) for d in diags] == [(code, message, column)]
    assert diags[0].span.line == RULES.lstrip("\n").count("\n") + 3
    if code in ("E0202", "E0204"):
        assert diags[0].help


def test_it_is_the_item_only_inside_the_choose_line(tmp_path):
    diags = check(tmp_path, RULES + "\nrule r(c):\n  return it\n")
    assert [(d.code, d.message) for d in diags] == [("E0201", 'unknown name "it"')]


def test_a_key_that_is_no_number_when_it_runs_stops_at_the_key(tmp_path):
    rules = RULES + "\ntactic nombre:\n  choose: highest it.name\n"
    with pytest.raises(GrimorioError) as exc:
        run(tmp_path, {"Ana": "nombre", "Beto": "sin"}, "  let x = elige(Ana)\n", rules=rules)
    [d] = exc.value.diagnostics
    line = textwrap.dedent(rules).lstrip("\n").splitlines().index("  choose: highest it.name") + 1
    assert (d.code, d.message, d.span.line, d.span.col) == \
        ("E0204", "the items of a choice are compared by a number, not a text", line, 19)
    assert "highest or lowest" in d.help
