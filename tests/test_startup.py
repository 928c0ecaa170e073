"""Cold start: one parser, kept on disk; built files kept by content; commands that import little."""
from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lark import Lark

from grimorio.dsl import store
from grimorio.dsl.editions import cache
from grimorio.dsl.syntax import parser
from grimorio.dsl.syntax.builder import build_rules as build_rules_uncached

ROOT = Path(__file__).resolve().parent.parent
RULES = (ROOT / "rulesets" / "aquelarre" / "tablas.rules").read_text(encoding="utf-8")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(folder))
    monkeypatch.setattr(store, "_memory", {})
    monkeypatch.setattr(cache, "_memory", store._memory)
    parser.lark_parser.cache_clear()
    yield folder
    parser.lark_parser.cache_clear()


@pytest.mark.slow
def test_the_parser_is_kept_on_disk_and_loaded_from_there(cache_dir):
    first = parser.lark_parser()
    files = list(cache_dir.glob("grammar-*.tables"))
    assert len(files) == 1
    parser.lark_parser.cache_clear()
    second = parser.lark_parser()
    assert second is not first
    tree = second.parse("rule f(x):\n  return x + 1\n", start="rules_file")
    assert tree.children[0].data == "rule"


@pytest.mark.slow
def test_a_damaged_parser_cache_is_rebuilt(cache_dir):
    parser.lark_parser()
    (cached,) = cache_dir.glob("grammar-*.tables")
    cached.write_bytes(b"not a parser\n\x80\x04garbage")
    parser.lark_parser.cache_clear()
    rebuilt = parser.lark_parser()
    assert rebuilt.parse("var x = 1\n", start="rules_file").children
    assert b"garbage" not in cached.read_bytes()


@pytest.mark.slow
def test_a_folder_that_cannot_be_made_only_costs_time(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(blocker / "cache"))
    monkeypatch.setattr(store, "_memory", {})
    monkeypatch.setattr(cache, "_memory", store._memory)
    parser.lark_parser.cache_clear()
    try:
        assert store.place("anything") is None
        assert parser.lark_parser().parse("var x = 1\n", start="rules_file").children
        decls, diags = cache.build_rules(RULES, "t.rules")
        assert decls and not diags
    finally:
        parser.lark_parser.cache_clear()


def _lark_instances() -> set[int]:
    gc.collect()
    return {id(o) for o in gc.get_objects() if isinstance(o, Lark)}


@pytest.mark.slow
def test_files_and_cells_share_one_parser(cache_dir):
    before = _lark_instances()
    cache.build_rules(RULES, "t.rules")            # tables: their cells are parsed too
    assert len(_lark_instances() - before) == 1


@pytest.mark.slow
def test_a_built_file_is_kept_by_its_content(cache_dir):
    fresh = build_rules_uncached(RULES, "t.rules")
    assert cache.build_rules(RULES, "t.rules") == fresh
    kept = list(cache_dir.glob("built-*.pickle"))
    assert len(kept) == 1
    store._memory.clear()
    assert cache.build_rules(RULES, "t.rules") == fresh          # from disk
    # Another text, or the same text under another name, is another entry.
    cache.build_rules(RULES + "\nvar y = 2\n", "t.rules")
    cache.build_rules(RULES, "u.rules")
    assert len(list(cache_dir.glob("built-*.pickle"))) == 3


@pytest.mark.slow
def test_a_damaged_built_entry_is_rebuilt(cache_dir):
    cache.build_rules(RULES, "t.rules")
    (kept,) = cache_dir.glob("built-*.pickle")
    kept.write_bytes(b"\x80\x05garbage")
    store._memory.clear()
    assert cache.build_rules(RULES, "t.rules") == build_rules_uncached(RULES, "t.rules")


@pytest.mark.slow
def test_each_load_gets_its_own_objects(cache_dir):
    a, _ = cache.build_rules(RULES, "t.rules")
    b, _ = cache.build_rules(RULES, "t.rules")
    assert a == b and a[0] is not b[0]


def _python(code: str, cache_folder: Path) -> str:
    env = dict(os.environ, GRIMORIO_CACHE_DIR=str(cache_folder), PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.slow
def test_editions_and_help_import_neither_lark_nor_the_runtime(tmp_path):
    probe = ("import sys, io, contextlib\n"
             "from grimorio.interpreter.tools.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
             "    main(['editions'])\n"
             "heavy = [m for m in sys.modules if m == 'lark' or m.endswith(('.compiler', '.builder', '.engine'))]\n"
             "print(heavy)\n"
             "print(out.getvalue())\n")
    out = _python(probe, tmp_path)
    assert out.startswith("[]\n"), out
    assert "aquelarre         Aquelarre: Combate" in out and "yokai" in out
    assert "aquelarre_estados Aquelarre con Estados Alterados" in out          # one column for every name


@pytest.mark.slow
def test_a_second_run_builds_nothing(tmp_path):
    probe = ("import sys, io, contextlib\n"
             "from grimorio.interpreter.tools.cli import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    code = main(['run', 'rulesets/aquelarre/duelo.enc'])\n"
             "print(code, 'lark' in sys.modules)\n")
    assert _python(probe, tmp_path).split() == ["0", "True"]       # the first run builds and keeps
    assert _python(probe, tmp_path).split() == ["0", "False"]      # the second loads: Lark is not even imported


def test_generated_python_is_compiled_once_and_kept(cache_dir):
    from grimorio.dsl import store
    source = "def f():\n    return 41 + 1\n"
    first = store.python_code(source, "<grimorio test>")
    kept = list(cache_dir.glob("code-*.marshal"))
    assert len(kept) == 1
    store._memory.clear()
    second = store.python_code(source, "<grimorio test>")
    ns: dict = {}
    exec(second, ns)                                   # noqa: S102 - the test's own text
    assert ns["f"]() == 42 and second.co_consts == first.co_consts
    kept[0].write_bytes(b"\x00damaged")                # a damaged entry is compiled again, never a failure
    store._memory.clear()
    ns = {}
    exec(store.python_code(source, "<grimorio test>"), ns)   # noqa: S102
    assert ns["f"]() == 42
