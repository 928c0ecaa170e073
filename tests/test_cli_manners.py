"""Command-line manners: colour on a terminal only (NO_COLOR, FORCE_COLOR), shell completion
for bash, zsh and fish, `fmt -` on standard input, and diff's exit codes."""
from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grimorio.interpreter.tools import colour
from grimorio.interpreter.tools.arguments import _parser
from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.tools.completion import commands, script

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;]*m")
BAD = 'edition roto:\n  title "x"\nrule r(a):\n  return caido\n'
DIFF = """--- aquelarre
+++ aquelarre + casa.rules
the transcripts part at line 3
  Asalto 1
- Rodrigo ataca: d100=4 contra 60% -> éxito    [rule atacar at a.rules:3:3; edition aquelarre]
+ Rodrigo ataca: d100=4 contra 60% -> crítico    [rule atacar at a.rules:3:3; edition aquelarre]
"""


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def plain_env(monkeypatch):
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def check_bad(tmp_path, monkeypatch, stream) -> str:
    (tmp_path / "roto").mkdir()
    (tmp_path / "roto" / "roto.rules").write_text(BAD, encoding="utf-8")
    monkeypatch.setattr(sys, "stderr", stream)
    assert main(["check", str(tmp_path / "roto")]) == 2
    return stream.getvalue()


# ------------------------------------------------------------------ colour

def test_diagnostics_are_coloured_on_a_terminal_and_say_the_same_words(tmp_path, plain_env):
    coloured = check_bad(tmp_path, plain_env, Terminal())
    assert "\x1b[1;31merror[E0201]\x1b[0m" in coloured                   # the code in bold red
    assert "\x1b[1;36m= help:\x1b[0m" in coloured
    (tmp_path / "otra").mkdir()
    plain = check_bad(tmp_path / "otra", plain_env, io.StringIO())
    assert "\x1b[" not in plain                                           # not a terminal: no colour
    assert ANSI.sub("", coloured) == plain.replace(str(tmp_path / "otra"), str(tmp_path))


def test_no_color_turns_colour_off_and_wins_over_force_color(tmp_path, plain_env):
    plain_env.setenv("NO_COLOR", "1")
    plain_env.setenv("FORCE_COLOR", "1")
    assert "\x1b[" not in check_bad(tmp_path, plain_env, Terminal())


def test_force_color_colours_a_pipe(tmp_path, plain_env):
    plain_env.setenv("FORCE_COLOR", "1")
    assert "\x1b[1;31merror[E0201]\x1b[0m" in check_bad(tmp_path, plain_env, io.StringIO())


@pytest.mark.parametrize("env, tty, want", [
    ({}, True, True), ({}, False, False), ({"NO_COLOR": "1"}, True, False), ({"NO_COLOR": ""}, True, True),
    ({"FORCE_COLOR": "1"}, False, True), ({"FORCE_COLOR": ""}, False, False), ({"TERM": "dumb"}, True, False),
    ({"NO_COLOR": "x", "FORCE_COLOR": "1"}, False, False),
])
def test_when_colour_is_wanted(plain_env, env, tty, want):
    for k, v in env.items():
        plain_env.setenv(k, v)
    assert colour.wanted(Terminal() if tty else io.StringIO()) is want


def test_a_diff_is_coloured_line_by_line(plain_env):
    out = Terminal()
    colour.write(out, DIFF, "diff", end="")
    lines = out.getvalue().splitlines()
    assert lines[0] == "\x1b[1m--- aquelarre\x1b[0m" and lines[2] == "\x1b[1;33mthe transcripts part at line 3\x1b[0m"
    assert lines[3] == "  Asalto 1"
    assert lines[4].startswith("\x1b[31m- Rodrigo") and lines[5].startswith("\x1b[32m+ Rodrigo")
    assert ANSI.sub("", out.getvalue()) == DIFF
    piped = io.StringIO()
    colour.write(piped, DIFF, "diff", end="")
    assert piped.getvalue() == DIFF


