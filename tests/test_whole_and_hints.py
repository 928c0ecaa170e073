"""Whole numbers are whole however they are written (4/2 is 2), and the diagnostics a run
stops on say what was wrong and how to mend it, values shown in the edition's own formats
and texts in quotes (regressions of issue 5's audit, G7, G9 and G14)."""
from __future__ import annotations

from fractions import Fraction

import pytest

from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.check.builtin_values import dice_problem
from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for
from tests.conftest import diagnostics_of, run_text
from tests.test_checker import write_edition

AKIRA = 'encounter "g"\nedition yokai\ncombatant Akira:\n  FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2\n'


def test_one_definition_of_a_whole_number():
    from grimorio.dsl.check.builtin_values import whole
    assert [whole(v) for v in (3, -2, Fraction(4, 2), Fraction(7, 2), True, "2", None, [2])] == \
        [3, -2, 2, None, None, None, None, None]


@pytest.mark.parametrize("expr, value", [
    ("dice(4/2, 6) == 2D6", True),
    ("dice(n / 2, 6) == 2D6", True),
    ("keep_highest(4D6, 4/2) == keep_highest(4D6, 2)", True),
    ("range(4/2, 3) == [2, 3]", True),
    ("[1, 2, 3][4/2] == 2", True),
    ("[1, 2, 3][n / 2] == 2", True),
    ("slice([1, 2, 3], 4/2, 6/2) == [2, 3]", True),
    ("1D6 + 4/2 == 1D6 + 2", True),
])
def test_a_fraction_that_comes_out_whole_is_a_whole_number(expr, value):
    run_text(AKIRA + f"do:\n  let n = 4\n  expect ({expr}) == {str(value).lower()}\n")


def _diagnostic(text):
    text = text if text.startswith("encounter") else AKIRA + "do:\n" + "".join(f"  {s}\n" for s in text.split("|"))
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    with pytest.raises(GrimorioError) as exc:
        Prepared(enc, program_for(enc.edition, enc.edition_span, Sources({"x.enc": text}))).run()
    [d] = exc.value.diagnostics
    return d


def test_a_fraction_that_is_not_whole_is_refused_with_a_hint():
    d = _diagnostic("let n = 7|let x = dice(n / 2, 6)")
    assert (d.code, d.message, d.span.line) == ("E0204", "the number of dice must be a whole number, not 7/2", 7)
    assert "floor()" in d.help and "ceil()" in d.help


def test_too_many_faces_is_not_too_many_dice():
    assert dice_problem(3, 10 ** 12)[0] == "dice(3, 1000000000000) has too many faces (at most 1000000)"
    assert "too many dice" in dice_problem(10001, 6)[0]
    d = _diagnostic("let n = 1000000 * 1000000|let x = dice(3, n)")
    assert d.message == "dice(3, 1000000000000) has too many faces (at most 1000000)"


@pytest.mark.parametrize("do, message, hint", [
    ('let l = [1]|let k = "a"|let x = l[k]', 'a list\'s position must be a whole number, not "a" (a text)', "6/2"),
    ("let x = first([[1], 1])|let y = range(x, 2)", "range()'s start must be a whole number, not 1 (a list)", "such as 3"),
    ("let x = first([none, 1])|let y = range(x, 2)", "range()'s start must be a whole number, not - (none)", "such as 3"),
    ("let g = first([Fatiga.Leve, 1])|let x = held(Akira, g)", "Leve is a grade of Fatiga, and a condition is asked here",
     "give the condition itself: Fatiga (not Fatiga.Leve)"),
    ("let x = first([3])|let y = choose(x, [1])",
     "choose()'s first argument must be a combatant, not 3 (a number)", "choose(COMBATANT, LIST)"),
    ("let x = keep_highest(4D6, 3) + 1D4", "dice of which only some count (4D6kh3) cannot be added to other dice",
     "(roll keep_highest(4D6, 3)) + (roll 1D4)"),
    ("let n = 7|let x = 1D6 + n / 2", "dice add whole numbers, not 7/2", "floor()"),
    ("let x = roll first([3, \"a\"])", "only dice can be rolled, not 3 (a number)", "a number is already rolled"),
    ("let x = len(first([3, \"a\"]))", "len() takes a list, not 3 (a number)", "len([1, 2])"),
    ("let x = 5 - keep_highest(4D6, 3)", "dice of which only some count (4D6kh3) cannot be subtracted from a number",
     "10 - (roll keep_highest(4D6, 3))"),
])
def test_runtime_diagnostics_say_what_was_wrong_and_how_to_mend_it(do, message, hint):
    # Each value comes from a list of mixed kinds where the checker would see it (first([3, "a"])),
    # so the run meets it: what the checker refuses first is tested in tests/test_checker_owns.py.
    d = _diagnostic(do)
    assert d.code == "E0204" and d.message == message and hint in d.help


