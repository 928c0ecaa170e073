"""Compiled programs kept between runs (interpreter/compile/stored.py): a warm run loads the checked and
compiled program instead of making it, and reads exactly like a run without any cache, whatever
happens to the files it was made from or to the cache folder."""
from __future__ import annotations

import os
import pickle
import shutil
import textwrap
from pathlib import Path

import pytest

from grimorio.dsl import store
from grimorio.dsl.records import replace
from grimorio.dsl.syntax import nodes as n
from grimorio.dsl.editions import cache
from grimorio.interpreter.compile import programs as encounter   # where the process keeps its programs
from grimorio.interpreter.compile import stored
from grimorio.interpreter.compile.program import Program
from grimorio.interpreter.run.loaded import Loaded
from grimorio.interpreter.tools.cli import main
from tests.test_modules import HOJA_UNO, MODULE, REGLAS, UNO

ROOT = Path(__file__).resolve().parent.parent

FILES = {
    "comun/comun.rules": MODULE,            # the edition and module of tests/test_modules.py
    "comun/reglas.rules": REGLAS,
    "uno/edicion.rules": UNO,
    "uno/hoja.rules": HOJA_UNO + "option sin_uso = 3\n",     # an option no rule reads: warning W0705
    "uno/prueba.enc": """\
        encounter "prueba"
        edition uno
        combatant Ana:
          FUE 4
        dice strict:
          Ana tirada 3
        do:
          probar(Ana)
        expect doble(Ana) == 8
        """,
}


@pytest.fixture
def rules(tmp_path, monkeypatch):
    """A small edition with an include, a module and a warning (W0705), in a folder of its own; the cache
    in another; each run a fresh process as far as kept programs go."""
    folder = tmp_path / "reglas"
    for name, text in FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.chdir(folder)
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(encounter, "_programs", {})
    monkeypatch.setattr(stored, "KEEP_FROM_LINES", 0)      # small as it is, its program is kept
    return folder


def run(capsys, *argv) -> tuple[int, str, str]:
    encounter._programs.clear()
    capsys.readouterr()
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def uncached(capsys, monkeypatch, *argv):
    with monkeypatch.context() as m:
        m.setenv("GRIMORIO_CACHE_DIR", "")
        return run(capsys, *argv)


def not_built(monkeypatch):
    """From here on, making a program is a test failure: it must be loaded."""
    from grimorio.interpreter.compile import compiler        # (stored.py imports it only to build)

    def refuse(rs, *args, **kwargs):
        raise AssertionError("the program was compiled again")
    monkeypatch.setattr(compiler, "compile_program", refuse)


def kept_programs(rules: Path) -> list[Path]:
    return sorted((rules.parent / "cache").glob("program-*.pickle"))


def test_a_warm_run_loads_the_program_and_reads_like_a_run_without_cache(rules, capsys, monkeypatch):
    expected = uncached(capsys, monkeypatch, "uno/prueba.enc")
    assert expected[0] == 0 and "Ana tira: éxito" in expected[1]
    assert "W0705" in expected[2] and "option sin_uso = 3" in expected[2]      # the warning, with its line
    assert run(capsys, "uno/prueba.enc") == expected                          # builds, and keeps
    assert len(kept_programs(rules)) == 1
    not_built(monkeypatch)
    assert run(capsys, "uno/prueba.enc") == expected                          # loads: warning and all


@pytest.mark.parametrize("changed, old, new, shows", [("uno/hoja.rules", "<= valor", "> valor", "Ana tira: fallo"),
                                                      ("comun/reglas.rules", "tira:", "lanza:", "Ana lanza: éxito")])
def test_an_edited_file_makes_a_new_program(rules, capsys, monkeypatch, changed, old, new, shows):
    run(capsys, "uno/prueba.enc")
    path = rules / changed
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    expected = uncached(capsys, monkeypatch, "uno/prueba.enc")
    assert shows in expected[1]
    assert run(capsys, "uno/prueba.enc") == expected


def test_a_new_edition_beside_it_is_seen(rules, capsys, monkeypatch):
    """What the loader found by listing folders is part of what a kept program depends on: a second
    entry file for the same edition is an error (E0107) at once, not after the cache is cleared."""
    run(capsys, "uno/prueba.enc")
    (rules / "uno" / "otra.rules").write_text('edition uno:\n  title "Otra"\n', encoding="utf-8")
    code, out, err = run(capsys, "uno/prueba.enc")
    assert code == 2 and "E0107" in err
    assert (code, out, err) == uncached(capsys, monkeypatch, "uno/prueba.enc")


