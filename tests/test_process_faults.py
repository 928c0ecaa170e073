"""The installed command under process faults and unreadable inputs (issue 6, builds 4 and 5):
exit 0, 1, 2 or 130 with diagnostics, never a traceback, never the internal-bug error, never a hang.
Each case runs the installed console script in a subprocess."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).parent / "grimorio"
DUEL = ROOT / "rulesets" / "aquelarre" / "duelo.enc"

pytestmark = [pytest.mark.slow,      # every case starts a process (tests/conftest.py)
              pytest.mark.skipif(not SCRIPT.exists(), reason="grimorio is not installed in this interpreter's environment")]


def grimorio(*args, cwd=None, timeout=60, env=None, **kw) -> subprocess.CompletedProcess:
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    out = subprocess.run([str(SCRIPT), *map(str, args)], cwd=cwd or ROOT, timeout=timeout,
                         env={**os.environ, **(env or {})}, **kw)
    _clean(out.stderr)
    return out


def _clean(stderr) -> None:
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else (stderr or "")
    assert "Traceback" not in text and "E0003" not in text and "Exception ignored" not in text, text


def _big_encounter(folder: Path) -> Path:
    """An encounter whose structured transcript is far larger than a pipe's buffer."""
    text = DUEL.read_text(encoding="utf-8")
    head, _, fighters = text.partition("combatant ")
    fighters = "combatant " + fighters
    blocks = [b for b in fighters.split("\n\n") if b.startswith("combatant ")]
    more = []
    for i in range(12):
        for b in blocks[:2]:
            name = b.split()[1].rstrip(":")
            more.append(b.replace(f"combatant {name}:", f"combatant {name}{i}:", 1))
    enc = folder / "melee.enc"
    enc.write_text(head + "\n\n".join(more) + "\n", encoding="utf-8")
    return enc


# ------------------------------------------------------------------ streams
@pytest.mark.parametrize("args", [["editions"], ["check", "rulesets/aquelarre"], ["run", DUEL]])
def test_a_closed_output_is_a_diagnostic(args):
    out = grimorio(*args, stdout=None, preexec_fn=lambda: os.close(1))
    assert out.returncode == 2
    assert b"error[E0004]: the standard output is closed" in out.stderr


