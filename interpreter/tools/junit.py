"""`grimorio test --junit FILE.xml`: the results as JUnit XML, which CI services read.

One <testsuite> per encounter, one <testcase> per expectation (named by its
line and text), a <failure> for an expectation that failed and an <error> for
an encounter that did not run to its end, each with the diagnostic in full.
"""
from __future__ import annotations

import os
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from ...dsl.diagnostics import Diagnostic, GrimorioError, Span

TAGS = {"failed": "failure", "error": "error"}


def junit_xml(results, seconds: float) -> bytes:
    top = ET.Element("testsuites", name="grimorio test", time=f"{seconds:.3f}")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for r in results:
        suite = ET.SubElement(top, "testsuite", name=r.file, time=f"{r.seconds:.3f}")
        counts = {"tests": len(r.cases), "failures": sum(c.outcome == "failed" for c in r.cases),
                  "errors": sum(c.outcome == "error" for c in r.cases)}
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        classname = os.path.splitext(r.file)[0].replace(os.sep, ".").lstrip(".")
        for c in r.cases:
            name = f"line {c.line}: {c.name}" if c.line else c.name
            case = ET.SubElement(suite, "testcase", classname=classname, name=name, file=r.file)
            if c.line:
                case.set("line", str(c.line))
            if c.outcome in TAGS:
                ET.SubElement(case, TAGS[c.outcome], message=c.summary).text = c.message
    for key, value in totals.items():
        top.set(key, str(value))
    ET.indent(top)
    return ET.tostring(top, encoding="utf-8", xml_declaration=True) + b"\n"


def write_junit(path: str, results, seconds: float, at: Span) -> None:
    """Written whole beside the target, then renamed over it: a reader never sees half a file."""
    target = Path(path)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(junit_xml(results, seconds))
        os.replace(tmp, target)
    except OSError as exc:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise GrimorioError(unwritable(path, exc.strerror or str(exc), at)) from None


def unwritable(path: str, reason: str, at: Span) -> Diagnostic:
    return Diagnostic("E0037", f'cannot write the JUnit file "{path}": {reason}', at,
                      "--junit names a file in a folder that exists and can be written")


def folder_missing(path: str, at: Span) -> Diagnostic:
    return unwritable(path, "its folder does not exist", at)
