"""Whatever a user types or writes: exit code 2 and located diagnostics, never a traceback."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from grimorio.dsl.syntax.parser import lark_parser
from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
DUELO = ROOT / "rulesets" / "aquelarre" / "duelo.enc"

# Grammar terminal names must never reach a designer (outside quoted text).
TERMS = {t.name for t in lark_parser().terminals} | {"$END", "_INDENT", "_DEDENT"}
TERM_RE = re.compile(r"(?<![\w\"])(" + "|".join(re.escape(t) for t in sorted(TERMS, key=len, reverse=True))
                     + r")(?![\w\"])")


def assert_diagnostics(err: str):
    """Each diagnostic has a location (line and column from 1), its source line and a caret."""
    blocks = [b[b.index("error["):] for b in err.split("\n\n") if "error[" in b]
    assert blocks, err
    for b in blocks:
        lines = b.split("\n")
        loc = [ln for ln in lines if ln.startswith("  --> ")]
        assert loc, b
        m = re.search(r":(\d+):(\d+)$", loc[0])
        assert m and int(m.group(1)) >= 1 and int(m.group(2)) >= 1, b
        assert any(re.match(r"^\d+ \| ", ln) for ln in lines), b
        assert any(re.match(r"^ +\| +\^+$", ln) for ln in lines), b
        for ln in lines:
            if ln.startswith("error[") or ln.startswith("   = help"):
                assert not TERM_RE.search(re.sub(r'"[^"]*"', '""', ln)), ln


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def bad(capsys, *argv) -> str:
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert_diagnostics(err)
    return err


@pytest.fixture
def enc(tmp_path):
    def write(content, name="x.enc"):
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return str(path)
    return write


@pytest.mark.parametrize("command", ["run", "check"])
def test_missing_file(capsys, command):
    err = bad(capsys, command, "no/such/file.enc")
    assert 'there is no file "no/such/file.enc"' in err
    assert f"1 | grimorio {command} no/such/file.enc" in err


def test_a_directory_given_to_run(capsys, tmp_path):
    assert "is a folder, not a file" in bad(capsys, "run", str(tmp_path))


def test_a_folder_without_an_edition_given_to_check(capsys, tmp_path):
    assert "holds no edition" in bad(capsys, "check", str(tmp_path))


@pytest.mark.parametrize("command", ["run", "check"])
def test_empty_file(capsys, enc, command):
    assert "the encounter names no edition" in bad(capsys, command, enc(""))


@pytest.mark.parametrize("command", ["run", "check"])
def test_binary_file(capsys, enc, command):
    assert "is a binary file, not text" in bad(capsys, command, enc(b"\x7fELF\x02\x01\x00\x00" + bytes(range(256))))


@pytest.mark.parametrize("command", ["run", "check"])
def test_not_utf8(capsys, enc, command):
    err = bad(capsys, command, enc(b'encounter "Duelo en el camino"\nedition aquelarre\n# se\xf1or\n'))
    assert "is not UTF-8 text" in err and ":3:5" in err


def test_rules_file_not_utf8(capsys, tmp_path):
    (tmp_path / "x.rules").write_bytes(b"rule a():\n  return \xe9\n")
    assert ":2:10" in bad(capsys, "check", str(tmp_path / "x.rules"))


@pytest.mark.slow
def test_truncated_at_every_position(capsys, enc):
    text = DUELO.read_text(encoding="utf-8")
    for cut in range(len(text)):
        path = enc(text[:cut])
        for command in ("run", "check"):
            code, out, err = run(capsys, command, path)
            if code != 0:
                assert code == 2, (cut, err)
                assert_diagnostics(err)


@pytest.mark.parametrize("text", [
    "@@@ !!! ###\n$$ %%\n",
    "combatant\n:::\n  (((\n",
    "encounter encounter encounter\n",
    "\u200b\u00a0\x0b\x0c\n",
    "'hola'\n",
    "| a | b |\n",
    "rounds -3\nseed x\n",
])
def test_garbage(capsys, enc, text):
    bad(capsys, "check", enc(text))
    bad(capsys, "run", enc(text))


@pytest.mark.slow
def test_tabs_and_spaces_mixed(capsys, enc):
    text = DUELO.read_text(encoding="utf-8").replace("\n  ", "\n\t")
    assert run(capsys, "run", enc(text))[0] == 0            # indenting with tabs is fine
    text = text.replace("\n\tFUE 13", "\n  FUE 13")           # a tab counts 4 spaces: 2 match no block
    err = bad(capsys, "run", enc(text))
    assert "indentation matches no enclosing block" in err and "indent it by 0 or 4 spaces" in err


def test_unbalanced_parentheses(capsys, enc):
    err = bad(capsys, "check", enc('edition aquelarre\ndo:\n  let x = (1 + (2 * 3)\nexpect x == 7\n'))
    assert 'this "(" is never closed' in err and ":3:11" in err
    err = bad(capsys, "check", enc("edition aquelarre\ndo:\n  let x = 1 + 2)\n"))
    assert 'unexpected ")"' in err
    err = bad(capsys, "check", enc("edition aquelarre\ndo:\n  let x = [1, (2\n  let y = 3\n"))
    assert 'this "(" is never closed' in err and "line 4 cannot go on inside it" in err


@pytest.mark.parametrize("text, value", [
    ("[1,\n    2,\n  ]", "[1, 2]"),
    ("[1, 2,]", "[1, 2]"),
    ("{a: 1,\n  }", "{a: 1}"),
    ("max(1,\n    4,\n  )", "4"),
], ids=["a list", "a list on one line", "a record", "a call's arguments"])
def test_a_comma_before_the_closing_bracket_on_its_own_line(run, text, value):
    """It was E0104 "this [ is never closed" at the opening bracket, though it closes."""
    run(f"edition arena\ncombatant Kira:\n  side red\n  might 0, agility 0, skill 0\n"
        f"do:\n  let x = {text}\n  expect x == {value}\n")


def test_a_closing_bracket_at_the_margin_closes_it():
    from grimorio.dsl.syntax.builder import build_rules
    for text in ("var x = [1,\n]\n", "rule f(c):\n  let x = [1,\n    2,\n]\n  return x\n"):
        decls, diags = build_rules(text, "x.rules")
        assert diags == [] and len(decls) == 1, diags


def test_a_mistake_inside_brackets_that_close_is_shown_where_it_is():
    """Not "never closed" at the opening bracket: the bracket closes, the mistake is further in."""
    from grimorio.dsl.syntax.builder import build_rules
    (d,) = build_rules("rule f(c):\n  let x = [1,\n    ,]\n  return x\n", "x.rules")[1]
    assert (d.code, d.message, d.span.line, d.span.col) == ("E0101", 'unexpected ","', 3, 5), d


def test_a_comma_with_nothing_before_it_is_still_refused():
    from grimorio.dsl.syntax.builder import build_rules
    for text in ("rule f(c):\n  return [,]\n", "rule f(c):\n  return [1,,]\n", "rule f(c):\n  return g(,)\n"):
        (d,) = build_rules(text, "x.rules")[1]
        assert d.code == "E0101" and 'unexpected ","' in d.message, d


def test_rules_with_unbalanced_brackets(capsys, tmp_path):
    (tmp_path / "x.rules").write_text("rule a(b:\n  return b\n\nrule c():\n  return [1, 2\n", encoding="utf-8")
    err = bad(capsys, "check", str(tmp_path / "x.rules"))
    assert "2 errors" in err                                   # each declaration reports its own


def test_bad_indentation(capsys, enc):
    text = DUELO.read_text(encoding="utf-8").replace("\n  FUE 14", "\n   FUE 14")
    err = bad(capsys, "run", enc(text))
    assert "help: line it up with the block it belongs to: indent it by 0 or 2 spaces" in err \
        or "unexpected indentation" in err


def test_first_line_indented(capsys, enc):
    assert "nothing above it opens a block" in bad(capsys, "check", enc("  edition aquelarre\n"))


@pytest.mark.parametrize("command", ["run", "check"])
def test_unknown_edition_in_the_file(capsys, enc, command):
    err = bad(capsys, command, enc(DUELO.read_text(encoding="utf-8").replace("edition aquelarre", "edition aquelare")))
    assert 'there is no edition "aquelare"' in err and 'did you mean "aquelarre"?' in err


def test_unknown_edition_on_the_command_line(capsys):
    err = bad(capsys, "run", str(DUELO), "--edition", "nada")
    assert 'there is no edition "nada"' in err and "<command line>:1:" in err


@pytest.mark.parametrize("args, words", [
    (["--seed", "siete"], "invalid int value: 'siete'"),
    (["--seed"], "expected one argument"),
    (["--set", "regla_dj"], '"--set regla_dj" needs a name, "=" and a value'),
    (["--set", "nada=3"], 'there is no option "nada"'),
    (["--format", "xml"], "invalid choice: 'xml'"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_bad_command_line_values(capsys, args, words):
    err = bad(capsys, "run", str(DUELO), *args)
    assert words in err


def test_unknown_command(capsys):
    assert "invalid choice: 'rn'" in bad(capsys, "rn", str(DUELO))


def test_no_path_to_check(capsys):
    assert "the following arguments are required" in bad(capsys, "check")


def test_a_binary_file_nobody_named_is_located_at_its_first_nul(tmp_path):
    # Regression (the mutation fuzz): read without an include or an argument naming it (an
    # edition's entry file loaded by the API), a binary file's E0001 had no line at all.
    from grimorio.dsl.diagnostics import GrimorioError, Sources
    from grimorio.dsl.source import read_text
    path = tmp_path / "e.rules"
    path.write_bytes(b"edition x:\n  ti\x00tle\n")
    sources = Sources()
    with pytest.raises(GrimorioError) as exc:
        read_text(path, sources=sources)
    d = exc.value.diagnostics[0]
    assert (d.code, d.span.line, d.span.col) == ("E0001", 2, 5)
    assert "\u2400" in sources.texts[str(path)]


def test_check_finds_an_encounters_edition_in_the_rules_folders(capsys, tmp_path):
    """An edition reachable only through --rules is found by check as by run; its mistakes are reported."""
    from tests.test_checker import write_edition
    (tmp_path / "lib").mkdir()
    write_edition(tmp_path / "lib", "sheet ficha:\n  FUE: int 1..20\n", name="lejana")
    (tmp_path / "aqui" / "escenas").mkdir(parents=True)
    good = tmp_path / "aqui" / "escenas" / "bien.enc"
    good.write_text("edition lejana\ncombatant Ana:\n  FUE 3\n", encoding="utf-8")
    wrong = tmp_path / "aqui" / "escenas" / "mal.enc"
    wrong.write_text("edition lejana\ncombatant Ana:\n  FUE 3, AGI 2\n", encoding="utf-8")
    assert 'no edition "lejana"' in bad(capsys, "check", str(good))
    assert run(capsys, "check", str(good), "--rules", str(tmp_path / "lib"))[:2] == (0, "ok\n")
    assert run(capsys, "run", str(good), "--rules", str(tmp_path / "lib"))[0] == 0
    err = bad(capsys, "check", str(wrong), "--rules", str(tmp_path / "lib"))
    assert 'the sheet has no field "AGI"' in err and "mal.enc:3:10" in err
    assert "is not a folder" in bad(capsys, "check", str(good), "--rules", str(tmp_path / "nada"))
