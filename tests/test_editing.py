"""What the editor offers where the cursor is (interpreter/tools/editing.py): completion by context,
quick fixes for "did you mean", and a file's outline, on the frozen LSP fixture edition."""
from __future__ import annotations

from pathlib import Path

import pytest

from grimorio.dsl.diagnostics import Sources, did_you_mean, suggestion
from grimorio.dsl.editions.loader import load_entry
from grimorio.dsl.syntax.builder import build_rules
from grimorio.interpreter.tools.analysis import Analysis, completions
from grimorio.interpreter.tools.editing import context_at, completions_at, outline, quick_fix

FIXTURE = Path(__file__).resolve().parent / "lsp_fixture" / "aquelarre"


@pytest.fixture(scope="module")
def edition():
    return load_entry(FIXTURE / "edicion.rules", [FIXTURE.parent], Sources())


def offered(edition, before: str, encounter: bool = False) -> dict[str, list[str]]:
    a = Analysis(FIXTURE / "acciones.rules", Sources())
    return completions_at(before, edition, [], completions(a, edition), encounter)


@pytest.mark.parametrize("before, context", [
    ("  requires yo.", ("field", "yo")),
    ("  let x = yo.arma.pa", ("field", "yo.arma")),
    ('  let d = armas["Daga"].', ("field", 'armas["Daga"]')),
    ("  let d = armas[", ("key", "armas")),
    ('  let d = armas["Da', ("key", "armas")),
    ("set malus", ("option", None)),
    ("  add objetivo ", ("condition", None)),
    ("  if has(yo, inc", ("condition", None)),
    ('  add yo condition_named("inc', ("condition", "text")),
    ('  let c = condition_named("', ("condition", "text")),
    ("  FUE: in", ("any", None)),          # a sheet's field in a rules file is no script line
    ("  ", ("statement", None)),
    ('  say "yo.', ("text", None)),
    ("  let x = 1 + ", ("any", None)),
])
def test_the_context_of_a_cursor(before, context):
    assert context_at(before) == context


def test_a_script_line_of_an_encounter_names_actions():
    assert context_at("  Rodrigo: ata", encounter=True) == ("action", None)
    assert context_at("  Rodrigo: atacar Bandido, ", encounter=True) == ("action", None)
    assert context_at("  Rodrigo: ata") == ("any", None)


def test_after_a_dot_only_fields_and_columns(edition):
    words = offered(edition, "  requires yo.")
    assert words["arma"] == ["field"] and words["pv"] == ["field"]
    assert "en_pie" not in words and "requires" not in words and "Garrote" not in words
    # A row field reads its table's columns; a lookup too.
    assert set(offered(edition, "  requires yo.arma.")) == {"competencia", "tipo", "daño", "fue_min", "para"}
    assert "resistencia" in offered(edition, '  let r = armaduras["Cuero"].')


def test_inside_a_table_s_brackets_its_keys(edition):
    words = offered(edition, "  let a = armas[")
    assert words['"Garrote"'] == ["key"] and '"Daga"' in words and "en_pie" not in words
    assert "Garrote" in offered(edition, '  let a = armas["Ga')       # the quote is typed already


def test_where_a_condition_an_action_or_an_option_goes(edition):
    assert set(offered(edition, "  add objetivo ")) == {"inconsciente", "muerto", "condition_named"}
    assert set(offered(edition, '  add objetivo condition_named("in')) == {"inconsciente", "muerto"}
    assert offered(edition, "  Rodrigo: ", True)["atacar"] == ["action"]
    assert "en_pie" not in offered(edition, "  Rodrigo: ", True)
    opts = offered(edition, "set ")
    assert opts["daños_al_final"] == ["option"] and opts["impactos"] == ["var"] and "atacar" not in opts


def test_elsewhere_names_and_keywords_but_no_fields(edition):
    words = offered(edition, "  let x = 1 + ")
    assert words["en_pie"] == ["rule"] and "requires" in words and "inconsciente" in words
    assert "arma" not in words and '"Garrote"' not in words and "Garrote" not in words
    assert "field" not in words.get("iniciativa", [])
    assert offered(edition, '  say "hola ') == {}


def test_a_quick_fix_writes_the_suggestion_over_the_misspelled_name():
    lines = ["action atacar(yo, objetivo in enemies(yo)):", "  requires en_pei(objetivo)"]
    fix = quick_fix(lines, 1, 11, 1, 17, "en_pie")
    assert (fix.line, fix.start, fix.end, fix.new_text) == (1, 11, 17, "en_pie")
    assert lines[1][:fix.start] + fix.new_text + lines[1][fix.end:] == "  requires en_pie(objetivo)"
    # A range wider than the name: the name most like the suggestion is replaced.
    fix = quick_fix(['  arma "Espada cota"'], 0, 2, 0, 20, "Espada corta")
    assert fix is not None and fix.new_text == "Espada corta"
    assert quick_fix(["x"], 5, 0, 5, 1, "y") is None


def test_the_help_line_s_suggestion_is_read_back():
    assert suggestion(did_you_mean("en_pei", ["en_pie", "otra"])) == "en_pie"
    assert suggestion("unknown rule") is None and suggestion(None) is None


def test_the_outline_of_a_file():
    decls, diags = build_rules((FIXTURE / "hoja.rules").read_text(encoding="utf-8"), "hoja.rules")
    assert not diags
    [sheet] = [o for o in outline(decls) if o.kind == "sheet"]
    assert sheet.name == "combatiente" and {"FUE", "pv", "arma"} <= {c.name for c in sheet.children}
    decls, _ = build_rules((FIXTURE / "tablas.rules").read_text(encoding="utf-8"), "tablas.rules")
    armas = next(o for o in outline(decls) if o.name == "armas")
    assert armas.kind == "table" and "Garrote" in [c.name for c in armas.children]
    assert armas.children[0].span.line == 7           # each key at its own row


def test_a_condition_named_by_a_text_is_found_from_inside_the_quotes(edition):
    """Hover and definition read the word under the cursor: inside condition_named("…") it is the condition."""
    from grimorio.interpreter.tools.analysis import lookup, symbols, word_at
    line = '  add objetivo condition_named("inconsciente")'
    word = word_at(line, line.index("incon") + 3)
    found = lookup(word, symbols(edition, []))
    assert word == "inconsciente" and found and found[0].kind == "condition"
