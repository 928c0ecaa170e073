"""The stages import only downward (issue 19, docs/architecture.md): the language's base modules,
then dsl/syntax, dsl/editions, dsl/check, then the runtime (interpreter/run), the compiler
(interpreter/compile) and the tools (interpreter/tools); no module imports one of a stage above its
own; no two modules import each other, even through others, whether at load or inside a function;
and `grimorio check` reaches no module of the compiler or the runtime.

Read from the source (every import statement, those inside functions too), not from what a
process happened to import."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("dsl", "interpreter")


@lru_cache(maxsize=1)
def modules() -> dict[str, Path]:
    """Dotted name (dsl.check.front) -> file."""
    out = {}
    for pkg in PACKAGES:
        for p in (ROOT / pkg).rglob("*.py"):
            parts = p.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


# An import statement at the start of a line: `import a.b` or `from .x import y, z` (in parentheses
# over several lines too); indented, it runs inside a function (deferred).
IMPORT = re.compile(r"^([ \t]*)(?:import ([\w., ]+)|from (\.*)([\w.]*) import (\([^)]*\)|[^\n#]+))", re.M)


def _targets(name: str, level: int, module: str, names: list[str]) -> list[str]:
    """The modules of ours an import statement of module `name` names (a package: none, its names are modules)."""
    mods = modules()
    base = name if mods[name].name == "__init__.py" else name.rpartition(".")[0]
    if level:                      # installed, the folders sit inside the package grimorio
        parts = ("grimorio." + base).split(".")
        target = ".".join(parts[:len(parts) - level + 1]) + ("." + module if module else "")
        target = target.removeprefix("grimorio").lstrip(".")
    else:
        target = module.removeprefix("grimorio.")
    found = [f"{target}.{a}" if f"{target}.{a}" in mods else target for a in names]
    out = []
    for t in found:
        while t and t not in mods:
            t = t.rpartition(".")[0]
        if t and t != name and mods[t].name != "__init__.py":
            out.append(t)
    return out


@lru_cache(maxsize=2)
def imports(deferred: bool) -> dict[str, set[str]]:
    """Module -> the modules it imports: at load only, or (`deferred`) inside functions too."""
    out = {}
    for name, path in modules().items():
        found = set()
        for m in IMPORT.finditer(path.read_text(encoding="utf-8")):
            indent, plain, dots, module, names = m.groups()
            if indent and not deferred:
                continue
            if plain is not None:
                found.update(t for a in plain.split(",") for t in _targets(name, 0, a.split(" as ")[0].strip(), [""]))
            else:
                listed = [a.split(" as ")[0].strip() for a in names.strip("() \n").replace("\n", " ").split(",")]
                found.update(_targets(name, len(dots), module, [a for a in listed if a]))
        out[name] = found
    return out


def reached(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(imports(True)[m])
    return seen


# The stages, lowest first: a module belongs to the longest that names its package ("dsl": the
# language's base modules, dsl/*.py).
STAGES = ("dsl", "dsl.syntax", "dsl.editions", "dsl.check", "interpreter.run", "interpreter.compile",
          "interpreter.tools")

def stage(module: str) -> int:
    return STAGES.index(max((s for s in STAGES if module == s or module.startswith(s + ".")), key=len))


def staged() -> list[str]:
    """Every module but the two top packages' own (which import nothing)."""
    return [m for m in modules() if m not in PACKAGES]


def test_every_module_belongs_to_a_stage():
    assert sorted(m for m in staged() if not any(m == s or m.startswith(s + ".") for s in STAGES)) == []
    assert sorted(m for m in staged() if stage(m) == 0 and m.count(".") > 1) == []     # dsl/x/y.py: a stage of its own


def test_no_stage_imports_one_above_it():
    upward = sorted(f"{m} -> {t}" for m in staged() for t in imports(True)[m] if stage(t) > stage(m))
    assert upward == []


@pytest.mark.parametrize("deferred", [False, True], ids=["at load", "inside functions too"])
def test_no_import_circles(deferred):
    graph = imports(deferred)
    index, low, stack, on, circles = {}, {}, [], set(), []

    def visit(v):                  # Tarjan's strongly connected components, iteratively deep enough here
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                circles.append(sorted(part))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    assert circles == []


def test_check_reaches_no_compiler_and_no_runtime_module():
    found = sorted(m for m in reached("interpreter.tools.checking")
                   if m.startswith(("interpreter.compile.", "interpreter.run.")))
    assert found == []


def test_the_test_sees_an_upward_import():
    """The graph is read right: the compiler imports the runtime (downward), the runtime's
    encounter the front end."""
    assert "interpreter.run.runtime_helpers" in imports(True)["interpreter.compile.compiler"]
    assert "dsl.check.front" in imports(True)["interpreter.run.encounter"]
    # An import inside a function counts: cli loads the simulate command only when it runs.
    assert "interpreter.tools.simulate_cli" in imports(True)["interpreter.tools.cli"]
    assert "interpreter.tools.simulate_cli" not in imports(False)["interpreter.tools.cli"]


def test_the_runtime_imports_nothing_of_the_compiler():
    """interpreter/run runs a loaded Program (run/loaded.py); the code of an encounter's own is
    compiled by the compile stage, which hands the runtime what it made (compiler.Snippets)."""
    found = sorted(f"{m} -> {t}" for m in staged() if m.startswith("interpreter.run.")
                   for t in imports(True)[m] if t.startswith("interpreter.compile."))
    assert found == []
    reaches = {m for start in ("interpreter.run.encounter", "interpreter.run.loaded") for m in reached(start)}
    assert sorted(m for m in reaches if m.startswith("interpreter.compile.")) == []


def test_an_import_of_the_compiler_in_the_runtime_would_be_seen(monkeypatch, tmp_path):
    """The test above reads a deferred import of the compiler in a runtime module (as expectations.py
    once reached it through the program): it would fail."""
    planted = tmp_path / "planted.py"
    planted.write_text("def f():\n    from ..compile.compiler import load\n", encoding="utf-8")
    mods = dict(modules())
    mods["interpreter.run.planted"] = planted
    monkeypatch.setattr(__import__(__name__, fromlist=["modules"]), "modules", lambda: mods)
    imports.cache_clear()
    try:
        assert "interpreter.compile.compiler" in imports(True)["interpreter.run.planted"]
    finally:
        imports.cache_clear()
