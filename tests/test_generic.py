"""Generic pieces a third game needs: dice built from numbers, keeping the
highest or lowest dice, list positions, slices, ranges, removal, and list
values in encounter scripts."""
from __future__ import annotations

import pytest

from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for
from tests.conftest import diagnostics_of, run_text
from tests.test_checker import write_edition

AKIRA = 'encounter "g"\nedition yokai\ncombatant Akira:\n  FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2\n'


def rolls(r):
    return [(str(e[3].dice), list(e[3].faces), int(e[3])) for e in r.engine.events if e[0] == "roll"]


def test_dice_from_numbers_and_the_highest_of_them():
    r = run_text(AKIRA + "dice:\n  6 1 4 3\ndo:\n  let n = 2 + 2\n  let t = roll keep_highest(dice(n, 6), 3)\n"
                         "  expect t == 13\n")
    assert rolls(r) == [("4D6kh3", [6, 1, 4, 3], 13)]
    assert "4D6kh3=13 (6+1+4+3)" == str(r.engine.events[0][3])


def test_the_lowest_die_and_a_bonus_after_keeping():
    r = run_text(AKIRA + "dice:\n  12 5\ndo:\n  expect roll (keep_lowest(2D20, 1) + 2) == 7\n")
    assert rolls(r) == [("2D20kl1+2", [12, 5], 7)]


def test_kept_dice_roll_within_their_bounds_without_a_transcript():
    from grimorio.interpreter.run.dice import Dice, roll_faces, stream, total
    kept = Dice(((1, 4, 6),), 0, (3, "highest"))
    draw = stream(5, None, None)
    totals = {total(kept, roll_faces(kept, draw)) for _ in range(2000)}
    assert min(totals) >= 3 and max(totals) <= 18 and (kept.min, kept.max) == (3, 18)
    assert 18 in totals and 4 in totals


@pytest.mark.parametrize("expr, message", [
    ("keep_highest(4D6, 5)", "keeps 5 of 4 dice"),
    ("keep_highest(1D6 + 1D4, 1)", "takes one kind of dice"),
    ("keep_lowest(3, 1)", "keep_lowest() takes dice, not a number"),
    ("dice(0, 6)", "rolls no dice"),
    ("dice(2, true)", "dice() takes a whole number, not true or false"),
    ("[1, 2][3]", "the list has 2 items; there is no item 3"),
    ("[1, 2][0]", "there is no item 0"),
    ("slice(3, 1, 2)", "slice() takes a list, not a number"),
    # The same, computed: the runtime refuses what check could not see (the first item of a list
    # of mixed kinds: check sees the kind of a list's items only when they agree).
    ("keep_lowest(first([3, 1D6]), 1)", "takes dice, not 3"),
    ("dice(2, first([true, 1]))", "must be a whole number"),
    ("keep_highest(4D6, first([5]))", "keeps 5 of 4 dice"),
    ("slice(first([3, [1]]), 1, 2)", "slice() takes a list, not 3"),
])
def test_generic_builtins_refuse_what_they_cannot_do_with_a_located_error(expr, message):
    out = diagnostics_of(AKIRA + f"do:\n  let x = {expr}\n")
    assert message in out and "--> scenario.enc:6:" in out


def test_list_positions_slices_ranges_and_removal():
    run_text(AKIRA + "do:\n  let xs = [5, 6, 7, 8]\n"
                     "  expect xs[1] == 5 and xs[4] == 8 and xs[-1] == 8\n"
                     "  expect slice(xs, 2, 3) == [6, 7] and slice(xs, -2, -1) == [7, 8] and slice(xs, 3, 9) == [7, 8]\n"
                     "  expect range(1, 4) == [1, 2, 3, 4] and range(3, 1) == []\n"
                     "  expect without(xs, 6) == [5, 7, 8] and xs == [5, 6, 7, 8]\n"
                     "  expect sum([x * x for x in range(1, 3)]) == 14\n")


SACO = """
sheet ficha:
  FUE: int 1..20
  bolsa: list = []
"""


def test_list_values_in_an_encounter_script(tmp_path):
    write_edition(tmp_path, SACO)
    text = ('encounter "x"\nedition prueba\ncombatant Ana:\n  FUE 3, bolsa [1, "cuerda", antorcha]\n'
            'combatant Beto:\n  FUE 4\n'
            'do:\n  append Ana.bolsa, 4\nexpect Ana.bolsa == [1, "cuerda", "antorcha", 4]\nexpect Beto.bolsa == []\n')
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    prepared = Prepared(enc, program_for("prueba", sources=Sources({"x.enc": text}), roots=[tmp_path]))
    for _ in range(2):                      # every run starts from the list as written
        out = prepared.run()
        assert not out.failed


