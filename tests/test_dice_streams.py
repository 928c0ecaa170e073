"""Common random numbers: every roll draws from a stream keyed by (seed, who rolls,
purpose), so a rule change leaves every roll it does not touch as it was; and
`grimorio diff` shows two rule sets on the same dice."""
from __future__ import annotations

from pathlib import Path

import pytest

from grimorio.dsl.diagnostics import Sources
from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.run.dice import stream
from grimorio.interpreter.run.encounter import Prepared
from grimorio.dsl.check.front import load_encounter
from grimorio.interpreter.compile.programs import program_for

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "rulesets" / "aquelarre" / "duelo.enc"
CRITICO5 = "replace row 1 of check porcentaje:\n  | <= ceil(objetivo / 5) | crítico |\n"


def rolls(outcome) -> dict:
    """Each (who, purpose) stream's rolls, in order."""
    out: dict = {}
    for ev in outcome.engine.events:
        if ev[0] == "roll":
            _, by, purpose, r = ev
            out.setdefault((by.a_name, purpose), []).append((str(r.dice), list(r.faces)))
    return out


def test_a_stream_depends_on_seed_who_and_purpose_only():
    draws = [stream(7, "Rodrigo", "ataque")() for _ in range(3)]
    assert [stream(7, "Rodrigo", "ataque")() for _ in range(1)] == draws[:1]
    assert stream(8, "Rodrigo", "ataque")() != draws[0]
    assert stream(7, "Bandido", "ataque")() != draws[0]
    assert stream(7, "Rodrigo", "daño")() != draws[0]
    assert stream(-3, None, None)() == stream(-3, None, None)()       # any seed, and rolls by nobody


@pytest.mark.slow
def test_a_house_rule_leaves_every_stream_a_prefix_of_the_other(tmp_path):
    """Under criticals at a fifth the fight goes otherwise, but the n-th roll of each kind
    is the same roll: one side's stream is a prefix of the other's. (A roll of other dice,
    say the fists' 1D3 after the Garrote broke in one fight only, draws the same numbers
    but shows other faces: the n-th rolls are compared where their dice agree.)"""
    house = tmp_path / "critico5.rules"
    house.write_text(CRITICO5, encoding="utf-8")
    enc = load_encounter(DEMO, Sources())
    same_dice = 0
    for seed in range(30):
        base = rolls(Prepared(enc, program_for("aquelarre")).run(seed=seed))
        mine = rolls(Prepared(enc, program_for("aquelarre", houses=[house])).run(seed=seed))
        for key in base.keys() | mine.keys():
            for (dice_a, faces_a), (dice_b, faces_b) in zip(base.get(key, []), mine.get(key, [])):
                if dice_a == dice_b:
                    same_dice += 1
                    assert faces_a == faces_b, (seed, key)
    assert same_dice > 1000


def test_a_pinned_roll_still_counts_in_its_stream(tmp_path, capsys):
    """Pinning one roll changes that roll only: the next roll of its stream is the one it would have been."""
    text = DEMO.read_text(encoding="utf-8")
    free, pinned = tmp_path / "libre.enc", tmp_path / "fijo.enc"
    free.write_text(text, encoding="utf-8")
    pinned.write_text(text + "dice:\n  Rodrigo iniciativa 1\n", encoding="utf-8")
    assert main(["run", "--quiet", str(free)]) == 0
    a = capsys.readouterr().out.splitlines()
    assert main(["run", "--quiet", str(pinned)]) == 0
    b = capsys.readouterr().out.splitlines()
    assert a[1] != b[1] and b[1].startswith("  Iniciativa: Rodrigo 13 (1D10=1")

    def die_of_round_2(lines):
        line = next(ln for ln in lines[lines.index("Asalto 2"):] if ln.startswith("  Iniciativa: Rodrigo"))
        return line.split("(")[1]
    assert die_of_round_2(a) == die_of_round_2(b)


@pytest.mark.slow
def test_diff_of_the_demo_under_criticals_at_a_fifth(tmp_path, capsys):
    house = tmp_path / "critico5.rules"
    house.write_text(CRITICO5, encoding="utf-8")
    assert main(["run", "--quiet", str(DEMO)]) == 0
    base = capsys.readouterr().out.splitlines()
    assert main(["diff", str(DEMO), "--house", str(house)]) == 1          # 1: the transcripts differ
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "--- aquelarre" and out[1] == f"+++ aquelarre + {house}"
    first = int(out[2].rsplit(" ", 1)[1])
    body = [ln for ln in out[3:] if ln[:2] in ("  ", "- ", "+ ")]
    # Every line before the first change is shared; the removed lines are the base's, in order.
    assert [ln[2:] for ln in body[:first - 1]] == base[:first - 1]
    changed = [ln for ln in body if ln[:2] != "  "]
    # The first change is one roll read anew (a success becomes a critical); the rest follows from it.
    minus, plus = changed[0].split("    [")[0], changed[1].split("    [")[0]
    assert minus.startswith("- ") and plus.startswith("+ ") and minus.endswith("-> éxito")
    assert plus == minus.replace("- ", "+ ", 1).replace("-> éxito", "-> crítico")
    assert [ln[2:].split("    [")[0] for ln in body if ln[:2] != "+ "] == base
    assert out[-1].endswith('critico5.rules:1: replaces row 1 of check "porcentaje"')


@pytest.mark.slow
def test_diff_of_two_editions_and_of_the_same_rules(tmp_path, capsys):
    folder = tmp_path / "critico5"
    folder.mkdir()
    (folder / "edicion.rules").write_text("edition critico5:\n  extends aquelarre\n" + CRITICO5, encoding="utf-8")
    assert main(["diff", str(DEMO), "--edition", "aquelarre", "--edition", "critico5", "--rules", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "+++ critico5" in out and "-> crítico" in out
    same = tmp_path / "nada.rules"
    same.write_text("# nada\n", encoding="utf-8")
    assert main(["diff", str(DEMO), "--house", str(same)]) == 0           # 0: the same transcript
    assert capsys.readouterr().out.startswith("same transcript under aquelarre and aquelarre + ")
    assert main(["diff", str(DEMO)]) == 2
    assert "compares two rule sets" in capsys.readouterr().err
