"""Patch layers: every operation a house-rule file can make on a bundled edition,
and every diagnostic of layering, each through `grimorio run --house` or the loader."""
from __future__ import annotations

from pathlib import Path
import textwrap

import pytest

from grimorio.dsl.syntax import nodes as n
from grimorio.dsl.check.checker import check_ruleset
from grimorio.dsl.syntax.constants import plain as plain_value
from grimorio.dsl.diagnostics import GrimorioError
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.compile.compiler import compile_checked

from .aquelarre import duel

ATTACK = duel("""
    Rodrigo iniciativa 9
    Bandido iniciativa 1
    Rodrigo ataque 10
    Rodrigo daño 3
""", """
    round 1:
      Rodrigo: atacar Bandido, pass
      Bandido: none, pass
""", strict=False)


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def houses(tmp_path, *texts) -> list[str]:
    out = []
    for i, text in enumerate(texts):
        out += ["--house", str(write(tmp_path, f"casa{i + 1}.rules", text))]
    return out


def run(tmp_path, capsys, enc: str, *texts, code: int = 0, args=()) -> tuple[list[str], str]:
    path = write(tmp_path, "escena.enc", enc)
    got = main(["run", "--quiet", str(path), *houses(tmp_path, *texts), *args])       # the transcript alone
    out, err = capsys.readouterr()
    assert got == code, err
    return out.splitlines(), err


def ruleset(tmp_path, *texts, edition="aquelarre"):
    paths = [write(tmp_path, f"casa{i + 1}.rules", t) for i, t in enumerate(texts)]
    return load_edition(edition, houses=paths)


def errors(tmp_path, *texts, edition="aquelarre"):
    with pytest.raises(GrimorioError) as exc:
        compile_checked(ruleset(tmp_path, *texts, edition=edition))
    return exc.value.diagnostics


def load_errors(tmp_path, *texts):
    with pytest.raises(GrimorioError) as exc:
        ruleset(tmp_path, *texts)
    return exc.value.diagnostics


def line_with(lines, text):
    return next(ln for ln in lines if text in ln)


# ---------------------------------------------------------------- checks


CRITICO5 = """
# Crítico con tirada <= competencia / 5.
replace row 1 of check porcentaje:
  | <= ceil(objetivo / 5) | crítico |
"""


@pytest.mark.slow
def test_replace_a_row_of_a_check(tmp_path, capsys):
    base, _ = run(tmp_path, capsys, ATTACK)
    assert line_with(base, "ataca").endswith("1D100=10 contra 60% -> éxito")       # a tenth: 6
    out, _ = run(tmp_path, capsys, ATTACK, CRITICO5)
    assert line_with(out, "ataca").endswith("1D100=10 contra 60% -> crítico")     # a fifth: 12
    assert "daño máximo 7" in line_with(out, "Daños")


@pytest.mark.slow
def test_insert_and_remove_rows_of_a_check(tmp_path):
    rs = ruleset(tmp_path, """
        insert rows before 4 of check porcentaje:
          | <= 10 | crítico |
        remove row 2 of check porcentaje
    """)
    rows = rs.space("check")["porcentaje"].decide.rows
    assert len(rows) == 6
    assert rows[2].span.file.endswith("casa1.rules")          # the inserted row, placed in the layer
    assert rows[1].tests[0][0].op == ">=" and rows[1].tests[0][0].value.value == 96   # the pifia row is gone
    compile_checked(rs)


@pytest.mark.slow
def test_a_check_row_out_of_range_or_of_the_wrong_width(tmp_path):
    d, = load_errors(tmp_path, "remove row 9 of check porcentaje\n")
    assert d.code == "E0309" and "has no row 9" in d.message and "1 to 6" in d.help
    d, = load_errors(tmp_path, "replace row 1 of check porcentaje:\n  | <= 3 |\n")
    assert d.code == "E0207" and d.span.file.endswith("casa1.rules")


# ---------------------------------------------------------------- tables


ARMERIA = """
add rows to table armas:
  | Hacha de guerra | Hachas | 3 | 1D8+2 | 14 | yes | - | - | - | no | no | no | no | fa |
change armaduras["Cota de malla"].protección = 5
"""


