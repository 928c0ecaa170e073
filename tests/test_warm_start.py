"""A warm run (its encounter's parse and its program kept on disk) imports what running needs and no more:
not the parser (Lark, the builder), not the checker nor the compiler, not tomllib; and it reads exactly as
the run that kept them. Each run below imports grimorio afresh, as a new process would, with those modules
refused; a damaged kept program is still built again (and only then is the compiler imported)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from contextlib import contextmanager
from pathlib import Path

import pytest

from grimorio.dsl import store
from grimorio.dsl.editions import cache
from grimorio.interpreter.compile import programs
from grimorio.interpreter.compile import stored
from grimorio.interpreter.tools.cli import main
from tests.test_modules import HOJA_UNO, MODULE, REGLAS, UNO

ROOT = Path(__file__).resolve().parent.parent
DUELO = str(ROOT / "rulesets" / "aquelarre" / "duelo.enc")

# What a warm run never needs: the parser, the checker of an edition, the compile stage, the version's tomllib,
# shutil (argparse's help formatter would import it: arguments.py), copy (names.py, for records of a script's).
REFUSED = ("lark", "interegular", "tomllib", "shutil", "copy", "grimorio.dsl.syntax.builder", "grimorio.dsl.syntax.parser",
           "grimorio.dsl.check.checker", "grimorio.dsl.check.resolver", "grimorio.interpreter.compile.compiler",
           "grimorio.interpreter.compile.optimizer", "grimorio.interpreter.compile.wholes")


def _under(name: str, names) -> bool:
    return any(name == m or name.startswith(m + ".") for m in names)


@contextmanager
def fresh_grimorio(refused=()):
    """grimorio's command line imported afresh, as a new process imports it (none of its modules, nor any
    of `refused`, taken from this process); importing one of `refused` raises ImportError and is noted in
    `asked`. sys.modules is as it was afterwards."""
    saved = dict(sys.modules)
    asked: list[str] = []

    class Refuse:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if _under(name, refused):
                asked.append(name)
                raise ImportError(f"{name} is not imported on a warm run")
            return None

    for name in list(sys.modules):
        if _under(name, ("grimorio",)) or _under(name, refused):
            del sys.modules[name]
    sys.meta_path.insert(0, Refuse)
    try:
        from grimorio.interpreter.tools import cli as fresh
        assert fresh.main is not main
        yield fresh, asked
    finally:
        sys.meta_path.remove(Refuse)
        for name in list(sys.modules):
            if name not in saved:
                del sys.modules[name]
        sys.modules.update(saved)


def _run(capsys, run_main, *argv):
    capsys.readouterr()
    code = run_main(["run", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _warm(capsys, monkeypatch, *argv):
    """A run with what this process keeps in memory forgotten (its programs, its built files: an earlier
    test may have built them under another cache folder): read from the cache folder, or made and kept
    there, as a fresh process finds them next."""
    if store.place("x") is None:
        pytest.skip("no cache folder (GRIMORIO_CACHE_DIR is empty)")
    monkeypatch.setattr(programs, "_programs", {})
    monkeypatch.setattr(store, "_memory", {})
    monkeypatch.setattr(cache, "_memory", store._memory)
    return _run(capsys, main, *argv)


@pytest.mark.parametrize("argv", [[DUELO], [DUELO, "--seed", "3", "--explain"]])
def test_a_warm_run_imports_neither_the_parser_nor_the_compiler(capsys, monkeypatch, argv):
    expected = _warm(capsys, monkeypatch, *argv)
    assert expected[0] == 0 and "Rodrigo" in expected[1]
    with fresh_grimorio(REFUSED) as (fresh, asked):
        got = _run(capsys, fresh.main, *argv)
        loaded = [m for m in sys.modules if _under(m, REFUSED)]
    assert asked == [] and loaded == []
    assert got == expected


@pytest.mark.parametrize("columns", [None, "100", "0", "-5", "wide"])
def test_the_help_is_as_wide_as_shutil_would_make_it(monkeypatch, columns):
    import shutil
    from grimorio.interpreter.tools.arguments import terminal_columns
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns


def test_the_refusal_is_seen(capsys, monkeypatch):
    """The check above sees an import it refuses: the JSON header's version reads pyproject.toml (tomllib)
    from a checkout."""
    _warm(capsys, monkeypatch, DUELO)
    if not (ROOT / "pyproject.toml").is_file() or (ROOT / "grimorio" / "VERSION").is_file():
        pytest.skip("not a checkout: the version is read without tomllib")
    with fresh_grimorio(["tomllib"]) as (fresh, asked):
        _run(capsys, fresh.main, DUELO, "--format", "jsonl")
    assert asked == ["tomllib"]


EDITION = {
    "comun/comun.rules": MODULE,            # the edition and module of tests/test_modules.py, and a round
    "comun/reglas.rules": REGLAS,
    "uno/edicion.rules": UNO,
    "uno/hoja.rules": HOJA_UNO + "round ronda:\n  step turnos:\n    for c in combatants():\n      probar(c)\n"
                                 "  until round_number() >= 2\n",
    "uno/sin_codigo.enc": """\
        encounter "sin código"
        edition uno
        seed 4
        combatant Ana:
          FUE 4
        combatant Bea:
          FUE 2
        """,
    "uno/con_codigo.enc": """\
        encounter "con código"
        edition uno
        seed 4
        combatant Ana:
          FUE 4
        do:
          probar(Ana)
        expect doble(Ana) == 8
        """,
}


@pytest.fixture
def edition(tmp_path, monkeypatch):
    """A small edition in a folder of its own, the cache in another (its program kept, small as it is)."""
    folder = tmp_path / "reglas"
    for name, text in EDITION.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.chdir(folder)
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(programs, "_programs", {})
    monkeypatch.setattr(stored, "KEEP_FROM_LINES", 0)
    return folder


def _kept(folder: Path) -> Path:
    (program,) = (folder.parent / "cache").glob("program-*.pickle")
    return program


@pytest.mark.slow           # (over half a second: the compile stage imported afresh)
def test_code_of_its_own_imports_the_compiler_then(edition, capsys):
    """The compiler comes when an encounter's own code needs it, and compiles it as it always did."""
    expected = _run(capsys, main, "uno/con_codigo.enc")
    assert expected[0] == 0 and "Ana tira" in expected[1]
    with fresh_grimorio() as (fresh, _asked):
        assert _run(capsys, fresh.main, "uno/con_codigo.enc") == expected
        assert "grimorio.interpreter.compile.compiler" in sys.modules


