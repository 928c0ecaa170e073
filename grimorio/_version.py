"""grimorio's version, from one place: the `version` of pyproject.toml.

Installed, the distribution's metadata holds it (importlib.metadata reads it);
run from a checkout that was never installed, pyproject.toml beside the
package says it. Nothing else in grimorio writes a version number.
"""
from __future__ import annotations

import os

UNKNOWN = "0+unknown"


def version() -> str:
    from importlib import metadata
    try:
        return metadata.version("grimorio")
    except metadata.PackageNotFoundError:
        return _from_pyproject()


def _from_pyproject() -> str:
    import tomllib
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    try:
        with open(os.path.join(here, "pyproject.toml"), "rb") as f:
            return tomllib.load(f)["project"]["version"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return UNKNOWN