def test_a_warning_is_yellow_and_its_caret_too(plain_env):
    out = Terminal()
    colour.write(out, 'warning[W0704]: the column "x" is never read\n  --> a.rules:2:5\n  |\n2 | x\n  | ^')
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("\x1b[1;33mwarning[W0704]\x1b[0m: \x1b[1mthe column")
    assert lines[-1].endswith("\x1b[1;33m^\x1b[0m")
    assert ANSI.sub("", out.getvalue()).startswith('warning[W0704]: the column "x" is never read\n')


def test_a_long_line_is_never_wrapped(plain_env):
    out = Terminal()
    colour.write(out, "error[E0001]: " + "x" * 500)
    assert ANSI.sub("", out.getvalue()) == "error[E0001]: " + "x" * 500 + "\n"


@pytest.mark.slow
def test_colour_on_a_pseudo_terminal_and_none_with_no_color_or_in_a_pipe(tmp_path):
    import pty
    script_path = Path(sys.executable).parent / "grimorio"
    if not script_path.exists():
        pytest.skip("grimorio is not installed in this interpreter's environment")
    (tmp_path / "roto").mkdir()
    (tmp_path / "roto" / "roto.rules").write_text(BAD, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")} | {"TERM": "xterm"}

    def on_a_terminal(extra):
        master, slave = pty.openpty()
        proc = subprocess.Popen([str(script_path), "check", "roto"], cwd=tmp_path, stdin=subprocess.DEVNULL,
                                stdout=slave, stderr=slave, env=env | extra)
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:              # the other end closed: the process is done
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(master)
        assert proc.wait(timeout=120) == 2
        return b"".join(chunks).decode("utf-8")

    assert "\x1b[1;31merror[E0201]\x1b[0m" in on_a_terminal({})
    assert "\x1b[" not in on_a_terminal({"NO_COLOR": "1"}) and "error[E0201]" in on_a_terminal({"NO_COLOR": "1"})
    piped = subprocess.run([str(script_path), "check", "roto"], cwd=tmp_path, capture_output=True, text=True,
                           env=env, timeout=120)
    assert piped.returncode == 2 and "error[E0201]" in piped.stderr and "\x1b[" not in piped.stderr


# ------------------------------------------------------------------ completion

def test_the_completion_scripts_name_every_command_and_option():
    parser = _parser()
    found = commands(parser)
    assert {c.name for c in found} >= {"run", "simulate", "diff", "check", "editions", "fmt", "lsp", "test",
                                       "completion"}
    for shell in ("bash", "zsh", "fish"):
        text = script(shell, parser)
        for c in found:
            assert c.name in text, (shell, c.name)
            for o in c.options:
                assert all(n.lstrip("-") in text for n in o.names), (shell, c.name, o.names)
    assert '"run --format") COMPREPLY=($(compgen -W "text jsonl" -- "$cur"))' in script("bash", parser)


def test_the_completion_command_prints_the_script(capsys):
    assert main(["completion", "bash"]) == 0
    assert capsys.readouterr().out == script("bash", _parser())
    assert main(["completion", "tcsh"]) == 2
    assert "invalid choice: 'tcsh'" in capsys.readouterr().err


def _bash(script_text: str, words: list[str]) -> list[str]:
    program = (f"{script_text}\ncomplete -p grimorio >/dev/null || exit 3\n"
               f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
               '_grimorio; printf "%s\\n" "${COMPREPLY[@]}"\n')
    done = subprocess.run(["bash", "--norc", "--noprofile", "-c", program], capture_output=True, text=True,
                          timeout=60, env={"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.slow
def test_the_bash_completion_loads_and_completes():
    text = script("bash", _parser())
    assert "simulate" in _bash(text, ["grimorio", "si"])
    assert _bash(text, ["grimorio", "run", "--format", ""]) == ["text", "jsonl"]
    assert _bash(text, ["grimorio", "test", "--j"]) == ["--junit"]
    assert _bash(text, ["grimorio", "simulate", "--backend", "d"]) == ["dask"]
    assert _bash(text, ["grimorio", "completion", ""]) == ["bash", "zsh", "fish"]
    if (Path(sys.executable).parent / "grimorio").exists():       # editions are asked of the installed command
        assert {"aquelarre", "aquelarre_estados"} <= set(_bash(text, ["grimorio", "run", "--edition", "aq"]))


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_the_zsh_completion_loads():
    done = subprocess.run(["zsh", "-f", "-c", "autoload -U compinit && compinit -u -D; "
                           f"source /dev/stdin; print -r -- ${{_comps[grimorio]}}"],
                          input=script("zsh", _parser()), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "_grimorio", done.stderr


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_the_fish_completion_loads_and_completes(tmp_path):
    path = tmp_path / "grimorio.fish"
    path.write_text(script("fish", _parser()), encoding="utf-8")
    done = subprocess.run(["fish", "--no-config", "-c", f"source {path}; complete -C 'grimorio run --format '"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert [ln.split("\t")[0] for ln in done.stdout.splitlines()] == ["jsonl", "text"]
    done = subprocess.run(["fish", "--no-config", "-c", f"source {path}; complete -C 'grimorio completion '"],
                          capture_output=True, text=True, timeout=60)
    assert sorted(ln.split("\t")[0] for ln in done.stdout.splitlines()) == ["bash", "fish", "zsh"]


# ------------------------------------------------------------------ fmt -

def fmt_stdin(monkeypatch, capsys, data: bytes, *args):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    code = main(["fmt", *args, "-"])
    out, err = capsys.readouterr()
    return code, out, err


def test_fmt_dash_formats_standard_input_onto_standard_output(monkeypatch, capsys):
    messy = b'encounter "x"\nedition aquelarre\ncombatant A:\n      side s\n'
    assert fmt_stdin(monkeypatch, capsys, messy) == (0, 'encounter "x"\nedition aquelarre\ncombatant A:\n  side s\n', "")
    rules = (ROOT / "rulesets" / "aquelarre" / "danos.rules").read_bytes()
    assert fmt_stdin(monkeypatch, capsys, rules) == (0, rules.decode("utf-8"), "")      # already formatted


def test_fmt_check_dash_exits_1_when_standard_input_needs_formatting(monkeypatch, capsys):
    assert fmt_stdin(monkeypatch, capsys, b'encounter "x"\nedition aquelarre\ncombatant A:\n   side s\n', "--check") \
        == (1, "", "would reformat -\n")
    assert fmt_stdin(monkeypatch, capsys, b'encounter "x"\nedition aquelarre\n', "--check") == (0, "", "")


def test_fmt_dash_refuses_bad_text_with_its_place_and_writes_nothing(monkeypatch, capsys):
    code, out, err = fmt_stdin(monkeypatch, capsys, b'encounter "x\n')
    assert (code, out) == (2, "") and "  --> <stdin>.enc:1:11" in err
    code, out, err = fmt_stdin(monkeypatch, capsys, b"rule r(a):\n  return \xff\n")
    assert (code, out) == (2, "") and 'error[E0001]: "<stdin>" is not UTF-8 text' in err


def test_fmt_dash_goes_alone(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8"))
    assert main(["fmt", "-", str(tmp_path)]) == 2
    assert 'error[E0002]: "-" (standard input) is formatted alone' in capsys.readouterr().err


# ------------------------------------------------------------------ diff's exit codes

def test_diff_exits_0_when_the_transcripts_agree_and_2_without_two_rule_sets(capsys):
    # (1, when they differ: test_aquelarre_estados.py, test_dice_streams.py)
    duelo = str(ROOT / "rulesets" / "aquelarre" / "duelo.enc")
    assert main(["diff", duelo, "--edition", "aquelarre", "--edition", "aquelarre"]) == 0
    assert capsys.readouterr().out.startswith("same transcript under aquelarre and aquelarre (")
    assert main(["diff", duelo, "--edition", "aquelarre", "--edition", "aquelarre", "--seed", "8"]) == 0
    assert main(["diff", duelo]) == 2                                # one rule set: bad input
    assert "compares two rule sets" in capsys.readouterr().err
