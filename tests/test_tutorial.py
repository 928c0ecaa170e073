"""docs/tutorial.md is true: followed from an empty folder, every file it writes and every command it runs
give exactly what it shows, and the game it ends with is rulesets/arena, file for file.

The tutorial marks what the test does by fence:
  ```grimorio / ```grimorio-encounter whose first line is "# file: PATH"   write PATH (without that line)
  ```console   "$ grimorio ARGS" runs the command line and the lines up to the next "$" are its output,
               standard error and standard output as a terminal shows them; "$ rm PATH..." deletes

The commands run as processes of the source tree's grimorio, one each, as a designer runs them: a process
keeps the programs it compiled (interpreter/run/encounter.py), and the tutorial changes the files between
commands.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial.md"
ARENA = ROOT / "rulesets" / "arena"
FILE = re.compile(r"#\s*file:\s*(\S+)\s*$")


@dataclass
class Block:
    lang: str
    text: str
    line: int

    @property
    def file(self) -> str | None:
        m = FILE.match(self.text.split("\n", 1)[0])
        return m.group(1) if m else None

    @property
    def body(self) -> str:
        return self.text.split("\n", 1)[1]


def blocks() -> list[Block]:
    out, lines, i = [], TUTORIAL.read_text(encoding="utf-8").split("\n"), 0
    while i < len(lines):
        m = re.match(r"^```([\w-]*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not re.match(r"^```\s*$", lines[j]):
            j += 1
        out.append(Block(m.group(1), "\n".join(lines[i + 1:j]) + "\n", i + 1))
        i = j + 1
    return out


def commands(block: Block) -> list[tuple[list[str], str]]:
    """(argv, expected output) for each "$" line of a console block."""
    out = []
    for line in block.text.splitlines(keepends=True):
        if line.startswith("$ "):
            out.append((shlex.split(line[2:]), ""))
        elif out:
            out[-1] = (out[-1][0], out[-1][1] + line)
    return out


def run(argv: list[str], folder: Path) -> tuple[int, str]:
    if argv[0] == "rm":
        for name in argv[1:]:
            (folder / name).unlink()
        return 0, ""
    assert argv[0] == "grimorio", f"the tutorial runs only grimorio and rm, not {argv[0]}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", "COLUMNS": "100"}
    done = subprocess.run([sys.executable, "-m", "grimorio.interpreter.tools.cli", *argv[1:]], cwd=folder, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8")
    return done.returncode, done.stdout


def follow(folder: Path, upto: int | None = None) -> list[str]:
    """Does what the tutorial says in `folder`; the differences between what it shows and what happens."""
    problems = []
    for block in blocks():
        if upto is not None and block.line > upto:
            break
        if block.file:
            path = folder / block.file
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block.body, encoding="utf-8")
        elif block.lang == "console":
            for argv, expected in commands(block):
                code, got = run(argv, folder)
                if got != expected:
                    problems.append(f"docs/tutorial.md:{block.line}: $ {shlex.join(argv)}\n--- shown:\n{expected}"
                                    f"--- got (exit {code}):\n{got}")
    return problems


def test_every_file_the_tutorial_ends_with_is_the_bundled_edition():
    """Without running anything: the last version of each file written is rulesets/arena's."""
    last = {b.file: b.body for b in blocks() if b.file}
    shipped = {p.relative_to(ARENA.parent).as_posix(): p.read_text(encoding="utf-8")
               for p in sorted(ARENA.rglob("*")) if p.is_file()}
    assert set(shipped) <= set(last), f"the tutorial never writes {sorted(set(shipped) - set(last))}"
    for name, text in shipped.items():
        assert last[name] == text, f"the tutorial's {name} is not rulesets/{name}"


def test_the_tutorial_runs_only_what_it_can():
    runs = [argv for b in blocks() if b.lang == "console" for argv, _ in commands(b)]
    assert runs and all(argv[0] in ("grimorio", "rm") for argv in runs)
    assert runs[0][:2] == ["grimorio", "new"]


@pytest.mark.slow
def test_following_the_tutorial_gives_what_it_shows(tmp_path):
    problems = follow(tmp_path)
    assert not problems, "\n".join(problems)
