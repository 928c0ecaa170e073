"""A fresh install of grimorio, as a user makes one: the wheel of this tree built, and installed with its
dependencies into a new venv (pip writes the .pyc files, as it does for a user). Used by the first-run
benchmark (`python -m benchmarks --only first`); everything lives in one temporary folder."""
from __future__ import annotations

import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def fresh_install():
    """Yields (the folder, the venv's bin folder): the folder is removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="grimorio-bench-") as tmp:
        folder = Path(tmp)
        quiet = {"check": True, "capture_output": True, "timeout": 900}
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder / "wheels"),
                        str(ROOT)], **quiet)
        wheel = next((folder / "wheels").glob("grimorio-*.whl"))
        subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")], **quiet)
        bin_ = folder / "venv" / "bin"
        subprocess.run([str(bin_ / "python"), "-m", "pip", "install", "-q", str(wheel)], **quiet)
        yield folder, bin_
