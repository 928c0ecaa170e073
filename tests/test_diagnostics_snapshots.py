"""Rendered diagnostics, pinned: what a designer reads (each snapshot was read
against its input before acceptance: code, place, caret, words, help)."""
from __future__ import annotations

import textwrap

import pytest

from grimorio.dsl.syntax.builder import build_rules
from grimorio.dsl.diagnostics import GrimorioError, Sources, render_all
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.compile.compiler import compile_checked
from tests.conftest import diagnostics_of


def edition_diagnostics(tmp_path, monkeypatch, rules: str) -> str:
    """Diagnostics of an edition "casa" made of one rules file, with paths relative to tmp_path."""
    folder = tmp_path / "casa"
    folder.mkdir()
    (folder / "edicion.rules").write_text('edition casa:\n  include "reglas.rules"\n', encoding="utf-8")
    (folder / "reglas.rules").write_text(textwrap.dedent(rules).lstrip("\n"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    sources = Sources()
    with pytest.raises(GrimorioError) as info:
        compile_checked(load_edition("casa", roots=[tmp_path], sources=sources))
    return render_all(info.value.diagnostics, sources)


def test_syntax_errors_one_per_declaration(snapshot):
    text = textwrap.dedent("""
        rule golpe(yo):
          let daño = (1D6 + yo.FUE
          return daño

        rule descanso(yo)
          set yo.pv = yo.RES
        """).lstrip("\n")
    decls, diags = build_rules(text, "casa/reglas.rules")
    assert render_all(diags, Sources({"casa/reglas.rules": text})) == snapshot


def test_unknown_name_with_did_you_mean(tmp_path, monkeypatch, snapshot):
    assert edition_diagnostics(tmp_path, monkeypatch, """
        condition muerto

        rule en_pie(c):
          return not has(c, muerto)

        rule puede_actuar(c):
          return en_pei(c)
        """) == snapshot


def test_dice_table_with_a_gap(tmp_path, monkeypatch, snapshot):
    assert edition_diagnostics(tmp_path, monkeypatch, """
        table localización by d10:
          | tirada | lugar   |
          |--------|---------|
          | 1      | Cabeza  |
          | 2-3    | Brazos  |
          | 5-10   | Tronco  |
        """) == snapshot


def test_encounter_gives_a_characteristic_out_of_range(snapshot):
    assert diagnostics_of("""
        edition aquelarre
        combatant Rodrigo:
          FUE 14, AGI 40, HAB 13, RES 14, PER 11
        """) == snapshot


def test_encounter_misspells_a_skill(snapshot):
    assert diagnostics_of("""
        edition aquelarre
        combatant Rodrigo:
          FUE 14, AGI 12, HAB 13, RES 14, PER 11
          Esquibar 30%
        """) == snapshot
