"""grimorio's version, from one place: the `version` of pyproject.toml.

Installed, the package holds it (the file VERSION, written when the package is built), as does the
distribution's metadata (importlib.metadata reads it: an editable install);
run from a checkout that was never installed, pyproject.toml beside the
package says it. Nothing else in grimorio writes a version number.
"""
from __future__ import annotations

import os

UNKNOWN = "0+unknown"
SHIPPED = "VERSION"


def version() -> str:
    try:                       # written into the package when it is built (setup.py): importlib.metadata costs
        with open(os.path.join(os.path.dirname(os.path.realpath(__file__)), SHIPPED), encoding="utf-8") as f:
            return f.read().strip()    # a third of a run's start
    except OSError:
        pass
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
