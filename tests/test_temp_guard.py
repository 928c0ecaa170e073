"""tests/temp_guard.py fails a session whose tests leave anything in the temporary folder, with xdist's
workers or without, and removes what it guarded either way."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow        # each case runs a pytest session of its own

ROOT = Path(__file__).resolve().parent.parent
CONFTEST = "from tests.temp_guard import pytest_configure, pytest_sessionfinish  # noqa: F401\n"
TESTS = """\
import subprocess, sys, tempfile
from tests.temp_guard import scratch

def test_tmp_path(tmp_path):
    (tmp_path / "x").write_text("x")

def test_scratch():
    (scratch("grimorio-kept-") / "x").write_text("x")

def test_a_process_of_its_own():
    subprocess.run([sys.executable, "-c", "import tempfile; tempfile.TemporaryDirectory().cleanup()"], check=True)
"""
LEAKS = """
def test_leaves_a_folder():
    tempfile.mkdtemp(prefix="grimorio-left-")

def test_its_process_leaves_a_file():
    subprocess.run([sys.executable, "-c", "import tempfile; tempfile.mkstemp(prefix='grimorio-file-')"], check=True)
"""


def session(tmp_path: Path, tests: str, *options: str) -> subprocess.CompletedProcess:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (suite / "test_it.py").write_text(tests, encoding="utf-8")
    own = tmp_path / "tmp"          # the session's temporary folder: its guard is made, and removed, in it
    own.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(own)}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(suite),
                           *options, str(suite)], cwd=suite, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("workers", [["-n", "0"], ["-n", "2"]])
def test_a_session_that_leaves_nothing_passes(tmp_path, workers):
    out = session(tmp_path, TESTS, *workers)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "left" not in out.stderr
    assert not list((tmp_path / "tmp").iterdir())          # its guarded folder is gone


@pytest.mark.parametrize("workers", [["-n", "0"], ["-n", "2"]])
def test_a_session_that_leaves_something_fails_and_names_it(tmp_path, workers):
    out = session(tmp_path, TESTS + LEAKS, *workers)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "5 passed" in out.stdout, out.stdout
    assert "the tests left 2 entries in the temporary folder: grimorio-file-" in out.stderr, out.stderr
    assert "grimorio-left-" in out.stderr and "grimorio-kept-" not in out.stderr
    assert not list((tmp_path / "tmp").iterdir())
