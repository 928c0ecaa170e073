"""Expectations anywhere in an encounter script: in do: blocks, at the end of a
round, of transcript lines, and of decisions the rules must refuse."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.diagnostics import Sources
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for
from tests.aquelarre import duel
from tests.conftest import diagnostics_of, run_text

# Rodrigo attacks twice; Bandido parries the first attack and has one action left.
TWO_ATTACKS = """\
Rodrigo iniciativa 9
Bandido iniciativa 1
Rodrigo ataque 20
Bandido parada 10
Rodrigo ataque 90
Bandido ataque 90
"""
ANSWERED = "round 1:\n  Rodrigo: atacar Bandido, atacar Bandido\n  Bandido: parar, none, atacar Rodrigo\n"


def outcome(text: str, record=True):
    text = textwrap.dedent(text).lstrip("\n")
    enc, diags = build_encounter(text, "scenario.enc")
    assert not diags, diags
    program = program_for(enc.edition, enc.edition_span, Sources({"scenario.enc": text}))
    return Prepared(enc, program).run(record=record)


def failures(text: str, record=True) -> list[tuple[str, str | None]]:
    """The failed expectations of a run: (the text of its line, help)."""
    lines = textwrap.dedent(text).lstrip("\n").split("\n")
    return [(lines[v.span.line - 1].strip(), v.diagnostic().help) for v, _l, _r in outcome(text, record).failed]


def test_a_round_expectation_sees_the_state_at_the_end_of_that_round():
    # Both expectations are about acciones, reset every round: only the end of round 1 shows 0 and 1.
    text = duel(TWO_ATTACKS.replace("Bandido ataque 90\n", "") + "Rodrigo iniciativa 9\nBandido iniciativa 1\n", """
        round 1:
          Rodrigo: atacar Bandido, atacar Bandido
          Bandido: parar, none, pass
          expect Rodrigo.acciones == 0
          expect Bandido.acciones == 1
        round 2:
          Rodrigo: pass
          Bandido: pass
          expect Rodrigo.acciones == 2
    """, rounds=2)
    assert failures(text) == []
    wrong = text.replace("expect Bandido.acciones == 1", "expect Bandido.acciones == 2")
    assert failures(wrong) == [("expect Bandido.acciones == 2", "the left side is 1, the right side is 2")]


def test_a_round_never_reached_fails_its_expectations():
    text = duel("Rodrigo iniciativa 9\nBandido iniciativa 1\n", """
        round 1:
          Rodrigo: pass
          Bandido: pass
        round 3:
          expect Rodrigo.acciones == 2
    """, rounds=1)
    assert failures(text) == [("expect Rodrigo.acciones == 2", "the encounter ended before round 3 (it lasted 1 round)")]


def test_a_do_expectation_is_checked_when_the_block_reaches_it():
    # The same expression is true before the receive and false after it: each is checked at its moment.
    text = """
        encounter "momentos"
        edition yokai
        combatant Akira:
          FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2
        do:
          expect not has(Akira, Heridas)
          receive Akira Heridas Leve
          expect has(Akira, Heridas)
          expect not has(Akira, Heridas)
    """
    assert failures(text) == [("expect not has(Akira, Heridas)", None)]
    assert len(outcome(text).expectations) == 3


def test_said_matches_a_transcript_line_as_text_so_far():
    text = duel(TWO_ATTACKS, ANSWERED + '  expect said "Bandido para con el Garrote: 1D100=10"\n'
                                        '  expect not said "Rodrigo para"\n', extra="""
        do:
          expect not said "Asalto 1"
        expect said "Rodrigo ataca a Bandido"
        expect said "Bandido se desmaya"
    """)
    assert failures(text) == [('expect said "Bandido se desmaya"', 'no line so far contains "Bandido se desmaya"; '
                                   'the last one: "Se llega al límite de 1 Asalto sin que ningún bando caiga. '
                                   'Siguen en pie: Rodrigo, Bandido"')]


def test_said_keeps_a_transcript_even_when_the_run_keeps_none():
    text = duel(TWO_ATTACKS, ANSWERED + 'expect said "Bandido para"\n')
    assert failures(text, record=False) == []
    assert failures(text.replace('said "Bandido para"', 'said "Bandido esquiva"'), record=False) != []


def test_a_refused_action_with_its_clause_holds():
    # Bandido has no action left to pay for an attack: "cost acciones 1". (This test used
    # to script "pass refused", which the rules never refuse: now an error, E0602.)
    text = duel("Rodrigo iniciativa 9", 'round 0:\n  Bandido: atacar Rodrigo refused "acciones"\n', rounds=0,
                extra="do:\n  set Bandido.acciones = 0\n  expect not act(Bandido)\n", strict=False)
    assert failures(text) == []
    allowed = text.replace("set Bandido.acciones = 0", "set Bandido.acciones = 1")
    # Allowed, the choice is not taken; the tactic then attacks (the second failure).
    assert failures(allowed) == [('Bandido: atacar Rodrigo refused "acciones"',
                                  "the rules allowed Bandido to atacar Rodrigo"), ("expect not act(Bandido)", None)]


def test_a_refused_choice_is_checked_against_the_rules_reason():
    # Bandido has two actions: the script says he cannot attack, the rules let him.
    text = duel("Rodrigo iniciativa 9\nBandido iniciativa 1\nBandido ataque 90\n", """
        round 1:
          Rodrigo: pass
          Bandido: atacar Rodrigo refused "acciones", atacar Rodrigo, pass
    """)
    assert failures(text) == [('Bandido: atacar Rodrigo refused "acciones", atacar Rodrigo, pass',
                                "the rules allowed Bandido to atacar Rodrigo")]


def test_a_refusal_for_another_reason_fails_and_names_the_reason():
    # Bandido can only attack his enemies: Bandido is no choice of his own attack.
    text = duel("Rodrigo iniciativa 9\nBandido iniciativa 1\n", """
        round 1:
          Rodrigo: pass
          Bandido: atacar Bandido refused "acciones", pass
    """)
    [(line, help)] = failures(text)
    assert line == 'Bandido: atacar Bandido refused "acciones", pass'
    assert help.startswith('refused, but because of ""Bandido" is not a choice for atacar here (choices: Rodrigo)"')
    assert failures(text.replace('refused "acciones"', 'refused "not a choice"')) == []
    assert failures(text.replace('refused "acciones"', "refused")) == []


def test_a_refused_reaction_names_its_cost():
    # Bandido parries twice (CMB-28: one action for the round's parries) and passes his own turn.
    text = duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 20
        Bandido parada 10
        Rodrigo ataque 20
        Bandido parada 10
    """, """
        round 1:
          Rodrigo: atacar Bandido, atacar Bandido
          Bandido: parar, parar, pass, esquivar refused "cost acciones"
    """)
    # No third attack comes: the refused reaction is never asked for, and the script says so.
    assert "never got to" in diagnostics_of(text)


