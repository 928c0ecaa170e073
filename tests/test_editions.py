"""Editions on the command line: extending an edition, finding one kept beside
its encounter or in a folder named with --rules, listing the bundled ones."""
from __future__ import annotations

from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
DUELO = (ROOT / "rulesets" / "aquelarre" / "duelo.enc").read_text(encoding="utf-8")
CASERA = 'edition casera:\n  title "Casera"\n  extends aquelarre\n  set daños_al_final = false\n'


def make_house(folder: Path) -> Path:
    (folder / "casera").mkdir(parents=True)
    (folder / "casera" / "edicion.rules").write_text(CASERA, encoding="utf-8")
    return folder


@pytest.mark.slow
def test_an_encounter_beside_its_edition_finds_it(tmp_path, capsys):
    make_house(tmp_path)
    enc = tmp_path / "casera" / "duelo.enc"
    enc.write_text(DUELO.replace("edition aquelarre", "edition casera"), encoding="utf-8")
    assert main(["run", str(enc), "--seed", "1"]) == 0      # seed 1: Rodrigo hits before the Bandido attacks
    out = capsys.readouterr().out.splitlines()
    # The house edition extends aquelarre and sets its option: damage lands as each attack resolves.
    first_damage = next(i for i, ln in enumerate(out) if ln.startswith("  Daños"))
    first_bandido = next(i for i, ln in enumerate(out) if ln.startswith("  El Bandido ataca"))
    assert first_damage < first_bandido < out.index("Asalto 2")
    assert main(["check", str(enc), str(tmp_path / "casera")]) == 0


@pytest.mark.slow
def test_rules_folder_named_on_the_command_line(tmp_path, capsys):
    house = make_house(tmp_path / "mis_reglas")
    enc = tmp_path / "otro" / "duelo.enc"
    enc.parent.mkdir()
    enc.write_text(DUELO.replace("edition aquelarre", "edition casera"), encoding="utf-8")
    assert main(["run", str(enc)]) == 2
    assert 'there is no edition "casera"' in capsys.readouterr().err
    assert main(["run", str(enc), "--rules", str(house)]) == 0
    assert main(["run", str(enc), "--rules", str(tmp_path / "nada")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_editions_lists_the_bundled_ones(capsys):
    assert main(["editions"]) == 0
    out = capsys.readouterr().out
    assert "aquelarre" in out and "Aquelarre: Combate" in out
    assert "yokai" in out
