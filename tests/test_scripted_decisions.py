"""Scripted decisions of a `round N:` block: the values they name are matched as
the edition shows them (or as the language writes them), a scripted answer to
choose() may be expected refused, and a refusal the rules can never give is
refused before the run."""
from __future__ import annotations

from pathlib import Path

import pytest

from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.interpreter.tools.checking import check_path
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for
from tests.test_checker import write_edition

EDITION = """
sheet ficha:
  FUE: int 1..20
  bolsa: list = []

format true "sí"
format false "no"
format none "nada"

message ver(x) "ver: {x}"

action elegir(yo, modo in [true, false]):
  say ver(modo)

action guardar(yo, x in [none, 1]):
  say ver(x)

rule pregunta(c, xs):
  let r = choose(c, xs)
  say ver(r)
  return r
"""
PAIR = 'encounter "x"\nedition prueba\ncombatant Ana:\n  FUE 3\ncombatant Beto:\n  FUE 4\n'


def _prepare(tmp_path, tail: str) -> Prepared:
    if not (tmp_path / "prueba").exists():
        write_edition(tmp_path, EDITION)
    text = PAIR + tail
    enc, diags = build_encounter(text, "x.enc")
    assert not diags, diags
    return Prepared(enc, program_for("prueba", sources=Sources({"x.enc": text}), roots=[tmp_path]))


def _run(tmp_path, tail: str):
    return _prepare(tmp_path, tail).run()


def _said(out) -> list[str]:
    return [e[2].strip() for e in out.engine.events if e[0] == "say"]


def _error(tmp_path, tail: str):
    with pytest.raises(GrimorioError) as exc:
        _run(tmp_path, tail)
    return [(d.code, d.message, d.help) for d in exc.value.diagnostics]


def test_an_action_value_is_named_as_the_edition_shows_it_or_as_the_language_writes_it(tmp_path):
    out = _run(tmp_path, "round 0:\n  Ana: elegir sí, elegir true, elegir no, guardar none, guardar nada, guardar 1\n"
                         "do:\n" + "  act Ana\n" * 6)
    assert _said(out) == ["ver: sí", "ver: sí", "ver: no", "ver: nada", "ver: nada", "ver: 1"]
    assert not out.failed


def test_choose_is_answered_by_a_number_a_literal_or_the_word_the_edition_shows(tmp_path):
    out = _run(tmp_path, 'round 0:\n  Ana: choose -1, choose 2, choose "2", choose sí, choose false, choose none, choose Beto\n'
                         "do:\n  expect pregunta(Ana, [1, -1]) == -1\n  expect pregunta(Ana, [1, 2, 3]) == 2\n  expect pregunta(Ana, [1, 2, 3]) == 2\n"
                         "  expect pregunta(Ana, [false, true]) == true\n"
                         "  expect pregunta(Ana, [true, false]) == false\n"
                         "  expect pregunta(Ana, [1, none]) == none\n  expect pregunta(Ana, [Ana, Beto]) == Beto\n")
    assert [v.ok for v in out.expectations] == [True] * 7


def test_the_choices_a_message_lists_are_shown_by_the_edition(tmp_path):
    assert _error(tmp_path, "round 0:\n  Ana: elegir quizá\ndo:\n  act Ana\n") == [(
        "E0504", 'the rules forbid Ana to elegir quizá now: "quizá" is not a choice for elegir here (choices: sí, no)',
        f"that is written at {tmp_path / 'prueba' / 'reglas.rules'}:11:27")]
    assert _error(tmp_path, "round 0:\n  Ana: choose quizá\ndo:\n  let x = pregunta(Ana, [none, true])\n") == [
        ("E0504", '"quizá" is not one of the choices now', "choices: nada, sí")]


def test_a_word_that_names_two_choices_is_the_scripts_mistake(tmp_path):
    [(code, message, _help)] = _error(tmp_path, 'round 0:\n  Ana: choose sí\ndo:\n  let x = pregunta(Ana, [true, "sí"])\n')
    assert (code, message) == ("E0504", '"sí" names more than one choice here: sí, sí')


def test_a_refused_answer_to_choose_holds_when_it_is_no_choice(tmp_path):
    out = _run(tmp_path, 'round 0:\n  Ana: choose Carla refused "not one of the choices", choose Beto\n'
                         "do:\n  expect pregunta(Ana, [Ana, Beto]) == Beto\n")
    assert [v.ok for v in out.expectations] == [True, True]


