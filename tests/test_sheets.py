"""Several sheets per edition (issue 24, item 4): the first sheet is the base, every other extends
one (`sheet hero extends creature:`) with its fields and then its own; a combatant names its sheet
with `sheet NAME` (the base without one); `c.sheet` reads it; the encounter check, the runtime, the
saved state and both compiler paths know each combatant's sheet."""
from __future__ import annotations

import json
import tempfile
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grimorio.dsl.check.checker import check_ruleset
from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.dsl.editions.loader import load_edition
from grimorio.dsl.syntax.builder import build_rules
from grimorio.dsl.syntax import nodes as n
from grimorio.interpreter.compile.compiler import compile_checked
from grimorio.dsl.check.front import load_encounter
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.run.transcript import render_text
from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.tools.editing import fields_of
from grimorio.interpreter.tools.formatter import format_source
from tests.test_fuzz import assert_located, fuzz_settings

EDITION = """
edition kinds:
  title "Several sheets"
sheet creature:
  might: int 0..5
  hp: int = 4 + might
sheet hero extends creature:
  slots: int = hp + 1
  luck: int = 2
sheet boss extends hero:
  roar: int = slots * 10
message shows(c, x) "{c} ({c.sheet}): {x}"
round r:
  step s:
    for c in combatants():
      if c.sheet == "creature":
        say shows(c, c.hp)
      else:
        say shows(c, c.slots)
    stop
"""


def write(tmp_path: Path, encounter: str, edition: str = EDITION) -> Path:
    folder = tmp_path / "kinds"
    folder.mkdir(exist_ok=True)
    (folder / "kinds.rules").write_text(textwrap.dedent(edition).lstrip(), encoding="utf-8")
    path = folder / "x.enc"
    path.write_text(textwrap.dedent(encounter).lstrip(), encoding="utf-8")
    return path


def run(tmp_path, capsys, encounter: str, *args, edition: str = EDITION):
    code = main(["run", str(write(tmp_path, encounter, edition)), *args])
    out, err = capsys.readouterr()
    return code, out, err


def checked(tmp_path, edition: str):
    write(tmp_path, "edition kinds\n", edition)
    return check_ruleset(load_edition("kinds", roots=[tmp_path]))


TWO = """
edition kinds
combatant Gob:
  might 1
combatant Ana:
  sheet hero
  might 3
combatant Zog:
  sheet boss
  might 0, luck 5
"""


# ------------------------------------------------------------------ grammar
def test_a_sheet_may_name_the_sheet_it_extends():
    rs, diags = build_rules("sheet a:\n  x: int = 1\nsheet b extends a:\n  y: int = 2\n", "t.rules")
    assert diags == []
    a, b = [d for d in rs if isinstance(d, n.Sheet)]
    assert (a.extends, b.extends, [f.name for f in b.fields]) == (None, "a", ["y"])
    assert b.extends_span.line == 3 and b.extends_span.col == 17


# ------------------------------------------------------------------ runtime
def test_each_combatant_is_made_from_its_sheet_defaults_reading_the_inherited_fields(tmp_path, capsys):
    code, out, err = run(tmp_path, capsys, TWO + """
expect Gob.hp == 5 and Ana.hp == 7 and Ana.slots == 8 and Ana.luck == 2
expect Zog.hp == 4 and Zog.slots == 5 and Zog.roar == 50 and Zog.luck == 5
expect Gob.sheet == "creature" and Ana.sheet == "hero" and Zog.sheet == "boss"
""")
    assert (code, err) == (0, "")
    said = [line for line in out.splitlines() if not line.startswith("#")]
    assert said[:3] == ["Gob (creature): 5", "Ana (hero): 8", "Zog (boss): 5"]


def test_reading_a_field_the_combatants_sheet_lacks_stops_the_run_where_it_is_read(tmp_path, capsys):
    edition = EDITION.replace('if c.sheet == "creature":', "if false:")
    code, _out, err = run(tmp_path, capsys, TWO, edition=edition)
    assert code != 0
    assert 'error[E0203]: Gob has no field "slots": its sheet is "creature"' in err and "kinds.rules:18:" in err
    assert 'help: the sheets "hero", "boss" have it: test the sheet first, as in if c.sheet == "hero":' in err


