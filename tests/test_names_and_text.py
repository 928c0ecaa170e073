"""Names and text (issue 6, build 6): control characters echoed escaped, one cell per quoted text,
numbers of any length accepted or refused at their place, duplicate editions named at both places."""
from __future__ import annotations

from pathlib import Path

import pytest

from grimorio.dsl.syntax.builder import build_rules
from grimorio.dsl.diagnostics import Diagnostic, Sources, Span, escape, render
from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "rulesets" / "aquelarre" / "duelo.enc"
NASTY = "\x1b]0;pwned\x07\x1b[31m\x9b\u202e"


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "E0003" not in out.err, out.err
    return code, out.out, out.err


def _no_controls(text: str) -> None:
    assert not any(ch in text for ch in "\x1b\x07\x9b\u202e"), repr(text)


def test_escape_shows_every_control_character():
    assert escape("a\x1bb\x07c\x9bd\x7fe\u202ef\ng") == "a\\x1bb\\x07c\\x9bd\\x7fe\\u202ef\ng"
    shown = render(Diagnostic("E0001", f'there is no file "{NASTY}"', Span(NASTY, 1, 1), f"help {NASTY}"),
                   Sources({NASTY: f"x{NASTY}y"}))
    _no_controls(shown)
    assert "\\x1b]0;pwned\\x07" in shown


def test_a_file_name_with_controls_is_escaped(capsys, tmp_path):
    code, _, err = _run(capsys, "run", tmp_path / f"duelo{NASTY}.enc")
    assert code == 2 and "error[E0001]" in err
    _no_controls(err)


def test_a_command_line_value_with_controls_is_escaped(capsys):
    code, _, err = _run(capsys, "run", DUEL, "--set", f"opcion{NASTY}=1")
    assert code == 2
    _no_controls(err)
    code, _, err = _run(capsys, "run", DUEL, "--seed", f"7{NASTY}")
    assert code == 2 and "error[E0002]" in err
    _no_controls(err)


def test_a_quoted_text_with_an_escaped_quote_or_a_bar_is_one_cell():
    decls, diags = build_rules('table t:\n  | clave | texto |\n  | a | "x\\"y" |\n  | b | "z|w" |\n', "t.rules")
    assert not diags
    (table,) = decls
    assert [[c.value for c in row] for row in table.rows] == [["a", 'x"y'], ["b", "z|w"]]


@pytest.mark.parametrize("value", ["9" * 4000, "-" + "9" * 4000])
def test_long_numbers_up_to_the_limit_are_accepted_and_shown(capsys, value):
    code, out, err = _run(capsys, "run", DUEL, "--set", f"inexistente={value}")
    assert code == 2 and "error[E0201]" in err         # the option is unknown: the number itself was accepted


def test_a_set_number_over_the_limit_is_refused_at_its_place(capsys):
    code, _, err = _run(capsys, "run", DUEL, "--set", "x=" + "9" * 5000)
    assert code == 2 and "error[E0109]: this number has 5000 digits" in err and "<command line>:1:" in err
    assert "numbers hold at most 1000" in err          # the bound, not the lexer's 4000 (the re-audit's N5)


def test_a_seed_over_the_limit_on_the_command_line_is_a_usage_error(capsys):
    code, _, err = _run(capsys, "run", DUEL, "--seed", "9" * 5000)
    assert code == 2 and "error[E0002]" in err


def _edition(folder: Path, text: str) -> None:
    folder.mkdir(parents=True)
    (folder / "edicion.rules").write_text(text, encoding="utf-8")


def test_two_editions_of_one_name_in_one_rules_folder_are_an_error_naming_both(capsys, tmp_path):
    rules = tmp_path / "reglas"
    _edition(rules / "a", 'edition duelo:\n  title "A"\n')
    _edition(rules / "b", 'edition duelo:\n  title "B"\n')
    enc = tmp_path / "x.enc"
    enc.write_text("edition duelo\n", encoding="utf-8")
    code, _, err = _run(capsys, "run", "--rules", rules, enc)
    assert code == 2 and 'error[E0107]: edition "duelo" is declared twice' in err
    assert "a/edicion.rules:1:1" in err and "b/edicion.rules:1:1" in err


def test_an_encounter_asking_for_the_second_edition_of_a_file_is_refused(capsys, tmp_path):
    rules = tmp_path / "reglas"
    _edition(rules / "a", 'edition uno:\n  title "Uno"\n\nedition dos:\n  title "Dos"\n')
    enc = tmp_path / "x.enc"
    enc.write_text("edition dos\n", encoding="utf-8")
    code, out, err = _run(capsys, "run", "--rules", rules, enc)
    assert code == 2 and out == ""
    assert 'error[E0108]: this file declares a second edition, "dos"' in err and 'the first, "uno"' in err


def test_a_set_without_a_value_suggests_one_of_the_options_kind(capsys):
    # The help said "--set reactions_per_event=true" for every option, which the option then refused.
    code, _, err = _run(capsys, "run", DUEL, "--set", "reactions_per_event")
    assert code == 2 and "error[E0002]" in err and "for example: --set reactions_per_event=1" in err
