"""What tests ask of a compiled program without reading its generated source: its functions,
what they execute (bytecodes) and which functions of the runtime they call."""
from __future__ import annotations

import sys
from pathlib import Path


def function(program, kind: str, name: str):
    """The generated function of a declaration (`rule`, `check` ...) by its name in the rules."""
    return program.ns[program.gids[(kind, name)]]


def has_function(program, prefix: str) -> bool:
    """Whether the program has a generated function whose Python name starts with `prefix`."""
    return any(key.startswith(prefix) and callable(value) for key, value in program.ns.items())


def bytecodes(fn, *args, **kw) -> int:
    """The Python bytecodes `fn(*args, **kw)` executes, all the way down (sys.settrace)."""
    count = 0

    def local(_frame, event, _arg):
        nonlocal count
        if event == "opcode":
            count += 1
        return local

    def call(frame, _event, _arg):
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return local

    sys.settrace(call)
    try:
        fn(*args, **kw)
    finally:
        sys.settrace(None)
    return count


def calls_into(module, fn, *args, **kw) -> list[str]:
    """The functions of `module` (a module object) that `fn(*args, **kw)` calls, in order."""
    where = str(Path(module.__file__))
    called = []

    def profile(frame, event, _arg):
        if event == "call" and frame.f_code.co_filename == where:
            called.append(frame.f_code.co_name)
    sys.setprofile(profile)
    try:
        fn(*args, **kw)
    finally:
        sys.setprofile(None)
    return called


def engine(program):
    """An engine of the program with no combatants: enough to call a rule's function."""
    from grimorio.interpreter.run.engine import Engine
    return Engine(program, [], 7, False)


def verdicts(made, seed: int = 7) -> list:
    """One run of a prepared encounter: its expectations' verdicts (True or False), or the codes
    of the diagnostics it stopped on."""
    from grimorio.dsl.diagnostics import GrimorioError
    try:
        return [v.ok for v in made.run(seed=seed, record=False).expectations]
    except GrimorioError as exc:
        return [d.code for d in exc.diagnostics]


def counted_runs(folder, rules: str, encounter: str, speakers: tuple, counted: str | None = None) -> list:
    """`encounter` run once (seed 1) on the small test edition holding `rules` (written in `folder`),
    plain then optimized: each run's transcript lines said by `speakers` (or the refusal it stopped
    on), with `counted`, as (how many times the rule of that name was called, those lines)."""
    from grimorio.dsl.diagnostics import GrimorioError
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.dsl.syntax.builder import build_encounter
    from grimorio.interpreter.compile.compiler import compile_checked
    from grimorio.interpreter.run.encounter import Prepared
    from grimorio.interpreter.run.transcript import render_text
    from tests.test_checker import write_edition
    write_edition(folder, rules)
    enc, diags = build_encounter(encounter, "x.enc")
    assert not diags
    out = []
    for optimize in (False, True):
        program = compile_checked(load_edition("prueba", roots=[folder]), optimize=optimize)
        calls = []
        if counted is not None:
            name = program.gids[("rule", counted)]
            sys.setprofile(lambda frame, event, _a: calls.append(1) if event == "call"
                           and frame.f_code.co_name == name else None)
        try:
            ran = Prepared(enc, program).run(seed=1)
        except GrimorioError as exc:
            out.append([(d.code, d.message) for d in exc.diagnostics])
            continue
        finally:
            sys.setprofile(None)
        lines = [line for line in render_text(ran.engine).splitlines() if line.startswith(speakers)]
        out.append((len(calls), lines) if counted is not None else lines)
    return out
