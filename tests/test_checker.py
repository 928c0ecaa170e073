"""The check stage, one rule per test, on small editions written to tmp_path."""
from __future__ import annotations

import textwrap

import pytest

from grimorio.dsl.check.checker import check_ruleset
from grimorio.dsl.diagnostics import GrimorioError
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.compile.programs import program_for


def write_edition(tmp_path, rules: str, name: str = "prueba"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "edicion.rules").write_text(
        f'edition {name}:\n  title "Prueba"\n  include "reglas.rules"\n', encoding="utf-8")
    (folder / "reglas.rules").write_text(textwrap.dedent(rules).lstrip("\n"), encoding="utf-8")
    return folder


def check(tmp_path, rules: str):
    write_edition(tmp_path, rules)
    return check_ruleset(load_edition("prueba", roots=[tmp_path]))


def only(diags, code):
    assert [d.code for d in diags] == [code], diags
    d = diags[0]
    assert d.span.file.endswith("reglas.rules") and d.span.line >= 1 and d.span.col >= 1
    return d


LOCATION = """
table sitio by d10:
  | tirada | lugar   |
  |--------|---------|
  | 1      | Cabeza  |
  | 2-3    | Brazos  |
{rows}
"""


@pytest.mark.slow
def test_a_bundled_edition_checks_clean():
    for name in ("aquelarre", "yokai"):
        assert check_ruleset(load_edition(name)) == []


def test_dice_table_gap_points_at_the_row_after_it(tmp_path):
    d = only(check(tmp_path, LOCATION.format(rows="  | 5-10   | Tronco  |")), "E0205")
    assert (d.span.line, d.span.col) == (6, 5)
    assert d.message == 'no row of table "sitio" covers roll 4'
    assert d.help == "add a row for 4 before this one, or widen a neighbouring range"


def test_dice_table_gap_at_the_end(tmp_path):
    d = only(check(tmp_path, LOCATION.format(rows="  | 4-8    | Tronco  |")), "E0205")
    assert d.span.line == 6
    assert d.message == 'no row of table "sitio" covers rolls 9-10'
    assert d.help == "d10 rolls 1 to 10: add a row for 9-10"


def test_dice_table_overlap(tmp_path):
    d = only(check(tmp_path, LOCATION.format(rows="  | 3-10   | Tronco  |")), "E0205")
    assert d.span.line == 6
    assert d.message == 'roll 3 of table "sitio" is in two rows'
    assert d.help == "the row at line 5 covers roll 3 too; give each roll one row"


def test_dice_table_roll_the_dice_cannot_give(tmp_path):
    rows = "  | 4-10   | Tronco  |\n  | 11-12  | Nada    |"
    d = only(check(tmp_path, LOCATION.format(rows=rows)), "E0205")
    assert d.span.line == 7
    assert d.message == "rolls 11-12 cannot come from d10"
    assert d.help == "d10 rolls 1 to 10"


def test_dice_table_of_several_dice_starts_at_their_count(tmp_path):
    diags = check(tmp_path, """
        table suerte by 2D6:
          | tirada | cosa |
          | 1-6    | mala |
          | 7-12   | buena |
        """)
    d = only(diags, "E0205")
    assert (d.span.line, d.message, d.help) == (3, "roll 1 cannot come from 2d6", "2d6 rolls 2 to 12")


def test_catalogue_with_a_key_twice(tmp_path):
    d = only(check(tmp_path, """
        table armas:
          | nombre | daño |
          | Daga   | 1D4  |
          | Maza   | 1D6  |
          | Daga   | 1D6  |
        """), "E0202")
    assert (d.span.line, d.span.col) == (5, 5)
    assert d.message == 'table "armas" has two rows for "Daga"'
    assert d.help == 'the first is at line 3; each row needs its own "nombre"'


def test_catalogue_with_a_column_twice(tmp_path):
    d = only(check(tmp_path, """
        table armas:
          | nombre | daño | daño |
          | Daga   | 1D4  | 2    |
        """), "E0202")
    assert (d.span.line, d.span.col) == (2, 21)
    assert d.message == 'table "armas" has two columns named "daño"'
    assert d.help == "the first is column 2; rename one of them"


CONDITION = """
condition Heridas grades Leve < Persistente < Grave:
  | grado       | obstáculo |
{rows}
"""


def test_condition_row_names_an_unknown_grade(tmp_path):
    rows = "  | Leve        | -1 |\n  | Persistente | -2 |\n  | Grave       | -3 |\n  | Lve         | -1 |"
    d = only(check(tmp_path, CONDITION.format(rows=rows)), "E0201")
    assert (d.span.line, d.span.col) == (6, 5)
    assert d.message == 'condition "Heridas" has no grade "Lve"'
    assert d.help == 'did you mean "Leve"?'


def test_condition_table_misses_a_grade(tmp_path):
    rows = "  | Leve        | -1 |\n  | Persistente | -2 |"
    d = only(check(tmp_path, CONDITION.format(rows=rows)), "E0206")
    assert (d.span.line, d.span.col) == (2, 5)
    assert d.message == 'the table of condition "Heridas" has no row for grade "Grave"'
    assert d.help == 'add a row "| Grave | ... |"; write "-" in cells it does not use'


