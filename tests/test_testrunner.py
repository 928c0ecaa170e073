"""`grimorio test`: every encounter's expectations under the paths, a pytest-like report,
JUnit XML, exit 0 / 1 (an expectation failed) / 2 (bad input), and several workers."""
from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
SCRIPTED = ROOT / "tests" / "scenarios" / "duelo_guionizado.enc"
TEXT = SCRIPTED.read_text(encoding="utf-8")
# One of each: the duel's last expectation made wrong, an `expect said` of a line never said, a choice
# scripted `refused` that the rules allow, and (passing) a `not said` and a refused choice they refuse.
FAILING = (TEXT.replace("expect Bandido.pv == 13 - 4", "expect Bandido.pv == 12")
           + 'expect said "Rodrigo huye"\nexpect not said "Rodrigo huye"\n')
REFUSALS = TEXT.replace("round 2:\n  Bandido: atacar Rodrigo, atacar Rodrigo",
                        'round 2:\n  Bandido: atacar Bandido refused "not a choice", '
                        'atacar Rodrigo refused "acciones", atacar Rodrigo, atacar Rodrigo')


def folder(tmp_path: Path, **files: str) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def grimorio_test(capsys, *args):
    code = main(["test", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_passing_folder_exits_0_with_a_dot_per_expectation(tmp_path, capsys):
    where = folder(tmp_path, **{"duelo.enc": TEXT, "sub/otro.enc": TEXT, ".oculto/x.enc": "no es un encuentro"})
    code, out, err = grimorio_test(capsys, where)
    assert code == 0, out + err
    lines = out.splitlines()
    assert lines[:2] == [f"{where / 'duelo.enc'} ...", f"{where / 'sub' / 'otro.enc'} ..."]   # hidden folders: not
    assert lines[-1].startswith("6 passed in 2 encounters (") and err == ""


def test_a_failing_expectation_exits_1_with_its_place_and_values(tmp_path, capsys):
    enc = folder(tmp_path, **{"falla.enc": FAILING}) / "falla.enc"
    code, out, _ = grimorio_test(capsys, enc)
    assert code == 1
    assert out.splitlines()[0] == f"{enc} F..F."         # in the order of the text
    line = FAILING.splitlines().index("expect Bandido.pv == 12") + 1
    said = FAILING.splitlines().index('expect said "Rodrigo huye"') + 1
    assert f" {enc}:{line}: expect Bandido.pv == 12 \n" in out                    # the failure's heading
    assert f"  --> {enc}:{line}:8" in out and "= help: the left side is 9, the right side is 12" in out
    assert (f"FAILED {enc}:{line}: expect Bandido.pv == 12 - this expectation failed: "
            "the left side is 9, the right side is 12") in out
    assert f'FAILED {enc}:{said}: expect said "Rodrigo huye" - this expectation failed: no line so far contains' in out
    assert out.splitlines()[-1].startswith("2 failed, 3 passed in 1 encounter (")


def test_refused_choices_are_expectations_too(tmp_path, capsys):
    """A choice scripted `refused` is a test: it passes when the rules refuse it for that reason."""
    enc = folder(tmp_path, **{"rechazos.enc": REFUSALS}) / "rechazos.enc"
    code, out, _ = grimorio_test(capsys, enc)
    assert code == 1, out
    lines = REFUSALS.splitlines()
    at = next(i for i, ln in enumerate(lines) if 'refused "acciones"' in ln) + 1
    # The first refusal holds (Bandido is no choice of his own attack); the second fails: Bandido has
    # actions left, and the rules allow the attack. Then he attacks twice, as the duel goes.
    assert out.splitlines()[0] == f"{enc} .F..."
    assert f"FAILED {enc}:{at}: {lines[at - 1].strip()} - this expectation failed: " \
           "the rules allowed Bandido to atacar Rodrigo" in out


def test_bad_input_exits_2_and_the_other_encounters_still_run(tmp_path, capsys):
    # One folder down: the folder above an encounter's is looked in for editions, and pytest's own
    # folder above tmp_path holds other tests' editions.
    where = folder(tmp_path / "casos", **{"a_bien.enc": TEXT, "b_roto.enc": 'encounter "roto"\nedition nadie\n',
                                          "c_falla.enc": FAILING})
    code, out, _ = grimorio_test(capsys, where)
    assert code == 2
    assert [ln.rsplit(" ", 1)[1] for ln in out.splitlines()[:3]] == ["...", "E", "F..F."]
    assert f'ERROR {where / "b_roto.enc"} - error[E0301]: there is no edition "nadie"' in out
    assert "= help: the editions are: aquelarre, aquelarre_estados, arena, yokai" in out
    assert out.splitlines()[-1].startswith("2 failed, 6 passed, 1 error in 3 encounters (")


def test_an_encounter_that_stops_on_an_error_keeps_the_expectations_checked_before(tmp_path, capsys):
    stops = TEXT.replace("dice strict:", 'do:\n  expect Rodrigo.FUE == 14\ndice strict:').replace(
        "  Bandido daño 5\n", "")
    enc = folder(tmp_path, **{"corta.enc": stops}) / "corta.enc"
    code, out, _ = grimorio_test(capsys, enc)
    assert code == 2 and out.splitlines()[0] == f"{enc} .E"
    assert "error[E0503]: the script has no pinned dice left for Bandido daño (1D6)" in out


@pytest.mark.parametrize("args, code, message", [
    (["notas.txt"], 2, 'error[E0035]: "notas.txt" is not an encounter'),
    (["vacio"], 2, 'error[E0036]: there is no encounter under "vacio"'),
    (["nada.enc"], 2, 'error[E0001]: there is no file or folder "nada.enc"'),
    (["duelo.enc", "--junit", "informes/ci.xml"], 2,
     'error[E0037]: cannot write the JUnit file "informes/ci.xml": its folder does not exist'),
    (["duelo.enc", "--workers", "0"], 2, "error[E0002]: bad command line"),
])
def test_bad_command_lines_exit_2_before_anything_runs(tmp_path, capsys, monkeypatch, args, code, message):
    folder(tmp_path, **{"notas.txt": "", "duelo.enc": TEXT})
    (tmp_path / "vacio").mkdir()
    monkeypatch.chdir(tmp_path)
    got, out, err = grimorio_test(capsys, *args)
    assert got == code and message in err and out == ""


def test_the_junit_file_holds_each_expectation(tmp_path, capsys):
    where = folder(tmp_path / "casos", **{"bien.enc": TEXT, "falla.enc": FAILING, "roto.enc": "edition nadie\n"})
    report = tmp_path / "junit.xml"
    code, _out, _err = grimorio_test(capsys, where, "--junit", report)
    assert code == 2
    top = ET.parse(report).getroot()
    assert top.tag == "testsuites"
    assert (top.get("tests"), top.get("failures"), top.get("errors")) == ("9", "2", "1")
    suites = {Path(s.get("name")).name: s for s in top}
    assert [(s.get("tests"), s.get("failures"), s.get("errors")) for s in suites.values()] == [
        ("3", "0", "0"), ("5", "2", "0"), ("1", "0", "1")]
    line = FAILING.splitlines().index("expect Bandido.pv == 12") + 1
    case = next(c for c in suites["falla.enc"] if c.get("line") == str(line))
    assert case.get("name") == f"line {line}: expect Bandido.pv == 12"
    assert case.get("file") == str(where / "falla.enc")
    failure = case.find("failure")
    assert failure.get("message") == "this expectation failed: the left side is 9, the right side is 12"
    assert "error[E0601]" in failure.text and f"falla.enc:{line}:8" in failure.text
    error = next(iter(suites["roto.enc"])).find("error")
    assert error.get("message").startswith('error[E0301]: there is no edition "nadie"')
    assert all(c.find("failure") is None and c.find("error") is None for c in suites["bien.enc"])


def test_the_bundled_encounters_pass(capsys):
    code, out, _ = grimorio_test(capsys, ROOT / "tests" / "scenarios", ROOT / "rulesets" / "yokai")
    assert code == 0, out
    assert out.splitlines()[-1].startswith("15 passed in 5 encounters (")


@pytest.mark.slow
def test_several_workers_give_the_same_report(tmp_path, capsys):
    where = folder(tmp_path, **{f"e{i}.enc": FAILING if i % 2 else TEXT for i in range(5)})
    one = grimorio_test(capsys, where, "--junit", tmp_path / "uno.xml")
    two = grimorio_test(capsys, where, "--workers", "3", "--junit", tmp_path / "dos.xml")
    assert one[0] == two[0] == 1

    def timeless(text):
        return [ln.split(" (")[0] if " encounter" in ln else ln for ln in text.splitlines()]
    assert timeless(one[1]) == timeless(two[1])
    shape = [(s.get("name"), [(c.get("name"), [x.tag for x in c]) for c in s])
             for s in ET.parse(tmp_path / "uno.xml").getroot()]
    assert shape == [(s.get("name"), [(c.get("name"), [x.tag for x in c]) for c in s])
                     for s in ET.parse(tmp_path / "dos.xml").getroot()]


@pytest.mark.slow
def test_the_installed_command_runs_a_designer_s_test_folder(tmp_path):
    import subprocess
    import sys
    script = Path(sys.executable).parent / "grimorio"
    if not script.exists():
        pytest.skip("grimorio is not installed in this interpreter's environment")
    shutil.copy(SCRIPTED, tmp_path / "duelo.enc")
    (tmp_path / "falla.enc").write_text(FAILING, encoding="utf-8")
    done = subprocess.run([str(script), "test", "--junit", "ci.xml"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 failed, 6 passed in 2 encounters" in done.stdout and "\x1b[" not in done.stdout   # a pipe: no colour
    assert ET.parse(tmp_path / "ci.xml").getroot().get("failures") == "2"


@pytest.mark.slow
def test_a_designer_s_test_folder_beside_a_house_edition(tmp_path, capsys, monkeypatch):
    """Encounters kept in a test folder of their own find the house edition beside it, as `run` does;
    `--house` layers a house rule on every encounter of the run."""
    casa = folder(tmp_path / "mis_reglas", **{
        "casa/edicion.rules": "edition casa:\n  extends aquelarre\n"
                              "replace row 1 of check porcentaje:\n  | <= ceil(objetivo / 5) | crítico |\n",
        # 10 against 50%: a critical at a fifth (10 <= 10), not at a tenth: the damage is the maximum, 7.
        "pruebas/critico.enc": ROOT.joinpath("docs", "house-rules.md").read_text(encoding="utf-8")
        .split("# file: quinto.enc\n", 1)[1].split("```", 1)[0].replace("edition aquelarre", "edition casa")})
    monkeypatch.chdir(casa)
    code, out, _ = grimorio_test(capsys, "pruebas")
    assert code == 0 and out.splitlines()[0] == "pruebas/critico.enc .", out
    # The same encounter under the bundled edition alone has no critical there: its expectation fails.
    (casa / "pruebas" / "critico.enc").write_text((casa / "pruebas" / "critico.enc").read_text(encoding="utf-8")
                                                  .replace("edition casa", "edition aquelarre"), encoding="utf-8")
    code, out, _ = grimorio_test(capsys, "pruebas")
    assert code == 1 and out.splitlines()[0] == "pruebas/critico.enc F"
    house = casa / "quinto.rules"
    house.write_text("replace row 1 of check porcentaje:\n  | <= ceil(objetivo / 5) | crítico |\n", encoding="utf-8")
    code, out, _ = grimorio_test(capsys, "pruebas", "--house", house)
    assert code == 0, out
