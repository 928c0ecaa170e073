"""Modules: declarations any edition includes by name (`include module NAME`), with what they
expect of the including edition; each way of getting them wrong is a located diagnostic."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from grimorio.dsl.syntax import nodes as n
from grimorio.dsl.diagnostics import GrimorioError
from grimorio.dsl.editions.loader import load_edition
from grimorio.dsl.editions.files import bundled_root
from grimorio.interpreter.tools.cli import main

MODULE = """\
# Un módulo pequeño: lo que cualquier edición con FUE y una tirada puede usar.
module comun:
  title "Reglas comunes"
  description "Doblar la FUE y probar una tirada."
  include "reglas.rules"
  expects field FUE
  expects check tirada
  expects outcome éxito

rule doble(pj):
  return pj.FUE * 2
"""
REGLAS = """\
message prueba(pj, t) "{pj} tira: {t.resultado}"

rule probar(pj):
  let t = check tirada(pj.FUE) by pj
  say prueba(pj, t)
  return t.resultado == éxito
"""
UNO = """\
edition uno:
  title "Uno"
  include "hoja.rules", module comun
"""
HOJA_UNO = """\
sheet ficha:
  FUE: int 0..9
outcomes resultado: fallo < éxito
check tirada(valor) rolls d = 1D6:
  | d        | resultado |
  |----------|-----------|
  | <= valor | éxito     |
  | any      | fallo     |
"""
DOS = """\
edition dos:
  title "Dos"
  include module comun
sheet persona:
  FUE: int 0..20
outcomes resultado: fallo < éxito < crítico
check tirada(valor) rolls d = 1D20:
  | d        | resultado |
  |----------|-----------|
  | 1        | crítico   |
  | <= valor | éxito     |
  | any      | fallo     |
"""
ENCOUNTER = """\
encounter "prueba"
edition {edition}
combatant Ana:
  FUE {fue}
dice strict:
  Ana tirada {die}
do:
  probar(Ana)
expect doble(Ana) == {doble}
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def root(tmp_path) -> Path:
    write(tmp_path / "comun" / "modulo.rules", MODULE)
    write(tmp_path / "comun" / "reglas.rules", REGLAS)
    write(tmp_path / "uno" / "edicion.rules", UNO)
    write(tmp_path / "uno" / "hoja.rules", HOJA_UNO)
    write(tmp_path / "dos" / "edicion.rules", DOS)
    return tmp_path


def run(capsys, enc: Path, *args) -> tuple[int, str, str]:
    code = main(["run", "--quiet", str(enc), *args])          # the transcript alone, without its header line
    out, err = capsys.readouterr()
    return code, out, err


def errors(name: str, root: Path) -> list:
    with pytest.raises(GrimorioError) as exc:
        load_edition(name, [root, bundled_root()])
    return exc.value.diagnostics


def only(diags, code: str):
    assert [d.code for d in diags] == [code], [str(d) for d in diags]
    return diags[0]


# ---------------------------------------------------------------- one module, two editions

def test_one_module_is_included_by_two_editions(root, capsys):
    uno = write(root / "uno" / "prueba.enc", ENCOUNTER.format(edition="uno", fue=4, die=3, doble=8))
    dos = write(root / "dos" / "prueba.enc", ENCOUNTER.format(edition="dos", fue=12, die=15, doble=24))
    assert run(capsys, uno)[:2] == (0, "Ana tira: éxito\n")
    assert run(capsys, dos)[:2] == (0, "Ana tira: fallo\n")     # 15 > 12 on dos's 1D20
    # Each edition has the module's declarations, in its own layer, and remembers whence they came.
    rs = load_edition("dos", [root, bundled_root()])
    assert {"doble", "probar"} <= set(rs.space("rule")) and "prueba" in rs.space("message")
    assert rs.origin[("rule", "doble")] == "dos" and list(rs.modules) == ["comun"]