@pytest.mark.slow
def test_add_a_row_and_change_a_cell_of_tables(tmp_path, capsys):
    enc = ATTACK.replace('arma "Espada corta"', 'arma "Hacha de guerra"').replace("Espadas 60%", "Hachas 60%") \
        .replace('armadura "Ropas gruesas"', 'armadura "Cota de malla"').replace("Rodrigo ataque 10", "Rodrigo ataque 34") \
        .replace("Rodrigo daño 3", "Rodrigo daño 8")
    run(tmp_path, capsys, enc, code=2)                         # no Hacha de guerra in the bundled table
    out, _ = run(tmp_path, capsys, enc, ARMERIA)
    assert "con el Hacha de guerra" in line_with(out, "ataca")
    assert "1D8+2=10; la Cota de malla absorbe 5" in line_with(out, "Daños")       # 6 in the bundled table
    bundled = len(load_edition("aquelarre").space("value")["armas"].rows)
    rs = ruleset(tmp_path, ARMERIA)
    armas = rs.space("value")["armas"]
    assert [r[0].value for r in armas.rows][-1] == "Hacha de guerra" and len(armas.rows) == bundled + 1


@pytest.mark.slow
def test_add_rows_with_a_header_and_remove_rows(tmp_path, capsys):
    rs = ruleset(tmp_path, """
        add rows to table armaduras:
          | nombre         | protección | resistencia | malus | afecta  | prohíbe | absorbe |
          |----------------|------------|-------------|-------|---------|---------|---------|
          | Cota de placas | 7          | 180         | 20    | Esquiva | Correr  | absorbe |
        remove rows "Arnés", "Coracina" from table armaduras
    """)
    names = [r[0].value for r in rs.space("value")["armaduras"].rows]
    assert names[-1] == "Cota de placas" and "Arnés" not in names and "Coracina" not in names
    _, err = run(tmp_path, capsys, ATTACK.replace('"Ropas gruesas"', '"Arnés"'),
                 'remove row "Arnés" from table armaduras\n', code=2)
    assert 'there is no "Arnés" in table "armaduras"' in err


@pytest.mark.slow
def test_change_a_cell_of_a_dice_table_by_roll(tmp_path, capsys):
    # Roll 10 of the attack: units 0 -> row 10, Pierna izquierda /2; the layer makes it x1.
    out, _ = run(tmp_path, capsys, ATTACK.replace("Rodrigo ataque 10", "Rodrigo ataque 40"),
                 "change localización[10].factor = x1   # una pierna cuenta entera\n")
    assert line_with(out, "Daños").endswith("Pierna izquierda x1 -> 3")


@pytest.mark.slow
def test_table_patches_that_name_what_is_not_there(tmp_path):
    d, = load_errors(tmp_path, 'change armaduras["Cota de maya"].protección = 5\n')
    assert d.code == "E0308" and d.help == 'did you mean "Cota de malla"?' and d.span.file.endswith("casa1.rules")
    d, = load_errors(tmp_path, 'change armaduras["Cota de malla"].proteccion = 5\n')
    assert d.code == "E0308" and d.help == 'did you mean "protección"?'
    d, = load_errors(tmp_path, "add rows to table armass:\n  | a | 1 | 2 |\n")
    assert d.code == "E0307" and d.help == 'did you mean "armas"?'
    d, = load_errors(tmp_path, "add rows to table armaduras:\n  | Cuero | 1 |\n")
    assert d.code == "E0207" and "7 columns" in d.message


@pytest.mark.slow
def test_a_new_row_whose_key_exists_is_reported_at_the_layer(tmp_path):
    d, = errors(tmp_path, "add rows to table armaduras:\n  | Arnés | 9 | 200 | 25 | Esquiva | Correr | m |\n")
    assert d.code == "E0202" and d.span.file.endswith("casa1.rules") and d.span.line == 2


# ---------------------------------------------------------------- rounds, steps, rules, blocks


ATURDIDO = """
condition Aturdido
message queda_aturdido(d) "    {d} queda aturdido por el golpe en la cabeza"
message pierde_accion(c) "  {c} está aturdido: pierde una Acción (le quedan {c.acciones})"

insert at end of rule aplicar_golpe:
  if lugar.zona == "cabeza" and en_pie(d) and not has(d, Aturdido):
    add d Aturdido
    say queda_aturdido(d)

insert step aturdimiento after iniciativas in round asalto:
  for c in combatants() where has(c, Aturdido):
    remove c Aturdido
    set c.acciones = c.acciones - 1
    say pierde_accion(c)
"""


