"""`grimorio fmt`: the canonical layout keeps every file's meaning, is idempotent,
and the bundled rulesets and the documentation's examples are kept in it."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grimorio.dsl.syntax.builder import build_rules
from grimorio.interpreter.tools.formatter import display_width, format_source, format_text, shape
from grimorio.interpreter.tools.cli import main

from .test_docs import LANGUAGE, blocks
from .test_fuzz import TOKEN, fuzz_settings, mutated

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted((ROOT / "rulesets").rglob("*.rules")) + sorted((ROOT / "rulesets").rglob("*.enc")) \
    + sorted((ROOT / "tests" / "scenarios").glob("*.enc"))
# Each example builds a file three times: few by default, many with GRIMORIO_FUZZ=long.
PROPERTY = fuzz_settings(25, 1000)


def assert_keeps_meaning(text: str, file: str) -> str | None:
    """If the text builds cleanly, it formats (format_source has checked that the tree is the same,
    test_a_change_of_meaning_is_refused shows it) to a text that formats to itself."""
    out, diags = format_source(text, file)
    if out is None:
        assert diags and all(d.code != "E0020" for d in diags), diags
        return None
    assert format_text(out) == out
    return out


# ------------------------------------------------------------------ the bundled files
@pytest.mark.slow
@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: str(p.relative_to(ROOT)))
def test_bundled_files_are_formatted(path):
    text = path.read_text(encoding="utf-8")
    assert assert_keeps_meaning(text, path.name) == text, f"run: grimorio fmt {path.relative_to(ROOT)}"


@pytest.mark.slow
def test_fmt_check_passes_on_the_rulesets(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    start = time.perf_counter()
    assert main(["fmt", "--check", "rulesets", "tests/scenarios"]) == 0
    elapsed = time.perf_counter() - start
    out = capsys.readouterr().out
    assert re.search(r"^0 files would reformat, (\d+) already formatted$", out, re.M).group(1) == str(len(BUNDLED))
    assert elapsed < 20


@pytest.mark.slow
def test_documentation_examples_are_formatted():
    for b in blocks(LANGUAGE):
        if b.lang in ("grimorio", "grimorio-encounter"):
            file = "x.enc" if b.lang == "grimorio-encounter" else "x.rules"
            assert assert_keeps_meaning(b.text, file) == b.text, f"docs/language.md:{b.line} is not formatted"


# ------------------------------------------------------------------ layout
TABLE = """\
table armas:
    |nombre|daño|  para |
    |-|-|-|
    |   Daga | 2D3 |yes|
    # a comment between rows stays
    | Espada de mano|1D8+1| yes |
"""


def test_tables_line_up_and_indentation_is_two_spaces():
    assert format_text(TABLE) == """\
table armas:
  | nombre         | daño  | para |
  |----------------|-------|------|
  | Daga           | 2D3   | yes  |
  # a comment between rows stays
  | Espada de mano | 1D8+1 | yes  |
