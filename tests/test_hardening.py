"""Issue 27's low items: names in NFC, control characters escaped in every output, the dice bound
of the docs, check naming the folders it could not read, an edition beside the encounter that
shadows a bundled one named in a warning."""
from __future__ import annotations

import os
import shutil
import textwrap
from pathlib import Path

import pytest

from grimorio.dsl.syntax.builder import build_rules
from grimorio.interpreter.tools import checking
from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent

EDITION = """\
sheet ficha:
  FUE: int 0..9

message aviso(c) "{c} grita \x1b[31m\x07 ¡ay!"

rule gritar(c):
  say aviso(c)
"""


def _edition(tmp_path: Path, rules: str, encounter: str, name="prueba") -> Path:
    (tmp_path / name).mkdir()
    (tmp_path / name / "edicion.rules").write_text(f'edition {name}:\n  title "Prueba"\n  include "reglas.rules"\n',
                                                  encoding="utf-8")
    (tmp_path / name / "reglas.rules").write_text(textwrap.dedent(rules), encoding="utf-8")
    enc = tmp_path / name / "e.enc"
    enc.write_text(f"edition {name}\n" + textwrap.dedent(encounter), encoding="utf-8")
    return enc


def test_control_characters_of_the_rules_never_reach_the_terminal(tmp_path, capsys):
    enc = _edition(tmp_path, EDITION, "combatant Ana:\n  FUE 1\ndo:\n  gritar(Ana)\n")
    assert main(["run", str(enc)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "Ana grita \\x1b[31m\\x07 ¡ay!" in out


def test_a_decomposed_accent_is_the_same_name(tmp_path, capsys):
    decomposed = "an\u0303o"                 # a, n + combining tilde, o
    decls, diags = build_rules(f"var {decomposed} = 1\nrule f():\n  return año + 1\n", "t.rules")
    assert not diags and decls[0].name == "año"
    enc = _edition(tmp_path, f"sheet ficha:\n  FUE: int 0..9\nvar {decomposed} = 2\n"
                             "table t:\n  | clave | valor |\n  |-------|-------|\n"
                             f"  | {decomposed}   | {decomposed} |\n",
                   "combatant Ana:\n  FUE 1\nexpect año == 2\nexpect t[\"año\"].valor == \"año\"\n")
    assert main(["run", str(enc)]) == 0, capsys.readouterr().err


def test_dice_go_to_the_documented_bound(tmp_path, capsys):
    enc = _edition(tmp_path, "sheet ficha:\n  FUE: int 0..9\n",
                   "combatant Ana:\n  FUE 1\nexpect dice(5000, 6) != dice(1, 6)\nexpect roll 5000D6 >= 5000\n")
    assert main(["run", str(enc)]) == 0, capsys.readouterr().err
    bad = _edition(tmp_path, "sheet ficha:\n  FUE: int 0..9\n",
                   "combatant Ana:\n  FUE 1\nexpect roll 10001D6 > 0\n", name="otra")
    assert main(["run", str(bad)]) == 2
    assert "at most 10000 dice" in capsys.readouterr().err


def test_check_names_a_folder_it_cannot_read(tmp_path, capsys, monkeypatch):
    root = tmp_path / "raiz"
    root.mkdir()
    shutil.copytree(ROOT / "rulesets" / "aquelarre", root / "aquelarre")
    (root / "secreta").mkdir()
    (root / "secreta" / "edicion.rules").write_text("edition secreta:\n  extends nada\n", encoding="utf-8")
    if hasattr(os, "geteuid") and os.geteuid() == 0:      # root reads every folder: the refusal is made
        real = checking._unread
        monkeypatch.setattr(checking, "_unread",
                            lambda p: "Permission denied" if Path(p).name == "secreta" else real(p))
    else:
        (root / "secreta").chmod(0)
    try:
        assert main(["check", str(root)]) == 2
    finally:
        (root / "secreta").chmod(0o755)
    err = capsys.readouterr().err
    assert f'error[E0012]: the folder "{root / "secreta"}" cannot be read: Permission denied' in err


@pytest.mark.slow
def test_an_edition_beside_the_encounter_that_shadows_a_bundled_one_is_named(tmp_path, capsys):
    shutil.copytree(ROOT / "rulesets" / "aquelarre", tmp_path / "aquelarre",
                    ignore=shutil.ignore_patterns("*.enc"))
    (tmp_path / "mias").mkdir()
    enc = tmp_path / "mias" / "duelo.enc"
    shutil.copy(ROOT / "rulesets" / "aquelarre" / "duelo.enc", enc)
    assert main(["run", str(enc)]) == 0          # an exact copy of the bundled edition: nothing to warn of
    assert "E0011" not in capsys.readouterr().err
    changed = tmp_path / "aquelarre" / "tablas.rules"
    changed.write_text(changed.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    assert main(["run", str(enc)]) == 0          # the user's own edition, changed: theirs to use, no warning
    assert "E0011" not in capsys.readouterr().err
    (tmp_path / "aquelarre").chmod(0o777)         # a folder anyone may write: the edition may be someone else's
    enc = tmp_path / "mias" / "duelo.enc"
    shutil.copy(ROOT / "rulesets" / "aquelarre" / "duelo.enc", enc)
    assert main(["run", str(enc)]) == 0
    err = capsys.readouterr().err
    assert f'warning[E0011]: edition "aquelarre" is taken from {tmp_path / "aquelarre"}' in err
    assert main(["run", str(ROOT / "rulesets" / "aquelarre" / "duelo.enc")]) == 0
    assert "E0011" not in capsys.readouterr().err


def test_lists_nested_thousands_deep_are_not_rules_that_call_themselves(tmp_path, capsys):
    enc = _edition(tmp_path, "sheet ficha:\n  FUE: int 0..9\nrule hondo(n):\n  let l = []\n  for i in range(1, n):\n"
                             "    let l = [l]\n  return l\nrule sin_fin(n):\n  return sin_fin(n + 1)\n",
                   "combatant Ana:\n  FUE 1\nexpect hondo(5000) == hondo(5000)\n")
    assert main(["run", str(enc)]) == 2
    err = capsys.readouterr().err
    assert "a value nests lists (or records) too deep to compare or show" in err and "call themselves" not in err
    enc.write_text("edition prueba\ncombatant Ana:\n  FUE 1\nexpect sin_fin(1) == 1\n", encoding="utf-8")
    assert main(["run", str(enc)]) == 2
    assert "the rules call themselves without end" in capsys.readouterr().err