def test_a_damaged_kept_program_reads_like_no_cache(rules, capsys, monkeypatch):
    expected = uncached(capsys, monkeypatch, "uno/prueba.enc")
    run(capsys, "uno/prueba.enc")
    (kept,) = kept_programs(rules)
    whole = kept.read_bytes()
    for damaged in (b"", b"\x80\x05garbage", whole[: len(whole) // 2], whole[:-40] + b"\x00" * 40,
                    whole.replace(b"prueba", b"pruebo")):
        kept.write_bytes(damaged)
        assert run(capsys, "uno/prueba.enc") == expected
        assert kept.read_bytes() == whole or kept.read_bytes() != damaged           # made again and kept


def test_a_read_only_cache_folder_only_costs_time(rules, capsys, monkeypatch):
    expected = uncached(capsys, monkeypatch, "uno/prueba.enc")
    folder = rules.parent / "cache"
    run(capsys, "uno/prueba.enc")                       # a kept program, then the folder becomes read-only
    os.chmod(folder, 0o555)

    def refuse(*args, **kwargs):                       # as root, the mode alone would not stop a write
        raise PermissionError(13, "Permission denied")
    try:
        with monkeypatch.context() as m:
            m.setattr(Path, "write_bytes", refuse)
            m.setattr(os, "replace", refuse)
            assert run(capsys, "uno/prueba.enc") == expected
            hoja = rules / "uno" / "hoja.rules"
            hoja.write_text(hoja.read_text(encoding="utf-8").replace("<= valor", "> valor"), encoding="utf-8")
            changed = run(capsys, "uno/prueba.enc")
            assert changed == uncached(capsys, monkeypatch, "uno/prueba.enc") and "Ana tira: fallo" in changed[1]
            assert changed == run(capsys, "uno/prueba.enc")
    finally:
        os.chmod(folder, 0o755)
    blocker = rules.parent / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(blocker / "cache"))      # a folder that cannot be made
    assert run(capsys, "uno/prueba.enc") == changed


def test_house_rules_and_options_are_part_of_what_is_kept(rules, capsys, monkeypatch):
    house = rules / "casa.rules"
    house.write_text('replace message prueba(pj, t) "{pj} prueba suerte: {t.resultado}"\n', encoding="utf-8")
    plain = run(capsys, "uno/prueba.enc")
    with_house = run(capsys, "uno/prueba.enc", "--house", "casa.rules")
    assert "prueba suerte" in with_house[1] and "prueba suerte" not in plain[1]
    not_built(monkeypatch)
    assert run(capsys, "uno/prueba.enc") == plain
    assert run(capsys, "uno/prueba.enc", "--house", "casa.rules") == with_house