FORMATOS = """
sheet ficha:
  FUE: int 1..20
format none "nada"
format dice "{count}d{faces}"
format highest "mejores{k}"
"""


@pytest.mark.parametrize("do, message", [
    ("let x = first([none, 1])|let y = range(x, 2)", "range()'s start must be a whole number, not nada (none)"),
    ("let x = keep_highest(4D6, 3) + 1D4", "dice of which only some count (4d6mejores3) cannot be added to other dice"),
])
def test_runtime_diagnostics_show_values_in_the_edition_s_formats(tmp_path, do, message):
    write_edition(tmp_path, FORMATOS)
    text = 'encounter "x"\nedition prueba\ncombatant Ana:\n  FUE 3\ndo:\n' + "".join(f"  {s}\n" for s in do.split("|"))
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    with pytest.raises(GrimorioError) as exc:
        Prepared(enc, program_for("prueba", sources=Sources({"x.enc": text}), roots=[tmp_path])).run()
    assert [d.message for d in exc.value.diagnostics] == [message]


def test_the_rendered_diagnostic_carries_the_help_line():
    out = diagnostics_of(AKIRA + "do:\n  let n = 7\n  let x = dice(n / 2, 6)\n")
    assert "not 7/2" in out and "= help: 7/2 is not whole" in out


TABLAS = """
sheet ficha:
  FUE: int 1..20
table zonas by d4:
  | tirada | lugar  |
  |--------|--------|
  | 1-2    | brazo  |
  | 3-4    | pierna |
table armas:
  | nombre | daño |
  |--------|------|
  | Daga   | 1D4  |
  | Espada | 1D8  |
"""


def _tabla(tmp_path, do):
    if not (tmp_path / "prueba").exists():
        write_edition(tmp_path, TABLAS)
    text = 'encounter "x"\nedition prueba\ncombatant Ana:\n  FUE 3\ndo:\n' + "".join(f"  {s}\n" for s in do.split("|"))
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    return Prepared(enc, program_for("prueba", sources=Sources({"x.enc": text}), roots=[tmp_path])).run()


def test_a_dice_table_takes_a_whole_fraction_as_its_roll_and_refuses_one_in_between(tmp_path):
    out = _tabla(tmp_path, 'expect zonas[6/2].lugar == "pierna" and zonas[4/2].lugar == "brazo"')
    assert [v.ok for v in out.expectations] == [True]
    with pytest.raises(GrimorioError) as exc:
        _tabla(tmp_path, "let n = 5|let x = zonas[n / 2]")          # 5/2 lies between 2 and 3: no row, said so
    [d] = exc.value.diagnostics
    assert d.message == 'table "zonas" has no row for 5/2' and "floor()" in d.help
    with pytest.raises(GrimorioError) as exc:
        _tabla(tmp_path, 'let k = "a"|let x = zonas[k]')
    [d] = exc.value.diagnostics
    assert d.message == 'table "zonas" has no row for "a"' and d.help.endswith("by a whole number, not a text")


def test_the_keys_a_table_lacks_and_has_are_quoted_texts(tmp_path):
    with pytest.raises(GrimorioError) as exc:
        _tabla(tmp_path, 'let k = "Hacha"|let x = armas[k]')
    [d] = exc.value.diagnostics
    assert (d.message, d.help) == ('table "armas" has no row for "Hacha"', 'its keys are "Daga", "Espada"')
    with pytest.raises(GrimorioError) as exc:
        _tabla(tmp_path, 'let x = armas["Hacha"]')               # written: found before running
    [d] = exc.value.diagnostics
    assert (d.code, d.message) == ("E0209", 'table "armas" has no row for "Hacha"')
