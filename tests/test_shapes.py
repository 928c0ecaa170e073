"""Declarations the runtime relies on the shape of, and language behaviours
found while writing the reference: each refused with a located diagnostic,
or working as documented."""
from __future__ import annotations

import pytest

from grimorio.dsl.diagnostics import GrimorioError
from grimorio.dsl.editions.loader import load_edition
from grimorio.dsl.syntax.builder import build_encounter
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for
from tests.test_checker import check, only, write_edition
from tests.conftest import diagnostics_of, run_text

SHEET = """
sheet ficha:
  FUE: int 1..20
"""


def test_a_sheet_field_cannot_take_a_name_every_combatant_has(tmp_path):
    d = only(check(tmp_path, SHEET + "  side: text\n"), "E0202")
    assert d.message == '"side" is a field every combatant already has'


def test_an_edition_has_one_round_procedure(tmp_path):
    rules = SHEET + "round uno:\n  step a:\n    pass\nround dos:\n  step b:\n    pass\n"
    d = only(check(tmp_path, rules), "E0202")
    assert d.message == 'round "dos" is a second round procedure'


def test_only_action_parameters_have_lists_to_choose_from(tmp_path):
    d = only(check(tmp_path, "rule r(a in combatants()):\n  return a\n"), "E0204")
    assert d.help == 'write just "a"'


def test_on_receive_takes_two_parameters(tmp_path):
    rules = "condition Herida grades Leve < Grave:\n  on receive(pj):\n    pass\n"
    assert only(check(tmp_path, rules), "E0206").message.startswith('"on receive" of "Herida" takes two')


def test_a_tactic_reacts_to_an_event_once(tmp_path):
    rules = SHEET + """
event golpe(quien)
reaction aguantar(yo, e) to golpe:
  by e.quien
  pass
tactic t:
  react golpe: aguantar
  react golpe: aguantar
"""
    assert only(check(tmp_path, rules), "E0202").message == 'tactic "t" says twice how to react to "golpe"'


def test_an_edition_that_extends_itself_is_refused(tmp_path):
    for name, other in (("uno", "dos"), ("dos", "uno")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "e.rules").write_text(f"edition {name}:\n  extends {other}\n", encoding="utf-8")
    with pytest.raises(GrimorioError) as exc:
        load_edition("uno", roots=[tmp_path])
    d = exc.value.diagnostics[0]
    assert d.code == "E0302" and "uno -> dos -> uno" in d.message


YOKAI = """
encounter "x"
edition yokai
combatant Akira:
  FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2
"""


def test_ordering_a_value_against_an_outcome_needs_an_outcome_of_that_list():
    out = diagnostics_of(YOKAI + "expect 5 < éxito\n")
    assert 'error[E0204]: a number and an outcome of "resultado" cannot be compared by order' in out
    out = diagnostics_of(YOKAI + "expect Heridas.Leve < éxito\n")
    assert 'error[E0204]: a grade of "Heridas" and an outcome of "resultado" cannot be compared by order' in out


def test_stop_ends_an_encounter_script():
    r = run_text(YOKAI + 'do:\n  receive Akira Heridas Leve\n  stop\n  receive Akira Fatiga Leve\n')
    assert r.grades("Akira", "Heridas") == ["Leve"] and r.grades("Akira", "Fatiga") == []


def test_a_name_given_in_only_one_branch_is_unknown_after_the_if():
    out = diagnostics_of(YOKAI + "do:\n  if true:\n    let x = 1\n  let y = x\n")
    assert 'error[E0201]: unknown name "x"' in out
    # Given in every branch, it is known.
    run_text(YOKAI + "do:\n  if true:\n    let x = 1\n  else:\n    let x = 2\n  let y = x\n")


def test_negated_and_subtracted_dice():
    r = run_text(YOKAI + 'dice:\n  3\n  5 2\ndo:\n  let a = roll (-1D6)\n  expect a == -3\n'
                         '  let b = roll (1D6 - 1D4)\n  expect b == 3\n')
    assert [v.ok for v in r.outcome.expectations] == [True, True]
    assert [int(e[3]) for e in r.engine.events if e[0] == "roll"] == [-3, 3]
    assert [str(e[3]) for e in r.engine.events if e[0] == "roll"][1] == "1D6-1D4=3 (5-2)"


