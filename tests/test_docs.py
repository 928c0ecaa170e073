"""The designer documentation stays true to the language.

docs/language.md marks its examples by fence:
  ```grimorio            a complete rules file: it must build with no diagnostics
  ```grimorio-encounter  a complete encounter script: it must build with no diagnostics
  ```grimorio-fragment   statements or an expression: they must parse inside a rule body

A rules or encounter block whose first line is "# file: FOLDER/NAME" is also
written to FOLDER/NAME under a temporary ruleset root: those files form
working editions (the tutorial edition "arena" and the editions that extend
it), which must load and compile, and whose encounters must run with every
expectation met. A ```text block preceded by the comment
"<!-- docs: transcript of FOLDER/NAME.enc -->" is that encounter's exact
transcript.

Every other complete rules block that declares no edition is compiled as a
layer over "arena" (an edition that extends it), so the reference examples
use real names; "<!-- docs: build-only -->" before a block opts it out.
Every other encounter that names the edition "arena" is run against it.

docs/errors.md has one heading per diagnostic code used in dsl/ and interpreter/.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from grimorio.dsl.syntax.builder import build_encounter, build_rules
from grimorio.dsl.diagnostics import GrimorioError, Sources, render_all
from grimorio.dsl.check.names import BUILTINS
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.run.transcript import render_text

ROOT = Path(__file__).resolve().parent.parent
LANGUAGE = ROOT / "docs" / "language.md"
ERRORS = ROOT / "docs" / "errors.md"
TUTORIAL = "arena"


@dataclass
class Block:
    lang: str
    text: str
    line: int               # line of the opening fence in the markdown file
    marks: tuple[str, ...]  # "<!-- docs: ... -->" comments right before the fence

    @property
    def file(self) -> str | None:
        first = self.text.split("\n", 1)[0]
        m = re.match(r"#\s*file:\s*(\S+)\s*$", first)
        return m.group(1) if m else None

    @property
    def id(self) -> str:
        return f"{self.lang}@{self.line}"


def blocks(path: Path) -> list[Block]:
    out, lines = [], path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```([\w-]*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(1)
        j = i + 1
        while j < len(lines) and not re.match(r"^```\s*$", lines[j]):
            j += 1
        marks, k = [], start - 1
        while k >= 0 and lines[k].strip().startswith("<!-- docs:"):
            marks.append(lines[k].strip()[len("<!-- docs:"):].rstrip("->").strip())
            k -= 1
        out.append(Block(lang, "\n".join(lines[start + 1:j]) + "\n", start + 1, tuple(marks)))
        i = j + 1
    return out


ALL = blocks(LANGUAGE)
RULES = [b for b in ALL if b.lang == "grimorio"]
ENCOUNTERS = [b for b in ALL if b.lang == "grimorio-encounter"]
FRAGMENTS = [b for b in ALL if b.lang == "grimorio-fragment"]
FILES = [b for b in RULES + ENCOUNTERS if b.file]


def _ids(bs):
    return [b.id for b in bs]


def _no_diags(diags, text, name="docs"):
    assert not diags, render_all(diags, Sources({name: text}))


# ---------------------------------------------------------------- (a) build


def test_the_reference_has_examples_of_every_kind():
    assert len(RULES) >= 20 and len(ENCOUNTERS) >= 3 and len(FRAGMENTS) >= 20
    assert any(b.file == f"{TUTORIAL}/edicion.rules" for b in RULES)


@pytest.mark.parametrize("block", RULES, ids=_ids(RULES))
def test_rules_example_builds(block):
    _, diags = build_rules(block.text, "docs")
    _no_diags(diags, block.text)


@pytest.mark.parametrize("block", ENCOUNTERS, ids=_ids(ENCOUNTERS))
def test_encounter_example_builds(block):
    _, diags = build_encounter(block.text, "docs")
    _no_diags(diags, block.text)


# ---------------------------------------------------------------- (b) fragments


def wrap_fragment(text: str) -> str:
    return "rule docs_fragment():\n" + textwrap.indent(text, "  ", lambda ln: True)


@pytest.mark.parametrize("block", FRAGMENTS, ids=_ids(FRAGMENTS))
def test_fragment_parses_as_statements(block):
    text = wrap_fragment(block.text)
    decls, diags = build_rules(text, "docs")
    _no_diags(diags, text)
    assert len(decls) == 1 and decls[0].body, "the fragment gave no statement"


# ---------------------------------------------------------------- working editions


def write_files(root: Path) -> None:
    for b in FILES:
        path = root / b.file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(b.text, encoding="utf-8")


def edition_names(bs) -> list[str]:
    out = []
    for b in bs:
        out += re.findall(r"^edition (\w+):", b.text, re.M)
    return out


def run_encounter(text: str, root: Path, name="docs.enc"):
    sources = Sources({name: text})
    try:
        enc, diags = build_encounter(text, name)
        if diags:
            raise GrimorioError(diags)
        program = program_for(enc.edition, enc.edition_span, sources, roots=[root])
        outcome = Prepared(enc, program).run()
    except GrimorioError as exc:
        pytest.fail(render_all(exc.diagnostics, sources))
    failed = [f[0] if isinstance(f, tuple) else f for f in outcome.failed]
    assert not failed, "expectations failed:\n" + "\n".join(
        sources.line(e.span.file, e.span.line) or "?" for e in failed) + "\n" + render_text(outcome.engine)
    return outcome


@pytest.mark.slow
@pytest.mark.parametrize("edition", edition_names([b for b in RULES if b.file]))
def test_file_examples_form_editions_that_compile(tmp_path, edition):
    write_files(tmp_path)
    try:
        program_for(edition, roots=[tmp_path])
    except GrimorioError as exc:
        sources = Sources({b.file: b.text for b in FILES})
        pytest.fail(render_all(exc.diagnostics, sources))


ENC_FILES = [b for b in ENCOUNTERS if b.file]


@pytest.mark.slow
@pytest.mark.parametrize("block", ENC_FILES, ids=_ids(ENC_FILES))
def test_file_encounters_run_and_match_their_transcript(tmp_path, block):
    write_files(tmp_path)
    outcome = run_encounter(block.text, tmp_path, block.file)
    shown = [b for b in ALL if f"transcript of {block.file}" in b.marks]
    for b in shown:
        assert render_text(outcome.engine) == b.text


def test_every_transcript_names_an_encounter():
    named = {b.file for b in ENC_FILES}
    for b in ALL:
        for mark in b.marks:
            if mark.startswith("transcript of "):
                assert mark[len("transcript of "):] in named, f"line {b.line}: {mark}"


LAYERS = [b for b in RULES if not b.file and "build-only" not in b.marks
          and not re.search(r"^edition ", b.text, re.M)]


@pytest.mark.slow
@pytest.mark.parametrize("block", LAYERS, ids=_ids(LAYERS))
def test_rules_example_compiles_over_the_tutorial(tmp_path, block):
    write_files(tmp_path)
    layer = tmp_path / "docs_layer" / "layer.rules"
    layer.parent.mkdir()
    text = f"edition docs_layer:\n  extends {TUTORIAL}\n" + block.text
    layer.write_text(text, encoding="utf-8")
    try:
        program_for("docs_layer", roots=[tmp_path])
    except GrimorioError as exc:
        pytest.fail(render_all(exc.diagnostics, Sources({"docs_layer/layer.rules": text})))


RUNNABLE = [b for b in ENCOUNTERS if not b.file and "build-only" not in b.marks
            and re.search(rf"^edition {TUTORIAL}\s*$", b.text, re.M)]


@pytest.mark.slow
@pytest.mark.parametrize("block", RUNNABLE, ids=_ids(RUNNABLE))
def test_encounter_example_runs_on_the_tutorial(tmp_path, block):
    write_files(tmp_path)
    run_encounter(block.text, tmp_path)


# ---------------------------------------------------------------- completeness


def test_every_builtin_is_documented():
    text = LANGUAGE.read_text(encoding="utf-8")
    missing = [name for name in BUILTINS if f"`{name}(" not in text]
    assert not missing, f"builtins missing from docs/language.md: {missing}"


def test_every_keyword_of_the_grammar_appears_in_an_example():
    grammar = (ROOT / "dsl" / "syntax" / "grammar.lark").read_text(encoding="utf-8")
    grammar = "\n".join(ln.split("//")[0] for ln in grammar.splitlines())
    keywords = set(re.findall(r'"([a-z]+)"', grammar))
    code = "\n".join(b.text for b in ALL if b.lang.startswith("grimorio"))
    missing = sorted(k for k in keywords if not re.search(rf"\b{k}\b", code))
    assert not missing, f"keywords with no example in docs/language.md: {missing}"


# ---------------------------------------------------------------- (c) error codes


def codes_in_sources() -> set[str]:
    out = set()
    for folder in ("dsl", "interpreter"):
        for path in (ROOT / folder).rglob("*.py"):
            out |= set(re.findall(r"\bE\d{4}\b", path.read_text(encoding="utf-8")))
    return out


def codes_in_headings() -> list[str]:
    text = ERRORS.read_text(encoding="utf-8")
    return re.findall(r"^#{1,6}[^\n]*?\b(E\d{4})\b", text, re.M)


def test_every_error_code_has_a_heading_and_every_heading_a_code():
    used, documented = codes_in_sources(), codes_in_headings()
    assert used, "no codes found in the sources"
    assert sorted(used - set(documented)) == [], "codes with no heading in docs/errors.md"
    assert sorted(set(documented) - used) == [], "headings for codes the sources no longer use"
    assert len(documented) == len(set(documented)), "a code has two headings"


def test_every_error_code_has_an_example():
    text = ERRORS.read_text(encoding="utf-8")
    parts = re.split(r"^(#{1,6}[^\n]*?\bE\d{4}\b[^\n]*)$", text, flags=re.M)
    for heading, body in zip(parts[1::2], parts[2::2]):
        body = re.split(r"^#{1,6} ", body, flags=re.M)[0]
        assert "```" in body, f"no example under: {heading}"
