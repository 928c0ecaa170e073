"""The package's build: setuptools (pyproject.toml says the rest), with Lark's parser tables built here,
once, and shipped in the wheel (grimorio/dsl/syntax/grammar.tables), so a fresh install never builds
them at its first run. The tables carry the key of the grammar and Lark version they were built from;
an install that meets another Lark builds its own (dsl/syntax/parser.py)."""
import os
import sys

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithParserTables(build_py):
    def run(self):
        super().run()
        if self.dry_run:
            return
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, here)
        try:
            from grimorio.dsl.syntax import parser
            built = parser._build(strict=False)
            data = parser.tables_bytes(built, parser.tables_key(False))
        finally:
            sys.path.remove(here)
        if data is None:
            raise RuntimeError("Lark's tables of the grammar are not plain data: cannot ship them")
        target = os.path.join(self.build_lib, "grimorio", "dsl", "syntax", parser.TABLES_FILE)
        with open(target, "wb") as f:
            f.write(data)


setup(cmdclass={"build_py": BuildWithParserTables})
