"""The installed console script, run away from the source tree, finds the
bundled rulesets (a regular, non-editable install ships them)."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main

pytestmark = pytest.mark.slow      # it builds a wheel and runs the installed command (tests/conftest.py)

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
    assert run.stdout.startswith('# encounter "Duelo en el camino", edition aquelarre, layers: none, seed 7\nAsalto 1\n')
    assert "Fin del combate" in run.stdout
    # It ran the installed package: a copy in site-packages, or (installed with pip -e) this source tree.
    where = subprocess.run([sys.executable, "-c", "import grimorio.interpreter as i; print(i.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60)
    if _editable(tmp_path):
        assert where.stdout.startswith(str(ROOT / "interpreter")), where.stdout
    else:
        assert "site-packages" in where.stdout and not where.stdout.startswith(str(ROOT / "interpreter"))


def _editable(away: Path) -> bool:
    """Whether grimorio is installed in editable mode (pip install -e): then it runs from this tree.
    Asked away from the source tree, whose grimorio.egg-info would answer instead."""
    probe = ("import json; from importlib import metadata\n"
             "info = metadata.distribution('grimorio').read_text('direct_url.json') or '{}'\n"
             "print(json.loads(info).get('dir_info', {}).get('editable', False))\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=away, capture_output=True, text=True, timeout=60)
    return out.stdout.strip() == "True"


def test_one_import_name_beside_a_foreign_interpreter_package(tmp_path):
    """The wheel installs only "grimorio" at top level: another distribution's
    top-level "interpreter" (or "dsl") imports beside it untouched."""
    wheels = tmp_path / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                            "-w", str(wheels), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next(wheels.glob("grimorio-*.whl"))
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"grimorio"}
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    (site / "interpreter").mkdir()
    (site / "interpreter" / "__init__.py").write_text("WHO = 'someone else'\n", encoding="utf-8")
    probe = ("import interpreter, grimorio\n"
             "from grimorio.interpreter.compile.programs import program_for\n"
             "assert interpreter.WHO == 'someone else'\n"
             "print(grimorio.load_edition('aquelarre').ruleset.edition.name)\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "aquelarre"


def _tree(folder: Path) -> dict:
    """Every file and folder under `folder`, with its size and time of change."""
    out = {}
    for p in sorted(folder.rglob("*")):
        st = p.lstat()
        out[str(p.relative_to(folder))] = (st.st_size, st.st_mtime_ns)
    return out


def test_a_read_only_install_runs_and_writes_nothing_beside_itself(tmp_path, capsys):
    """Issue 25: the wheel installed where nothing can be written, run by a user whose cache is empty: the
    run works and reads as one from the source tree, everything it needs comes built from the wheel (nothing is
    built into the cache), the cache is the
    user's (XDG_CACHE_HOME), and nothing under the install changed. As root, who may write anywhere,
    "nothing changed" is the proof; the folder is also made read-only."""
    wheels = tmp_path / "wheels"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
                           capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next(wheels.glob("grimorio-*.whl"))
    shipped = zipfile.ZipFile(wheel).namelist()
    assert {"grimorio/dsl/syntax/grammar.tables", "grimorio/dsl/editions/built.pickle", "grimorio/VERSION",
            "grimorio/interpreter/compile/programs.shipped", "grimorio/dsl/records.shipped"} <= set(shipped)
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    for p in [site, *site.rglob("*")]:
        p.chmod(p.stat().st_mode & ~0o222)
    before = _tree(site)
    home = tmp_path / "home"
    home.mkdir()
    enc = tmp_path / "demo" / "duelo.enc"
    enc.parent.mkdir()
    enc.write_text((ROOT / "rulesets" / "aquelarre" / "duelo.enc").read_text(encoding="utf-8"), encoding="utf-8")
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_CACHE_HOME": str(home / "xdg")}
    assert main(["run", str(enc), "--quiet"]) == 0        # the same run from this source tree, built here
    expected = capsys.readouterr().out
    try:
        for _ in range(2):           # cold, then warm
            out = subprocess.run([sys.executable, "-c", "import sys; from grimorio._entry import main; sys.exit(main())",
                                  "run", str(enc)], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
            assert out.returncode == 0, out.stderr
            assert out.stdout.startswith("# encounter ") and "\nAsalto 1\n" in out.stdout and out.stderr == ""
            assert out.stdout.split("\n", 1)[1] == expected         # what the shipped program runs is the same
        assert _tree(site) == before, "the run wrote under the installed package"
        cache = home / "xdg" / "grimorio"
        # Everything a run of a bundled encounter needs came built from the wheel (the parser's tables, the
        # rules' and the encounter's built forms, the compiled program, the records' code): nothing was
        # built, so nothing was kept but the cache's secret and the code of a few generated lines.
        kept = sorted(p.name for p in cache.iterdir())
        assert [k for k in kept if k.split("-")[0] in ("built", "grammar", "program", "records")] == [], kept
    finally:
        for p in [site, *site.rglob("*")]:
            p.chmod(p.stat().st_mode | 0o200)
