"""What the package ships built (setup.py), so a fresh install's first run builds nothing: the bundled
editions' compiled programs (interpreter/compile/shipped.py), the bundled encounters' built form
(dsl/editions/cache.py), the record classes' code (dsl/records.py) and the version (grimorio/_version.py).
Each is used only while it is what building it now would make; else it is built as before.
The wheel itself: tests/test_install.py (slow)."""
from __future__ import annotations

import pickle
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from grimorio import _version
from grimorio.dsl import records
from grimorio.dsl.editions import cache, files
from grimorio.dsl.syntax import builder
from grimorio.interpreter.compile import shipped, stored
from tests.test_program_cache import FILES, not_built, run, uncached
from tests.test_program_cache import encounter as programs

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def bundled(tmp_path, monkeypatch):
    """A small edition (with a module and an include) as if it were the bundled rulesets, its program
    shipped as setup.py ships the real ones; the cache empty; the working folder that edition's."""
    folder = tmp_path / "rulesets"
    for name, text in FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.setattr(files, "bundled_root", lambda: folder)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(programs, "_programs", {})
    monkeypatch.setattr(stored, "KEEP_FROM_LINES", 0)
    table = pickle.loads(shipped.build(ROOT, ["uno"]))
    monkeypatch.setattr(shipped, "_table", lambda: table)
    shipped._code_matches.cache_clear()
    yield folder
    shipped._code_matches.cache_clear()


