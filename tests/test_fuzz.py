"""Fuzzing: mutated rule files and encounters, and text made of the language's
own words. Whatever the text, loading, checking, compiling and running raise
only GrimorioError, and every diagnostic renders with its location.

Profiles (environment variable GRIMORIO_FUZZ): "default", a few seconds, with
fixed examples so every run of the suite tries the same texts; "long", many
more random examples for deep fuzzing (GRIMORIO_FUZZ=long pytest -m slow tests/test_fuzz*.py:
the fuzzers are in the slow profile, README "Tests").
GRIMORIO_FUZZ_EXAMPLES=N sets the number of examples of either.
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grimorio.dsl.editions import files as loader
from grimorio.dsl.syntax.builder import build_encounter, build_rules
from grimorio.dsl.diagnostics import Span, GrimorioError, Sources, render
from grimorio.dsl.editions.loader import load_entry, load_house
from grimorio.interpreter.compile.compiler import compile_checked
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for
from tests.temp_guard import scratch

pytestmark = pytest.mark.slow      # each example loads, checks and compiles an edition (tests/conftest.py)

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ROOT / "rulesets"
MODULE_USERS = {"estados": "yokai"}      # a module's files are fuzzed through an edition that includes it
RULE_FILES = sorted(p for p in RULESETS.glob("*/*.rules")
                    if (p.parent / "edicion.rules").exists() or p.parent.name in MODULE_USERS)
HOUSE_FILES = sorted((RULESETS / "casa").glob("*.rules"))
DUELO = (RULESETS / "aquelarre" / "duelo.enc").read_text(encoding="utf-8")
LONG = os.environ.get("GRIMORIO_FUZZ", "default") == "long"


def fuzz_settings(default: int, long: int, **extra):
    """Hypothesis settings of the profile chosen by GRIMORIO_FUZZ."""
    examples = int(os.environ.get("GRIMORIO_FUZZ_EXAMPLES", long if LONG else default))
    return settings(max_examples=examples, deadline=None, derandomize=not LONG and "GRIMORIO_FUZZ_EXAMPLES" not in os.environ,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], **extra)


FUZZ = fuzz_settings(200, 5000)
EDITION_FUZZ = fuzz_settings(150, 2000)       # each example loads, checks and compiles a whole edition

WORDS = ("edition module expects extends include title description option var sheet int percent bool text list outcomes "
         "condition grades on receive table by check rolls message event rule action reaction to requires cost "
         "round step until finally tactic act react when let set say return add remove append pass stop if elif "
         "else for group in ordered desc while decide first all or and not roll as emit maximum true false none "
         "any encounter seed rounds combatant holds dice strict do expect it yo c pv FUE AGI Esquivar arma "
         "armas localización resultado éxito fallo Leve Grave Heridas ataque atacar en_pie combatants has "
         "floor min max len said refused format with choose held dice keep_highest range slice without").split()
PUNCT = list(":,.=<>+-*/%()[]{}|;\"#") + ["..", "==", ">=", "<=", "!=", "| 1 | a |", "|---|", '"t"']
NUMBERS = ["0", "1", "7", "10", "99999999999999999999", "50%", "1D10", "d100", "2d6", "1D0", "0d6"]
LAYOUT = [" ", " ", " ", "\n", "\n  ", "\n    ", "\n\t", ":\n  "]
TOKEN = st.sampled_from(WORDS + PUNCT + NUMBERS + LAYOUT)
CHAR = st.sampled_from(list("aé_Z09 :|()[]{},.=<>+-*/%\"#'\t\n") + ["\n  ", "\x00", "\u200b", "\r"])


def assert_located(diags, sources: Sources):
    assert diags
    for d in diags:
        text = render(d, sources)
        assert d.span.line >= 1 and d.span.col >= 1, text
        assert "-->" in text and re.search(r"^ +\| +\^+$", text, re.M), text
        assert not re.search(r"\b(LPAR|RPAR|_NL|\$END|__ANON_\d|_INDENT|_DEDENT)\b", text), text


@st.composite
def mutated(draw, text: str) -> str:
    for _ in range(draw(st.integers(1, 4))):
        lines = text.split("\n")
        op = draw(st.sampled_from(["del", "ins", "rep", "del_line", "dup_line", "ins_line", "cut", "indent"]))
        i = draw(st.integers(0, max(0, len(text) - 1)))
        j = draw(st.integers(0, max(0, len(lines) - 1)))
        if op == "del":
            text = text[:i] + text[i + 1:]
        elif op == "ins":
            text = text[:i] + draw(CHAR | TOKEN) + text[i:]
        elif op == "rep":
            text = text[:i] + draw(CHAR | TOKEN) + text[i + 1:]
        elif op == "del_line":
            text = "\n".join(lines[:j] + lines[j + 1:])
        elif op == "dup_line":
            text = "\n".join(lines[:j] + [lines[draw(st.integers(0, len(lines) - 1))]] + lines[j:])
        elif op == "ins_line":
            made = "".join(draw(st.lists(TOKEN, max_size=8)))
            text = "\n".join(lines[:j] + [made] + lines[j:])
        elif op == "cut":
            text = text[:i]
        else:
            lines[j] = draw(st.sampled_from(["", " ", "   ", "\t"])) + lines[j].lstrip()
            text = "\n".join(lines)
    return text


@functools.lru_cache(maxsize=512)
def _built(text: str, file: str):
    decls, diags = build_rules(text, file)
    return tuple(decls), tuple(diags)


def cached_build_rules(text: str, file: str):
    """build_rules, remembered by text and file: an edition's unchanged files are parsed once.
    The declarations are frozen, so sharing them between examples is safe."""
    decls, diags = _built(text, file)
    return list(decls), list(diags)


WORK = scratch("grimorio-fuzz-")      # one place, so unchanged files keep their names; removed after the session


def check_edition(folder_of: Path, name: str, text: str):
    """In a copy of an edition folder, replace one file with `text`, then load, check and compile it."""
    folder = WORK / folder_of.name
    if not folder.is_dir():
        shutil.copytree(folder_of, folder)
    target = folder / name
    target.write_text(text, encoding="utf-8")
    user = MODULE_USERS.get(folder_of.name)
    if user and not (WORK / user).is_dir():
        shutil.copytree(RULESETS / user, WORK / user)
    entry = WORK / (user or folder.name) / "edicion.rules"     # the entry file of both bundled editions
    sources = Sources()
    try:
        with mock.patch.object(loader, "build_rules", cached_build_rules):
            compile_checked(load_entry(entry, [WORK, RULESETS], sources))
    except GrimorioError as exc:
        assert_located(exc.diagnostics, sources)
    finally:
        shutil.copyfile(folder_of / name, target)


def run_encounter(text: str):
    sources = Sources({"fuzz.enc": text})
    try:
        enc, diags = build_encounter(text, "fuzz.enc")
        if diags:
            raise GrimorioError(diags)
        if enc.edition is None:
            return
        program = program_for(enc.edition, enc.edition_span, sources)
        Prepared(enc, program).run(max_rounds=30)
    except GrimorioError as exc:
        assert_located(exc.diagnostics, sources)


@EDITION_FUZZ
@given(st.data())
def test_mutated_rule_files(data):
    path = data.draw(st.sampled_from(RULE_FILES))
    text = data.draw(mutated(path.read_text(encoding="utf-8")))
    check_edition(path.parent, path.name, text)


def check_house(text: str):
    """Layer `text` as a house-rule file over aquelarre, then check and compile."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "casa.rules"
        path.write_text(text, encoding="utf-8")
        line = f"grimorio run x.enc --house {path}"          # named on a command line, as the CLI does
        sources = Sources({"<command line>": line})
        at = Span("<command line>", 1, line.index("--house") + 9, 1, len(line) + 1)
        try:
            with mock.patch.object(loader, "build_rules", cached_build_rules):     # aquelarre's files parsed once
                rs = load_entry(RULESETS / "aquelarre" / "edicion.rules", [RULESETS], sources)
                load_house(rs, path, at)
            compile_checked(rs)
        except GrimorioError as exc:
            assert_located(exc.diagnostics, sources)


@FUZZ
@given(st.data())
def test_mutated_house_rule_files(data):
    path = data.draw(st.sampled_from(HOUSE_FILES))
    check_house(data.draw(mutated(path.read_text(encoding="utf-8"))))


@FUZZ
@given(mutated(DUELO))
def test_mutated_encounters(text):
    run_encounter(text)


@EDITION_FUZZ
@given(st.lists(TOKEN, max_size=60).map("".join))
def test_rules_made_of_the_languages_words(text):
    # In the small frozen copy of the Aquelarre rules: every example parses the
    # edition's other files again, and the bundled ruleset has grown fourfold.
    check_edition(ROOT / "benchmarks" / "duelo_referencia", "tacticas.rules", text)


@FUZZ
@given(st.lists(TOKEN, max_size=60).map("".join), st.booleans())
def test_encounters_made_of_the_languages_words(text, with_edition):
    run_encounter(("edition aquelarre\n" if with_edition else "") + text)