def test_the_module_comes_where_the_include_stands(root):
    """Declarations keep the order of the include line: the edition's file, then the module's."""
    write(root / "uno" / "edicion.rules", 'edition uno:\n  include module comun, "hoja.rules"\n'
                                          "rule antes():\n  return 1\n")
    rs = load_edition("uno", [root, bundled_root()])
    assert [d for d in rs.space("rule") if d in ("antes", "doble", "probar")] == ["antes", "doble", "probar"]


def test_a_module_can_include_another(root, capsys):
    write(root / "base" / "base.rules", 'module base:\n  title "Base"\n\nrule triple(pj):\n  return pj.FUE * 3\n')
    write(root / "comun" / "modulo.rules", MODULE.replace('include "reglas.rules"',
                                                          'include "reglas.rules", module base'))
    enc = write(root / "uno" / "prueba.enc", ENCOUNTER.format(edition="uno", fue=4, die=3, doble=8)
                + "expect triple(Ana) == 12\n")
    assert run(capsys, enc)[0] == 0


@pytest.mark.slow
def test_a_house_layer_patches_a_rule_of_a_module(root, capsys):
    enc = write(root / "uno" / "prueba.enc", ENCOUNTER.format(edition="uno", fue=4, die=3, doble=12))
    house = write(root / "casa.rules", "replace rule doble(pj):\n  return pj.FUE * 3\n\n"
                                       'replace message prueba(pj, t) "{pj} prueba suerte: {t.resultado}"\n')
    code, out, err = run(capsys, enc)
    assert code != 0 and "doble(Ana) == 12" in out + err         # the module's rule doubles
    code, out, err = run(capsys, enc, "--house", str(house))
    assert (code, out) == (0, "Ana prueba suerte: éxito\n"), err


def test_a_derived_edition_keeps_the_module_of_its_base(root, capsys):
    write(root / "tres" / "edicion.rules", "edition tres:\n  extends uno\n\nreplace rule doble(pj):\n"
                                           "  return pj.FUE + 1\n")
    enc = write(root / "tres" / "prueba.enc", ENCOUNTER.format(edition="tres", fue=4, die=3, doble=5))
    assert run(capsys, enc)[:2] == (0, "Ana tira: éxito\n")


# ---------------------------------------------------------------- diagnostics

def test_a_missing_expectation_is_reported_at_the_include_line(root):
    write(root / "uno" / "hoja.rules", HOJA_UNO.replace("FUE", "AGI").replace("check tirada", "check dado"))
    diags = errors("uno", root)
    assert [d.code for d in diags] == ["E0316", "E0316"]
    field, check = diags
    assert field.message == 'module "comun" expects field "FUE", and edition "uno" has none'
    assert (Path(field.span.file).name, field.span.line) == ("edicion.rules", 3)
    assert "modulo.rules:6" in field.help and "declare it in the edition" in field.help
    assert check.message == 'module "comun" expects check "tirada", and edition "uno" has none'


def test_a_missing_outcome_gets_a_did_you_mean(root):
    write(root / "uno" / "hoja.rules", HOJA_UNO.replace("éxito", "exito"))
    d = only(errors("uno", root), "E0316")
    assert 'expects outcome "éxito"' in d.message and 'did you mean "exito"?' in d.help


def test_an_unknown_kind_of_expectation(root):
    write(root / "comun" / "modulo.rules", MODULE.replace("expects check tirada", "expects chek tirada"))
    d = only(errors("uno", root), "E0317")
    assert d.message == 'a module cannot expect a "chek"' and 'did you mean "check"?' in d.help
    assert (Path(d.span.file).name, d.span.line, d.span.col) == ("modulo.rules", 7, 11)


def test_no_such_module(root):
    write(root / "uno" / "edicion.rules", UNO.replace("module comun", "module comn"))
    d = only(errors("uno", root), "E0313")
    assert d.message == 'there is no module "comn"' and 'did you mean "comun"?' in d.help
    assert d.span.line == 3


def test_including_an_edition_as_a_module(root):
    write(root / "uno" / "edicion.rules", UNO.replace("module comun", "module dos"))
    d = only(errors("uno", root), "E0313")
    assert "is an edition" in d.help and "extends dos" in d.help


