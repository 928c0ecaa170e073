"""The installed console script, run away from the source tree, finds the
bundled rulesets (a regular, non-editable install ships them)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).parent / "grimorio"


@pytest.mark.skipif(not SCRIPT.exists(), reason="grimorio is not installed in this interpreter's environment")
def test_installed_grimorio_runs_the_bundled_editions(tmp_path):
    def grimorio(*args):
        return subprocess.run([str(SCRIPT), *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)

    listing = grimorio("editions")
    assert listing.returncode == 0, listing.stderr
    assert "aquelarre" in listing.stdout and "yokai" in listing.stdout
    enc = tmp_path / "duelo.enc"
    enc.write_text((ROOT / "rulesets" / "aquelarre" / "duelo.enc").read_text(encoding="utf-8"), encoding="utf-8")
    run = grimorio("run", "duelo.enc")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Asalto 1\n") and "Fin del combate" in run.stdout
    # It ran the installed package, not this source tree.
    where = subprocess.run([sys.executable, "-c", "import interpreter; print(interpreter.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "site-packages" in where.stdout and not where.stdout.startswith(str(ROOT / "interpreter"))
