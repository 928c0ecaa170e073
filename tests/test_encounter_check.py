"""The check of an encounter lives in dsl/ (issue 5, build 2): its combatants, pins and script are
checked against plain facts of the rules, with no compiled program, and `grimorio check`
reports exactly what it finds."""
from __future__ import annotations

import textwrap

from grimorio.dsl.syntax import nodes as n
from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.diagnostics import Sources
from grimorio.dsl.check.encounter_check import Facts, check_encounter, check_names, check_script, check_settings
from grimorio.interpreter.tools.checking import check_path

FACTS = Facts(
    fields={"FUE": n.Field(None, "FUE", "int", 1, 20), "arma": n.Field(None, "arma", "row", table="armas"),
            "vivo": n.Field(None, "vivo", "bool", default=n.Const(None, True))},
    tactics=("simple",), conditions={"Fatiga": ("Leve", "Grave"), "caído": ()},
    table_keys={"armas": {"Espada": None}}, purposes=frozenset({"golpe"}),
    actions=("golpear",), reactions=("esquivar",),
    options={"reactions_per_event": 1, "cansancio": True, "default_tactic": ""})

BAD = """\
edition arena
combatant Ana:
  FUE 30
  FUE 3
  arma Hacha
  tactic lista
  holds Fatiga Media
combatant Ana:
  vivo 1
  holds caído Leve
dice:
  Ana golpe 3
  Ana golpe Luis 4
  tiro 2
round 1:
  Luis: golpear Ana
  Ana: volar, pass refused "x", choose
"""


def test_an_encounter_is_checked_against_facts_without_a_program():
    enc, diags = build_encounter(BAD, "x.enc")
    assert not diags
    got = [(d.code, d.message) for d in check_names(enc) + check_encounter(enc, FACTS) + check_script(enc, FACTS)]
    assert got == [
        ("E0202", 'two combatants are named "Ana"'),
        ("E0202", 'two combatants are named "Ana"'),
        ("E0204", "FUE 30 is out of range"),
        ("E0202", '"FUE" is given twice for Ana'),
        ("E0201", 'there is no "Hacha" in table "armas"'),
        ("E0201", 'there is no tactic "lista"'),
        ("E0201", 'condition "Fatiga" has no grade "Media"'),
        ("E0204", '"vivo" is true or false, not a number'),
        ("E0206", 'Ana needs a value for "FUE", "arma"'),
        ("E0204", '"caído" has no grades'),
        ("E0201", '"Luis" is not a combatant of this encounter'),
        ("E0201", 'no roll of these rules is made for "tiro"'),
        ("E0201", '"Luis" is not a combatant of this encounter'),
        ("E0201", 'there is no action or reaction "volar"'),
        ("E0602", 'the rules never refuse "pass", so this expectation cannot hold'),
        ("E0504", '"choose" takes 1 value after it, not 0'),
    ]


def test_check_of_an_encounter_file_reports_what_the_dsl_check_finds(tmp_path):
    text = textwrap.dedent("""\
        edition aquelarre
        combatant Rodrigo:
          tactic nadie
        """)
    path = tmp_path / "x.enc"
    path.write_text(text, encoding="utf-8")
    codes = [(d.code, d.message) for d in check_path(path, Sources())]
    assert ("E0201", 'there is no tactic "nadie"') in codes


def test_the_settings_an_encounter_gives_are_checked_against_the_options():
    enc, diags = build_encounter("edition arena\nset cansancio = 3\nset prisa = true\nset reactions_per_event = -1\n"
                                 "set default_tactic = \"lista\"\ncombatant Ana:\n  FUE 3\n  arma Espada\n", "x.enc")
    assert not diags
    got = [(d.code, d.message, d.span.line) for d in check_settings(list(enc.settings) + [("prisa", 2)], FACTS)]
    assert got == [
        ("E0204", 'option "cansancio" takes true or false, not a number', 2),
        ("E0201", 'there is no option "prisa"', 3),
        ("E0204", 'option "reactions_per_event" takes a whole number from 0, not -1', 4),
        ("E0201", 'there is no tactic "lista"', 5),
        ("E0201", 'there is no option "prisa"', 0),      # from the command line
    ]
