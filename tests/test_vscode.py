"""The VS Code extension (editors/vscode): its client starts `grimorio lsp` over stdio, and it packages
into a .vsix with the language client, the grammar, the language configuration and the license."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "editors" / "vscode"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def npm():
    found = shutil.which("npm")
    if found is None:
        if os.environ.get("GRIMORIO_CI"):
            pytest.fail("npm is not installed, and CI must build the VS Code extension")
        pytest.skip("npm is not installed")
    return found


@pytest.fixture(scope="module")
def built(npm, tmp_path_factory):
    """The extension copied out of the tree (its node_modules and .vsix stay out of the checkout), with
    the files its prepublish step copies from editors/ and the project's root."""
    work = tmp_path_factory.mktemp("vscode")
    shutil.copytree(ROOT / "editors", work / "editors", ignore=shutil.ignore_patterns("node_modules", "*.vsix"))
    shutil.copy(ROOT / "LICENSE", work / "LICENSE")
    folder = work / "editors" / "vscode"
    subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=folder, check=True, capture_output=True, timeout=600)
    return folder


def test_the_client_starts_the_language_server_over_stdio(built, npm):
    done = subprocess.run([npm, "test"], cwd=built, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# pass 1" in done.stdout and "# fail 0" in done.stdout


def test_the_extension_packages_into_a_vsix(built, npm):
    done = subprocess.run([npm, "run", "package"], cwd=built, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    with zipfile.ZipFile(built / "grimorio.vsix") as vsix:
        names = set(vsix.namelist())
        manifest = json.loads(vsix.read("extension/package.json"))
        grammar = json.loads(vsix.read("extension/syntaxes/grimorio.tmLanguage.json"))
    assert {"extension/extension.js", "extension/LICENSE.txt", "extension/language-configuration.json"} <= names \
        or {"extension/extension.js", "extension/LICENSE", "extension/language-configuration.json"} <= names
    assert "extension/node_modules/vscode-languageclient/node.js" in names
    assert not any(n.startswith("extension/test/") for n in names)
    assert manifest["main"] == "./extension.js" and manifest["activationEvents"] == ["onLanguage:grimorio"]
    assert grammar == json.loads((ROOT / "editors" / "grimorio.tmLanguage.json").read_text(encoding="utf-8"))
    assert manifest["version"] == _project_version()


def _project_version() -> str:
    import tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
