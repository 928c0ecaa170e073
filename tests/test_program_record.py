"""The compiled Program is plain frozen data (interpreter/compile/program.py): no compiler, no
resolver, no function; the standard pickle writes it, and reading it back imports no module of the
compiler but the record's own; interpreter/run/loaded.py runs it."""
from __future__ import annotations

import pickle
import pickletools
import types

import pytest

from grimorio.dsl.records import FrozenInstanceError
from grimorio.interpreter.compile.compiler import load
from grimorio.interpreter.compile.program import Program
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.run.loaded import Loaded


@pytest.fixture(scope="module")
def program() -> Program:
    return program_for("arena").program


@pytest.fixture(scope="module")
def pickled(program) -> bytes:
    return pickle.dumps(program, protocol=pickle.HIGHEST_PROTOCOL)


def globals_of(data: bytes) -> set[str]:
    """The modules a pickle's classes and functions come from."""
    out, strings = set(), []
    for op, arg, _pos in pickletools.genops(data):
        if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE"):
            strings.append(arg)
        elif op.name == "STACK_GLOBAL":
            out.add(strings[-2])
        elif op.name == "GLOBAL":
            out.add(arg.split(" ")[0])
    return out


def test_a_program_is_a_frozen_record_of_plain_data(program):
    assert type(program) is Program
    with pytest.raises(FrozenInstanceError):
        program.options = {}
    seen, todo = set(), [vars(program)]
    while todo:                        # no function, no compiler, no resolver anywhere in it
        v = todo.pop()
        if id(v) in seen or isinstance(v, (str, bytes, int, float)):
            continue
        seen.add(id(v))
        assert not isinstance(v, (types.FunctionType, types.MethodType, types.ModuleType)), v
        assert type(v).__module__.split(".")[-1] not in ("compiler", "names", "purity"), type(v)
        if isinstance(v, dict):
            todo.extend(v.keys())
            todo.extend(v.values())
        elif isinstance(v, (list, tuple, set, frozenset)):
            todo.extend(v)
        elif isinstance(v, type):
            continue
        else:
            todo.extend(getattr(v, s) for s in getattr(type(v), "__slots__", ()) if hasattr(v, s))
            todo.extend(getattr(v, "__dict__", {}).values())


def test_the_standard_pickle_writes_it_and_reading_it_imports_no_compiler_module(program, pickled):
    compiler = sorted(m for m in globals_of(pickled) if ".interpreter." in m and ".interpreter.run." not in m)
    assert compiler == ["grimorio.interpreter.compile.program"]
    again = pickle.loads(pickled)
    assert again.source == program.source and again.line_spans == program.line_spans


def test_a_program_read_back_runs_as_the_one_compiled(program, pickled):
    from grimorio.interpreter.run.encounter import Prepared
    from grimorio.dsl.editions.files import bundled_root
    from grimorio.dsl.check.front import load_encounter
    from grimorio.dsl.diagnostics import Sources
    enc = load_encounter(bundled_root() / "arena" / "duel.enc", Sources())
    again = load(pickle.loads(pickled))
    assert isinstance(again, Loaded) and again.program is not program
    from grimorio.interpreter.run.transcript import render_text
    runs = [render_text(Prepared(enc, p).run(seed=3, record=True).engine) for p in (program_for("arena"), again)]
    assert runs[0] == runs[1] and runs[0]


def test_an_encounter_with_no_code_of_its_own_walks_no_ruleset_for_facts(monkeypatch):
    """A warm run of an encounter with no `do` and no expectations compiles its empty code on the
    empty plan: the optimizer's facts (a walk of the whole ruleset) are worked out only for code
    that could use or break them. (They doubled a warm `grimorio run` before.)"""
    from grimorio.interpreter.compile import compiler
    from tests.conftest import run_text

    def refuse(*_args, **_kw):
        raise AssertionError("the ruleset was walked for the facts of an encounter with no code")
    monkeypatch.setattr(compiler, "snippet_plan", refuse)
    from pathlib import Path
    duelo = Path(__file__).resolve().parent.parent / "rulesets" / "aquelarre" / "duelo.enc"
    r = run_text(duelo.read_text(encoding="utf-8"))
    assert r.lines and r.lines[0] == "Asalto 1", r.text