# ------------------------------------------------------------------ checker
@pytest.mark.parametrize("edition, code, message", [
    ("sheet a:\n  x: int\nsheet b:\n  y: int\n", "E0243", 'sheet "b" is a second sheet that extends none'),
    ("sheet a extends b:\n  x: int\nsheet b extends a:\n  y: int\n", "E0243", 'sheet "a" is the first sheet'),
    ("sheet a:\n  x: int\nsheet b extends c:\n  y: int\n", "E0244", 'sheet "b" extends "c", which is not a sheet'),
    ("sheet a:\n  x: int\nsheet b extends c:\n  y: int\nsheet c extends b:\n  z: int\n", "E0244",
     'sheet "b" extends itself (through "c")'),
    ("sheet a:\n  x: int\nsheet b extends a:\n  x: int\n", "E0202", 'sheet "b" already has a field "x" from "a"'),
])
def test_how_sheets_extend_each_other_is_checked(tmp_path, edition, code, message):
    diags = checked(tmp_path, 'edition kinds:\n  title "k"\n' + edition)
    assert [d.code for d in diags][:1] == [code], diags
    assert message in diags[0].message and diags[0].help and diags[0].span.line >= 1


def test_the_checker_refuses_a_field_no_sheet_has_and_allows_one_some_sheets_have(tmp_path):
    assert checked(tmp_path, EDITION) == []
    diags = checked(tmp_path, EDITION.replace("c.slots)", "c.slotz)"))
    assert [d.code for d in diags] == ["E0203"] and 'did you mean "slots"' in diags[0].help


def test_comparing_a_combatants_sheet_with_a_text_that_names_no_sheet(tmp_path):
    diags = checked(tmp_path, EDITION.replace('c.sheet == "creature"', '"creatur" == c.sheet'))
    assert [d.code for d in diags] == ["E0247"] and 'did you mean "creature"' in diags[0].help
    assert (diags[0].span.line, diags[0].span.col) == (15, 10)
    assert checked(tmp_path, EDITION.replace('c.sheet == "creature"', 'c.sheet != "boss"')) == []


def test_an_encounter_comparing_a_sheet_with_a_text_that_names_no_sheet(tmp_path, capsys):
    code, _out, err = run(tmp_path, capsys, TWO + 'expect Ana.sheet == "heroe"\n')
    assert code != 0 and 'error[E0247]: there is no sheet "heroe"' in err and 'did you mean "hero"?' in err
    assert "x.enc:10:" in err


def test_a_cost_may_be_paid_from_a_field_of_an_extending_sheet(tmp_path):
    diags = checked(tmp_path, EDITION + "action wait(me):\n  cost luck 1\n  pass\n")
    assert diags == []


# ------------------------------------------------------------------ encounter check
def test_an_encounter_naming_no_sheet_of_the_edition(tmp_path, capsys):
    code, _out, err = run(tmp_path, capsys, "edition kinds\ncombatant Ana:\n  sheet heros\n  might 1\n")
    assert code != 0 and 'error[E0246]: there is no sheet "heros"' in err and 'did you mean "hero"?' in err


def test_an_encounter_giving_a_field_the_combatants_sheet_lacks(tmp_path, capsys):
    code, _out, err = run(tmp_path, capsys, "edition kinds\ncombatant Gob:\n  might 1, slot 3\n")
    assert code != 0 and 'error[E0203]: the sheet has no field "slot"' in err
    assert "the sheet's numbers: might, hp" in err and "slots" not in err
    code, _out, err = run(tmp_path, capsys, "edition kinds\ncombatant Ana:\n  sheet hero\n  might 1, slot 3\n")
    assert code != 0 and 'error[E0203]: sheet "hero" has no field "slot"' in err
    assert 'did you mean "slots"?' in err and "the sheet's numbers: might, hp, slots, luck" in err


