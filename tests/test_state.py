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
combatant Hana:
do:
  pass
"""

# Session 2 with its sheets written out: for runs that load no state.
SESSION_2_SHEETS = SESSION_2.replace("combatant Akira:\n", "combatant Akira:\n  FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2\n") \
    .replace("combatant Hana:\n", "combatant Hana:\n  FUE 2, AGI 2, DES 3, PER 2, INT 3, VOL 3\n")


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
    assert data["format"] == "grimorio-state" and data["version"] == 2 and data["edition"] == "yokai"
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


def test_saved_state_wins_a_bare_combatant_takes_its_changed_FUE(tmp_path, capsys):
    """Issue 23: FUE changed in session 1, saved; session 2 names Akira alone and has that FUE."""
    enc = write(tmp_path, "s1.enc", SESSION_1.replace("do:\n", "do:\n  set Akira.FUE = 5\n"))
    state = tmp_path / "estado.json"
    code, _out, err = run(capsys, enc, "--save-state", str(state))
    assert code == 0, err
    enc = write(tmp_path, "s2.enc", SESSION_2 + "expect Akira.FUE == 5\nexpect Hana.DES == 3\n")
    code, _out, err = run(capsys, enc, "--load-state", str(state))
    assert code == 0, err


def test_a_value_the_encounter_gives_a_loaded_combatant_is_refused(tmp_path, capsys, saved):
    enc = write(tmp_path, "s2.enc", SESSION_2.replace("combatant Akira:\n", "combatant Akira:\n  FUE 1\n"))
    code, _out, err = run(capsys, enc, "--load-state", str(saved))
    assert code == 2
    assert "error[E0808]: Akira's FUE comes from the loaded state; the encounter gives it too" in err
    assert 's2.enc:4:3' in err and '"change FUE ..."' in err


def test_a_change_line_changes_the_saved_value_on_purpose(tmp_path, capsys, saved):
    enc = write(tmp_path, "s2.enc", SESSION_2.replace("combatant Akira:\n", "combatant Akira:\n  change FUE 1\n")
                + "expect Akira.FUE == 1\nexpect Akira.AGI == 2\nexpect cards(Akira, Heridas) == [Heridas.Grave]\n")
    code, _out, err = run(capsys, enc, "--load-state", str(saved))
    assert code == 0, err


def test_a_bare_combatant_without_a_state_needs_its_sheet(tmp_path, capsys):
    code, _out, err = run(capsys, write(tmp_path, "s2.enc", SESSION_2))
    assert code == 2 and "error[E0206]: Akira needs a value for" in err


def test_the_loaded_session_opens_with_its_time_stamp(tmp_path, capsys):
    """Session 1 ends with a line said at the hour it is now; session 2 goes on at that hour, and its
    transcript still opens with the time stamp (momento_dicho is a session var: it is not saved)."""
    enc = write(tmp_path, "s1.enc", SESSION_1 + '  sentir(Hana, "ira", "el oni")\n')
    state = tmp_path / "estado.json"
    code, out, err = run(capsys, enc, "--save-state", str(state))
    assert code == 0 and out.splitlines()[-3] == "[día 1, 1:00:00]", err + out
    assert "momento_dicho" not in json.loads(state.read_text(encoding="utf-8"))["vars"]
    enc = write(tmp_path, "s2.enc", SESSION_2.replace("  pass\n", '  sentir(Hana, "miedo", "el oni")\n'))
    code, out, err = run(capsys, enc, "--load-state", str(state), "--quiet")
    assert code == 0, err
    assert out.startswith("[día 1, 1:00:00]\nHana recibe"), out[:200]


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
    (lambda t: t[: t.index('"edition": "yokai"') + len('"edition": "yo')], "E0801",   # inside a text
     "the state file ends before its data does (it was cut short)", None),
    (lambda t: t.replace('"vars": {', '"vars": {,', 1), "E0801", "the state file is damaged", None),
    (lambda t: '{"format": "otra cosa", "version": 1}', "E0802", "this is not a grimorio state file", ":1:2"),
    (lambda t: "[1, 2, 3]", "E0802", "this is not a grimorio state file", ":1:1"),
    (lambda t: t.replace('"version": 2', '"version": 7'), "E0803", "written by a newer grimorio (format 7", None),
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


def test_an_unwritable_state_path_is_refused_before_the_run(tmp_path, capsys):
    enc = write(tmp_path, "s2.enc", SESSION_2_SHEETS)
    status, out, err = run(capsys, enc, "--save-state", str(tmp_path / "no" / "existe.json"))
    assert status == 2 and "error[E0809]" in err and "its folder does not exist" in err and out == ""


KILL_MID_SAVE = """
import os, signal, sys
from grimorio.interpreter.tools import outputs
real = os.fsync
def die(fd):
    # The temporary file is written and flushed; die before it replaces the state.
    os.kill(os.getpid(), signal.SIGKILL)