@pytest.mark.slow
def test_insert_at_the_end_of_a_rule_and_a_step_after_another(tmp_path, capsys):
    enc = duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
        Rodrigo ataque 41
        Rodrigo daño 2
        Rodrigo iniciativa 1
        Bandido iniciativa 9
    """, """
        round 1:
          Rodrigo: atacar Bandido, pass
          Bandido: none, pass
        round 2:
          Rodrigo: pass
          Bandido: pass
    """, rounds=2, strict=False)
    out, _ = run(tmp_path, capsys, enc, ATURDIDO)
    assert "    Bandido queda aturdido por el golpe en la cabeza" in out
    assert "  Bandido está aturdido: pierde una Acción (le quedan 1)" in out
    assert out.index("  Bandido está aturdido: pierde una Acción (le quedan 1)") > out.index("Asalto 2")
    steps = [s.name for s in ruleset(tmp_path, ATURDIDO).space("round")["asalto"].steps]
    assert steps == ["inicio", "iniciativas", "aturdimiento", "acciones", "melés", "daños"]


@pytest.mark.slow
def test_replace_and_remove_steps(tmp_path, capsys):
    out, _ = run(tmp_path, capsys, ATTACK, """
        replace step inicio in round asalto:
          say asalto(round_number() * 10)
        remove step daños from round asalto
    """)
    assert out[0] == "Asalto 10" and not any("Daños" in ln for ln in out)


@pytest.mark.slow
def test_insert_a_step_before_another(tmp_path):
    rs = ruleset(tmp_path, "insert step antes before acciones in round asalto:\n  pass\n")
    assert [s.name for s in rs.space("round")["asalto"].steps][2:4] == ["antes", "acciones"]


@pytest.mark.slow
def test_step_patches_that_name_what_is_not_there(tmp_path):
    d, = load_errors(tmp_path, "remove step daño from round asalto\n")
    assert d.code == "E0308" and d.help == 'did you mean "daños"?' and d.span.line == 1
    d, = load_errors(tmp_path, "insert step otra after iniciativa in round asalto:\n  pass\n")
    assert d.code == "E0308" and d.help == 'did you mean "iniciativas"?'
    d, = load_errors(tmp_path, "insert step acciones after inicio in round asalto:\n  pass\n")
    assert d.code == "E0202" and "already has a step" in d.message
    d, = load_errors(tmp_path, "remove step daños from round asaltos\n")
    assert d.code == "E0307" and d.help == 'did you mean "asalto"?'


BLOCKS = """
rule golpe(d):
  block base:
    say puntos(d, 1)
  block final:
    say desmayo(d)
