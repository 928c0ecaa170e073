"""How to install an optional extra (lsp, dask, ...) from where grimorio was installed.

`pip install "grimorio[lsp]"` works only for a copy installed from a package
index. A copy installed from a checkout, a wheel file or a repository needs
its own source named again, and the right pip is the one of the environment
grimorio runs in: the direct_url.json that pip records (PEP 610) says where
the copy came from.
"""
from __future__ import annotations

import json
import os
import shlex
import sys
from urllib.parse import unquote, urlparse


def install_command(extra: str) -> str:
    """The command that installs `extra` into the environment this grimorio runs in."""
    checkout = _checkout()
    origin = None if checkout is not None else _origin()
    return f"{shlex.quote(sys.executable)} -m pip install {_requirement(extra, origin, checkout)}"


def _origin() -> dict:
    """pip's record of where the installed copy came from; {} from an index (or not recorded)."""
    from importlib import metadata
    try:
        dist = metadata.distribution("grimorio")
    except metadata.PackageNotFoundError:
        return {}
    try:
        return json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return {}


def _requirement(extra: str, origin: dict | None, checkout: str | None = None) -> str:
    if checkout is not None:                    # this code runs from a checkout: install from it
        return shlex.quote(f"{checkout}[{extra}]")
    url = origin.get("url", "")
    if "vcs_info" in origin:
        vcs = origin["vcs_info"]
        at = f"@{vcs['commit_id']}" if vcs.get("commit_id") else ""
        return shlex.quote(f"grimorio[{extra}] @ {vcs.get('vcs', 'git')}+{url}{at}")
    if url.startswith("file://") and "dir_info" in origin:           # a folder: a checkout
        path = unquote(urlparse(url).path)
        editable = origin.get("dir_info", {}).get("editable", False)
        return ("-e " if editable else "") + shlex.quote(f"{path}[{extra}]")
    if url:
        return shlex.quote(f"grimorio[{extra}] @ {url}")
    return shlex.quote(f"grimorio[{extra}]")


def _checkout() -> str | None:
    """The checkout this code runs from (the folder with grimorio's pyproject.toml), if it runs from one;
    an installed copy lives in site-packages, with no pyproject.toml above it."""
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, os.pardir))
    marker = os.path.join(root, "pyproject.toml")
    return root if os.path.isfile(marker) and os.path.isdir(os.path.join(root, "interpreter")) else None
