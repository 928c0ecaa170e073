"""A refusal grimorio reports is one it found itself, typed: never read from the text of a Python
exception (issue 19). A number too long for this Python to write in digits is found by looking at the
number (E0110); any other ValueError, whatever its text says, is a bug in grimorio (E0003)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from grimorio.dsl.bounds import TooLongToShow
from grimorio.interpreter.run.values import digit_count, json_text
from grimorio.interpreter.tools import cli

from tests.test_checker import write_edition

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def few_digits():
    """This Python writes whole numbers of at most 640 digits, as PYTHONINTMAXSTRDIGITS=640 makes it."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    yield
    sys.set_int_max_str_digits(limit)


def test_json_with_a_number_past_the_digits_python_writes_is_a_typed_refusal(few_digits):
    with pytest.raises(TooLongToShow):
        json_text({"a": [1, {"b": 10 ** 700}]})
    assert json_text({"a": [1, 10 ** 600]}).startswith('{"a": [1, 1000')


def test_a_number_counts_its_digits_without_writing_them():
    for v in (0, 9, 10, -99, 100, 10 ** 50 - 1, 10 ** 50, -(10 ** 903)):
        assert digit_count(v) == len(str(abs(v)))


def test_a_jsonl_transcript_of_a_number_too_long_for_python_is_E0110(tmp_path, capsys, few_digits):
    write_edition(tmp_path, 'sheet ficha:\n  FUE: int 1..20 = 10\n\nmessage grande(x) "es {x}"\n\n'
                            f"rule crece():\n  return 1{'0' * 600} * 1{'0' * 303}\n")
    enc = tmp_path / "x.enc"
    enc.write_text("edition prueba\ncombatant Ana:\n  FUE 3\ndo:\n  say grande(crece())\n", encoding="utf-8")
    assert cli.main(["run", "--rules", str(tmp_path), "--quiet", str(enc)]) == 0
    assert "es (a number of 904 digits)" in capsys.readouterr().out          # the text transcript: in words
    assert cli.main(["run", "--rules", str(tmp_path), "--format", "jsonl", "--quiet", str(enc)]) == 2
    err = capsys.readouterr().err
    assert "error[E0110]" in err and "more than 640 digits" in err and "E0003" not in err, err


def test_a_value_error_is_a_bug_whatever_its_text_says(monkeypatch, capsys):
    # The command line once decided E0110 by reading "integer string conversion" in any ValueError.
    def fails(args, sources, cl):
        raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")
    monkeypatch.setitem(cli.COMMANDS, "editions", fails)
    assert cli.main(["editions"]) == 2
    err = capsys.readouterr().err
    assert "error[E0003]" in err and "E0110" not in err, err


# A condition on an exception's text: `"..." in str(exc)`, `str(exc).startswith(...)`, a regex over it.
EXC = r"(?:str\((?:exc|err|error|ex|e)\)|(?:exc|err|error|ex|e)\.(?:args\[0\]|message|msg))"
READS_A_MESSAGE = re.compile(rf"""["'][^"'\n]*["']\s+(?:not\s+)?in\s+{EXC}|{EXC}\s*(?:==|!=|\.(?:startswith|endswith|find|index))|re\.\w+\([^\n]*{EXC}""")


def test_no_module_decides_by_the_text_of_an_exception():
    found = [f"{p.relative_to(ROOT)}:{i}" for folder in ("dsl", "interpreter") for p in sorted((ROOT / folder).rglob("*.py"))
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if READS_A_MESSAGE.search(line)]
    assert found == []


@pytest.mark.parametrize("argv, at", [
    (["run", "--seed", "abc", "x.enc"], "abc"),                 # a value of the wrong type
    (["run", "--format", "xml", "x.enc"], "xml"),               # not one of the choices
    (["rn", "x.enc"], "rn"),                                    # no such command
    (["run", "x.enc", "--nope"], "--nope"),                     # an argument no command takes
])
def test_a_bad_command_line_is_shown_at_the_argument_the_parser_refused(capsys, argv, at):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if x.startswith("1 | grimorio"))
    marks = next(x for x in err.splitlines() if x.lstrip(" |").startswith("^"))
    col = line.index(at)
    assert "error[E0002]" in err and marks[col] == "^" and marks[col - 1] == " ", err
