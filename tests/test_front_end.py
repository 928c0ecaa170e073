"""The front end's one entry (dsl/check/front.py): an edition checked without compiling, an
encounter checked against the checked ruleset, which edition a file belongs to, and what
`grimorio check` keeps between runs (dsl/check/remembered.py)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from grimorio.dsl.check import front, remembered
from grimorio.dsl.check.facts import facts_of
from grimorio.dsl.diagnostics import Sources
from grimorio.dsl.editions.files import bundled_root, edition_heads
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.tools.cli import main
from tests.test_checker import write_edition


@pytest.mark.parametrize("edition", sorted(edition_heads([bundled_root()])))
def test_the_facts_of_a_ruleset_are_those_a_run_reads(edition):
    """The encounter check reads its facts from the checked ruleset, and a run reads the same ones:
    what check accepts, a run accepts (they were read from the compiled program before)."""
    program = program_for(edition)
    facts = facts_of(program.ruleset)
    assert facts == program.facts
    assert facts.purposes == frozenset(program.purposes)        # what the compiler met as it compiled
    assert facts.actions == tuple(program.actions) and facts.reactions == tuple(program.reaction_by_name)
    assert {k: (type(v), v) for k, v in facts.options.items()} == \
        {k: (type(v), v) for k, v in program.options.items()}
    assert {name: facts.table_keys[name] for name in program.tables} == \
        {name: tuple(t.index) for name, t in program.tables.items()}


def test_a_file_belongs_to_the_edition_that_includes_it(tmp_path):
    folder = write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\n")
    (folder / "suelto.rules").write_text("rule r():\n  return 1\n", encoding="utf-8")
    text = lambda p: p.read_text(encoding="utf-8")          # noqa: E731
    assert front.owner_of(folder / "reglas.rules", text) == ("edition", folder / "edicion.rules")
    assert front.owner_of(folder / "edicion.rules", text) == ("edition", folder / "edicion.rules")
    assert front.owner_of(folder / "suelto.rules", text) is None


def test_an_unsaved_text_decides_which_edition_a_file_belongs_to(tmp_path):
    """The language server asks with its unsaved buffers: an include added but not saved counts."""
    folder = write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\n")
    (folder / "otra.rules").write_text("rule r():\n  return 1\n", encoding="utf-8")
    entry = folder / "edicion.rules"
    unsaved = {entry: entry.read_text(encoding="utf-8").replace('"reglas.rules"', '"reglas.rules", "otra.rules"')}
    read = lambda p: unsaved.get(p) or p.read_text(encoding="utf-8")     # noqa: E731
    assert front.owner_of(folder / "otra.rules", read) == ("edition", entry)


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """A cache folder of the test's own, and the in-process memo of checked editions emptied."""
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(front, "_checked", {})
    return tmp_path / "cache"


def _check(capsys, path) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["check", str(path)])
    return code, capsys.readouterr().err


def test_check_keeps_what_it_found_until_a_file_it_read_changes(tmp_path, kept, capsys, monkeypatch):
    folder = write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\noption sin_uso = 3\n")
    first = _check(capsys, folder)
    assert first[0] == 0 and "W0705" in first[1] and "option sin_uso = 3" in first[1]   # the line, shown
    assert len(list(kept.glob("checked-*"))) == 1
    checks = []
    monkeypatch.setattr(front, "check_edition", lambda rs: checks.append(rs) or [])
    assert _check(capsys, folder) == first and checks == []       # kept: nothing checked again
    (folder / "reglas.rules").write_text("sheet ficha:\n  FUE: int 1..20\n  PV: int = nada\n", encoding="utf-8")
    monkeypatch.undo()
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(kept))
    code, err = _check(capsys, folder)
    assert code == 2 and "nada" in err and "W0705" not in err     # the change is seen: checked again


def test_a_damaged_kept_check_is_checked_again(tmp_path, kept, capsys):
    folder = write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\noption sin_uso = 3\n")
    first = _check(capsys, folder)
    (entry,) = kept.glob("checked-*")
    entry.write_bytes(entry.read_bytes()[:-5] + b"xxxxx")
    assert _check(capsys, folder) == first


def test_a_kept_check_holds_plain_data(tmp_path, kept, capsys):
    """What check keeps is JSON behind its digest: reading it runs no code (no pickle)."""
    import json
    folder = write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\noption sin_uso = 3\n")
    _check(capsys, folder)
    from grimorio.dsl import store
    (entry,) = kept.glob("checked-*")
    data = json.loads(store.kept(entry.name)[32:])            # behind the cache's own seal, and our digest
    assert [d[0] for d in data["diagnostics"]] == ["W0705"] and data["notes"]


def test_an_encounter_is_checked_against_its_edition_without_compiling(tmp_path, kept, capsys, monkeypatch):
    import grimorio.interpreter.compile.compiler as compiler
    folder = write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\n")
    (folder / "x.enc").write_text("encounter \"x\"\nedition prueba\ncombatant Ana:\n  FUE 30\n", encoding="utf-8")
    monkeypatch.setattr(compiler, "compile_program", None)          # compiling now would fail loudly
    code, err = _check(capsys, folder / "x.enc")
    assert code == 2 and "error[E0204]" in err and "FUE goes from 1 to 20" in err


@pytest.mark.slow
def test_grimorio_check_imports_no_compiler_and_no_runtime_module(tmp_path):
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "grimorio.interpreter.tools.cli", "check",
                          str(bundled_root() / "aquelarre")], capture_output=True, text=True,
                         env={"GRIMORIO_CACHE_DIR": str(tmp_path), "PATH": ""})
    assert out.returncode == 0, out.stderr[-2000:]
    imported = [line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")]
    assert any(m.endswith("dsl.check.checker") for m in imported)          # it did check
    assert [m for m in imported if ".interpreter.compile" in m or ".interpreter.run" in m] == []


def test_remembered_answers_only_for_the_same_parts(tmp_path, monkeypatch):
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(tmp_path))
    calls = []
    check = lambda: calls.append(1) or []        # noqa: E731
    assert remembered.remembered(("a",), Sources(), check) == [] and remembered.remembered(("a",), Sources(), check) == []
    remembered.remembered(("b",), Sources(), check)
    assert len(calls) == 2


def test_an_encounter_checked_again_shows_its_own_text_not_the_one_checked_before(tmp_path, kept, capsys):
    # Regression (tests/test_bad_input.py, truncated at every position): the edition checked once per
    # process kept the Sources of the first check, the encounter's text in it, and a later check
    # of the changed encounter showed the old line under the new diagnostic.
    folder = write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\noption duro = false\n")
    enc = folder / "x.enc"
    for value in ("f", "fa"):
        enc.write_text(f'encounter "x"\nedition prueba\nset duro = {value}\n', encoding="utf-8")
        code, err = _check(capsys, enc)
        assert code == 2 and f"3 | set duro = {value}\n" in err, err


def test_a_change_to_the_checking_code_is_a_new_key(tmp_path, monkeypatch):
    """What check keeps depends on the code that checked, the caller's own module too."""
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(tmp_path))
    code = tmp_path / "checking.py"
    code.write_text("one", encoding="utf-8")
    calls = []
    check = lambda: calls.append(1) or []        # noqa: E731
    remembered.remembered(("a",), Sources(), check, code=(code,))
    code.write_text("other", encoding="utf-8")
    remembered.remembered(("a",), Sources(), check, code=(code,))
    assert len(calls) == 2
