"""The package's build: setuptools (pyproject.toml says the rest), with Lark's parser tables built here,
once, and shipped in the wheel (grimorio/dsl/syntax/grammar.tables), so a fresh install never builds
them at its first run; and so are the bundled rules' files (grimorio/dsl/editions/built.pickle). The tables carry the key of the grammar and Lark version they were built from;
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
        self._ship_built_rules(here)

    def _ship_built_rules(self, here):
        """Every bundled .rules file built, under the key a run looks it up by (its name as the loader shows
        it: rulesets/EDITION/FILE.rules, and the prelude's), in grimorio/dsl/editions/built.pickle."""
        import pickle
        from pathlib import Path
        sys.path.insert(0, here)
        try:
            from grimorio.dsl.editions import cache
            from grimorio.dsl.editions.files import PRELUDE, PRELUDE_NAME
            from grimorio.dsl.syntax.builder import build_rules
            files = [(PRELUDE, PRELUDE_NAME)] + [(f, "rulesets/" + f.relative_to(Path(here, "rulesets")).as_posix())
                                                 for f in sorted(Path(here, "rulesets").rglob("*.rules"))]
            table = {}
            for path, name in files:
                text = path.read_text(encoding="utf-8")
                result = build_rules(text, name)
                if not result[1]:
                    table[cache.built_key("rules", text, name)] = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        finally:
            sys.path.remove(here)
        target = os.path.join(self.build_lib, "grimorio", "dsl", "editions", "built.pickle")
        with open(target, "wb") as f:
            pickle.dump(table, f, protocol=pickle.HIGHEST_PROTOCOL)


setup(cmdclass={"build_py": BuildWithParserTables})