def test_a_refused_reaction_when_it_comes_up():
    # Bandido holds no parrying weapon (a stiletto, CMB-22): no means to parry.
    text = duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 20
        Rodrigo ataque 90
    """, """
        round 1:
          Rodrigo: atacar Bandido, atacar Bandido
          Bandido: parar refused "medio_de_parada(yo, e) != none", none, pass
    """, arma_b='"Estilete"', strict=False)
    assert failures(text) == []


def test_a_scripted_decision_the_rules_refuse_names_the_clause():
    text = duel("Rodrigo iniciativa 9\nBandido iniciativa 1\nRodrigo ataque 30\n", """
        round 1:
          Rodrigo: atacar Bandido, atacar Bandido
          Bandido: parar
    """, arma_b='"Estilete"')
    out = diagnostics_of(text)
    assert ('the rules do not allow Bandido to "parar" now: '
            '"requires puede_defenderse(yo) and medio_de_parada(yo, e) != none" is not met') in out
    # The line of that requires in the bundled rules (designers edit them: the line moves).
    rules = (Path(__file__).resolve().parent.parent / "rulesets" / "aquelarre" / "defensas.rules")
    lines = rules.read_text(encoding="utf-8").splitlines()
    line = lines.index("  requires puede_defenderse(yo) and medio_de_parada(yo, e) != none",
                       lines.index("reaction parar(yo, e) to ataque:")) + 1
    assert f"that is written at rulesets/aquelarre/defensas.rules:{line}:12" in out.replace("\\", "/")


@pytest.mark.slow
def test_expect_is_no_statement_of_rules(tmp_path):
    from grimorio.dsl.diagnostics import GrimorioError
    from grimorio.dsl.editions.files import bundled_root
    folder = tmp_path / "casa"
    folder.mkdir()
    (folder / "casa.rules").write_text("edition casa:\n  extends yokai\n\nrule prueba(c):\n  expect c.FUE > 0\n"
                                       "  return c\n", encoding="utf-8")
    with pytest.raises(GrimorioError) as exc:
        program_for("casa", roots=[tmp_path, bundled_root()])
    [d] = exc.value.diagnostics
    assert (d.code, d.span.line) == ("E0230", 5)


def test_every_scenario_is_one_encounter_that_exits_0(tmp_path, capsys):
    from grimorio.interpreter.tools.cli import main
    text = duel(TWO_ATTACKS, ANSWERED + '  expect said "Bandido para"\n')
    path = tmp_path / "escena.enc"
    path.write_text(text, encoding="utf-8")
    assert main(["run", str(path)]) == 0
    path.write_text(text.replace('said "Bandido para"', 'said "Bandido esquiva"'), encoding="utf-8")
    assert main(["run", str(path)]) == 1
    assert "error[E0601]: this expectation failed" in capsys.readouterr().err