def test_a_field_nothing_declares_is_refused_with_the_closest_name(tmp_path):
    write_edition(tmp_path, SHEET + 'message hola(c) "Hola {c.FUEE}"\n')
    with pytest.raises(GrimorioError) as exc:
        program_for("prueba", roots=[tmp_path])
    d = exc.value.diagnostics[0]
    assert (d.code, d.message, d.help) == ("E0203", 'nothing in these rules has a field "FUEE"', 'did you mean "FUE"?')
    assert (d.span.line, d.span.col, d.span.end_col) == (3, 26, 30)     # the field, inside the placeholder


def test_a_placeholder_left_open_is_placed_at_its_brace(tmp_path):
    write_edition(tmp_path, SHEET + 'message hola(c) "Hola {c.FUE"\n')
    with pytest.raises(GrimorioError) as exc:
        load_edition("prueba", roots=[tmp_path])
    d = exc.value.diagnostics[0]
    assert (d.code, d.span.line, d.span.col) == ("E0105", 3, 23)


def test_stop_where_no_encounter_is_running_is_an_error(tmp_path):
    write_edition(tmp_path, SHEET + """
var v = parar()
rule parar():
  stop
""")
    from grimorio.dsl.syntax.builder import build_encounter
    from tests.conftest import Prepared
    program = program_for("prueba", roots=[tmp_path])
    enc, diags = build_encounter('encounter "x"\nedition prueba\ncombatant A:\n  FUE 1\n', "x.enc")
    assert diags == [] and [c.name for c in enc.combatants] == ["A"]
    with pytest.raises(GrimorioError) as exc:
        Prepared(enc, program).run()
    d = exc.value.diagnostics[0]
    assert d.code == "E0501" and d.message.startswith('"stop" ends an encounter')
    assert (d.span.file.endswith("reglas.rules"), d.span.line) == (True, 6)   # the stop of the rule the var calls


def test_stop_in_a_do_block_ends_the_encounter_before_its_rounds():
    from tests.aquelarre import BANDIDO, RODRIGO
    text = ('encounter "x"\nedition aquelarre\nrounds 3\n' + RODRIGO.format(arma_r='"Daga"')
            + BANDIDO.format(arma_b='"Daga"') + "do:\n  stop\n")
    r = run_text(text)
    assert r.lines == [] and r.engine.round == 0


def test_an_encounter_sets_a_negative_option(tmp_path):
    write_edition(tmp_path, SHEET + "option dificultad = 0\nrule d():\n  return option dificultad\n")
    enc, _ = build_encounter('encounter "x"\nedition prueba\nset dificultad = -3\ncombatant A:\n  FUE 1\n'
                             'expect d() == -3\n', "x.enc")
    assert not Prepared(enc, program_for("prueba", roots=[tmp_path])).run().failed


def test_holding_a_graded_condition_needs_its_grade():
    out = diagnostics_of(YOKAI + "  holds Heridas\n")
    assert 'error[E0204]: condition "Heridas" has grades: say which' in out


def test_a_condition_test_on_what_is_no_combatant():
    out = diagnostics_of(YOKAI + "expect not has(first([]), Heridas)\n")
    assert "error[E0204]: this value is none, not a combatant" in out


@pytest.mark.parametrize("expr, message", [
    ("(roll 5) > 0", "roll takes dice, not a number"),
    ('maximum("a") > 0', "maximum() takes dice, not a text"),
    ('1 + "a" == 2', '"+" needs numbers (or dice), not a text'),
    ("1D6 * 2 == 1", 'dice can be added and subtracted, not used with "*"'),
    ("has(Akira, 3)", "has() takes a condition, not a number"),
    ("éxito > 3", 'an outcome of "resultado" and a number cannot be compared by order'),
])
def test_kinds_the_text_shows_are_checked_before_running(expr, message):
    out = diagnostics_of(YOKAI + f"expect {expr}\n")
    assert f"error[E0204]: {message}" in out


@pytest.mark.parametrize("expr", ["éxito > fallo", "[1] + [2] == [1, 2]", "1D6 + 2 == 1D6 + 2", "-(1D6) == 0 - 1D6"])
def test_kinds_that_fit_pass(expr):
    run_text(YOKAI + f"expect {expr}\n")


def test_a_combatant_missing_values_hears_of_them_all_at_once():
    out = diagnostics_of('encounter "x"\nedition yokai\ncombatant Akira:\n  FUE 3, AGI 2\n')
    assert 'error[E0206]: Akira needs a value for "DES", "PER", "INT", "VOL"' in out
    assert out.count("error[") == 1
