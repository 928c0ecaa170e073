"""The tests leave nothing in the temporary folder: a session (with pytest-xdist, its controller) runs with
a temporary folder of its own (TMPDIR, inherited by the workers and by every process a test starts, and
tempfile's), and fails if anything but pytest's own tmp_path folders is left in it at the end; then the
whole folder is removed. tests/conftest.py installs it; tests/test_temp_guard.py proves it fails.

`scratch(prefix)` is a folder for what a module or a cached helper keeps for the whole session (tmp_path
is one test's): removed when the process that made it ends its session."""
from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ENV = "GRIMORIO_TEST_TEMP"          # the session's temporary folder, as the controller made it
_scratch: list[Path] = []
_state: dict = {}


def pytest_configure(config) -> None:
    if hasattr(config, "workerinput") or _state:      # an xdist worker: its controller guards the folder
        return
    guard = Path(tempfile.mkdtemp(prefix="grimorio-tests-"))
    guard.chmod(0o711)        # others may pass through (a test shares a folder with another user), not list it
    _state.update(guard=guard, env={k: os.environ.get(k) for k in ("TMPDIR", ENV)}, tempdir=tempfile.tempdir)
    os.environ["TMPDIR"] = os.environ[ENV] = str(guard)
    tempfile.tempdir = None                           # asked again: the guard
    config.add_cleanup(_restore)


def scratch(prefix: str) -> Path:
    """A new folder in the temporary folder, removed when this process's session ends."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    _scratch.append(folder)
    return folder


def write_edition(folder: Path, rules: str) -> Path:
    """The folder `folder` made, holding the edition "prueba" (edicion.rules) that includes the
    rules `rules` (reglas.rules): the small edition the tests compile."""
    folder.mkdir(parents=True)
    (folder / "edicion.rules").write_text('edition prueba:\n  title "Prueba"\n  include "reglas.rules"\n',
                                          encoding="utf-8")
    (folder / "reglas.rules").write_text(rules, encoding="utf-8")
    return folder


# The round every small test edition ends with (one step that does nothing), and the head of
# the encounters the tests run on it.
ONE_ROUND = "\nround r:\n  step s:\n    pass\n"
TEST_ENCOUNTER = 'encounter "x"\nedition prueba\nrounds 1\n'


def small_edition(prefix: str, rules: str):
    """The small test edition holding `rules` and ONE_ROUND, written once in a scratch folder, and
    its program compiled each way once: (folder(), program(optimize))."""
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.interpreter.compile.compiler import compile_checked

    @functools.lru_cache(maxsize=None)
    def folder() -> Path:
        return write_edition(scratch(prefix) / "prueba", rules + ONE_ROUND)

    @functools.lru_cache(maxsize=None)
    def program(optimize: bool):
        return compile_checked(load_edition("prueba", roots=[folder().parent]), optimize=optimize)
    return folder, program


def _remove_scratch() -> None:
    while _scratch:
        shutil.rmtree(_scratch.pop(), ignore_errors=True)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    """This process's scratch folders removed (its tests are over; in a worker, before it tells the
    controller it has finished); then, in the controller, after every other sessionfinish (xdist's waits
    for the workers to end), what the tests left, if anything, fails the session."""
    _remove_scratch()
    yield
    guard = _state.get("guard")
    if guard is None:
        return
    left = sorted(p.name for p in guard.iterdir() if not p.name.startswith("pytest-of-"))
    if left:
        shown = ", ".join(left[:20]) + (f" and {len(left) - 20} more" if len(left) > 20 else "")
        print(f"\nERROR: the tests left {len(left)} entries in the temporary folder: {shown}\n"
              "  (use tmp_path, or tests/temp_guard.scratch, and remove what a test makes outside them)",
              file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _restore() -> None:
    _remove_scratch()
    guard = _state.pop("guard", None)
    for name, value in _state.pop("env", {}).items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    tempfile.tempdir = _state.pop("tempdir", None)
    if guard is not None:
        shutil.rmtree(guard, ignore_errors=True)