"""


def test_wide_and_accented_characters_count_by_display_width():
    assert display_width("ámbito") == 6                    # one precomposed letter
    assert display_width("a\u0301mbito") == 6              # a combining accent takes no column
    assert display_width("妖怪") == 4                        # wide characters take two
    text = "table t:\n  | k | v |\n  | 妖怪 | 1 |\n  | a\u0301 | 2 |\n  | ab | 3 |\n"
    assert format_text(text) == "table t:\n  | k    | v |\n  | 妖怪 | 1 |\n  | a\u0301    | 2 |\n  | ab   | 3 |\n"


def test_comments_keep_their_place_and_take_the_level_of_their_block():
    text = ("# top\nrule r(x):   # trailing comment\n"
            "     # before the first statement\n     if x:\n         # deep\n         return 1\n"
            "       # end of the if block, between levels: rounds down\n     return 2\n\n\n\n"
            "# after, at the margin\nrule s():\n   pass   \n")
    assert format_text(text) == ("# top\nrule r(x):   # trailing comment\n"
                                 "  # before the first statement\n  if x:\n    # deep\n    return 1\n"
                                 "  # end of the if block, between levels: rounds down\n  return 2\n\n"
                                 "# after, at the margin\nrule s():\n  pass\n")
    assert_keeps_meaning(text, "x.rules")


def test_lines_inside_brackets_move_with_the_line_that_opens_them():
    text = "rule r(x):\n    return max(x,\n               3)\n"
    assert format_text(text) == "rule r(x):\n  return max(x,\n             3)\n"
    assert_keeps_meaning(text, "x.rules")


def test_a_closing_bracket_on_its_own_line_stays_under_the_line_that_opens_it():
    text = "rule r(x):\n    let y = [x,\n        3,\n    ]\n    return y\n"
    assert format_text(text) == "rule r(x):\n  let y = [x,\n      3,\n  ]\n  return y\n"
    assert_keeps_meaning(text, "x.rules")
    assert format_text("var v = [1,\n]\n") == "var v = [1,\n]\n"


def test_tabs_count_as_the_parser_counts_them():
    text = "rule r(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n"
    assert format_text(text) == "rule r(x):\n  if x:\n    return 1\n  return 2\n"
    assert_keeps_meaning(text, "x.rules")


def test_a_tactics_choose_line_and_its_patch_print_back():
    text = ("tactic t:\n    act: esperar\n    choose(yo):  highest max(it.FUE,\n"
            "                             it.AGI) when it != yo, lowest it.suerte\n      # the last resort\n"
            "    choose: lowest 1\n\n\nreplace choose of tactic t: lowest it.FUE\n")
    out = assert_keeps_meaning(text, "x.rules")
    assert out == ("tactic t:\n  act: esperar\n  choose(yo):  highest max(it.FUE,\n"
                   "                           it.AGI) when it != yo, lowest it.suerte\n  # the last resort\n"
                   "  choose: lowest 1\n\nreplace choose of tactic t: lowest it.FUE\n")


def test_a_pipe_inside_quotes_is_text_not_a_column():
    text = 'table t:\n  | k | v |\n  | a | "x | y" |\n'
    assert format_text(text) == 'table t:\n  | k | v       |\n  | a | "x | y" |\n'
    assert_keeps_meaning(text, "x.rules")


def test_line_ends():
    assert format_text("rule r():\r\n    pass\r\n") == "rule r():\n  pass\n"
    # A lone carriage return is not a line end for the parser: inside a comment it stays (found by hypothesis).
    text = "#\r comment\nrule r():\n    pass\n"
    assert assert_keeps_meaning(text, "x.rules") == "#\r comment\nrule r():\n  pass\n"


def test_a_file_with_errors_is_not_formatted():
    out, diags = format_source("rule r(:\n  pass\n", "x.rules")
    assert out is None and [d.code for d in diags] == ["E0101"]


def test_a_change_of_meaning_is_refused(monkeypatch):
    from grimorio.interpreter.tools import formatter
    monkeypatch.setattr(formatter, "format_text", lambda text: text.replace("1", "2"))
    assert format_source("rule r(x):\n  return x + 1\n", "x.rules")[1][0].code == "E0020"
    monkeypatch.setattr(formatter, "format_text", lambda text: text.replace("(x)", "(x"))
    assert format_source("rule r(x):\n  return x + 1\n", "x.rules")[1][0].code == "E0020"


def test_spans_are_not_part_of_the_shape():
    a, _ = build_rules("rule r(x):\n  return x + 1\n", "a.rules")
    b, _ = build_rules("\n\nrule r(x):\n      return x   +   1\n", "b.rules")
    c, _ = build_rules("rule r(x):\n  return x + 2\n", "a.rules")
    assert shape(a) == shape(b) != shape(c)


# ------------------------------------------------------------------ properties
@st.composite
def relaid(draw, text: str) -> str:
    """A formatted file laid out differently without changing its meaning: other indentation
    widths per level, spaces around cells, separator widths, trailing spaces, more blank lines."""
    steps = draw(st.lists(st.integers(1, 5), min_size=8, max_size=8))
    tabs = draw(st.booleans())
    out = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        level = (len(line) - len(body)) // 2
        lead = "\t" * level if tabs else " " * sum(steps[:level])
        if body.startswith("|"):
            cells = re.split(r"\|(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", body)[1:-1]
            pad = st.sampled_from(["", " ", "   "])
            body = "|" + "|".join(draw(pad) + c.strip() + draw(pad) for c in cells) + "|"
        out.append(lead + body + draw(st.sampled_from(["", "", " ", "  "])))
        if not body and draw(st.integers(0, 3)) == 0:
            out.append(draw(st.sampled_from(["", "   "])))
    return "\n".join(out)


@pytest.mark.slow
@PROPERTY
@given(st.data())
def test_any_layout_of_a_bundled_file_formats_back_to_it(data):
    path = data.draw(st.sampled_from(BUNDLED))
    text = path.read_text(encoding="utf-8")
    messy = data.draw(relaid(text))
    assert format_source(messy, path.name) == (text, [])


@pytest.mark.slow
@PROPERTY
@given(st.data())
def test_formatting_mutated_files_keeps_their_meaning(data):
    path = data.draw(st.sampled_from(BUNDLED))
    text = data.draw(mutated(data.draw(relaid(path.read_text(encoding="utf-8")))))
    assert_keeps_meaning(text, path.name)


@pytest.mark.slow
@PROPERTY
@given(st.lists(TOKEN, max_size=60).map("".join), st.sampled_from(["x.rules", "x.enc"]))
def test_formatting_text_made_of_the_languages_words_keeps_its_meaning(text, file):
    assert_keeps_meaning(text, file)


# ------------------------------------------------------------------ the command
def test_fmt_rewrites_check_lists_and_errors_are_never_rewritten(tmp_path, capsys):
    messy = tmp_path / "casa.rules"
    messy.write_text(TABLE, encoding="utf-8")
    broken = tmp_path / "roto.enc"
    broken.write_text("combatant :\n", encoding="utf-8")
    clean = tmp_path / "sub" / "bien.rules"
    clean.parent.mkdir()
    clean.write_text("rule r():\n  pass\n", encoding="utf-8")
    os.chmod(messy, 0o640)

    assert main(["fmt", "--check", str(tmp_path)]) == 2          # the broken file wins
    out, err = capsys.readouterr()
    assert f"would reformat {messy}" in out and "bien.rules" not in out and "error[E0101]" in err
    assert messy.read_text(encoding="utf-8") == TABLE

    broken.unlink()
    assert main(["fmt", "--check", str(tmp_path)]) == 1
    assert main(["fmt", str(tmp_path)]) == 0
    out, _ = capsys.readouterr()
    assert f"reformatted {messy}" in out and "1 file reformatted, 1 already formatted" in out
    assert messy.read_text(encoding="utf-8") == format_text(TABLE)
    assert oct(messy.stat().st_mode & 0o777) == oct(0o640)            # the file keeps its permissions
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["bien.rules", "casa.rules", "sub"]   # no temp left
    assert main(["fmt", "--check", str(tmp_path)]) == 0


def test_fmt_writes_through_a_link_and_refuses_other_files(tmp_path, capsys):
    real = tmp_path / "real.rules"
    real.write_text("rule r():\n      pass\n", encoding="utf-8")
    link = tmp_path / "link.rules"
    link.symlink_to(real)
    assert main(["fmt", str(link)]) == 0
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "rule r():\n  pass\n"
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    assert main(["fmt", str(tmp_path / "notes.txt")]) == 2
    assert "error[E0023]" in capsys.readouterr().err


def test_fmt_leaves_a_file_that_changed_meanwhile(tmp_path, monkeypatch, capsys):
    from grimorio.interpreter.tools import formatting
    path = tmp_path / "casa.rules"
    path.write_text(TABLE, encoding="utf-8")
    real = formatting.format_source

    def format_then_someone_saves(text, file):
        result = real(text, file)
        path.write_text(TABLE + "\n# saved by an editor\n", encoding="utf-8")
        return result
    monkeypatch.setattr(formatting, "format_source", format_then_someone_saves)
    assert main(["fmt", str(path)]) == 2
    assert "error[E0021]" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8").endswith("# saved by an editor\n")