def test_an_encounter_giving_a_field_of_another_sheet_is_told_which_sheet_has_it(tmp_path, capsys):
    code, _out, err = run(tmp_path, capsys, "edition kinds\ncombatant Gob:\n  might 1, roar 3\n")
    assert code != 0 and 'error[E0203]: the sheet has no field "roar"' in err
    assert 'help: sheet "boss" has it: give the combatant the line "sheet boss"' in err


def test_an_extending_sheet_needs_the_fields_its_base_leaves_without_default(tmp_path, capsys):
    code, _out, err = run(tmp_path, capsys, "edition kinds\ncombatant Ana:\n  sheet hero\n  luck 1\n")
    assert code != 0 and 'error[E0206]: Ana needs a value for "might"' in err


# ------------------------------------------------------------------ saved state
# The combatants again, with their sheets but no values: those come from the state (saved state wins).
LOADED = """
edition kinds
combatant Gob:
  side Gob
combatant Ana:
  sheet hero
combatant Zog:
  sheet boss
"""


def test_the_state_records_a_sheet_other_than_the_base_and_checks_it(tmp_path, capsys):
    state = tmp_path / "state.json"
    code, _out, err = run(tmp_path, capsys, TWO, "--save-state", str(state))
    assert (code, err) == (0, "")
    data = json.loads(state.read_text(encoding="utf-8"))
    assert "sheet" not in data["combatants"]["Gob"] and data["combatants"]["Ana"]["sheet"] == "hero"
    assert set(data["combatants"]["Zog"]["fields"]) == {"might", "hp", "slots", "luck", "roar"}
    assert set(data["combatants"]["Gob"]["fields"]) == {"might", "hp"}
    data["combatants"]["Zog"]["fields"]["roar"] = 7
    state.write_text(json.dumps(data), encoding="utf-8")
    again = tmp_path / "again.json"
    code, _out, err = run(tmp_path, capsys, LOADED + "expect Zog.roar == 7\n", "--load-state", str(state),
                          "--save-state", str(again))
    assert (code, err) == (0, "")
    assert json.loads(again.read_text(encoding="utf-8")) == data
    data["combatants"]["Ana"]["sheet"] = "boss"
    state.write_text(json.dumps(data), encoding="utf-8")
    code, _out, err = run(tmp_path, capsys, LOADED, "--load-state", str(state))
    assert code != 0 and 'error[E0805]: the state saved Ana with sheet "boss"' in err
    del data["combatants"]["Ana"]["sheet"]
    state.write_text(json.dumps(data), encoding="utf-8")
    code, _out, err = run(tmp_path, capsys, LOADED, "--load-state", str(state))
    assert code != 0 and 'error[E0805]: the state gives Ana a field "luck" the sheet does not have' in err
    data["combatants"]["Ana"]["sheet"] = "dragon"
    state.write_text(json.dumps(data), encoding="utf-8")
    code, _out, err = run(tmp_path, capsys, LOADED, "--load-state", str(state))
    assert code != 0 and 'error[E0805]: the state gives Ana sheet "dragon", which these rules do not declare' in err


# ------------------------------------------------------------------ both compiler paths
def test_plain_and_optimized_make_the_same_combatants(tmp_path):
    path = write(tmp_path, TWO + "expect Zog.roar == 50\n")
    shown = []
    for optimize in (False, True):
        program = compile_checked(load_edition("kinds", roots=[tmp_path]), optimize=optimize)
        out = Prepared(load_encounter(path, Sources()), program).run(seed=3)
        shown.append((render_text(out.engine), [v.ok for v in out.expectations],
                      [(c.a_name, c.a_sheet, c.a_hp, getattr(c, "a_slots", None)) for c in out.engine.cb]))
    assert shown[0] == shown[1] and shown[0][1] == [True]
    assert shown[0][2] == [("Gob", "creature", 5, None), ("Ana", "hero", 7, 8), ("Zog", "boss", 4, 5)]


def test_a_rolled_default_of_an_extending_sheet_is_rolled_for_each_combatant(tmp_path, capsys):
    edition = EDITION.replace("luck: int = 2", "luck: int = roll 1D6")
    code, _out, err = run(tmp_path, capsys, TWO.replace("might 0, luck 5", "might 0") + """
dice strict:
  4
  6
expect Ana.luck == 4 and Zog.luck == 6
""", edition=edition)
    assert (code, err) == (0, ""), err