outputs.os.fsync = die
from grimorio.interpreter.tools.cli import main
sys.exit(main(["run", sys.argv[1], "--load-state", sys.argv[2], "--save-state", sys.argv[2]]))
"""


@pytest.mark.slow
def test_a_run_killed_while_saving_leaves_the_previous_file_intact(tmp_path, saved):
    before = saved.read_bytes()
    enc = write(tmp_path, "s2.enc", SESSION_2.replace("  pass\n", '  receive Akira Heridas Leve\n'))
    # No cache: its entries are written with an fsync too, which would die before the save is reached.
    env = dict(os.environ, GRIMORIO_CACHE_DIR="")
    proc = subprocess.run([sys.executable, "-c", KILL_MID_SAVE, enc, str(saved)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == -9, proc.stderr
    assert saved.read_bytes() == before                 # the old state, whole
    leftovers = [p for p in tmp_path.iterdir() if p.name.startswith(".estado.json.")]
    assert leftovers, "the kill came while the temporary file was being written"
    # The state still loads (the temporary file is ignored), and the next save removes the dead write's file.
    assert main(["run", enc, "--load-state", str(saved), "--save-state", str(saved)]) == 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".estado.json.")]


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
    enc = write(tmp_path, "s.enc", SESSION_2_SHEETS.replace("  pass\n", "  append pendientes, pendientes\n"))
    status, _out, err = run(capsys, enc, "--save-state", str(tmp_path / "e.json"))
    assert status == 2 and "error[E0806]" in err and "a list or record that holds itself" in err


def test_a_state_nested_past_reason(tmp_path, capsys):
    bad = tmp_path / "hondo.json"
    bad.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    status, _out, err = run(capsys, write(tmp_path, "s.enc", SESSION_2), "--load-state", str(bad))
    assert status == 2 and "error[E0801]" in err and "Traceback" not in err


# ---------------------------------------------------------------- a state is input like any other (issue 27, item 3)
def _damaged(saved, change):
    data = json.loads(saved.read_text(encoding="utf-8"))
    change(data)
    saved.write_text(json.dumps(data), encoding="utf-8")


def _set_field(value):
    return lambda d: d["combatants"]["Akira"]["fields"].__setitem__("FUE", value)


def _in_a_list(value):
    return lambda d: d["vars"]["pendientes"].append(value)


@pytest.mark.parametrize("change, message", [
    (_set_field(500), "the saved FUE of Akira is 500, out of its range 0 to 5 (at combatants.Akira.fields.FUE)"),
    (_set_field(True), "the saved FUE of Akira is true or false, not a whole number"),
    (_set_field("tres"), "the saved FUE of Akira is a text, not a whole number"),
    (_set_field({"fraction": [7, 2]}), "the saved FUE of Akira is a number, not a whole number"),
    (_set_field(None), "the saved FUE of Akira is none, not a whole number"),
    (_in_a_list({"dice": [[5, 1, 6]], "const": 0}), "the saved value at vars.pendientes[3] does not fit these rules"),
    (_in_a_list({"dice": [[1, 2_000_000, 6]], "const": 0}), "at vars.pendientes[3] does not fit these rules"),
    (_in_a_list({"fraction": ["1e999999999", 1]}), "at vars.pendientes[3] does not fit these rules"),
    (_in_a_list({"fraction": [1, 0]}), "at vars.pendientes[3] does not fit these rules"),
    (_in_a_list({"record": "r", "fields": [["a", 1], ["a", 2]]}), "the saved record at vars.pendientes[3] names a field twice"),
    (_in_a_list({"grade": ["Heridas", "Mortal"]}), "at vars.pendientes[3] does not fit these rules"),
    (_in_a_list(list(range(1_000_001))), "the saved list at vars.pendientes[3] holds 1000001 items"),
    (lambda d: d["vars"].__setitem__("reloj", "mediodía"), "the saved var reloj is a text; these rules start it as a number"),
])
def test_every_saved_value_is_checked_before_anything_runs(tmp_path, capsys, saved, change, message):
    _damaged(saved, change)
    enc = write(tmp_path, "s2.enc", SESSION_2.replace("  pass\n", '  sentir(Hana, "miedo", "el oni")\n'))
    code, out, err = run(capsys, enc, "--load-state", str(saved))
    assert code == 2 and "error[E0805]" in err and message in err, err
    assert "Hana recibe" not in out and "E0003" not in err


@pytest.mark.parametrize("text, message", [
    ('{"format": "grimorio-state", "version": 2, "version": 2}', 'it names "version" twice in one table'),
    ('{"format": "grimorio-state", "version": 2.5}', "it holds the number 2.5, which grimorio never writes"),
    ('{"format": "grimorio-state", "version": NaN}', "it holds NaN, which is no number"),
    ('{"format": "grimorio-state", "version": ' + "9" * 5000 + "}", "it holds a number of 5000 digits; numbers hold at most 1000"),
])
def test_decoding_is_bounded(tmp_path, capsys, text, message):
    bad = tmp_path / "malo.json"
    bad.write_text(text, encoding="utf-8")
    enc = write(tmp_path, "s2.enc", SESSION_2)
    code, _out, err = run(capsys, enc, "--load-state", str(bad))
    assert code == 2 and "error[E0805]" in err and message in err, err
    assert "malo.json:1:" in err


DUELO = (ROOT / "rulesets" / "aquelarre" / "duelo.enc").read_text(encoding="utf-8")


@pytest.mark.parametrize("field, value, message", [
    ("arma", {"row": "armas", "key": "Espada de juguete"}, 'table "armas" has no row "Espada de juguete"'),
    ("arma", {"row": "armaduras", "key": "Ninguna"}, 'not a row of table "armas"'),
    ("Espadas", 250, "out of its range 0 to 100%"),
    ("es_montura", 5, "a number, not true or false"),
])
def test_a_saved_row_and_percent_are_checked_against_the_sheet(tmp_path, capsys, field, value, message):
    enc = write(tmp_path, "duelo.enc", DUELO)
    state = tmp_path / "estado.json"
    code, _out, err = run(capsys, enc, "--save-state", str(state))
    assert code == 0, err
    data = json.loads(state.read_text(encoding="utf-8"))
    who = next(iter(data["combatants"]))
    data["combatants"][who]["fields"][field] = value
    state.write_text(json.dumps(data), encoding="utf-8")
    bare = re.sub(r"(?m)^combatant (\S+):\n(?:  .*\n)*", lambda m: f"combatant {m.group(1)}:\n", DUELO)
    code, _out, err = run(capsys, write(tmp_path, "otra.enc", bare), "--load-state", str(state))
    assert code == 2 and "error[E0805]" in err and message in err and f"combatants.{who}.fields.{field}" in err, err


# ---------------------------------------------------------------- read and write only what is meant (item 4)
@pytest.mark.parametrize("make, message", [
    (lambda p: os.mkfifo(p), "it is not a regular file (a pipe, a device or a socket)"),
    (lambda p: p.symlink_to("/dev/zero"), "it is not a regular file (a pipe, a device or a socket)"),
    (lambda p: p.mkdir(), "it is a folder"),
    (lambda p: p.write_bytes(b" " * (16 * 1024 * 1024 + 1)), "it is larger than 16 MiB"),
])
def test_a_state_that_is_no_regular_file_is_refused_without_reading(tmp_path, capsys, make, message):
    target = tmp_path / "estado.json"
    make(target)
    code, _out, err = run(capsys, write(tmp_path, "s2.enc", SESSION_2), "--load-state", str(target))
    assert code == 2 and "error[E0801]" in err and message in err, err


@pytest.mark.parametrize("make, message", [
    (lambda p: os.mkfifo(p), "it is a pipe (FIFO), not a regular file"),
    (lambda p: p.symlink_to(p.parent / "otro.json"), "it is a symbolic link, not a regular file"),
    (lambda p: p.mkdir(), "it is a folder, not a regular file"),
    (lambda p: None, None),
])
def test_a_save_target_that_is_no_regular_file_is_refused_before_the_run(tmp_path, capsys, make, message):
    target = tmp_path / "estado.json"
    make(target)
    code, out, err = run(capsys, write(tmp_path, "s1.enc", SESSION_1), "--save-state", str(target))
    if message is None:
        assert code == 0 and target.is_file()
        return
    assert code == 2 and "error[E0809]" in err and message in err and out == "", err


@pytest.mark.parametrize("args", [["--save-state", "{enc}"], ["--save-state", "/"], ["--save-state", "."],
                                  ["--save-state", ""], ["--load-state", ""]])
def test_outputs_refuse_inputs_folders_and_empty_names(tmp_path, capsys, args):
    enc = write(tmp_path, "s1.enc", SESSION_1)
    before = Path(enc).read_bytes()
    code, out, err = run(capsys, enc, *[a.format(enc=enc) for a in args])
    assert code == 2 and out == "" and "E0003" not in err
    assert ("error[E0002]" in err and "needs a file name" in err) if args[1] == "" else "error[E0809]" in err, err
    assert Path(enc).read_bytes() == before


def test_a_report_never_replaces_the_encounter(tmp_path, capsys):
    enc = write(tmp_path, "s1.enc", SESSION_1)
    before = Path(enc).read_bytes()
    assert main(["simulate", enc, "-n", "2", "--report", enc]) == 2
    err = capsys.readouterr().err
    assert "error[E0809]" in err and "it is an input of this command" in err
    assert Path(enc).read_bytes() == before
    assert main(["simulate", enc, "-n", "2", "--report", ""]) == 2
    assert "--report needs a file name" in capsys.readouterr().err


def test_a_planted_temporary_link_is_not_followed(tmp_path, capsys):
    """The temporary name an older grimorio wrote through (.NAME.PID.tmp), planted as a link: not followed."""
    victim = tmp_path / "precious.txt"
    victim.write_text("mine\n")
    (tmp_path / f".estado.json.{os.getpid()}.tmp").symlink_to(victim)
    code, _out, err = run(capsys, write(tmp_path, "s1.enc", SESSION_1), "--save-state", str(tmp_path / "estado.json"))
    assert code == 0, err
    assert victim.read_text() == "mine\n"