def test_a_closed_error_output_keeps_diagnostics_off_the_output(tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text("rule f(:\n", encoding="utf-8")
    out = grimorio("check", bad, preexec_fn=lambda: os.close(2), stderr=None)
    assert out.returncode == 2
    assert out.stdout == b""


@pytest.mark.parametrize("big", [False, True])
def test_a_reader_that_leaves_ends_grimorio_quietly(big, tmp_path):
    """`grimorio run ... | true`: the reader is gone before anything is written (a blocked writer that
    loses its reader is the same error, EPIPE, met at a later write)."""
    enc = _big_encounter(tmp_path) if big else DUEL
    read, write = os.pipe()
    os.close(read)
    try:
        out = grimorio("run", "--format", "jsonl", enc, stdout=write)
    finally:
        os.close(write)
    assert out.returncode == 2
    assert b"error" not in out.stderr, out.stderr          # warnings about the rules may come first


def test_a_full_disk_is_a_diagnostic():
    with open("/dev/full", "w") as full:
        out = grimorio("run", DUEL, stdout=full)
    assert out.returncode == 2
    assert b"error[E0005]: cannot write the output: No space left on device" in out.stderr


def test_an_ascii_locale_gets_utf8_and_escapes_never_a_crash(tmp_path):
    env = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
    out = grimorio("run", DUEL, env=env)
    assert out.returncode == 0
    assert "éxito" in out.stdout.decode("utf-8")
    listing = grimorio("editions", env=env)
    assert listing.returncode == 0 and "Yôkai" in listing.stdout.decode("utf-8")
    missing = grimorio("check", "/nonexistent/espadachín.rules".encode("utf-8"), env=env)
    assert missing.returncode == 2 and b"error[E0001]" in missing.stderr


def test_ctrl_c_at_any_moment_exits_130_without_a_traceback():
    """From grimorio's first instruction on (grimorio/_entry.py); the few milliseconds before, while Python
    itself starts, are Python's. The delays start after that, with room for a busy machine."""
    # No cache, and a house rule so that the program shipped in the wheel does not serve: the run builds its
    # program and lasts long enough to be cut.
    env = {**os.environ, "GRIMORIO_CACHE_DIR": ""}
    house = ROOT / "rulesets" / "casa" / "vendar.rules"
    seen = set()
    for delay in (0.3, 0.45, 0.6, 0.8, 1.0, 1.3):
        proc = subprocess.Popen([str(SCRIPT), "run", str(DUEL), "--house", str(house)], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        _clean(err)
        # 130: interrupted; 0: done before the signal; -SIGINT: done, and cut while Python shut down (its
        # handlers are gone by then), with the transcript whole and nothing on the error output.
        finished = out.rstrip().splitlines()[-1:] != [] and b"Fin del combate" in out.rstrip().splitlines()[-1]
        assert proc.returncode in (130, 0) or (proc.returncode == -signal.SIGINT and finished), \
            (delay, proc.returncode, err, out[-200:])
        assert err == b"" or proc.returncode == 0, err
        seen.add(proc.returncode)
    assert 130 in seen


# ------------------------------------------------------------------ paths
def test_a_deleted_working_folder(tmp_path):
    def in_deleted_folder(*args):
        gone = tmp_path / f"gone{len(args[-1])}"
        gone.mkdir()
        script = f'cd "{gone}" && rmdir "{gone}" && exec "$0" "$@"'
        return subprocess.run(["sh", "-c", script, str(SCRIPT), *args], capture_output=True, timeout=60)

    absolute = in_deleted_folder("run", str(DUEL))
    _clean(absolute.stderr)
    assert absolute.returncode == 0 and absolute.stdout.startswith(b"# encounter ") and b"\nAsalto 1\n" in absolute.stdout
    relative = in_deleted_folder("run", "duelo.enc")
    _clean(relative.stderr)
    assert relative.returncode == 2 and b"error[E000" in relative.stderr


@pytest.mark.parametrize("command", ["run", "check"])
def test_over_long_path_names(command, tmp_path):
    for path in ("a" * 300 + ".enc", str(tmp_path / ("b" * 300) / "x.enc"), "c/" * 3000 + "x.enc"):
        out = grimorio(command, path)
        assert out.returncode == 2 and b"error[E000" in out.stderr, out.stderr


# ------------------------------------------------------------------ what is read
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.enc"
    os.mkfifo(fifo)
    for command in ("run", "check"):
        out = grimorio(command, fifo, timeout=30)
        assert out.returncode == 2
        assert b"is not a regular file" in out.stderr


def test_dev_zero_is_refused_before_reading(tmp_path):
    for command in ("run", "check"):
        out = grimorio(command, "/dev/zero", timeout=30)
        assert out.returncode == 2 and b'error[E0001]: "/dev/zero" is' in out.stderr


def test_a_huge_file_is_refused_before_reading(tmp_path):
    huge = tmp_path / "huge.enc"
    with open(huge, "wb") as f:
        f.truncate(6 * 1024 ** 3)                    # sparse: nothing is really written
    out = grimorio("run", huge, timeout=30)
    assert out.returncode == 2 and b"is larger than 4 MiB" in out.stderr


def test_finding_editions_skips_fifos_devices_and_huge_files_beside_them(tmp_path):
    rules = tmp_path / "rules"
    odd = rules / "rara"
    odd.mkdir(parents=True)
    os.mkfifo(odd / "tuberia.rules")
    os.symlink("/dev/zero", odd / "ceros.rules")
    with open(odd / "enorme.rules", "wb") as f:
        f.write(b"edition enorme:\n")
        f.truncate(6 * 1024 ** 3)
    out = grimorio("run", "--rules", rules, DUEL, timeout=60)
    assert out.returncode == 0 and out.stdout.startswith(b"# encounter ") and b"\nAsalto 1\n" in out.stdout
    listing = grimorio("check", odd, timeout=60)
    # A folder with no edition is checked file by file as house rules: the huge file is refused by its size
    # before it is read (E0001), the FIFO and /dev/zero are not read at all.
    assert listing.returncode == 2 and b"error[E0001]" in listing.stderr and b"enorme.rules" in listing.stderr
    assert b"tuberia" not in listing.stderr and b"ceros" not in listing.stderr


def test_the_interrupt_handler_is_grimorio_s_first_act():
    """docs/security.md, "Ctrl-C": importing the console script's module installs the handler and
    imports nothing else of grimorio (before it, only Python's own start can be interrupted)."""
    import grimorio._entry as entry
    import importlib
    loaded = {m for m in sys.modules if m.startswith("grimorio.")}
    importlib.reload(entry)
    assert signal.getsignal(signal.SIGINT) is entry._interrupted
    source = Path(entry.__file__).read_text(encoding="utf-8")
    head = source.split("def main", 1)[0]
    assert "from ." not in head and "import grimorio" not in head      # nothing of grimorio before the handler
    assert {m for m in sys.modules if m.startswith("grimorio.")} == loaded
    signal.signal(signal.SIGINT, signal.default_int_handler)
