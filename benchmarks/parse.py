"""Parsing a large file (issue 6, "linear parsing"): `grimorio check` of a
rules file of 16,000 two-line rules, as a whole command, and the parse of an
encounter of 10,000 combatants, in process. The built-file cache is off
(GRIMORIO_CACHE_DIR=""), so every repeat parses.

`python -m benchmarks.parse DIR` writes the two files into DIR, to time or
profile them by hand."""
from __future__ import annotations

import sys
import time
from pathlib import Path

RULES = 16_000
COMBATANTS = 10_000


def rules_text(count: int = RULES) -> str:
    return "".join(f"rule r{i}(x):\n  return x + {i}\n" for i in range(count))


def encounter_text(count: int = COMBATANTS) -> str:
    return "edition aquelarre\n" + "".join(f"combatant c{i}:\n  pv {i}\n" for i in range(count))


def build_cpu(kind: str, text: str) -> float:
    """CPU seconds to build (parse and turn into the AST) a text, without the cache."""
    from grimorio.dsl.syntax import builder, parser
    build = builder.build_rules if kind == "rules" else builder.build_encounter
    parser.lark_parser()                    # built or loaded once per process: not part of the figure
    start = time.process_time()
    _, diags = build(text, f"benchmark.{kind}")
    spent = time.process_time() - start
    assert not diags, diags[:3]
    return spent


def write(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    rules, enc = folder / "reglas.rules", folder / "multitud.enc"
    rules.write_text(rules_text(), encoding="utf-8")
    enc.write_text(encounter_text(), encoding="utf-8")
    return rules, enc


if __name__ == "__main__":
    for p in write(Path(sys.argv[1] if len(sys.argv) > 1 else ".")):
        print(p)