def test_none_in_an_encounter_list_is_the_none_value_as_true_is_a_boolean(tmp_path):
    write_edition(tmp_path, SACO + 'format none "nada"\nmessage ver(x) "{x}"\n')
    text = ('encounter "x"\nedition prueba\ncombatant Ana:\n  FUE 3, bolsa [none, true, "none", 2]\n'
            'do:\n  say ver(Ana.bolsa)\n'
            'expect Ana.bolsa[1] == none and Ana.bolsa[2] == true and Ana.bolsa[3] == "none"\n')
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    out = Prepared(enc, program_for("prueba", sources=Sources({"x.enc": text}), roots=[tmp_path])).run()
    assert not out.failed
    assert [ev[2] for ev in out.engine.events if ev[0] == "say"] == ["nada, true, none, 2"]
    wrong = 'encounter "x"\nedition prueba\ncombatant Ana:\n  FUE none\n'
    enc, _diags = build_encounter(wrong, "x.enc")
    with pytest.raises(GrimorioError) as exc:
        Prepared(enc, program_for("prueba", sources=Sources({"x.enc": wrong}), roots=[tmp_path]))
    assert [d.message for d in exc.value.diagnostics] == ['"FUE" is a number, not none']


def test_a_list_where_the_sheet_wants_a_number_and_the_reverse(tmp_path):
    write_edition(tmp_path, SACO)
    for line, message in (('FUE [3], bolsa []', '"FUE" is a number, not a list'),
                          ("FUE 3, bolsa 4", '"bolsa" is a list, not a number')):
        text = f'encounter "x"\nedition prueba\ncombatant Ana:\n  {line}\n'
        enc, diags = build_encounter(text, "x.enc")
        assert not diags
        with pytest.raises(GrimorioError) as exc:
            Prepared(enc, program_for("prueba", sources=Sources({"x.enc": text}), roots=[tmp_path]))
        assert [d.message for d in exc.value.diagnostics] == [message]


ELIGE = SACO + """
rule elige(c):
  return choose(c, [x for x in combatants() if x != c])
"""
TRIO = 'encounter "x"\nedition prueba\ncombatant Ana:\n  FUE 3\ncombatant Beto:\n  FUE 4\ncombatant Carla:\n  FUE 5\n'


def _run_trio(tmp_path, tail: str):
    write_edition(tmp_path, ELIGE)
    text = TRIO + tail
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    return Prepared(enc, program_for("prueba", sources=Sources({"x.enc": text}), roots=[tmp_path])).run()


def test_choose_is_answered_by_the_script_in_the_middle_of_a_rule(tmp_path):
    # The do: block runs before the first round: its questions are answered by "round 0".
    out = _run_trio(tmp_path, "round 0:\n  Ana: choose Carla, choose Beto\n"
                              "do:\n  expect elige(Ana) == Carla\n  expect elige(Ana) == Beto\n")
    assert [v.ok for v in out.expectations] == [True, True]


def test_choose_without_a_script_takes_the_first_item(tmp_path):
    out = _run_trio(tmp_path, "do:\n  expect elige(Carla) == Ana\n  expect choose(Ana, []) == none\n")
    assert [v.ok for v in out.expectations] == [True, True]


def test_a_scripted_answer_that_is_no_choice_is_an_error_at_the_script_line(tmp_path):
    with pytest.raises(GrimorioError) as exc:
        _run_trio(tmp_path, "round 0:\n  Ana: choose Ana\ndo:\n  let x = elige(Ana)\n")
    [d] = exc.value.diagnostics
    assert (d.code, d.message, d.help, d.span.line) == ("E0504", '"Ana" is not one of the choices now',
                                                       "choices: Beto, Carla", 10)


MARCAS = """
sheet ficha:
  FUE: int 1..20
condition aturdido
condition marca grades leve < grave
condition herida grades leve < grave:
  on receive(pj, grado):
    add pj herida grado
rule aturdir(c, por, n):
  add c aturdido with {fuente: por, asaltos: n}
rule asaltos(c):
  return sum([d.asaltos for d in held(c, aturdido)])
rule fuentes(c):
  return [d.fuente for d in held(c, aturdido)]
"""
PAR = 'encounter "x"\nedition prueba\ncombatant Ana:\n  FUE 3\ncombatant Beto:\n  FUE 4\n'


def _run_marcas(tmp_path, do: str, record=True):
    write_edition(tmp_path, MARCAS)
    text = PAR + "do:\n" + "".join(f"  {s.strip()}\n" for s in do.strip().split("\n"))
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    out = Prepared(enc, program_for("prueba", sources=Sources({"x.enc": text}), roots=[tmp_path])).run(record=record)
    return out