"""


@pytest.mark.slow
def test_labeled_blocks_are_replaced_removed_and_extended_by_name(tmp_path):
    rs = ruleset(tmp_path, BLOCKS, """
        replace block base in rule golpe:
          say muerte(d)
        insert before block final in rule golpe:
          say puntos(d, 2)
        insert at end of block final in rule golpe:
          say puntos(d, 3)
    """)
    body = rs.space("rule")["golpe"].body
    said = [(s.message, [a.value.value for a in s.args[1:]]) for b in body for s in b.body]
    assert said == [("muerte", []), ("puntos", [2]), ("desmayo", []), ("puntos", [3])]
    compile_checked(rs)
    rs = ruleset(tmp_path, BLOCKS, "remove block base from rule golpe\n")
    assert [b.name for b in rs.space("rule")["golpe"].body] == ["final"]


def test_a_block_that_is_not_there(tmp_path):
    with pytest.raises(GrimorioError) as exc:
        ruleset(tmp_path, BLOCKS, "remove block fina from rule golpe\n")
    d, = exc.value.diagnostics
    assert d.code == "E0308" and d.help == 'did you mean "final"?' and d.span.file.endswith("casa2.rules")


@pytest.mark.slow
def test_a_block_runs_in_place_and_its_names_stay_known(tmp_path, capsys):
    out, _ = run(tmp_path, capsys, ATTACK, """
        replace rule perder_puntos(d, puntos):
          block cuenta:
            let antes = d.pv
            set d.pv = d.pv - puntos * 2
          say puntos(d, antes)
    """)
    assert "    Bandido: puntos de Resistencia 13 -> 11" in out       # 1D6+1=4, 1 absorbed, leg /2 -> 1, doubled: 2


@pytest.mark.slow
def test_replace_and_remove_a_whole_declaration(tmp_path, capsys):
    out, _ = run(tmp_path, capsys, ATTACK, """
        replace message asalto(n) "=== Asalto {n} ==="
    """)
    assert out[0] == "=== Asalto 1 ==="
    d = errors(tmp_path, "remove rule perder_puntos\n")
    assert {x.code for x in d} == {"E0201"}
    assert all("casa1" in x.help and "line 1 removes" in x.help for x in d)     # each names the layer
    assert "rulesets/aquelarre/danos.rules" in d[0].span.file


@pytest.mark.slow
def test_replace_of_what_is_not_there(tmp_path):
    d, = load_errors(tmp_path, "replace rule aplicar_golpes(i):\n  pass\n")
    assert d.code == "E0307" and d.help == 'did you mean "aplicar_golpe"?'
    d, = load_errors(tmp_path, "remove action atacr\n")
    assert d.code == "E0307" and d.help == 'did you mean "atacar"?'
    d, = load_errors(tmp_path, "remove table asalto\n")
    assert d.code == "E0307" and d.help == '"asalto" is a message and a round, not a table'


# ---------------------------------------------------------------- actions, tactics, options


@pytest.mark.slow
def test_add_a_requirement_to_an_action(tmp_path, capsys):
    enc = duel("""
        Rodrigo iniciativa 9
        Bandido iniciativa 1
    """, rounds=1, strict=False).replace("FUE 14", "FUE 6")
    out, _ = run(tmp_path, capsys, enc.replace("rounds 1", "rounds 1\nseed 3"),
                 "add requires yo.FUE >= yo.arma.fue_min to action atacar\n")
    assert not any("Rodrigo ataca" in ln for ln in out) and any("Bandido ataca" in ln for ln in out)
    d, = load_errors(tmp_path, "add requires true to rule en_pie\n")
    assert d.code == "E0309" and "only actions and reactions" in d.message


@pytest.mark.slow
def test_replace_a_tactic_line(tmp_path):
    rs = ruleset(tmp_path, "replace react ataque of tactic directa: esquivar\nreplace act of tactic directa: atacar\n")
    t = rs.space("tactic")["directa"]
    assert [p.name for p in dict(t.react)["ataque"]] == ["esquivar"]
    d, = load_errors(tmp_path, "replace react ataques of tactic directa: esquivar\n")
    assert d.code == "E0308" and d.help == 'did you mean "ataque"?'


@pytest.mark.slow
def test_set_an_option(tmp_path, capsys):
    rs = ruleset(tmp_path, "set daños_al_final = false\n")
    assert rs.space("option")["daños_al_final"].default.value is False
    d, = load_errors(tmp_path, "set daños_al_final = 3\n")
    assert d.code == "E0309" and "true or false" in d.message
    d, = load_errors(tmp_path, "set daño_al_final = false\n")
    assert d.code == "E0307" and d.help == 'did you mean "daños_al_final"?'


# ---------------------------------------------------------------- conditions (yokai)


@pytest.mark.slow
def test_condition_grades_cells_and_on_receive(tmp_path):
    rs = ruleset(tmp_path, """
        change Emoción[Leve].obstáculo = -2
        remove grade Persistente from condition Shock
        replace condition Shock on receive(pj, grado):
          add pj Shock Grave
    """, edition="yokai")
    emo = rs.space("value")["Emoción"]
    assert plain_value(emo.rows[0][1][0]) == -2
    shock = rs.space("value")["Shock"]
    assert shock.grades == ("Leve", "Grave") and [g for g, _ in shock.rows] == ["Leve", "Grave"]
    assert shock.on_receive is not None
    # The bundled rules name Shock Persistente elsewhere (EALT-24): those places are now errors, found by check.
    with pytest.raises(GrimorioError) as used:
        compile_checked(rs)
    assert all('has no grade "Persistente"' in d.message for d in used.value.diagnostics)
    with pytest.raises(GrimorioError) as exc:
        ruleset(tmp_path, "change Emoción[Leeve].obstáculo = -2\n", edition="yokai")
    assert exc.value.diagnostics[0].help == 'did you mean "Leve"?'


# ---------------------------------------------------------------- clashes, warnings, order


@pytest.mark.slow
def test_a_clash_with_a_declaration_of_another_kind_is_one_error_at_the_layer(tmp_path):
    d = load_errors(tmp_path, "var localización = 3\n")
    assert len(d) == 1
    d = d[0]
    assert d.code == "E0306" and d.span.file.endswith("casa1.rules") and d.span.line == 1
    assert d.message == 'this var would replace table "localización" of edition aquelarre'


@pytest.mark.slow
def test_a_rule_of_a_layer_may_share_its_name_with_a_table_below(tmp_path):
    """A rule is only ever called, so it does not replace the table: both stay, each where it is read."""
    rs = ruleset(tmp_path, "rule localización(t):\n  return localización[t].factor\n")
    assert check_ruleset(rs) == []
    assert rs.space("rule")["localización"].span.file.endswith("casa1.rules")
    assert rs.space("value")["localización"].span.file.endswith(".rules") and "casa" not in \
        rs.space("value")["localización"].span.file
    compile_checked(rs)


@pytest.mark.slow
def test_redeclaring_without_replace_warns_and_replace_says_so(tmp_path):
    rs = ruleset(tmp_path, 'message asalto(n) "Asalto número {n}"\n')
    w, = rs.warnings
    assert w.code == "W0701" and w.severity == "warning"
    assert w.message == 'this replaces message "asalto" of edition aquelarre'
    assert ruleset(tmp_path, 'replace message asalto(n) "Asalto número {n}"\n').warnings == []


@pytest.mark.slow
def test_two_layers_changing_one_thing_warn_and_the_later_wins(tmp_path, capsys):
    out, err = run(tmp_path, capsys, ATTACK,
                   'change armaduras["Gambesón"].protección = 3\nreplace message asalto(n) "Uno {n}"\n',
                   'replace message asalto(n) "Dos {n}"\n')
    assert out[0] == "Dos 1"
    assert "warning[W0702]" in err and "casa2" in err and "casa1" in err and err.count("W0702") == 1
    # Two cells of one row are two things: no warning.
    _, err = run(tmp_path, capsys, ATTACK, 'change armaduras["Gambesón"].protección = 3\n',
                 'change armaduras["Gambesón"].resistencia = 60\n')
    assert "W0702" not in err
    _, err = run(tmp_path, capsys, ATTACK, 'change armaduras["Gambesón"].protección = 3\n',
                 'change armaduras["Gambesón"].protección = 4\n')
    assert "W0702" in err and '(protección of Gambesón)' in err


@pytest.mark.slow
def test_a_house_file_cannot_declare_an_edition(tmp_path):
    d, = load_errors(tmp_path, 'edition casa:\n  extends aquelarre\n')
    assert d.code == "E0310"


@pytest.mark.slow
def test_new_declarations_of_any_kind(tmp_path, capsys):
    out, _ = run(tmp_path, capsys, ATTACK, """
        option gritos = true "los combatientes gritan al empezar"
        message grito(c) "  {c}: ¡Santiago!"
        insert at start of step acciones in round asalto:
          if option gritos:
            for c in combatants():
              say grito(c)
    """)
    assert out[3:5] == ["  Rodrigo: ¡Santiago!", "  Bandido: ¡Santiago!"]


# ---------------------------------------------------------------- derived editions are layers too


@pytest.mark.slow
def test_an_edition_that_extends_another_patches_it(tmp_path, capsys):
    folder = tmp_path / "critico5"
    folder.mkdir()
    write(folder, "edicion.rules", 'edition critico5:\n  title "Críticos al quinto"\n  extends aquelarre\n' + CRITICO5)
    enc = write(tmp_path, "escena.enc", ATTACK.replace("edition aquelarre", "edition critico5")
                .replace("Espadas 60%", "Espadas 50%"))
    assert main(["run", str(enc), "--rules", str(folder)]) == 0       # the edition's own folder
    assert "-> crítico" in capsys.readouterr().out
    assert main(["editions", "--rules", str(tmp_path)]) == 0
    listed = capsys.readouterr().out
    assert "critico5" in listed and "(extends aquelarre)" in listed and "yokai" in listed


def test_an_edition_without_extends_and_no_sheet_is_an_error_of_check(tmp_path, capsys):
    folder = tmp_path / "critico5"
    folder.mkdir()
    write(folder, "edicion.rules", 'edition critico5:\n  title "Críticos al quinto"\n'
          "outcomes resultado: fallo < éxito\n"
          "check porcentaje(objetivo) rolls tirada = d100:\n  | tirada | resultado |\n"
          "  | <= objetivo | éxito |\n  | any | fallo |\n")
    assert main(["check", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "error[E0311]" in err and "has no sheet and no round" in err and "edicion.rules:1:1" in err


@pytest.mark.slow
def test_explain_names_the_layer_of_each_line(tmp_path, capsys):
    enc = ATTACK.replace("rounds 1", "rounds 2").replace("Rodrigo ataque 10", "Rodrigo ataque 41")
    out, _ = run(tmp_path, capsys, enc, ATURDIDO + 'replace message asalto(n) "Asalto {n}!"\n', args=["--explain"])
    assert "message asalto from layer casa1" in out[0] and "casa1.rules" in out[0]
    assert "step aturdimiento at " in line_with(out, "pierde") and "layer casa1" in line_with(out, "pierde")
    assert "edition aquelarre" in line_with(out, "ataca")



def test_a_house_file_that_cannot_be_read_is_an_error_at_the_command_line(tmp_path, capsys):
    enc = write(tmp_path, "escena.enc", ATTACK)
    (tmp_path / "bin.rules").write_bytes(b"\x00abc")
    for name, says in (("bin.rules", "is a binary file"), ("nada.rules", "there is no file")):
        assert main(["run", str(enc), "--house", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert says in err and "<command line>:1:" in err and "Traceback" not in err


def test_a_derived_edition_keeps_what_its_base_sets_in_its_head(tmp_path, capsys):
    # Regression: the base's `set` lines were lost under `extends` (only the top edition's head was read).
    base, derived = tmp_path / "base", tmp_path / "derivada"
    base.mkdir()
    derived.mkdir()
    write(base, "edicion.rules", """
        edition base:
          title "Base"
          set dos = 2
        sheet ficha:
          FUE: int 0..5
        option uno = 1 "u"
        option dos = 0 "d"
        message valor(x) "valor {x}"
        round r:
          step s:
            say valor(option uno + option dos)
          until true
        """)
    write(derived, "edicion.rules", 'edition derivada:\n  title "D"\n  extends base\n  set uno = 10\n')
    enc = write(tmp_path, "e.enc", "edition derivada\ncombatant A:\n  FUE 1\n")
    assert main(["run", str(enc), "--rules", str(tmp_path)]) == 0
    assert "valor 12" in capsys.readouterr().out          # 10 from the derived head, 2 kept from the base's


# ---------------------------------------------------------------- fields added to the sheet

@pytest.mark.slow
def test_a_layer_adds_fields_to_the_sheet_and_they_default_from_the_sheet(tmp_path):
    rs = ruleset(tmp_path, "add to sheet combatiente:\n  DES: int = HAB\n  apodo: text = \"nadie\"\n")
    [sheet] = rs.all(n.Sheet)
    assert [f.name for f in sheet.fields][-2:] == ["DES", "apodo"]
    assert rs.warnings == []
    program = compile_checked(rs)
    assert program is not None


@pytest.mark.slow
def test_adding_a_field_the_sheet_has_is_E0309_at_the_field(tmp_path):
    [d] = load_errors(tmp_path, "add to sheet combatiente:\n  AGI: int = 3\n")
    assert d.code == "E0309" and d.message == 'sheet "combatiente" already has a field "AGI"'
    assert d.span.file.endswith("casa1.rules") and d.span.line == 2


@pytest.mark.slow
def test_adding_fields_to_a_sheet_that_does_not_exist_is_E0307(tmp_path):
    [d] = load_errors(tmp_path, "add to sheet combatientes:\n  DES: int = 3\n")
    assert d.code == "E0307" and "combatiente" in (d.help or "")


@pytest.mark.slow
def test_redeclaring_a_declaration_exactly_as_below_does_not_warn(tmp_path):
    # Aquelarre's own words for CMB-51: the same declaration changes nothing (comments and spacing aside).
    assert ruleset(tmp_path, "condition inconsciente   # el mismo\n").warnings == []
    [w] = ruleset(tmp_path, "condition inconsciente:\n  on receive(c, g):\n    pass\n").warnings
    assert w.code == "W0701"


# ---------------------------------------------------------------- one preference of a tactic


def prefs_of(rs, line="act", tactic="directa"):
    t = rs.space("tactic")[tactic]
    return [p.name for p in (t.act if line == "act" else dict(t.react)[line])]


def test_add_a_preference_at_the_end_of_a_tactic_line(tmp_path):
    base = prefs_of(ruleset(tmp_path))
    rs = ruleset(tmp_path, "add act retener when yo.acciones == 2 to tactic directa\n")
    assert prefs_of(rs) == base + ["retener"]
    t = rs.space("tactic")["directa"]
    assert t.act[-1].when is not None and t.act[-1].span.file.endswith("casa1.rules")
    # A react line the tactic lacks is started by the patch.
    rs = ruleset(tmp_path, "add react rechazo zafarse, pass to tactic directa\nadd react carga esquivar to tactic directa\n")
    assert prefs_of(rs, "rechazo")[-2:] == ["zafarse", "pass"] and prefs_of(rs, "carga") == ["esquivar"]


def test_insert_a_preference_before_or_after_another(tmp_path):
    base = prefs_of(ruleset(tmp_path))
    rs = ruleset(tmp_path, "insert act retener when yo.acciones == 2 before atacar in tactic directa\n"
                           "insert act arrojar after recoger in tactic directa\n")
    got = prefs_of(rs)
    assert got.index("retener") == got.index("atacar") - 1 and got.index("arrojar") == got.index("recoger") + 1
    assert [p for p in got if p not in ("retener", "arrojar")] == base


def test_remove_and_replace_one_preference(tmp_path):
    base = prefs_of(ruleset(tmp_path))
    rs = ruleset(tmp_path, "remove act recoger from tactic directa\n"
                           "replace act huir of tactic directa: retirarse when malherido(yo), huir\n")
    assert base[0] == "huir"
    assert prefs_of(rs) == ["retirarse", "huir"] + [p for p in base[1:] if p != "recoger"]
    assert prefs_of(rs, "ataque") == prefs_of(ruleset(tmp_path), "ataque")


def test_a_preference_that_is_not_there_or_is_there_twice(tmp_path):
    d, = load_errors(tmp_path, "remove act recojer from tactic directa\n")
    assert d.code == "E0308" and d.help == 'did you mean "recoger"?' and d.span.line == 1
    assert "recojer" in d.message and "act" in d.message
    d, = load_errors(tmp_path, "insert react ataques parar before esquivar in tactic directa\n")
    assert d.code == "E0308" and d.help == 'did you mean "ataque"?'
    d, = load_errors(tmp_path, "replace react ataque parar of tactic directa: esquivar\n")
    assert d.code == "E0309" and "3 preferences" in d.message and "replace react ataque of tactic directa" in d.help
    d, = load_errors(tmp_path, "remove react embestida zafarse from tactic directa\n")
    assert d.code == "E0309" and "only preference" in d.message
    d, = load_errors(tmp_path, "add act vendar to tactic directo\n")
    assert d.code == "E0307" and d.help == 'did you mean "directa"?'


def test_two_layers_changing_one_preference_warn(tmp_path):
    rs = ruleset(tmp_path, "replace act huir of tactic directa: huir when yo.acciones == 2\n",
                 "remove act huir from tactic directa\n")
    w, = [w for w in rs.warnings if w.code == "W0702"]
    assert "(act huir)" in w.message and w.span.file.endswith("casa2.rules")
    assert "huir" not in prefs_of(rs)


def test_statements_inserted_after_a_return_are_refused(tmp_path):
    # Issue 27: `insert at end of rule R` where R ends in `return` never ran, and check said ok.
    d, = load_errors(tmp_path, "insert at end of rule malherido:\n  say huye(c)\n")
    assert d.code == "E0309" and d.span.line == 1 and d.span.file.endswith("casa1.rules")
    tacticas = (Path(__file__).resolve().parent.parent / "rulesets" / "aquelarre" / "tacticas.rules").read_text("utf-8")
    ends = tacticas.splitlines().index("rule malherido(c):") + 2          # its one line, a return
    assert d.message == f'these statements would never run: rule "malherido" ends at line {ends}, before them'
    # Every branch of an if ... else returning ends it too; at the start it is fine.
    rs = ruleset(tmp_path, "replace rule malherido(c):\n  if c.pv > 0:\n    return false\n  else:\n    return true\n"
                           "insert at start of rule malherido:\n  say huye(c)\n")
    assert len(rs.space("rule")["malherido"].body) == 2
    d, = load_errors(tmp_path, "replace rule malherido(c):\n  if c.pv > 0:\n    return false\n  else:\n    return true\n"
                               "insert at end of rule malherido:\n  say huye(c)\n")
    assert d.code == "E0309" and d.span.line == 6
    # A body that may run past its end takes them.
    rs = ruleset(tmp_path, "replace rule malherido(c):\n  if c.pv > 0:\n    return false\n"
                           "insert at end of rule malherido:\n  return true\n")
    assert isinstance(rs.space("rule")["malherido"].body[-1], n.Return)


# ---------------------------------------------------------------- long extends chains


def chain(root, levels: int):
    """Editions e0 <- e1 <- ... each extending the one before, one rule each."""
    for i in range(levels):
        folder = root / f"e{i}"
        folder.mkdir()
        head = f"  extends e{i - 1}\n" if i else ""
        body = "sheet s:\n  x: int = 0\n" if i == 0 else ""
        (folder / "edicion.rules").write_text(f'edition e{i}:\n  title "E{i}"\n{head}\n{body}rule r{i}(c):\n'
                                              f"  return {i}\n", encoding="utf-8")


def test_an_extends_chain_reads_the_edition_heads_once(tmp_path, monkeypatch):
    # Issue 27: edition_heads was read again at every level: a chain of N editions read N x N heads
    # (400 levels took 14-20 s).
    import grimorio.dsl.editions.files as loader
    chain(tmp_path, 30)
    calls = []
    real = loader.entry_heads
    monkeypatch.setattr(loader, "entry_heads", lambda *a, **k: calls.append(a) or real(*a, **k))
    rs = load_edition("e29", roots=[tmp_path])
    assert len(calls) == 30                      # one per folder, not 30 x 30
    assert {f"r{i}" for i in range(30)} <= set(rs.space("rule"))
    assert [layer.name for layer in rs.layers] == [f"e{i}" for i in range(1, 30)]


@pytest.mark.slow
def test_an_extends_chain_deeper_than_the_stack_loads(tmp_path):
    # Loading a chain level by level called itself once per level: past the interpreter's stack a
    # RecursionError (E0003). Now the chain is a loop.
    import sys
    chain(tmp_path, 400)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(300)
    try:
        rs = load_edition("e399", roots=[tmp_path])
    finally:
        sys.setrecursionlimit(limit)
    assert rs.edition.name == "e399" and len(rs.layers) == 399


@pytest.mark.slow
def test_rules_past_the_size_that_checks_in_seconds_are_refused_before_parsing(tmp_path):
    # Issue 27: 3.8 MB of small rules (under the 4 MiB file cap) took 46 s and 2 GB, and under a memory
    # cap failed with a misleading "too complex" (E0106). Now a ruleset holds at most MAX_RULES_BYTES.
    too_large(tmp_path)


def test_the_size_cap_counts_every_file_of_the_ruleset(tmp_path, monkeypatch):
    import grimorio.dsl.editions.files as loader
    monkeypatch.setattr(loader, "MAX_RULES_BYTES", 8 * 1024)
    too_large(tmp_path)


def too_large(tmp_path):
    from grimorio.dsl.editions.files import MAX_RULES_BYTES
    folder = tmp_path / "grande"
    folder.mkdir()
    (folder / "edicion.rules").write_text('edition grande:\n  title "G"\n  include "reglas.rules"\n\n'
                                          "sheet s:\n  x: int = 0\n", encoding="utf-8")
    rules = "".join(f"rule r{i}(c):\n  return c.x + {i}\n" for i in range(MAX_RULES_BYTES // 30))
    (folder / "reglas.rules").write_text(rules, encoding="utf-8")
    with pytest.raises(GrimorioError) as exc:
        load_edition("grande", roots=[tmp_path])
    d, = exc.value.diagnostics
    assert d.code == "E0322" and d.message.startswith("these rules are too large:")
    assert d.span.file.endswith("edicion.rules") and d.span.line == 3      # the include that crossed it
    assert f"{MAX_RULES_BYTES // 1024} KiB" in d.help
    # A house file that crosses it is named at its first line.
    (folder / "reglas.rules").write_text("rule r(c):\n  return 1\n", encoding="utf-8")
    house = tmp_path / "casa.rules"
    house.write_text(rules, encoding="utf-8")
    with pytest.raises(GrimorioError) as exc:
        load_edition("grande", roots=[tmp_path], houses=[house])
    d, = exc.value.diagnostics
    assert d.code == "E0322" and d.span.file.endswith("casa.rules") and d.span.line == 1


def test_running_out_of_memory_compiling_is_a_size_error_not_too_complex(tmp_path, monkeypatch):
    # Issue 27: under a memory cap, a large file failed with a misleading "too complex" (E0106).
    import grimorio.interpreter.compile.compiler as compiler

    def no_memory(source, filename):
        raise MemoryError
    monkeypatch.setattr(compiler, "python_code", no_memory)
    folder = tmp_path / "mini"
    folder.mkdir()
    (folder / "edicion.rules").write_text('edition mini:\n  title "M"\n\nsheet s:\n  x: int = 0\n', encoding="utf-8")
    with pytest.raises(GrimorioError) as exc:
        compile_checked(load_edition("mini", roots=[tmp_path]))
    d, = exc.value.diagnostics
    assert d.code == "E0322" and d.message == "these rules are too large to compile in the memory available"


def test_statements_inserted_after_a_block_that_returns_are_refused(tmp_path):
    d, = load_errors(tmp_path, "replace rule malherido(c):\n  block fin:\n    return c.pv * 4 <= c.RES\n"
                               "insert after block fin in rule malherido:\n  say huye(c)\n")
    assert d.code == "E0309" and d.span.line == 4
    assert d.message == 'these statements would never run: block "fin" of rule "malherido" ends at line 3, before them'
    rs = ruleset(tmp_path, "replace rule malherido(c):\n  block fin:\n    return c.pv * 4 <= c.RES\n"
                           "insert before block fin in rule malherido:\n  say huye(c)\n")
    assert len(rs.space("rule")["malherido"].body) == 2