SHEET = """
table armas:
  | nombre | daño |
  | Pelea  | 1D3  |

sheet hoja:
  FUE: int 1..30
  acciones: int = 0
  arma: {table} = "Pelea"
"""


def test_sheet_field_of_an_unknown_table(tmp_path):
    d = only(check(tmp_path, SHEET.format(table="armaz")), "E0201")
    assert (d.span.line, d.span.col) == (8, 9)
    assert d.message == 'there is no table "armaz"'
    assert d.help == 'did you mean "armas"?'


def test_cost_of_a_field_the_sheet_lacks(tmp_path):
    rules = SHEET.format(table="armas") + """
action esperar(yo):
  cost accions 1
  pass
"""
    d = only(check(tmp_path, rules), "E0203")
    assert (d.span.line, d.span.col) == (11, 8)
    assert d.message == 'the sheet has no field "accions"'
    assert d.help == 'did you mean "acciones"?'


def test_outcome_listed_twice(tmp_path):
    d = only(check(tmp_path, "outcomes resultado: fallo < éxito < fallo\n"), "E0202")
    assert (d.span.line, d.span.col) == (1, 37)
    assert d.message == 'outcome "fallo" is listed twice in "resultado"'
    assert d.help == "each outcome appears once, from worst to best"


def test_outcome_of_two_lists(tmp_path):
    d = only(check(tmp_path, "outcomes resultado: fallo < éxito\noutcomes otro: fallo < gloria\n"), "E0202")
    assert (d.span.line, d.span.col) == (2, 16)
    assert d.message == '"fallo" is already an outcome of "resultado"'
    assert d.help == "it is at line 1; outcomes of different lists need different names"


def test_option_default_must_be_plain(tmp_path):
    d = only(check(tmp_path, 'option dificultad = 10 + 5 "la dificultad base"\n'), "E0204")
    assert (d.span.line, d.span.col) == (1, 21)
    assert d.message == 'the default of option "dificultad" must be a plain value'
    assert d.help.startswith("an option holds a number, a percentage, true or false, or a quoted text")


def test_plain_option_defaults_pass(tmp_path):
    assert check(tmp_path, 'option a = -3\noption b = 50%\noption c = true\noption d = "x"\n') == []


# ------------------------------------------------------------------ the pipeline

def test_program_for_runs_the_checker_and_reports_every_error(tmp_path):
    write_edition(tmp_path, LOCATION.format(rows="  | 5-10   | Tronco  |") + """
rule r():
  return sitio[nada]
""")
    with pytest.raises(GrimorioError) as info:
        program_for("prueba", roots=[tmp_path])
    codes = [d.code for d in info.value.diagnostics]
    assert codes == ["E0205", "E0201"]          # the checker's, then the compiler's


def test_the_compilers_repeat_of_a_checker_error_is_dropped(tmp_path):
    rules = SHEET.format(table="armas") + "\naction esperar(yo):\n  cost accions 1\n  pass\n"
    write_edition(tmp_path, rules)
    with pytest.raises(GrimorioError) as info:
        program_for("prueba", roots=[tmp_path])
    assert [(d.code, d.span.line) for d in info.value.diagnostics] == [("E0203", 11)]


@pytest.mark.slow
def test_grimorio_check_reports_checker_errors(tmp_path, capsys):
    folder = write_edition(tmp_path, LOCATION.format(rows="  | 5-10   | Tronco  |"))
    assert main(["check", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "error[E0205]: no row of table \"sitio\" covers roll 4" in err
    assert "reglas.rules:6:5" in err and "1 error" in err
    assert main(["check", str(folder / "reglas.rules")]) == 2   # a file of the edition checks the edition
    capsys.readouterr()
    assert main(["check", "rulesets/aquelarre", "rulesets/yokai/edicion.rules"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("ok") and "error" not in err       # dead-data warnings, if any, do not fail it


def test_for_group_names_a_list_of_the_items_of_one_key(tmp_path):
    # Issue 27: the checker took `g` for one item, and refused len(g) and [x.k for x in g] (E0204).
    assert check(tmp_path, """
        table armas:
          | nombre | daño |
          | Espada | 3    |
          | Maza   | 4    |

        rule r():
          for group g in [1, 2, 2, 3] ordered by it desc where len(g) > 0:
            let xs = [x + 1 for x in g]
            return len(g) + sum(xs)
          return 0

        rule q():
          for group g in [armas["Espada"], armas["Maza"]] ordered by it.daño:
            return len(g) + sum([x.daño for x in g]) + g[0].daño
          return 0
        """) == []
    # What a group holds is still known: its items are numbers, not texts.
    (tmp_path / "b").mkdir()
    d = only(check(tmp_path / "b", """
        rule r():
          for group g in [1, 2] ordered by it:
            return [x + "a" for x in g]
          return 0
        """), "E0204")
    assert d.span.line == 3
