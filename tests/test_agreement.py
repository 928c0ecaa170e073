"""Grammatical agreement in messages: {x:WORD} (the builtin agree), gender and number as data
(a column the rows carry, read through the table the prelude's option "agreement" names), and a
plural by count. No game word here: the words and forms are the Aquelarre edition's data."""
from __future__ import annotations

import textwrap

import pytest

from grimorio.dsl.check.checker import check_ruleset
from grimorio.dsl.diagnostics import GrimorioError
from grimorio.dsl.editions.loader import load_edition
from grimorio.dsl.editions.files import bundled_root
from grimorio.dsl.syntax.builder import build_rules
from tests.aquelarre import duel
from tests.conftest import diagnostics_of, run_text

NONE_SCRIPT = """
    round 1:
      Rodrigo: pass
      Bandido: pass
"""
DICE = """
    Rodrigo iniciativa 9
    Bandido iniciativa 1
"""


@pytest.mark.parametrize("expr, expected", [
    ('agree(escudos["Rodela"], "el")', "la"),                    # a row's form, from its column
    ('agree(escudos["Broquel"], "el")', "el"),
    ('agree(armaduras["Ropas gruesas"], "absorbe")', "absorben"),  # plural feminine
    ('agree(armas["Hacha"], "el")', "el"),                       # a form of its own: el Hacha ...
    ('agree(armas["Hacha"], "o")', "a"),                         # ... destrozada
    ('agree(localización[1], "el")', "la"),                      # a dice table's row
    ('agree(Rodrigo, "lo")', "lo"),                              # gives no form: the first
    ('agree({género: "fp"}, "el")', "las"),                      # a record's field
    ('agree(1, "Asalto")', "Asalto"),                            # a count
    ('agree(-1, "Asalto")', "Asalto"),
    ('agree(2, "Asalto")', "Asaltos"),                           # the prelude's plural: {word}s
    ('agree(0, "Asalto")', "Asaltos"),
    ('agree(2, "Acción", "Acciones")', "Acciones"),             # a plural written out
    ('agree(1, "Acción", "Acciones")', "Acción"),
    ('agree([Rodrigo], "Asalto")', "Asalto"),                    # a list counts its items
])
def test_agree_gives_the_form_of_the_word(expr, expected):
    run_text(duel(DICE, NONE_SCRIPT, extra=f'expect {expr} == "{expected}"\n'))    # raises if it fails


def test_a_placeholder_with_a_word_agrees_in_the_transcript():
    one = run_text(duel(DICE, NONE_SCRIPT))
    assert one.lines[-1].startswith("Se llega al límite de 1 Asalto sin")
    two = run_text(duel(DICE + DICE, NONE_SCRIPT + NONE_SCRIPT.replace("round 1", "round 2"), rounds=2))
    assert two.lines[-1].startswith("Se llega al límite de 2 Asaltos sin")


def house(tmp_path, rules: str, name="casa"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "edicion.rules").write_text(f"edition {name}:\n  extends aquelarre\n\n" + textwrap.dedent(rules),
                                          encoding="utf-8")
    return load_edition(name, roots=[tmp_path, bundled_root()])


def codes(rs):
    return sorted((d.code, d.span.line) for d in check_ruleset(rs))


@pytest.mark.slow
def test_a_word_the_agreement_table_lacks_is_an_error_at_the_placeholder(tmp_path):
    rs = house(tmp_path, '''message prueba(d) "  {escudos[\\"Rodela\\"]:ell} {d.escudo} y {d.escudo:el}"\n''')
    out = check_ruleset(rs)
    bad = [d for d in out if d.code == "E0264"]
    assert len(bad) == 1 and bad[0].span.line == 4 and 'no word "ell"' in bad[0].message
    assert "did you mean" in bad[0].help and "el" in bad[0].help


def test_a_count_takes_any_word(tmp_path):
    rs = house(tmp_path, '''message prueba(n) "{n} {n:Hora} {len([1, 2]):Día|Días}"\n''')
    assert [d for d in check_ruleset(rs) if d.severity != "warning"] == []


def test_a_form_a_table_gives_must_be_one_of_the_forms(tmp_path):
    rs = house(tmp_path, '''
        table adornos:
          | nombre | género |
          |--------|--------|
          | Capa   | f      |
          | Yelmo  | mx     |

        message prueba(a) "{a:el} {a}"
        rule usa():
          say prueba(adornos["Capa"])
          return adornos["Yelmo"].nombre
    ''')
    bad = [d for d in check_ruleset(rs) if d.code == "E0263"]
    assert len(bad) == 1 and '"mx"' in bad[0].message and bad[0].span.line == 9


def test_the_option_must_name_a_table_of_words(tmp_path):
    folder = tmp_path / "otra"
    folder.mkdir()
    (folder / "edicion.rules").write_text('edition otra:\n  extends aquelarre\n  set agreement = "concordanzia"\n',
                                          encoding="utf-8")
    out = check_ruleset(load_edition("otra", roots=[tmp_path, bundled_root()]))
    bad = [d for d in out if d.code == "E0262"]
    assert len(bad) == 1 and 'no table "concordanzia"' in bad[0].message and "concordancia" in bad[0].help


@pytest.mark.parametrize("placeholder", ["{d:1a}", "{d:el|los|las}", "{d:}"])
def test_a_placeholder_word_that_is_no_word_is_an_error_at_the_word(placeholder, tmp_path):
    # The file builds (E0261 hides none of its other errors); the checker finds it at the word.
    assert build_rules(f'message m(d) "a {placeholder} b"\n', "m.rules")[1] == []
    house = tmp_path / "casa.rules"
    house.write_text(f'extends aquelarre\nmessage m(d) "a {placeholder} b"\n', encoding="utf-8")
    d = [x for x in check_ruleset(load_edition("aquelarre", houses=[house])) if x.code.startswith("E")]
    assert [x.code for x in d] == ["E0261"] and (d[0].span.line, d[0].span.col) == (2, 20)
    assert "after" in d[0].help


def test_at_run_time_a_word_or_a_form_the_table_lacks_is_refused():
    out = diagnostics_of(duel(DICE, NONE_SCRIPT, extra='expect agree([Rodrigo, 1][1], "ell") == "x"\n'))
    assert "E0265" in out and "ell" in out
    out = diagnostics_of(duel(DICE, NONE_SCRIPT, extra='expect agree({género: "n"}, "el") == "x"\n'))
    assert "E0266" in out and "its forms: m, f, fa, mp, fp" in out


@pytest.mark.slow
def test_agreement_runs_alike_plain_and_optimized():
    from tests.test_plain_and_optimized import ROOT, run
    path = ROOT / "tests" / "scenarios" / "concordancia.enc"
    plain, fast = run(path, 1, False), run(path, 1, True)
    assert plain == fast and plain[0] != "error" and all(ok for ok, _l, _r in plain[2])