def test_a_module_that_includes_itself(root):
    write(root / "base" / "base.rules", 'module base:\n  include module comun\n')
    write(root / "comun" / "modulo.rules", MODULE.replace('include "reglas.rules"',
                                                          'include "reglas.rules", module base'))
    d = only(errors("uno", root), "E0314")
    assert d.message == 'module "comun" includes itself: comun -> base -> comun'
    assert Path(d.span.file).name == "base.rules"


def test_a_module_included_twice(root):
    write(root / "uno" / "edicion.rules", UNO.replace("module comun", "module comun, module comun"))
    d = only(errors("uno", root), "E0315")
    assert 'edition "uno" includes it at' in d.help and d.span.col > 30


def test_a_derived_edition_cannot_include_its_bases_module_again(root):
    write(root / "tres" / "edicion.rules", "edition tres:\n  extends uno\n  include module comun\n")
    d = only(errors("tres", root), "E0315")
    assert 'edition "uno" includes it' in d.help and Path(d.span.file).parts[-2:] == ("tres", "edicion.rules")


@pytest.mark.parametrize("where, text", [
    ("uno/edicion.rules", UNO + "module otro:\n  title \"x\"\n"),
    ("uno/hoja.rules", HOJA_UNO + "module otro:\n  title \"x\"\n"),
    ("comun/reglas.rules", REGLAS + "module otro:\n  title \"x\"\n"),
    ("comun/modulo.rules", MODULE + "edition otra:\n  title \"x\"\n"),
])
def test_a_head_in_the_wrong_file(root, where, text):
    write(root / where, text)
    d = only(errors("uno", root), "E0312")
    assert Path(d.span.file).name == Path(where).name and d.help


def test_a_house_file_cannot_declare_or_replace_a_module(root, capsys):
    enc = write(root / "uno" / "prueba.enc", ENCOUNTER.format(edition="uno", fue=4, die=3, doble=8))
    for text in ("module casa:\n  title \"x\"\n", "replace module comun:\n  title \"x\"\n"):
        house = write(root / "casa.rules", text)
        code, _, err = run(capsys, enc, "--house", str(house))
        assert code == 2 and "error[E0312]" in err and "E0003" not in err


def test_a_module_includes_only_files_of_its_folder(root):
    write(root / "comun" / "modulo.rules", MODULE.replace('"reglas.rules"', '"../uno/hoja.rules"'))
    d = only(errors("uno", root), "E0303")
    assert d.message == '"../uno/hoja.rules" is outside the module\'s folder'
    write(root / "comun" / "modulo.rules", MODULE.replace('"reglas.rules"', '"regla.rules"'))
    d = only(errors("uno", root), "E0304")
    assert d.message == 'there is no file "regla.rules" in this module\'s folder' and "reglas.rules" in d.help


def test_a_module_is_not_an_edition(root, capsys):
    """It cannot be run, extended or named as an edition."""
    enc = write(root / "comun" / "prueba.enc", ENCOUNTER.format(edition="comun", fue=4, die=3, doble=8))
    code, _, err = run(capsys, enc)
    assert code == 2 and "error[E0318]" in err and 'include module comun' in err
    assert only(errors("comun", root), "E0318").span.file == "<command line>"
    write(root / "tres" / "edicion.rules", "edition tres:\n  extends comun\n")
    d = only(errors("tres", root), "E0318")
    assert d.message.startswith('"comun" is a module, not an edition')


def test_two_modules_of_one_name_in_one_folder(root):
    write(root / "otra" / "modulo.rules", 'module comun:\n  title "Otra"\n')
    d = only(errors("uno", root), "E0319")
    assert d.message == 'module "comun" is declared twice in one rules folder' and "otra" in d.help


# ---------------------------------------------------------------- the command line