def test_a_refused_answer_to_choose_that_is_taken_fails_and_is_not_taken(tmp_path):
    out = _run(tmp_path, 'round 0:\n  Ana: choose Beto refused "no"\ndo:\n  expect pregunta(Ana, [Ana, Beto]) == Ana\n')
    refusal, answer = out.expectations
    assert (refusal.ok, refusal.span.line, refusal.diagnostic().help) == (
        False, 8, "the rules allowed Ana to choose Beto")
    assert (answer.ok, str(answer.left)) == (True, "Ana")      # unanswered, choose() takes the first item
    assert [v.diagnostic().code for v in out.expectations if not v.ok] == ["E0601"]


def test_a_refusal_for_another_reason_names_it(tmp_path):
    out = _run(tmp_path, 'round 0:\n  Ana: choose Carla refused "zzz"\ndo:\n  let x = pregunta(Ana, [Ana])\n')
    [v] = out.expectations
    assert (v.ok, v.diagnostic().help) == (False, 'refused, but because of ""Carla" is not one of the choices now", '
                                                  'not "zzz"')


@pytest.mark.parametrize("choice, word", [('pass refused "x"', "pass"), ("none refused", "none")])
def test_a_refusal_of_what_the_rules_always_allow_is_refused_before_the_run(tmp_path, choice, word):
    [(code, message, help)] = _error(tmp_path, f"round 1:\n  Ana: {choice}\nrounds 1\n")
    assert (code, message) == ("E0602", f'the rules never refuse "{word}", so this expectation cannot hold')
    assert "is always allowed" in help


def test_grimorio_check_reports_a_refusal_that_cannot_happen(tmp_path):
    write_edition(tmp_path, EDITION)
    enc = tmp_path / "prueba" / "x.enc"
    enc.write_text(PAIR + 'round 1:\n  Ana: pass refused "x", choose\n  Beto: none refused, pass Ana\nrounds 1\n',
                   encoding="utf-8")
    diags = check_path(Path(enc), Sources())
    assert [(d.code, d.span.line) for d in diags] == [("E0602", 8), ("E0504", 8), ("E0602", 9), ("E0504", 9)]
    assert diags[1].message == '"choose" takes 1 value after it, not 0'
    assert diags[3].message == '"pass" takes no values after it, not 1'


def test_a_list_of_a_combatant_may_hold_none(tmp_path):
    text = PAIR.replace("FUE 3\n", "FUE 3, bolsa [none, 1, [none]]\n", 1)
    write_edition(tmp_path, EDITION)
    enc, diags = build_encounter(text + "expect Ana.bolsa == [none, 1, [none]]\n", "x.enc")
    assert not diags
    prepared = Prepared(enc, program_for("prueba", sources=Sources({"x.enc": text}), roots=[tmp_path]))
    assert [v.ok for v in prepared.run().expectations] == [True]


def test_equal_values_offered_twice_are_one_answer(tmp_path):
    out = _run(tmp_path, "round 0:\n  Ana: choose 2, choose Beto\n"
                         "do:\n  expect pregunta(Ana, [4 / 2, 2, 1]) == 2\n  expect pregunta(Ana, [Beto, Ana, Beto]) == Beto\n")
    assert [v.ok for v in out.expectations] == [True, True]


# A decision the script gives for the do: block (round 0) or for a round the encounter never
# plays was passed over in silence, so an answer expected refused there held without a test.
@pytest.mark.parametrize("tail, message", [
    ('round 0:\n  Ana: choose Beto refused "no"\ndo:\n  say ver(1)\n', 'Ana never got to "choose Beto" in round 0'),
    ("round 0:\n  Ana: choose Beto, choose Ana\ndo:\n  let x = pregunta(Ana, [Ana, Beto])\n",
     'Ana never got to "choose Ana" in round 0'),
    ("round 1:\n  Ana: elegir sí\ndo:\n  say ver(1)\n", "the encounter ended before round 1"),
])
def test_a_decision_never_asked_for_is_an_error_in_round_0_and_in_rounds_not_played(tmp_path, tail, message):
    [(code, got, _help)] = _error(tmp_path, tail)
    assert (code, got) == ("E0504", message)
