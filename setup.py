"""The package's build: setuptools (pyproject.toml says the rest), with Lark's parser tables built here,
once, and shipped in the wheel (grimorio/dsl/syntax/grammar.tables), so a fresh install never builds
them at its first run; and so are the bundled rules' files (grimorio/dsl/editions/built.pickle), and the bundled editions' compiled programs
(grimorio/interpreter/compile/programs.shipped). The tables carry the key of the grammar and Lark version they were built from;
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
        self._ship_programs(here)
        self._ship_records(here)
        with open(os.path.join(self.build_lib, "grimorio", "VERSION"), "w", encoding="utf-8") as f:
            f.write(self.distribution.get_version() + "\n")     # grimorio/_version.py reads it

    @staticmethod
    def _named_encounter(text, name):
        """An encounter built under `name`, written with `name` left out (dsl/editions/cache.py, PLACEHOLDER)."""
        from grimorio.dsl.editions import cache
        from grimorio.dsl.syntax.builder import build_encounter
        result = build_encounter(text, name)
        return None if result[1] else cache.named_dumps(result, name)

    def _ship_records(self, here):
        """The code of grimorio's record classes (dsl/records.py), compiled once here for this Python: every
        module imported first, so each record class is made."""
        import importlib
        import pkgutil
        sys.path.insert(0, here)
        try:
            import grimorio.dsl
            import grimorio.interpreter
            for package in (grimorio.dsl, grimorio.interpreter):
                for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
                    try:
                        importlib.import_module(module.name)
                    except Exception:  # noqa: BLE001 - an optional dependency (pygls, dask): not needed here
                        pass
            from grimorio.dsl import records
            data = records.shipped_bytes()
        finally:
            sys.path.remove(here)
        with open(os.path.join(self.build_lib, "grimorio", "dsl", records.SHIPPED), "wb") as f:
            f.write(data)

    def _ship_programs(self, here):
        """The bundled editions compiled (grimorio/interpreter/compile/programs.shipped): a fresh install's
        first run compiles nothing (interpreter/compile/shipped.py says when one is used)."""
        from pathlib import Path
        sys.path.insert(0, here)
        try:
            from grimorio.interpreter.compile import shipped
            data = shipped.build(Path(self.build_lib, "grimorio"))
        finally:
            sys.path.remove(here)
        with open(os.path.join(self.build_lib, "grimorio", "interpreter", "compile", shipped.FILE), "wb") as f:
            f.write(data)

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
            for path in sorted(Path(here, "rulesets").rglob("*.enc")):
                text = path.read_text(encoding="utf-8")
                data = self._named_encounter(text, cache.PLACEHOLDER)
                if data is not None and data == self._named_encounter(text, "rulesets/elsewhere/x.enc"):
                    table[cache.built_key("encounter", text, cache.PLACEHOLDER)] = data
        finally:
            sys.path.remove(here)
        target = os.path.join(self.build_lib, "grimorio", "dsl", "editions", "built.pickle")
        with open(target, "wb") as f:
            pickle.dump(table, f, protocol=pickle.HIGHEST_PROTOCOL)


setup(cmdclass={"build_py": BuildWithParserTables})