def test_the_bundled_duel_reads_the_same_from_a_kept_program(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(encounter, "_programs", {})
    duel = "rulesets/aquelarre/duelo.enc"
    first = run(capsys, duel, "--seed", "5", "--format", "jsonl")
    not_built(monkeypatch)
    assert run(capsys, duel, "--seed", "5", "--format", "jsonl") == first


def test_a_program_that_would_not_come_back_the_same_is_not_kept(rules, capsys, monkeypatch):
    """stored.dumps refuses what the standard pickle cannot write (here: a function among the program's
    constants, which a Program never holds); the run goes on, and nothing is kept."""
    real, written = stored.dumps, []

    def with_a_function(program):
        written.append(real(replace(program, consts={**program.consts, "alias": lambda: 0})))
        return written[-1]
    monkeypatch.setattr(stored, "dumps", with_a_function)
    assert run(capsys, "uno/prueba.enc")[0] == 0
    assert written == [None] and kept_programs(rules) == []


def test_a_kept_program_is_plain_data_the_standard_pickle_reads(rules, capsys):
    """A kept program is a Program record (program.py) read back by pickle.loads, and loading it
    runs the generated module's code once (interpreter/run/loaded.py): no custom unpickler."""
    assert run(capsys, "uno/prueba.enc")[0] == 0
    data = store.kept(kept_programs(rules)[0].name)
    _key, _notes, written = pickle.loads(data[32:])
    version, program = pickle.loads(written)
    assert version == stored.FORMAT
    assert isinstance(program, Program) and program.code and program.line_spans
    assert not any(callable(v) and not isinstance(v, type) for v in program.consts.values())
    loaded = Loaded(program)
    assert set(loaded.actions) == {d.name for d in program.ruleset.all(n.Action)}


def test_cache_notes_what_a_load_read():
    with cache.recording() as notes:
        cache.consult("names", ROOT / "rulesets", "/")
        with pytest.raises(OSError):
            cache.consult("bytes", ROOT / "no-such-file.rules")
    assert cache.unchanged(notes)
    assert not cache.unchanged({**notes, ("names", str(ROOT / "rulesets"), "/"): "another digest"})
    assert not cache.unchanged({("what", "x", None): ""})
    gone = ROOT / "no-such-file.rules"
    assert ("bytes", str(gone), None) in notes


def test_a_moved_folder_is_another_program(rules, capsys, monkeypatch, tmp_path):
    """Diagnostics name files relative to the working folder: a program made elsewhere is not reused."""
    first = run(capsys, "uno/prueba.enc")
    moved = tmp_path / "movido"
    shutil.copytree(rules, moved)
    monkeypatch.chdir(moved)
    assert run(capsys, "uno/prueba.enc") == first
    assert len(kept_programs(rules)) == 2


@pytest.mark.slow      # starts a process: a fresh interpreter imports the AST classes
def test_records_keep_their_methods_compiled_and_need_no_dataclasses(tmp_path):
    """dsl/records.py keeps the code of the methods it writes: a process that takes it from the cache
    compiles nothing, every code it took is what compiling the text gives, and neither it nor a
    warm run imports the dataclasses module (nor inspect, which that brings)."""
    import subprocess
    import sys

    probe = ("import sys\n"
             "import grimorio.dsl.syntax.nodes as n, grimorio.dsl.records as r\n"
             "same = all(c == compile(t, '<record>', 'exec', dont_inherit=True)\n"
             "           for t, c in r._used.items())\n"
             "a, b = n.Attr(None, n.Name(None, 'x'), 'y'), n.Attr(n.Span('f', 1, 1), n.Name(None, 'x'), 'y')\n"
             "print(len(r._used), r._compiled, same, 'dataclasses' in sys.modules or 'inspect' in sys.modules,\n"
             "      a == b, hash(a) == hash(b), repr(a))\n")
    env = dict(os.environ, GRIMORIO_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    first, second = (subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                                    env=env, timeout=120) for _ in range(2))
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    used, compiled, same, imported, rest = first.stdout.split(" ", 4)
    assert int(used) > 50 and compiled == "True" and same == "True" and imported == "False"
    assert rest == "True True Attr(obj=Name(id='x'), name='y')\n"
    assert second.stdout == first.stdout.replace(" True ", " False ", 1)     # nothing compiled the second time
    run_probe = ("import sys, io, contextlib\nfrom grimorio.interpreter.tools.cli import main\n"
                 "with contextlib.redirect_stdout(io.StringIO()):\n"
                 "    main(['run', 'rulesets/aquelarre/duelo.enc'])\n"
                 "print('dataclasses' in sys.modules, 'inspect' in sys.modules, 'lark' in sys.modules)\n")
    runs = [subprocess.run([sys.executable, "-c", run_probe], cwd=ROOT, capture_output=True, text=True,
                           env=env, timeout=120) for _ in range(2)]
    assert runs[1].stdout == "False False False\n", runs[1].stdout + runs[1].stderr     # a warm run


def test_the_cache_keeps_the_newest_entries_of_a_kind_and_trims_a_quarter_over(tmp_path, monkeypatch):
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(store, "KEEP", 8)
    monkeypatch.setattr(store, "_writes", {})    # it looks at the folder on writes 1, 3, 5...: a quarter of 8
    for i in range(10):                       # within a quarter over 8: nothing is dropped yet
        store.keep(f"built-{i:02}.pickle", b"x")
        os.utime(tmp_path / f"built-{i:02}.pickle", (i, i))
    store.keep("code-00.marshal", b"y")      # another kind is counted apart
    assert len(list(tmp_path.glob("built-*.pickle"))) == 10
    store.keep("built-10.pickle", b"x")        # 11 > 8 + 2: the oldest go, down to 8
    assert sorted(p.name for p in tmp_path.glob("built-*.pickle")) == [f"built-{i:02}.pickle" for i in range(3, 11)]
    assert (tmp_path / "code-00.marshal").exists()


def test_a_program_of_a_few_lines_is_not_kept(rules, capsys, monkeypatch):
    monkeypatch.setattr(stored, "KEEP_FROM_LINES", 10_000)
    code, _out, _err = run(capsys, "uno/prueba.enc")
    assert code == 0 and kept_programs(rules) == []
