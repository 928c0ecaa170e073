"""The package people install: its license and metadata, one version everywhere, and the
install hints that name the extra as the user can install it from where grimorio came."""
from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import grimorio
from grimorio.interpreter.tools import extras
from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
VERSION = PROJECT["version"]


def test_the_version_is_written_once_and_read_everywhere(capsys):
    assert grimorio.__version__ == VERSION
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"grimorio {VERSION}\n"
    # No other file of the package writes a version number of its own.
    for path in [*(ROOT / "interpreter").rglob("*.py"), *(ROOT / "dsl").rglob("*.py"), *(ROOT / "grimorio").glob("*.py")]:
        assert f'"{VERSION}"' not in path.read_text(encoding="utf-8"), path


def test_a_checkout_never_installed_reads_its_pyproject(monkeypatch):
    from importlib import metadata

    from grimorio import _version

    def missing(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(metadata, "version", missing)
    assert _version.version() == VERSION


def test_the_metadata_names_license_authors_and_what_it_is():
    assert PROJECT["license"] == "MIT" and PROJECT["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert PROJECT["authors"] and PROJECT["readme"] == "README.md" and PROJECT["keywords"]
    assert "Topic :: Games/Entertainment :: Role-Playing" in PROJECT["classifiers"]
    assert not [c for c in PROJECT["classifiers"] if c.startswith("License ::")]   # PEP 639: the expression says it


def test_the_editor_extension_has_the_license_and_the_version():
    """The VS Code packager wants a license file beside package.json; the extension's version is grimorio's."""
    import json
    package = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text(encoding="utf-8"))
    assert package["license"] == "MIT" and package["version"] == VERSION
    assert (ROOT / "editors" / "vscode" / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()


def test_the_changelog_has_this_version_s_notes():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {VERSION} - " in text


@pytest.mark.parametrize("origin, checkout, want", [
    ({}, None, "'grimorio[lsp]'"),                                                         # from an index
    ({"url": "file:///home/ana/grimorio", "dir_info": {}}, None, "'/home/ana/grimorio[lsp]'"),   # a checkout
    ({"url": "file:///home/ana/grimorio", "dir_info": {"editable": True}}, None, "-e '/home/ana/grimorio[lsp]'"),
    ({"url": "file:///tmp/d/grimorio-0.1.0-py3-none-any.whl", "archive_info": {}}, None,
     "'grimorio[lsp] @ file:///tmp/d/grimorio-0.1.0-py3-none-any.whl'"),
    ({"url": "https://example.org/grimorio.git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}}, None,
     "'grimorio[lsp] @ git+https://example.org/grimorio.git@abc123'"),
    ({}, "/srv/grimorio", "'/srv/grimorio[lsp]'"),                        # this code runs from a checkout
])
def test_the_install_hint_names_where_grimorio_came_from(origin, checkout, want):
    assert extras._requirement("lsp", origin, checkout) == want


def test_the_install_hint_uses_this_environment_s_pip():
    command = extras.install_command("dask")
    assert command.startswith(f"{sys.executable} -m pip install ") and command.endswith("[dask]'")


@pytest.mark.slow
def test_the_language_server_reports_the_version():
    pytest.importorskip("pygls")
    from grimorio.interpreter.tools.lsp import GrimorioServer
    server = GrimorioServer()
    assert (server.name, server.version) == ("grimorio", VERSION)


@pytest.mark.slow
def test_python_dash_m_grimorio_is_the_command_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "grimorio", "--version"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"grimorio {VERSION}\n", "")
    done = subprocess.run([sys.executable, "-m", "grimorio", "editions"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("aquelarre ")


@pytest.mark.slow
def test_the_wheel_carries_its_license_and_metadata(tmp_path):
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = zipfile.ZipFile(next(tmp_path.glob("grimorio-*.whl")))
    info = f"grimorio-{VERSION}.dist-info"
    meta = Parser().parsestr(wheel.read(f"{info}/METADATA").decode("utf-8"))
    assert meta["Name"] == "grimorio" and meta["Version"] == VERSION
    assert meta["License-Expression"] == "MIT" and meta["License-File"] == "LICENSE"
    assert meta["Author"] == "The grimorio authors" or "The grimorio authors" in (meta["Author-email"] or "")
    assert "tabletop" in meta["Keywords"]
    assert "Topic :: Games/Entertainment :: Role-Playing" in meta.get_all("Classifier")
    assert meta["Description-Content-Type"] == "text/markdown" and "## Quick start" in meta.get_payload()
    assert wheel.read(f"{info}/licenses/LICENSE") == (ROOT / "LICENSE").read_bytes()
    assert "grimorio/__main__.py" in wheel.namelist()