def test_an_edition_of_one_sheet_names_its_combatants_sheet_too(tmp_path, capsys):
    one = EDITION.split("sheet hero")[0] + EDITION[EDITION.index("message"):].replace("c.slots", "c.hp")
    code, out, err = run(tmp_path, capsys, "edition kinds\ncombatant Gob:\n  might 1\nexpect Gob.sheet == \"creature\"\n",
                         edition=one)
    assert (code, err) == (0, "") and "\nGob (creature): 5\n" in out


# ------------------------------------------------------------------ formatter, editor
def test_the_formatter_keeps_a_sheet_that_extends_another():
    text = "sheet a:\n    x: int = 1\nsheet   b   extends   a:\n    y: int = 2\n"
    out, diags = format_source(text, "t.rules")
    assert diags == [] and out == "sheet a:\n  x: int = 1\nsheet   b   extends   a:\n  y: int = 2\n"


def test_completion_after_a_dot_offers_the_fields_of_every_sheet():
    rs, _diags = build_rules(textwrap.dedent(EDITION).lstrip(), "kinds.rules")
    offered = fields_of("c", list(rs))
    assert {"might", "hp", "slots", "luck", "roar", "sheet"} <= set(offered)
    one, _diags = build_rules("sheet a:\n  x: int = 1\n", "one.rules")
    assert "sheet" not in fields_of("c", list(one)) and "x" in fields_of("c", list(one))


# ------------------------------------------------------------------ fuzzing
SHEET_NAMES = ["base", "hero", "boss", "heroe"]
FIELD_NAMES = ["might", "hp", "slots", "roar", "luck", "rage", "mana", "wits"]


@st.composite
def sheet_graphs(draw):
    """Sheets that extend each other at random (unknown names, loops, fields twice among them), and an
    encounter whose combatants name sheets at random and give fields at random; most examples run."""
    lines = ['edition kinds:', '  title "k"']
    names = draw(st.permutations(SHEET_NAMES))[:draw(st.integers(1, 4))]
    used = []
    for i, name in enumerate(names):
        parent = draw(st.sampled_from([None] * 6 + ["hero"] if i == 0 else list(names[:i]) * 6 + [None, "nope"]))
        lines.append(f"sheet {name}" + (f" extends {parent}:" if parent else ":"))
        for f in draw(st.lists(st.sampled_from(FIELD_NAMES), min_size=1, max_size=2, unique=True)):
            used.append(f)
            lines.append(f"  {f}: int" + draw(st.sampled_from([" = 1", " = 1", " = 2 * 2", " = 3", ""])))
    lines += ["round r:", "  step s:", "    for c in combatants():",
              f'      if c.sheet == "{draw(st.sampled_from(list(names) * 6 + ["nope"]))}":',
              f"        set c.{draw(st.sampled_from(used))} = 3", "    stop"]
    enc = ["edition kinds"]
    for i in range(draw(st.integers(1, 3))):
        enc.append(f"combatant C{i}:")
        sheet = draw(st.sampled_from([None] + list(names) * 2 + ["nope"]))
        enc.append(f"  sheet {sheet}" if sheet else f"  side C{i}")
        enc += [f"  {f} 2" for f in draw(st.lists(st.sampled_from(used), max_size=1, unique=True))]
    return "\n".join(lines) + "\n", "\n".join(enc) + "\n"


@pytest.mark.slow
@fuzz_settings(60, 2000)
@given(sheet_graphs())
def test_any_graph_of_sheets_checks_runs_or_is_refused_at_a_place(graph):
    rules, encounter = graph
    with tempfile.TemporaryDirectory() as tmp:
        path = write(Path(tmp), encounter, rules)
        sources = Sources()
        for optimize in (False, True):
            try:
                program = compile_checked(load_edition("kinds", roots=[Path(tmp)], sources=sources), optimize)
                Prepared(load_encounter(path, sources), program).run(seed=1)
            except GrimorioError as exc:
                assert_located(exc.diagnostics, sources)
