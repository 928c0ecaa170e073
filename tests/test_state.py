"""Saved state between runs (EALT-02): --save-state and --load-state, versioned
JSON written atomically; damaged, foreign or newer files refused at their place."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent

SESSION_1 = """\
encounter "Primera sesión"
edition yokai
combatant Akira:
  FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2
  holds Fatiga Leve
combatant Hana:
  FUE 2, AGI 2, DES 3, PER 2, INT 3, VOL 3
dice strict:
  Akira duración 5
do:
  sentir(Akira, "miedo", "el oni")
  receive Akira Heridas Grave
  inconsciente_durante(Akira, 1D6, "horas")
  pasar(1, "horas")
"""

SESSION_2 = """\
encounter "Segunda sesión"
edition yokai
combatant Akira:
  FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2
combatant Hana:
  FUE 2, AGI 2, DES 3, PER 2, INT 3, VOL 3
do:
  pass
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def run(capsys, *args):
    code = main(["run", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def saved(tmp_path, capsys):
    enc = write(tmp_path, "s1.enc", SESSION_1)
    state = tmp_path / "estado.json"
    code, _out, err = run(capsys, enc, "--save-state", str(state))
    assert code == 0, err
    return state


def test_EALT_02_the_state_at_the_end_of_a_run_starts_the_next(tmp_path, capsys, saved):
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert data["format"] == "grimorio-state" and data["version"] == 1 and data["edition"] == "yokai"
    assert data["combatants"]["Akira"]["cards"]["Heridas"] == ["Grave"]
    assert data["vars"]["reloj"] == 3600
    # The next session starts from it: still unconscious, 4 hours to go (5 - 1), the
    # clock goes on, and the wound's daily TS comes 24 hours after it was received.
    enc = write(tmp_path, "s2.enc", SESSION_2.replace("do:\n  pass\n", 'do:\n  pasar(4, "horas")\n'
                                                      'expect not has(Akira, Shock)\n'
                                                      'expect has(Akira, derribado)\n'
                                                      'expect cards(Akira, Heridas) == [Heridas.Grave]\n'
                                                      'expect has(Akira, miedo)\n'
                                                      'expect cards(Akira, Fatiga) == [Fatiga.Leve]\n'
                                                      'expect reloj == 5 * 3600\n'))
    code, out, err = run(capsys, enc, "--load-state", str(saved))
    assert code == 0, err
    assert "Akira despierta: se recupera de todo su Shock, deja de estar \"desprevenido\" y queda \"derribado\"" in out
    assert "[día 1, 5:00:00]" in out


def test_save_load_save_gives_identical_files(tmp_path, capsys, saved):
    enc = write(tmp_path, "s2.enc", SESSION_2)
    again = tmp_path / "otra.json"
    code, _out, err = run(capsys, enc, "--load-state", str(saved), "--save-state", str(again))
    assert code == 0, err
    assert again.read_bytes() == saved.read_bytes()
    # Loading and saving over the same file is allowed, and changes nothing either.
    before = saved.read_bytes()
    assert run(capsys, enc, "--load-state", str(saved), "--save-state", str(saved))[0] == 0
    assert saved.read_bytes() == before


def test_fields_the_encounter_gives_win_over_the_saved_ones(tmp_path, capsys, saved):
    data = json.loads(saved.read_text(encoding="utf-8"))
    data["combatants"]["Akira"]["fields"]["FUE"] = 1
    saved.write_text(json.dumps(data), encoding="utf-8")
    enc = write(tmp_path, "s2.enc", SESSION_2 + "expect Akira.FUE == 3\n")
    assert run(capsys, enc, "--load-state", str(saved))[0] == 0


def test_a_failed_run_does_not_overwrite_the_state(tmp_path, capsys, saved):
    before = saved.read_bytes()
    enc = write(tmp_path, "s2.enc", SESSION_2 + "expect has(Akira, ira)\n")
    code, _out, _err = run(capsys, enc, "--load-state", str(saved), "--save-state", str(saved))
    assert code == 1
    enc = write(tmp_path, "s3.enc", SESSION_2.replace("  pass\n", '  pasar(1, "siglos")\n'))
    code, _out, err = run(capsys, enc, "--load-state", str(saved), "--save-state", str(saved))
    assert code == 2 and "error[E0501]" in err
    assert saved.read_bytes() == before


@pytest.mark.parametrize("damage, code, message, where", [
    (lambda t: t[: len(t) // 2], "E0801", "the state file ends before its data does (it was cut short)", None),
    (lambda t: t.replace('"vars": {', '"vars": {,', 1), "E0801", "the state file is damaged", None),
    (lambda t: '{"format": "otra cosa", "version": 1}', "E0802", "this is not a grimorio state file", ":1:2"),
    (lambda t: "[1, 2, 3]", "E0802", "this is not a grimorio state file", ":1:1"),
    (lambda t: t.replace('"version": 1', '"version": 7'), "E0803", "written by a newer grimorio (format 7", None),
    (lambda t: t.replace('"edition": "yokai"', '"edition": "aquelarre"'), "E0804",
     'this state was saved with edition "aquelarre", not "yokai"', None),
    (lambda t: t.replace('"Heridas": [', '"Heridaz": [', 1), "E0805",
     'cards of "Heridaz", which these rules do not declare', None),
    (lambda t: t.replace('"reloj"', '"relojes"', 1), "E0805", 'a var "relojes" these rules do not declare', None),
])
def test_a_bad_state_file_is_refused_at_its_place(tmp_path, capsys, saved, damage, code, message, where):
    text = saved.read_text(encoding="utf-8")
    bad = tmp_path / "malo.json"
    bad.write_text(damage(text), encoding="utf-8")
    enc = write(tmp_path, "s2.enc", SESSION_2)
    status, out, err = run(capsys, enc, "--load-state", str(bad))
    assert status == 2 and out == ""
    assert f"error[{code}]" in err and message in err, err
    assert f"--> {bad}" + (where or ":") in err
    assert "Traceback" not in err


def test_a_state_naming_someone_not_in_the_encounter(tmp_path, capsys, saved):
    enc = write(tmp_path, "s2.enc", SESSION_2.replace("combatant Akira:", "combatant Kenji:"))
    status, _out, err = run(capsys, enc, "--load-state", str(saved))
    assert status == 2 and "error[E0805]" in err and "names Akira, who is not in this encounter" in err


def test_a_missing_state_file(tmp_path, capsys):
    enc = write(tmp_path, "s2.enc", SESSION_2)
    status, _out, err = run(capsys, enc, "--load-state", str(tmp_path / "nada.json"))
    assert status == 2 and "error[E0801]" in err and "cannot be read" in err


def test_an_unwritable_state_path(tmp_path, capsys):
    enc = write(tmp_path, "s2.enc", SESSION_2)
    status, _out, err = run(capsys, enc, "--save-state", str(tmp_path / "no" / "existe.json"))
    assert status == 2 and "error[E0807]" in err


KILL_MID_SAVE = """
import os, signal, sys
from grimorio.interpreter.run import state
real = os.fsync
def die(fd):
    # The temporary file is written and flushed; die before it replaces the state.
    os.kill(os.getpid(), signal.SIGKILL)
state.os.fsync = die
from grimorio.interpreter.tools.cli import main
sys.exit(main(["run", sys.argv[1], "--load-state", sys.argv[2], "--save-state", sys.argv[2]]))
"""


@pytest.mark.slow
def test_a_run_killed_while_saving_leaves_the_previous_file_intact(tmp_path, saved):
    before = saved.read_bytes()
    enc = write(tmp_path, "s2.enc", SESSION_2.replace("  pass\n", '  receive Akira Heridas Leve\n'))
    proc = subprocess.run([sys.executable, "-c", KILL_MID_SAVE, enc, str(saved)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr
    assert saved.read_bytes() == before                 # the old state, whole
    leftovers = [p for p in tmp_path.iterdir() if p.name.startswith(".estado.json.")]
    assert leftovers, "the kill came while the temporary file was being written"
    # The state still loads (the temporary file is ignored).
    assert main(["run", enc, "--load-state", str(saved)]) == 0


def test_a_value_that_cannot_be_saved(tmp_path, capsys):
    from tests.test_checker import write_edition
    write_edition(tmp_path, """
    sheet ficha:
      FUE: int 1..20
    table armas:
      | nombre | daño |
      |--------|------|
      | Daga   | 1D4  |
    var favorita = armas
    """)
    enc = write(tmp_path, "prueba/x.enc", 'edition prueba\ncombatant Ana:\n  FUE 3\ndo:\n  pass\n')
    status, _out, err = run(capsys, enc, "--save-state", str(tmp_path / "e.json"))
    assert status == 2 and "error[E0806]: the rules hold a value that cannot be saved (a whole table)" in err
    assert not (tmp_path / "e.json").exists()


def _mutate(data, path, value):
    """`data` with the node at `path` (a list of keys and indexes) replaced by `value`."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        return {k: (_mutate(v, rest, value) if k == head else v) for k, v in data.items()}
    return [(_mutate(v, rest, value) if i == head else v) for i, v in enumerate(data)]


def _paths(data, here=()):
    yield list(here)
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _paths(v, here + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _paths(v, here + (i,))


JSON_VALUE = st.recursive(st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=4)
                          | st.sampled_from(["Leve", "Grave", "Akira", "reloj", "record", "yokai"]),
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
                              ["combatant", "grade", "record", "fields", "row", "at", "dice", "const", "x"]),
                              inner, max_size=3), max_leaves=6)


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("GRIMORIO_FUZZ_EXAMPLES", "30")), deadline=None,
          derandomize="GRIMORIO_FUZZ_EXAMPLES" not in os.environ,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_any_damaged_state_is_refused_with_a_diagnostic_or_loads(tmp_path, capsys, saved, data):
    original = json.loads(saved.read_text(encoding="utf-8"))
    paths = list(_paths(original))
    path = data.draw(st.sampled_from(paths))
    bad = tmp_path / "mutado.json"
    bad.write_text(json.dumps(_mutate(original, path, data.draw(JSON_VALUE))), encoding="utf-8")
    enc = write(tmp_path, "s2.enc", SESSION_2)
    status, _out, err = run(capsys, enc, "--load-state", str(bad))
    assert status in (0, 2)
    assert "E0003" not in err and "Traceback" not in err, err
    if status == 2:
        assert re.search(r"error\[E08\d\d\]", err) or "error[E05" in err or "error[E02" in err, err


def test_a_list_that_holds_itself_cannot_be_saved(tmp_path, capsys):
    enc = write(tmp_path, "s.enc", SESSION_2.replace("  pass\n", "  append pendientes, pendientes\n"))
    status, _out, err = run(capsys, enc, "--save-state", str(tmp_path / "e.json"))
    assert status == 2 and "error[E0806]" in err and "a list or record that holds itself" in err


def test_a_state_nested_past_reason(tmp_path, capsys):
    bad = tmp_path / "hondo.json"
    bad.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    status, _out, err = run(capsys, write(tmp_path, "s.enc", SESSION_2), "--load-state", str(bad))
    assert status == 2 and "error[E0801]" in err and "Traceback" not in err