@pytest.mark.slow           # (over half a second: the edition compiled twice)
def test_a_damaged_kept_program_is_built_again_from_a_fresh_start(edition, capsys):
    expected = _run(capsys, main, "uno/sin_codigo.enc")
    assert expected[0] == 0 and "Bea tira" in expected[1]
    program = _kept(edition)
    whole = program.read_bytes()
    with fresh_grimorio(REFUSED) as (fresh, asked):              # warm: nothing refused is asked for
        assert _run(capsys, fresh.main, "uno/sin_codigo.enc") == expected
    assert asked == []
    for damaged in (whole[: len(whole) // 2],):      # (every kind of damage: tests/test_program_cache.py)
        program.write_bytes(damaged)
        with fresh_grimorio() as (fresh, _asked):                # built again: the compiler is imported now
            from grimorio.interpreter.compile import stored as fresh_stored
            fresh_stored.KEEP_FROM_LINES = 0
            assert _run(capsys, fresh.main, "uno/sin_codigo.enc") == expected
            assert "grimorio.interpreter.compile.compiler" in sys.modules
        assert program.read_bytes() != damaged                  # and kept again


@pytest.mark.slow
def test_a_process_runs_cold_then_warm_and_reads_the_same(tmp_path):
    """The command as a process runs it (main() of its own command line): on an empty cache it parses
    (Lark imported) and builds; the next one imports none of REFUSED; both print the same transcript, and
    each freezes what it prepared (the process ends with the run)."""
    probe = ("import gc, sys\n"
             f"sys.argv = ['grimorio', 'run', {DUELO!r}]\n"
             "from grimorio.interpreter.tools.cli import main\n"
             "code = main()\n"
             f"refused = {REFUSED!r}\n"
             "heavy = sorted({m.split('.')[0] if m.startswith(('lark', 'interegular')) else m for m in sys.modules\n"
             "                if any(m == r or m.startswith(r + '.') for r in refused)})\n"
             "print(code, gc.get_freeze_count() > 0, *heavy, file=sys.stderr)\n")
    env = dict(os.environ, GRIMORIO_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))

    def process():
        out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300,
                             env=env)
        return out.stdout, out.stderr.split()
    cold_out, cold = process()
    warm_out, warm = process()
    assert cold[:2] == ["0", "True"] and "lark" in cold and "grimorio.interpreter.compile.compiler" in cold
    assert warm == ["0", "True"]
    assert warm_out == cold_out and "Rodrigo" in warm_out
