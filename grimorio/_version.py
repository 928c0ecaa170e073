"""grimorio's version, from one place: the `version` of pyproject.toml.

Installed from a wheel, the package holds it (the file VERSION, written
when the package is built); run from a checkout (installed editable, or
never installed), pyproject.toml beside the package says it; else the
distribution's metadata. Nothing else in grimorio writes a version number.
"""
from __future__ import annotations

import os

UNKNOWN = "0+unknown"
SHIPPED = "VERSION"


def version() -> str:
    """The package's VERSION (an installed wheel), else the pyproject.toml of the checkout grimorio runs from,
    else the distribution's metadata. importlib.metadata is asked last: importing it costs a third of a run's
    start."""
    here = os.path.dirname(os.path.realpath(__file__))
    try:
        with open(os.path.join(here, SHIPPED), encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        pass
    found = _from_pyproject(os.path.dirname(here))
    if found is not None:
        return found
    from importlib import metadata
    try:
        return metadata.version("grimorio")
    except metadata.PackageNotFoundError:
        return UNKNOWN


def _from_pyproject(folder: str) -> str | None:
    """The version in `folder`'s pyproject.toml, if that is grimorio's own."""
    path = os.path.join(folder, "pyproject.toml")
    if not os.path.isfile(path):
        return None
    import tomllib
    try:
        with open(path, "rb") as f:
            project = tomllib.load(f)["project"]
        return project["version"] if project.get("name") == "grimorio" else None
    except (OSError, KeyError, TypeError, AttributeError, tomllib.TOMLDecodeError):
        return None
