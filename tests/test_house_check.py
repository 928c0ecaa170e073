"""`grimorio check` never says ok to a house rule it did not check (issue 23, build 3): a house file names
its edition (`extends EDITION`) and is checked as a layer over it; and every silent case the designer met is
a located diagnostic at the designer's own line."""
from __future__ import annotations

import textwrap

import pytest

from grimorio.dsl.check.checker import check_ruleset
from grimorio.dsl.check.deadcode import dead_data
from grimorio.dsl.diagnostics import GrimorioError
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.tools.cli import main


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def check(capsys, *args) -> tuple[int, str]:
    code = main(["check", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out + out.err


def edition(tmp_path, rules: str, name: str = "prueba", head: str = ""):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "edicion.rules").write_text(f'edition {name}:\n  title "Prueba"\n  include "reglas.rules"\n',
                                          encoding="utf-8")
    write(folder, "reglas.rules", textwrap.dedent(head).lstrip("\n") + textwrap.dedent(rules))
    return load_edition(name, roots=[tmp_path])


def line_of(rs, text: str) -> int:
    lines = rs.sources.texts["prueba/reglas.rules" if "prueba/reglas.rules" in rs.sources.texts else
                             next(k for k in rs.sources.texts if k.endswith("reglas.rules"))].split("\n")
    return next(i for i, ln in enumerate(lines, 1) if text in ln)


OUTCOMES = """
sheet s:
  x: int = 0

outcomes resultado: fallo < éxito < crítico

table armas:
  | nombre | daño |
  | Espada | 3    |

check tirada(objetivo) rolls t = d100:
  | t           | resultado |
  | <= objetivo | éxito     |
  | any         | fallo     |
"""


# ---------------------------------------------------------------- a house file names its edition


def test_a_house_file_with_patches_and_no_edition_is_refused_by_check(tmp_path, capsys):
    # Issue 23: `grimorio check my_house.rules` said ok, with `replace rule bono_dano` (no such rule).
    house = write(tmp_path, "casa.rules", "replace rule bono_dano(c, arma):\n  return 0\n")
    code, out = check(capsys, house)
    assert code == 2 and "error[E0323]: these house rules do not say which edition they change" in out
    assert "casa.rules:1:1" in out and "extends EDITION" in out


def test_a_house_file_that_names_its_edition_is_checked_as_a_layer(tmp_path, capsys):
    house = write(tmp_path, "casa.rules", """
        # Sin bonus al daño.
        extends aquelarre
        replace rule bono_dano(c, arma):
          return 0
        change armas["Maza pesda"].daño = 1D6
        """)
    code, out = check(capsys, house)
    assert code == 2
    assert 'error[E0307]: there is no rule "bono_dano" to change' in out and "casa.rules:3:" in out
    assert 'error[E0308]: table "armas" has no row "Maza pesda"' in out and "casa.rules:5:" in out
    assert 'did you mean "bono_daño"?' in out and 'did you mean "Maza pesada"?' in out


def test_a_loose_file_of_declarations_says_only_its_syntax_was_checked(tmp_path, capsys):
    code, out = check(capsys, write(tmp_path, "suelto.rules", "rule f(c):\n  return 1\n"))
    assert code == 0 and "warning[W0323]: only the syntax of this file was checked" in out


def test_a_house_file_for_another_edition_is_refused_where_it_is_layered(tmp_path):
    house = write(tmp_path, "casa.rules", "extends yokai\nset malus_parada = 10\n")
    with pytest.raises(GrimorioError) as exc:
        load_edition("aquelarre", houses=[house])
    d, = exc.value.diagnostics                      # and not the patch's E0307 too
    assert d.code == "E0324" and (d.span.line, d.span.col) == (1, 9)
    assert d.message == 'these house rules are for edition "yokai", not for "aquelarre"'
    house = write(tmp_path, "casa3.rules", "extends aquelarre\nextends aquelarre\n")
    with pytest.raises(GrimorioError) as exc:
        load_edition("aquelarre", houses=[house])
    assert [d.code for d in exc.value.diagnostics] == ["E0324"] and exc.value.diagnostics[0].span.line == 2


@pytest.mark.slow
def test_an_edition_that_extends_the_one_named_takes_the_house_file(tmp_path):
    house = write(tmp_path, "casa2.rules", "extends aquelarre\nset malus_parada = 10\n")
    assert load_edition("aquelarre_estados", houses=[house]).edition.name == "aquelarre_estados"


def test_extends_at_the_margin_of_an_edition_file_is_refused(tmp_path):
    with pytest.raises(GrimorioError) as exc:
        edition(tmp_path, "extends aquelarre\nsheet s:\n  x: int = 0\n")
    d, = exc.value.diagnostics
    assert d.code == "E0324" and "head" in d.help and d.span.file.endswith("reglas.rules")


# ---------------------------------------------------------------- names and kinds


def test_an_outcome_compared_with_a_text_is_refused(tmp_path):
    # Issue 23: `t.resultado == "crítico"` passed and was always false.
    rs = edition(tmp_path, head=OUTCOMES, rules="""
        rule f(c):
          let t = check tirada(50)
          if t.resultado == "crítico":
            return 1
          return 0 if t.resultado != fallo else 2
        """)
    d, = check_ruleset(rs)
    assert d.code == "E0234" and (d.span.line, d.span.col) == (line_of(rs, '== "crítico"'), 6)
    assert d.message == 'an outcome of "resultado" is never equal to a text: this is always false'
    assert d.help == "write the outcome without quotes: crítico"


def test_a_check_result_has_the_fields_of_its_check(tmp_path):
    d, = check_ruleset(edition(tmp_path, head=OUTCOMES, rules="""
        rule f(c):
          let t = check tirada(50)
          return t.resultad
        """))
    assert d.code == "E0203" and "resultado" in d.help


def test_a_rule_named_like_dice_is_refused_at_its_name(tmp_path):
    # Issue 23: `rule d20(adv):` was accepted, then every call d20(true) read as dice.
    diags = check_ruleset(edition(tmp_path, """
        sheet s:
          x: int = 0

        rule d20(adv):
          return 1

        rule f(c):
          return d20(true)
        """))
    first, call = diags
    assert first.code == "E0235" and (first.span.line, first.span.col, first.span.end_col) == (4, 6, 9)
    assert first.message == 'a rule cannot be named "d20": that is dice'
    assert call.code == "E0204" and "named like dice" in call.help and call.span.line == 8


def test_a_let_that_hides_an_outcome_or_a_table_warns(tmp_path):
    # Issue 23: `let crítico = ...` silently shadowed the outcome for the rest of the rule.
    rs = edition(tmp_path, head=OUTCOMES, rules="""
        rule f(c):
          let crítico = 3
          let armas = 2
          let otro = 1
          return crítico + armas + otro
        """)
    assert check_ruleset(rs) == []
    ws = [w for w in dead_data(rs) if w.code == "W0236"]
    assert [(w.span.line, w.severity) for w in ws] == [(line_of(rs, "let crítico"), "warning"),
                                                       (line_of(rs, "let armas"), "warning")]
    assert ws[0].message == 'this let hides the outcome "crítico" of "resultado" for the rest of the block'
    assert ws[1].message == 'this let hides the table "armas" for the rest of the block'



def test_a_rule_named_like_a_builtin_warns(tmp_path):
    # A rule `standing()` silently took the place of the builtin in every call; now a warning says so.
    rs = edition(tmp_path, head=OUTCOMES, rules="""
        rule standing():
          return []

        rule len_of(c):
          return len(standing())
        """)
    assert check_ruleset(rs) == []
    ws = [w for w in dead_data(rs) if w.code == "W0240"]
    assert [(w.span.line, w.span.col, w.severity) for w in ws] == [(line_of(rs, "rule standing"), 6, "warning")]
    assert ws[0].message == 'rule "standing" hides the builtin standing()'
    assert "give the rule another name" in ws[0].help


def test_a_say_argument_that_changes_something_is_refused(tmp_path):
    # say works its arguments out only while a transcript is kept: a change inside one happened under
    # `run` and not under `simulate` (a rule that rolls, sets a field, or keeps a record it creates).
    rs = edition(tmp_path, head=OUTCOMES + 'message m(x) "{x}"\nvar vistos = []\n', rules="""
        rule anota(c):
          append vistos, c
          return c

        rule lee(c):
          return len(vistos)

        rule f(c):
          say m(anota(c))
          say m(roll 1D6)
          say m(lee(c) + 1)
          let x = anota(c)
          say m(x)
        """)
    diags = [d for d in check_ruleset(rs) if d.code == "E0245"]
    assert [d.span.line for d in diags] == [line_of(rs, "say m(anota(c))"), line_of(rs, "say m(roll 1D6)")]
    assert diags[0].message == "an argument of say cannot change anything or roll"
    assert "do it first (let x = ...), then say x" in diags[0].help

# ---------------------------------------------------------------- cells, lookups, decisions, options


def layer_error(tmp_path, text: str):
    house = write(tmp_path, "casa.rules", text)
    with pytest.raises(GrimorioError) as exc:
        load_edition("aquelarre", houses=[house])
    d, = exc.value.diagnostics
    assert d.span.file.endswith("casa.rules")
    return d


def checked_error(tmp_path, text: str):
    """The one error checking the edition with this house file finds (the layer itself loads)."""
    from grimorio.dsl.check.front import check_edition
    rs = load_edition("aquelarre", houses=[write(tmp_path, "casa.rules", text)])
    with pytest.raises(GrimorioError) as exc:
        check_edition(rs)
    d, = exc.value.diagnostics
    assert d.span.file.endswith("casa.rules")
    return d


@pytest.mark.parametrize("value, want", [("dos", "a number"), ('"2"', "a number"), ('"2D6+1"', "dice")])
def test_a_changed_cell_of_another_kind_than_its_column_is_refused_at_the_change(tmp_path, value, want):
    # Issue 23: `= dos`, `= "2"`, and a text into a dice column were ok; the run failed in danos.rules.
    column = "daño" if want == "dice" else "protección"
    row = 'armas["Maza pesada"]' if want == "dice" else 'armaduras["Gambesón"]'
    d = checked_error(tmp_path, f"change {row}.{column} = {value}\n")
    assert d.code == "E0237" and d.message.endswith(f"holds {want}, not a text")
    assert (d.span.line, d.span.col) == (1, len(f"change {row}.{column} = ") + 1)
    assert "without quotes" in d.help


def test_a_changed_cell_of_the_column_kind_is_taken(tmp_path):
    house = write(tmp_path, "casa.rules", 'change armaduras["Gambesón"].protección = 3\n'
                                          'change armas["Maza pesada"].daño = 2D6+1\n')
    rs = load_edition("aquelarre", houses=[house])
    assert rs.space("value")["armaduras"] is not None


def test_a_lookup_that_can_fall_outside_a_dice_table_is_refused(tmp_path):
    # Issue 23: a 1D20 lookup of the 1-10 localización was ok; the run stopped at 11.
    rs = load_edition("aquelarre", houses=[write(tmp_path, "casa.rules", """
        replace block localizar in rule aplicar_golpe:
          let lugar = localización[roll 1D20 by i.atacante as "localización"]
        """)])
    d, = [d for d in check_ruleset(rs) if d.code == "E0238"]
    assert d.span.file.endswith("casa.rules") and (d.span.line, d.span.col) == (2, 28)
    assert d.message == 'this lookup can reach 11 to 20, and table "localización" has no row for it'
    assert "1D10" in d.help


def test_lookups_that_stay_inside_the_rows_are_taken(tmp_path):
    diags = check_ruleset(edition(tmp_path, """
        sheet s:
          x: int = 0

        table sitio by d10:
          | tirada | lugar  |
          | 1-3    | Cabeza |
          | 4-10   | Tronco |

        rule f(c):
          let a = sitio[roll 1D10]
          let b = sitio[clamp(roll 1D20, 1, 10)]
          let k = sitio[(roll 1D3) % 10]
          return sitio[c.x]
        """))
    assert diags == []


def test_a_check_whose_rows_leave_rolls_unanswered_is_refused_with_the_values(tmp_path):
    rules = OUTCOMES.replace("| <= objetivo | éxito     |", "| <= 50       | éxito     |")
    d, = check_ruleset(edition(tmp_path, rules.replace("| any         | fallo     |", "| 60..90      | fallo     |")))
    assert d.code == "E0239" and d.message == 'no row of check "tirada" answers 51 to 59, 91 to 100'
    assert "from 1 to 100" in d.help
    (tmp_path / "b").mkdir()
    assert check_ruleset(edition(tmp_path / "b", rules)) == []        # a last `any` row answers them


def test_a_decide_first_on_a_number_that_leaves_values_unanswered_warns_with_the_values(tmp_path):
    # Issue 23: `decide first` without a final any row, values below 15 matching nothing: ok, then a
    # failure at run time.
    rs = edition(tmp_path, """
        sheet s:
          x: int = 0

        rule bono(c):
          decide first:
            | c.x   | b   |
            | >= 25 | 2D6 |
            | >= 20 | 1D6 |
            | >= 15 | 1D4 |
          return b

        rule dado(c):
          decide first:
            | roll 1D6 | b |
            | 1..2     | 1 |
            | 4        | 2 |
          return b

        rule todo(c):
          decide first:
            | c.x  | b |
            | < 0  | 1 |
            | >= 0 | 2 |
          return b
        """)
    d, = check_ruleset(rs)
    assert d.code == "E0239" and d.message == "no row of decide answers 3, 5 to 6"
    w, = [w for w in dead_data(rs) if w.code == "W0239"]
    assert w.message == "no row of this table answers below 15" and w.span.line == 5


def test_an_option_set_twice_in_one_layer_is_refused(tmp_path):
    d = layer_error(tmp_path, "set malus_parada = 10\nset malus_parada = 15\n")
    assert d.code == "E0325" and d.span.line == 2 and d.help == "it is first set at line 1; keep one of the two"


ENCOUNTER = """
encounter "x"
edition aquelarre
seed 1
rounds 1
{sets}
combatant Rodrigo:
  side cristianos
  FUE 14, AGI 12, HAB 13, RES 14, PER 11
  Espadas 60%
  arma "Espada corta"

combatant Bandido:
  side bandidos
  FUE 13, AGI 10, HAB 11, RES 13, PER 10
  Palo 45%
  arma "Garrote"

round 1:
  Rodrigo: atacar {target}
"""


@pytest.mark.slow
def test_an_option_set_twice_in_an_encounter_and_a_misspelled_combatant_are_refused(tmp_path, capsys):
    # Issue 23: the last set won silently; `Rodrigo: atacar Bandid` failed at run time.
    enc = write(tmp_path, "e.enc", ENCOUNTER.format(sets="set malus_parada = 10\nset malus_parada = 15\n",
                                                    target="Bandid"))
    code, out = check(capsys, enc)
    assert code == 2
    lines = enc.read_text(encoding="utf-8").split("\n")
    second = lines.index("set malus_parada = 15") + 1
    script = lines.index("  Rodrigo: atacar Bandid") + 1
    assert 'error[E0325]: option "malus_parada" is set twice' in out and f"e.enc:{second}:20" in out
    assert 'error[E0326]: "Bandid" is not a combatant of this encounter' in out and f"e.enc:{script}:12" in out
    assert 'did you mean "Bandido"?' in out
    enc = write(tmp_path, "f.enc", ENCOUNTER.format(sets="set malus_parada = 10\n", target="Bandido"))
    assert check(capsys, enc)[0] == 0


@pytest.mark.slow
def test_a_scripted_action_given_values_it_has_no_parameters_for_is_refused_by_check(tmp_path, capsys):
    # `check` said ok; the run stopped at round 1 ("atacar" takes 1 choice after it, not 2).
    enc = write(tmp_path, "e.enc", ENCOUNTER.format(sets="", target="Bandido Rodrigo, huir Bandido"))
    code, out = check(capsys, enc)
    assert code == 2
    assert 'error[E0504]: "atacar" takes 1 choice after it, not 2' in out and "its parameters: objetivo" in out
    assert 'error[E0504]: "huir" takes 0 choices after it, not 1' in out


@pytest.mark.slow
def test_a_folder_of_house_files_is_checked_file_by_file(tmp_path, capsys):
    # `grimorio check rulesets/casa` said the folder holds no edition, and `check rulesets` skipped it:
    # its house files were never checked.
    folder = tmp_path / "casa"
    folder.mkdir()
    write(folder, "buena.rules", "extends aquelarre\nset malus_parada = 10\n")
    write(folder, "mala.rules", "extends aquelarre\nreplace rule bono_dano(c, arma):\n  return 0\n")
    write(folder, "sin.rules", "set malus_parada = 10\n")
    code, out = check(capsys, folder)
    assert code == 2
    assert "mala.rules:2:" in out and 'there is no rule "bono_dano"' in out and "sin.rules:1:1" in out
    assert "buena.rules" not in out and out.rstrip().endswith("2 errors")


def test_which_action_parameters_are_chosen_among_combatants():
    from grimorio.dsl.check.encounter_check import combatant_choices
    got = combatant_choices(load_edition("aquelarre"))
    assert got["atacar"] == (True,) and got["huir"] == ()            # enemies(yo), a rival by its requires


@pytest.mark.slow
def test_a_scripted_value_no_combatant_is_named_is_refused_by_check(tmp_path, capsys):
    # `Rodrigo: atacar Pedro` with no Pedro: check said ok, the run stopped at round 1.
    enc = write(tmp_path, "e.enc", ENCOUNTER.format(sets="", target="Pedro"))
    code, out = check(capsys, enc)
    assert code == 2 and 'error[E0326]: "Pedro" is not a combatant of this encounter' in out
    assert '"atacar" chooses it among combatants: Rodrigo, Bandido' in out


def test_a_cell_changed_twice_is_checked_as_it_is_left(tmp_path):
    # E0237 moved from the layers to the checker (issue 19: the layers import no checker); the
    # checker reads the cell as the last change left it, at that change.
    from grimorio.dsl.check.front import check_edition
    bad = 'change armaduras["Gambesón"].protección = dos\n'
    good = 'change armaduras["Gambesón"].protección = 3\n'
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, then = write(tmp_path / "a", "casa.rules", bad), write(tmp_path / "b", "casa.rules", good)
    check_edition(load_edition("aquelarre", houses=[first, then]))           # fixed by the later layer
    first, then = write(tmp_path / "a", "casa.rules", good), write(tmp_path / "b", "casa.rules", bad)
    with pytest.raises(GrimorioError) as exc:
        check_edition(load_edition("aquelarre", houses=[first, then]))
    d, = exc.value.diagnostics
    assert d.code == "E0237" and d.span.file.endswith("b/casa.rules") and (d.span.line, d.span.col) == (1, 43)