def test_a_condition_holds_data_given_with_it(tmp_path):
    out = _run_marcas(tmp_path, """
        aturdir(Ana, Beto, 2)
        aturdir(Ana, Ana, 1)
        expect asaltos(Ana) == 3 and fuentes(Ana) == [Beto, Ana]
        expect held(Beto, aturdido) == []
        add Ana marca leve
        receive Ana marca grave with 7
        expect cards(Ana, marca) == [marca.leve, marca.grave] and held(Ana, marca) == [none, 7]
        remove Ana marca leve
        expect held(Ana, marca) == [7]
        remove Ana aturdido
        expect held(Ana, aturdido) == [] and asaltos(Ana) == 0
    """)
    assert [v.ok for v in out.expectations] == [True] * 5
    cards = [e[1] for e in out.engine.events if e[0] == "card" and "data" in e[1]]
    assert cards[0] == {"who": "Ana", "op": "add", "condition": "aturdido", "grade": None,
                        "data": {"fuente": "Beto", "asaltos": 2}}


def test_records_made_in_an_encounter_have_fields_the_checker_knows(tmp_path):
    # Regression (audit G8): fields were collected from the ruleset only, so a record the
    # script itself makes, or data it gives with a condition, was "nothing has a field".
    out = _run_marcas(tmp_path, """
        let r = {zz: 1, yy: [2]}
        add Ana aturdido with {golpes_dados: 4}
        expect r.zz == 1 and r["yy"] == [2] and held(Ana, aturdido)[1].golpes_dados == 4
        expect [d.golpes_dados for d in held(Ana, aturdido)] == [4]
    """)
    assert [v.ok for v in out.expectations] == [True, True]
    (tmp_path / "otra").mkdir()
    with pytest.raises(GrimorioError) as exc:
        _run_marcas(tmp_path / "otra", "let r = {zz: 1}\nexpect r.zy == 1")
    [d] = exc.value.diagnostics
    assert (d.code, d.message) == ("E0203", 'nothing in these rules has a field "zy"')


def test_data_cannot_be_given_to_a_condition_that_decides_on_receive(tmp_path):
    with pytest.raises(GrimorioError) as exc:
        _run_marcas(tmp_path, "receive Ana herida leve with 3")
    [d] = exc.value.diagnostics
    assert (d.code, d.span.line, d.span.col) == ("E0233", 8, 32)


def test_a_list_joins_a_rule_s_result_with_plus(tmp_path):
    # Regression: with allies() a prelude rule, `[c] + allies(c)` was refused before running
    # ('"+" needs numbers (or dice), not a list'): the text does not tell what a rule gives.
    write_edition(tmp_path, """
        sheet hoja:
          FUE: int 1..20
        rule juntos(c):
          return [c] + allies(c)
        rule fuerza(c):
          return sum([a.FUE for a in juntos(c)])
    """)
    enc = ('encounter "j"\nedition prueba\ncombatant Ana:\n  side a\n  FUE 3\ncombatant Eva:\n  side a\n  FUE 4\n'
           'combatant Ugo:\n  side b\n  FUE 9\nexpect fuerza(Ana) == 7\nexpect len(juntos(Ugo)) == 1\n')
    sources = Sources({"j.enc": enc})
    parsed, diags = build_encounter(enc, "j.enc")
    assert not diags
    outcome = Prepared(parsed, program_for("prueba", None, sources, [tmp_path])).run()
    assert [v.ok for v in outcome.expectations] == [True, True]


GIVEN = ('encounter "g"\nedition aquelarre\ncombatant Ana:\n  side a\n  FUE 12, AGI 12, HAB 12, RES 12, PER 12\n'
         "dice:\n  30\ndo:\n  let t = check porcentaje(50) by Ana\n  expect t.resultado == éxito\n")


def test_a_check_given_its_roll_reads_its_table_without_rolling():
    # The roll named as an argument: the same 30, read against other targets; no die is rolled.
    r = run_text(GIVEN + "  expect (check porcentaje(20, tirada: t.tirada)).resultado == fallo\n"
                         "  expect (check porcentaje(300, tirada: t.tirada)).resultado == crítico\n"
                         "  expect (check porcentaje(objetivo: 29, tirada: 29)).resultado == éxito\n")
    assert [int(e[3]) for e in r.engine.events if e[0] == "roll"] == [30]


def test_a_check_given_a_roll_still_needs_its_parameters():
    out = diagnostics_of(GIVEN + "  expect (check porcentaje(tirada: 30)).resultado == éxito\n")
    assert "E0206" in out and "needs objetivo" in out


def test_an_item_of_a_list_counted_from_1_and_every_other_position_as_before():
    from fractions import Fraction
    from grimorio.interpreter.run import generic
    from grimorio.interpreter.run.refusals import RuleFailure
    items = ["a", "b", "c"]
    assert [generic.item(items, k) for k in (1, 2, 3, -1, -3, Fraction(4, 2))] == ["a", "b", "c", "c", "a", "b"]
    for k in (0, 4, -4, True, Fraction(1, 2), "1"):
        with pytest.raises(RuleFailure):
            generic.item(items, k)
