"""Shared test helpers: run an encounter written inline, read its transcript.

Two profiles (README, "Tests"):
  .venv/bin/python -m pytest -q            the fast tests (the default, under 30 s): every area, briefly
  .venv/bin/python -m pytest -q -m slow    the slow tests; CI runs both (`-m ""` runs everything at once)

Mark a test slow (`@pytest.mark.slow`; a whole file: `pytestmark = pytest.mark.slow`) when it
  - starts a process: the installed command, `python -c`, a pool of workers, a language server, a
    browser (a fast test that starts one fails, below, with a message that says so), or
  - takes over 0.5 s on a quiet machine (`pytest -q --durations=20` lists them): it compiles a whole
    edition of its own (a house rule over a bundled edition), runs an encounter for many seeds, fuzzes,
    starts Dask, or measures time, memory or growth.
A test that only runs an encounter with `run_text` (or `main(["run", ...])`) over a bundled edition is
fast: the compiled edition is shared by every test of the session. Keep a fast test in every area.
A command that names a test by its id (`pytest tests/test_x.py::test_y`) runs what it names, slow or not.
"""
from __future__ import annotations

import multiprocessing.util
import os
import subprocess
import textwrap
from unittest import mock

import pytest
from hypothesis import settings

# Hypothesis's deadline times each example on the wall clock: on a shared 2-core machine a busy
# moment fails an example that is quick alone ("Unreliable test timings"). No test here is about
# time (docs/performance.md measures it), so no example has a deadline.
settings.register_profile("grimorio", deadline=None)
settings.load_profile("grimorio")

from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.diagnostics import GrimorioError, Sources, render_all
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.run.transcript import render_jsonl, render_text
from tests import temp_guard


class Run:
    def __init__(self, outcome):
        self.outcome = outcome
        self.engine = outcome.engine
        self.text = render_text(outcome.engine)
        self.lines = self.text.splitlines()

    def c(self, name):
        """A combatant by name."""
        return next(x for x in self.engine.cb if x.a_name == name)

    def field(self, name, field):
        return self.c(name).get(field)

    def grades(self, name, condition):
        return [g.name for g in self.c(name).cards.get(condition, []) if g is not None]

    def has(self, name, condition):
        return bool(self.c(name).cards.get(condition))

    def jsonl(self):
        return render_jsonl(self.engine)


def run_text(text: str, file: str = "scenario.enc", seed=None, record=True, json=False, options=None) -> Run:
    text = textwrap.dedent(text).lstrip("\n")
    enc, diags = build_encounter(text, file)
    if diags:
        raise GrimorioError(diags)
    sources = Sources({file: text})
    program = program_for(enc.edition, enc.edition_span, sources)
    outcome = Prepared(enc, program, options).run(seed=seed, record=record, json=json)
    failed = outcome.failed
    if failed:
        raise AssertionError("expectations failed:\n" + "\n".join(
            f"{sources.line(e.span.file, e.span.line)}  (left {a!r}, right {b!r})" for e, a, b in failed) + "\n--- transcript:\n" + render_text(outcome.engine))
    return Run(outcome)


def diagnostics_of(text: str, file: str = "scenario.enc") -> str:
    """The rendered diagnostics an encounter text produces (empty if none)."""
    text = textwrap.dedent(text).lstrip("\n")
    sources = Sources({file: text})
    try:
        enc, diags = build_encounter(text, file)
        if diags:
            raise GrimorioError(diags)
        program = program_for(enc.edition, enc.edition_span, sources)
        Prepared(enc, program).run()
    except GrimorioError as exc:
        return render_all(exc.diagnostics, sources)
    return ""


@pytest.fixture
def run():
    return run_text


# The session's own temporary folder, checked empty at the end (tests/temp_guard.py).
pytest_sessionfinish = temp_guard.pytest_sessionfinish


def pytest_configure(config):
    """The default `-m "not slow"` (pyproject addopts) leaves out no test named by its id."""
    temp_guard.pytest_configure(config)
    if config.option.markexpr == "not slow" and any("::" in arg for arg in config.args):
        config.option.markexpr = ""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """The default profile stays fast: a test not marked slow (its fixtures included) fails as
    soon as it starts a process."""
    if item.get_closest_marker("slow"):
        yield
        return

    def refused(*args, **kwargs):
        pytest.fail(f"{item.nodeid} starts a process: mark it @pytest.mark.slow (tests/conftest.py)", pytrace=False)

    with mock.patch.object(subprocess.Popen, "_execute_child", refused), mock.patch.object(os, "fork", refused), \
            mock.patch.object(multiprocessing.util, "spawnv_passfds", refused):
        yield
