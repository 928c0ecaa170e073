"""Dead-data warnings: columns no rule reads, dice-table rows no lookup reaches,
options nothing reads. They are warnings: check and run print them and pass."""
from __future__ import annotations

import pytest

from grimorio.dsl.syntax import nodes as n
from grimorio.dsl.syntax.builder import build_rules
from grimorio.dsl.check.ranges import key_range
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.compile.compiler import compile_checked

from .test_layers import ATTACK, write

TABLE20 = """
replace table localización by 1D20:
  | tirada | lugar  | factor | zona   | nivel |
  | 1-10   | Pecho  | x1     | tronco | 3     |
  | 11-20  | Cabeza | x2     | cabeza | 4     |
"""


def warnings(tmp_path, text, edition="aquelarre"):
    return compile_checked(load_edition(edition, houses=[write(tmp_path, "casa.rules", text)])).warnings


def codes(ws, code):
    return [w for w in ws if w.code == code]


def expr(text: str):
    decls, diags = build_rules(f"rule x():\n  return {text}\n", "t")
    assert not diags
    return decls[0].body[0].value


@pytest.mark.parametrize("text, want", [
    ("(t.tirada - 1) % 10 + 1", (1, 10)),
    ("roll 1D20", (1, 20)),
    ("roll 2D6 + 1", (3, 13)),
    ("roll (1D6 + 1D4)", None),                  # a dice sum is left unknown
    ("clamp(t, 1, 6)", (1, 6)),
    ("3 * 2 - 1", (5, 5)),
    ("-(2)", (-2, -2)),
    ("min(t % 6, 3)", (0, 3)),
    ("1 if t else 7", (1, 7)),
    ("t + 1", None),
])
def test_the_range_of_a_lookup_key(text, want):
    assert key_range(expr(text)) == want


@pytest.mark.slow
def test_a_1d20_table_looked_up_with_the_units_of_a_roll_warns_for_rows_it_never_reaches(tmp_path):
    w, = codes(warnings(tmp_path, TABLE20), "W0704")
    assert w.severity == "warning" and w.message == 'no lookup of table "localización" reaches 11-20'
    assert w.span.file.endswith("casa.rules") and w.span.line == 4
    assert "danos.rules" in w.help and "(1 to 10)" in w.help
    # Rolled apart, every row is reached.
    assert codes(warnings(tmp_path, TABLE20 + 'replace block localizar in rule aplicar_golpe:\n'
                                   '  let lugar = localización[roll 1D20 by i.atacante as "localización"]\n'),
                 "W0704") == []


@pytest.mark.slow
def test_a_column_no_rule_reads(tmp_path):
    # The bundled edition reads every column it has; a house table brings one nothing reads.
    assert codes(compile_checked(load_edition("aquelarre")).warnings, "W0703") == []
    pesos = "table pesos:\n  | nombre | peso |\n  | Daga   | 1    |\nrule pesa(a):\n  return pesos[a.nombre]\n"
    ws = warnings(tmp_path, pesos)
    assert [w.message for w in codes(ws, "W0703")] == ['no rule reads column "peso" of table "pesos"']
    ws = warnings(tmp_path, pesos + "add requires pesos[yo.arma.nombre].peso < 5 to action atacar\n")
    assert codes(ws, "W0703") == []


@pytest.mark.slow
def test_an_option_nothing_reads(tmp_path):
    w, = codes(warnings(tmp_path, 'option gritos = true "nadie la lee"\n'), "W0705")
    assert w.message == 'no rule reads option "gritos"' and w.span.file.endswith("casa.rules")


@pytest.mark.slow
def test_warnings_are_printed_and_do_not_fail(tmp_path, capsys):
    house = write(tmp_path, "casa.rules", TABLE20)
    enc = write(tmp_path, "escena.enc", ATTACK)
    assert main(["check", "rulesets/aquelarre", "--house", str(house)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("ok (") and "warning[W0704]" in err
    assert main(["run", str(enc), "--house", str(house)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("# encounter ") and "\nAsalto 1" in out and "warning[W0704]" in err and "error" not in err
    assert isinstance(expr("1"), n.Const)


@pytest.mark.slow
def test_a_column_read_by_a_value_that_names_it_is_not_dead(tmp_path):
    # fila[zona] reads the column a value names; a text equal to the column's name (here a cell of
    # another table) may be that value, so the column is not reported.
    rules = ("table marcas:\n  | grado | alfa | beta |\n  | 1     | 2    | 3    |\n"
             "table claves:\n  | nombre | clave |\n  | Uno    | alfa  |\n"
             "rule peso(z):\n  return marcas[1][claves[z].clave]\n")
    messages = [w.message for w in codes(warnings(tmp_path, rules), "W0703")]
    assert 'no rule reads column "alfa" of table "marcas"' not in messages
    assert 'no rule reads column "beta" of table "marcas"' in messages


def test_a_key_read_from_a_column_of_another_table_ranges_over_that_column():
    # The rule that redirects an unreachable blow (CMB-45) looks the location table up with a number kept in a
    # table: the analysis reads that column, so a 1D20 location table still warns for the rows 11-20.
    tables = {d.name: d for d in load_edition("aquelarre").all(n.Table)}
    assert key_range(expr('lugar_forzado["desde_arriba"].tirada'), tables) == (7, 7)
    assert key_range(expr('armas["Daga"].daño'), tables) is None          # dice, not whole numbers