def test_editions_lists_modules_apart(root, capsys):
    assert main(["editions", "--rules", str(root)]) == 0
    out = capsys.readouterr().out
    editions, modules = out.split("\nmodules")
    assert "uno" in editions and "dos" in editions and "comun" not in editions
    assert re.search(r"^comun +Reglas comunes", modules, re.M) and re.search(r"^estados +Estados Alterados", modules, re.M)
    names = [line.split()[0] for line in editions.splitlines() if line.strip()]
    assert "yokai" in names and "estados" not in names      # (aquelarre_estados is an edition that includes it)


def test_rules_names_a_module_folder(root, tmp_path, capsys):
    """--rules with a module's own folder finds it, and the editions beside it."""
    assert main(["editions", "--rules", str(root / "comun")]) == 0
    editions, modules = capsys.readouterr().out.split("\nmodules")
    assert "comun" in modules and "uno" in editions


@pytest.mark.slow
def test_check_and_fmt_on_a_module_folder(root, capsys):
    for path in (root / "comun", root / "comun" / "reglas.rules", root / "comun" / "modulo.rules", root):
        assert main(["check", str(path)]) == 0, capsys.readouterr().err
    assert main(["fmt", "--check", str(root / "comun")]) == 0
    capsys.readouterr()
    write(root / "comun" / "modulo.rules", MODULE.replace('"reglas.rules"', '"regla.rules"'))
    assert main(["check", str(root / "comun")]) == 2
    assert "error[E0304]" in capsys.readouterr().err


def test_fmt_lays_out_a_module_head(tmp_path, capsys):
    messy = write(tmp_path / "m" / "modulo.rules", 'module m:\n    title "M"   \n\n\n\tinclude "a.rules"\n')
    assert main(["fmt", str(messy.parent)]) == 0
    assert messy.read_text(encoding="utf-8") == 'module m:\n  title "M"\n\n  include "a.rules"\n'


def test_the_bundled_estados_module_is_found_by_name():
    rs = load_edition("yokai")
    assert list(rs.modules) == ["estados"] and rs.modules["estados"].by == 'edition "yokai"'
    assert "Heridas" in rs.space("value") and rs.origin[("value", "Heridas")] == "yokai"
    assert not (bundled_root() / "yokai" / "estados.rules").exists()


# ---------------------------------------------------------------- the editor

def test_the_editor_checks_a_module_file_with_an_edition_that_includes_it(root):
    from grimorio.interpreter.tools.analysis import analyse, lookup, symbols
    reglas = root / "comun" / "reglas.rules"
    a = analyse(reglas, REGLAS.replace("pj.FUE", "pj.FEU"))
    found = [d for ds in a.diagnostics.values() for d in ds]
    assert (found[0].code, found[0].span.line) == ("E0203", 4)         # no field "FEU" in the edition
    assert 'did you mean "FUE"?' in found[0].help
    # Go to definition from the module reaches the including edition's check; its own head is no symbol.
    a = analyse(root / "comun" / "modulo.rules", MODULE)
    syms = symbols(a.ruleset, a.decls)
    assert [Path(s.span.file).name for s in lookup("tirada", syms)][:1] in (["hoja.rules"], ["edicion.rules"])
    assert not lookup("comun", syms)


@pytest.mark.slow
def test_the_editor_checks_the_bundled_module_with_an_edition_that_includes_it():
    from grimorio.interpreter.tools.analysis import analyse
    path = bundled_root() / "estados" / "tiempo.rules"
    a = analyse(path, path.read_text(encoding="utf-8"))
    # yokai and aquelarre_estados both include it; the editor takes one of them.
    assert a.ruleset is not None and a.ruleset.edition.name in ("yokai", "aquelarre_estados")
    assert "estados" in a.ruleset.modules
    assert not [d for ds in a.diagnostics.values() for d in ds if d.severity == "error"]


