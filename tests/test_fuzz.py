"""Fuzzing: mutated rule files and encounters, and text made of the language's
own words. Whatever the text, loading, checking, compiling and running raise
only GrimorioError, and every diagnostic renders with its location."""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grimorio.dsl.builder import build_encounter
from grimorio.dsl.diagnostics import GrimorioError, Sources, render
from grimorio.dsl.loader import load_entry
from grimorio.interpreter.compiler import compile_checked
from grimorio.interpreter.encounter import Prepared, program_for

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ROOT / "rulesets"
RULE_FILES = sorted(RULESETS.glob("*/*.rules"))
DUELO = (RULESETS / "aquelarre" / "duelo.enc").read_text(encoding="utf-8")
EXAMPLES = int(os.environ.get("GRIMORIO_FUZZ_EXAMPLES", "200"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize="GRIMORIO_FUZZ_EXAMPLES" not in os.environ,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

WORDS = ("edition extends include title description option var sheet int percent bool text list outcomes "
         "condition grades on receive table by check rolls message event rule action reaction to requires cost "
         "round step until finally tactic act react when let set say return add remove append pass stop if elif "
         "else for group in ordered desc while decide first all or and not roll as emit maximum true false none "
         "any encounter seed rounds combatant holds dice strict do expect it yo c pv FUE AGI Esquivar arma "
         "armas localización resultado éxito fallo Leve Grave Heridas ataque atacar en_pie combatants has "
         "floor min max len").split()
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


def check_edition(folder_of: Path, name: str, text: str):
    """Copy an edition folder, replace one file with `text`, then load, check and compile it."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / folder_of.name
        shutil.copytree(folder_of, folder)
        (folder / name).write_text(text, encoding="utf-8")
        entry = folder / "edicion.rules"          # the entry file of both bundled editions
        sources = Sources()
        try:
            compile_checked(load_entry(entry, [Path(tmp), RULESETS], sources))
        except GrimorioError as exc:
            assert_located(exc.diagnostics, sources)


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


@FUZZ
@given(st.data())
def test_mutated_rule_files(data):
    path = data.draw(st.sampled_from(RULE_FILES))
    text = data.draw(mutated(path.read_text(encoding="utf-8")))
    check_edition(path.parent, path.name, text)


@FUZZ
@given(mutated(DUELO))
def test_mutated_encounters(text):
    run_encounter(text)


@FUZZ
@given(st.lists(TOKEN, max_size=60).map("".join))
def test_rules_made_of_the_languages_words(text):
    # In the small frozen copy of the Aquelarre rules: every example parses the
    # edition's other files again, and the bundled ruleset has grown fourfold.
    check_edition(ROOT / "benchmarks" / "duelo_referencia", "tacticas.rules", text)


@FUZZ
@given(st.lists(TOKEN, max_size=60).map("".join), st.booleans())
def test_encounters_made_of_the_languages_words(text, with_edition):
    run_encounter(("edition aquelarre\n" if with_edition else "") + text)