def edit(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def test_the_shipped_program_is_used_and_runs_as_the_built_one(bundled, capsys, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(shipped, "_table", lambda: {})
        expected = uncached(capsys, monkeypatch, "uno/prueba.enc")
    assert expected[0] == 0 and "Ana tira: éxito" in expected[1] and "W0705" in expected[2]
    not_built(monkeypatch)
    assert run(capsys, "uno/prueba.enc") == expected
    assert not list((bundled.parent / "cache").glob("program-*"))          # nothing built, nothing kept


def test_a_copy_with_the_same_names_and_texts_uses_it(bundled, tmp_path, capsys, monkeypatch):
    """A checkout: the encounter run beside an identical copy of the rulesets (`grimorio run
    rulesets/aquelarre/duelo.enc` in the project folder), whose files are named as the bundled ones."""
    clone = tmp_path / "clone"
    shutil.copytree(bundled, clone / "rulesets")
    monkeypatch.chdir(clone)
    not_built(monkeypatch)
    code, out, _ = run(capsys, "rulesets/uno/prueba.enc")
    assert code == 0 and "Ana tira: éxito" in out


@pytest.mark.parametrize("changed, old, new, shows", [("uno/hoja.rules", "<= valor", "> valor", "Ana tira: fallo"),
                                                      ("comun/reglas.rules", "tira:", "lanza:", "Ana lanza: éxito")])
def test_an_edited_file_is_built_not_shipped(bundled, capsys, monkeypatch, changed, old, new, shows):
    edit(bundled / changed, old, new)
    code, out, _ = run(capsys, "uno/prueba.enc")
    assert code == 0 and shows in out
    assert len(list((bundled.parent / "cache").glob("program-*"))) == 1      # built (and kept)


def test_a_file_gone_is_the_loader_s_own_diagnostic(bundled, capsys, monkeypatch):
    (bundled / "comun" / "reglas.rules").unlink()
    assert shipped.program("uno", None, (), cache_sources()) is None
    code, _, err = run(capsys, "uno/prueba.enc")
    assert code != 0 and "reglas.rules" in err and "Traceback" not in err


def test_an_edition_found_elsewhere_first_is_built(bundled, tmp_path, capsys, monkeypatch):
    """The same edition name in a folder beside the encounter comes first: its own files, not the shipped."""
    other = tmp_path / "otra"
    shutil.copytree(bundled, other)
    edit(other / "comun" / "reglas.rules", "tira:", "lanza:")
    code, out, _ = run(capsys, str(other / "uno" / "prueba.enc"))
    assert code == 0 and "Ana lanza: éxito" in out


def test_another_code_or_house_rules_build_it(bundled, tmp_path, capsys, monkeypatch):
    table = shipped._table()
    monkeypatch.setattr(shipped, "_table", lambda: {**table, "code": "another grimorio"})
    assert shipped.program("uno", None, (), cache_sources()) is None
    monkeypatch.setattr(shipped, "_table", lambda: table)
    shipped._code_matches.cache_clear()
    assert shipped.program("uno", None, (), cache_sources()) is not None
    house = tmp_path / "casa.rules"
    house.write_text('replace message prueba(pj, t) "{pj} prueba: {t.resultado}"\n', encoding="utf-8")
    assert shipped.program("uno", None, (house,), cache_sources()) is None


def test_a_damaged_shipped_program_is_built(bundled, capsys, monkeypatch):
    table = shipped._table()
    entry = table["programs"]["uno"]
    monkeypatch.setitem(table["programs"], "uno", {**entry, "program": entry["program"][:100]})
    code, out, _ = run(capsys, "uno/prueba.enc")
    assert code == 0 and "Ana tira: éxito" in out


def cache_sources():
    from grimorio.dsl.diagnostics import Sources
    return Sources()


# ------------------------------------------------------------------ encounters
ENC = FILES["uno/prueba.enc"]


def test_a_shipped_encounter_is_read_under_the_name_it_is_run_by(monkeypatch):
    text = textwrap.dedent(ENC)
    data = cache.named_dumps(builder.build_encounter(text, cache.PLACEHOLDER), cache.PLACEHOLDER)
    assert data == cache.named_dumps(builder.build_encounter(text, "otra/parte.enc"), "otra/parte.enc")
    monkeypatch.setattr(cache, "shipped", lambda: {cache.built_key("encounter", text, cache.PLACEHOLDER): data})
    monkeypatch.setattr(cache, "_memory", {})
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", "")
    monkeypatch.setattr(builder, "build_encounter", lambda *a: pytest.fail("the encounter was built"))
    enc, diags = cache.build_encounter(text, "mi/duelo.enc")
    assert not diags and enc.edition == "uno" and enc.span.file == "mi/duelo.enc"
    assert cache.PLACEHOLDER not in repr(enc)


def test_a_damaged_shipped_encounter_is_built(monkeypatch):
    text = textwrap.dedent(ENC)
    monkeypatch.setattr(cache, "shipped", lambda: {cache.built_key("encounter", text, cache.PLACEHOLDER): b"\x80"})
    monkeypatch.setattr(cache, "_memory", {})
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", "")
    enc, diags = cache.build_encounter(text, "mi/duelo.enc")
    assert not diags and enc.span.file == "mi/duelo.enc"


# ------------------------------------------------------------------ records and version
def test_the_records_code_is_shipped_for_its_own_python_only(tmp_path, monkeypatch):
    data = records.shipped_bytes()
    (tmp_path / "records.shipped").write_bytes(data)
    monkeypatch.setattr(records, "SHIPPED", str(tmp_path / "records.shipped"))
    assert records._shipped() and set(records._shipped()) == set(records._used)
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    assert records._shipped() == {}


def test_the_version_is_read_from_the_shipped_file(tmp_path, monkeypatch):
    (tmp_path / "VERSION").write_text("9.8.7\n", encoding="utf-8")
    monkeypatch.setattr(_version, "SHIPPED", str(tmp_path / "VERSION"))
    assert _version.version() == "9.8.7"
    monkeypatch.setattr(_version, "SHIPPED", str(tmp_path / "none"))
    assert _version.version() not in ("9.8.7", "")


def test_a_checkout_reads_its_pyproject_before_the_metadata(monkeypatch):
    """From a checkout the version is pyproject.toml's, read without importing importlib.metadata (a third of
    a run's start), even where an installed distribution's metadata says another."""
    from importlib import metadata
    import tomllib
    monkeypatch.setattr(metadata, "version", lambda name: "0.0.1")
    with open(ROOT / "pyproject.toml", "rb") as f:
        assert _version.version() == tomllib.load(f)["project"]["version"]