def test_every_file_the_builder_runs_is_in_the_build_cache_key():
    """A change to any of them must not reuse files built by the old code (patches.py once was missing)."""
    import ast
    from grimorio.dsl.editions import cache
    dsl_root = Path(cache.__file__).resolve().parent.parent
    seen, todo = set(), ["syntax/builder.py"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        folder = (dsl_root / name).parent
        for node in ast.parse((dsl_root / name).read_text(encoding="utf-8")).body:   # module level: what runs
            if not isinstance(node, ast.ImportFrom) or not node.level:
                continue
            base = folder
            for _ in range(node.level - 1):
                base = base.parent
            base = base.joinpath(*(node.module or "").split(".")) if node.module else base
            for alias in node.names:
                for candidate in (base / (alias.name + ".py"), base.with_suffix(".py")):
                    if candidate.is_file() and dsl_root in candidate.parents:
                        todo.append(candidate.relative_to(dsl_root).as_posix())
                        break
    missing = sorted(seen - set(cache.LANGUAGE_FILES))
    assert not missing, f"add {missing} to LANGUAGE_FILES in dsl/editions/cache.py: the builder runs them"


# ---------------------------------------------------------------- names that clash with a module's

def test_a_name_of_the_edition_that_clashes_with_the_modules_is_reported_at_the_include(root):
    write(root / "uno" / "hoja.rules", HOJA_UNO + "\nrule doble(pj):\n  return 0\n")
    d = only(errors("uno", root), "E0202")
    assert d.message == 'module "comun": "doble" is declared twice'
    assert (Path(d.span.file).name, d.span.line) == ("edicion.rules", 3)
    assert "modulo.rules:10" in d.help and "rename the edition's one" in d.help


def test_a_module_that_replaces_a_declaration_of_the_base_warns_at_the_include(root, capsys):
    write(root / "uno" / "hoja.rules", HOJA_UNO + "\nrule doble(pj):\n  return 0\n")
    write(root / "uno" / "edicion.rules", 'edition uno:\n  include "hoja.rules"\n')
    write(root / "tres" / "edicion.rules", "edition tres:\n  extends uno\n  include module comun\n")
    rs = load_edition("tres", [root, bundled_root()])
    [w] = [w for w in rs.warnings if w.code == "W0701"]
    assert w.message == 'module "comun": this replaces rule "doble" of edition uno'
    assert (Path(w.span.file).parts[-2:], w.span.line) == (("tres", "edicion.rules"), 3)
    assert "the rules below use it" in w.help
    # A rule is only ever called: a table of the base may share its name (docs/language.md, "Names").
    write(root / "uno" / "hoja.rules", HOJA_UNO + "\ntable doble:\n  | a |\n  |---|\n  | 1 |\n")
    rs = load_edition("tres", [root, bundled_root()])
    assert isinstance(rs.space("value")["doble"], n.Table) and isinstance(rs.space("rule")["doble"], n.Rule)


def test_the_including_edition_replaces_a_declaration_of_the_module(root, capsys):
    # An edition adapts what a module it includes says (a message, a rule) with `replace`, in its
    # own layer; the change names the module. Without `replace` it is still E0202, whose help says so.
    write(root / "uno" / "hoja.rules", HOJA_UNO + '\nreplace message prueba(pj, t) "  {pj}: {t.resultado}"\n'
                                               "replace rule doble(pj):\n  return pj.FUE * 3\n")
    enc = write(root / "uno" / "prueba.enc", ENCOUNTER.format(edition="uno", fue=4, die=3, doble=12))
    assert run(capsys, enc)[:2] == (0, "  Ana: éxito\n")
    rs = load_edition("uno", [root, bundled_root()])
    assert [c.what for c in rs.changes] == ['replaces message "prueba" of module comun',
                                            'replaces rule "doble" of module comun']
    assert [Path(c.below.file).name for c in rs.changes] == ["reglas.rules", "modulo.rules"]
    write(root / "uno" / "hoja.rules", HOJA_UNO + "\nrule doble(pj):\n  return 0\n")
    d = only(errors("uno", root), "E0202")
    assert 'write "replace" before the edition\'s declaration to adapt the module\'s one' in d.help


def test_a_module_cannot_replace_a_declaration_of_its_own_layer(root):
    # `replace` within the module's files stays a name declared twice (the module's mistake).
    write(root / "comun" / "reglas.rules", REGLAS + "\nreplace rule doble(pj):\n  return 0\n")
    d = only(errors("uno", root), "E0202")
    assert d.message == '"doble" is declared twice' and Path(d.span.file).name == "reglas.rules"


def test_a_name_declared_twice_inside_the_module_is_shown_in_the_module(root):
    write(root / "comun" / "reglas.rules", REGLAS + "\nrule doble(pj):\n  return 0\n")
    d = only(errors("uno", root), "E0202")
    assert d.message == '"doble" is declared twice' and Path(d.span.file).name == "reglas.rules"


def test_check_of_a_module_checks_it_with_the_editions_that_include_it(root, capsys):
    write(root / "comun" / "reglas.rules", REGLAS.replace("pj.FUE", "pj.FEU"))
    for path in (root / "comun", root / "comun" / "reglas.rules"):
        assert main(["check", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count('error[E0203]: nothing in these rules has a field "FEU"') == 1   # uno and dos: once


# ---------------------------------------------------------------- expects call (what the round must call)

RONDA = """\
round ronda:
  step turnos:
    for c in combatants():
      probar(c)
"""


def test_a_module_names_the_rules_the_round_must_call(root):
    # "uno" has a round that calls probar (the module's rule): the module's needs are met.
    write(root / "comun" / "modulo.rules", MODULE.replace("  expects outcome éxito\n",
                                                          "  expects outcome éxito\n  expects call probar\n"))
    write(root / "uno" / "ronda.rules", RONDA)
    write(root / "uno" / "edicion.rules", UNO.replace('include "hoja.rules", module comun',
                                                      'include "hoja.rules", module comun, "ronda.rules"'))
    load_edition("uno", [root, bundled_root()])
    # A round that never reaches it: E0270 at the include line, naming where the module asks.
    write(root / "uno" / "ronda.rules", RONDA.replace("probar(c)", "pass"))
    d = only(errors("uno", root), "E0270")
    assert d.message == 'module "comun" needs the round to call rule "probar", and the round of edition "uno" never does'
    assert (Path(d.span.file).name, d.span.line) == ("edicion.rules", 3)
    assert "modulo.rules:9" in d.help
    # Reached through a rule of the edition's own: met.
    write(root / "uno" / "ronda.rules", RONDA.replace("probar(c)", "turno(c)") + "rule turno(c):\n  probar(c)\n")
    load_edition("uno", [root, bundled_root()])


def test_an_edition_without_a_round_has_no_turns_to_drive(root):
    write(root / "comun" / "modulo.rules", MODULE.replace("  expects outcome éxito\n",
                                                          "  expects outcome éxito\n  expects call probar\n"))
    load_edition("uno", [root, bundled_root()])


def test_expecting_a_call_to_a_rule_the_module_lacks(root):
    write(root / "comun" / "modulo.rules", MODULE.replace("  expects outcome éxito\n",
                                                          "  expects outcome éxito\n  expects call proba\n"))
    d = only(errors("uno", root), "E0316")
    assert d.message == 'module "comun" expects a call to rule "proba", and there is no such rule'
    assert 'did you mean "probar"?' in d.help


def test_aquelarre_estados_without_its_turns_is_told_what_the_module_needs(tmp_path):
    # The bundled edition without turnos.rules (the patches that make the Asalto call the module).
    src = bundled_root() / "aquelarre_estados"
    for f in src.glob("*.rules"):
        write(tmp_path / "ae2" / f.name, f.read_text(encoding="utf-8"))
    entry = tmp_path / "ae2" / "edicion.rules"
    write(entry, entry.read_text(encoding="utf-8").replace("edition aquelarre_estados:", "edition ae2:")
          .replace('"turnos.rules", ', ""))
    diags = errors("ae2", tmp_path)
    assert [d.code for d in diags] == ["E0270", "E0270"]
    assert ['"pierde_el_turno"' in diags[0].message, '"fin_de_ronda"' in diags[1].message] == [True, True]
