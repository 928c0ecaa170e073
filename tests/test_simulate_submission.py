"""simulate's submission, workers and scheduler (issue 27, item 5): a window of pending shares (memory
independent of -n), workers that die with their parent, a scheduler address checked and every
connection bounded in time."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from grimorio.interpreter.tools import simulate as sim
from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
DUELO = str(ROOT / "rulesets" / "aquelarre" / "duelo.enc")


def test_shares_are_made_as_they_are_asked_for():
    ranges = sim.shares(10 ** 12, 500)
    assert next(ranges) == (0, 500) and next(ranges) == (500, 1000)


class _Done:
    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


def test_submission_keeps_a_window_of_pending_shares():
    pending, most = set(), [0]

    def submit(fn, *args):
        f = _Done(fn(*args))
        pending.add(f)
        most[0] = max(most[0], len(pending))
        return f

    def wait(fs):
        done = {fs[0]}
        pending.difference_update(done)
        return done, set(fs) - done

    out = list(sim.submitted(submit, wait, lambda a, b: b - a, (), sim.shares(10_000, 10), 8))
    assert len(out) == 1000 and sum(c for _r, c in out) == 10_000 and most[0] == 8


@pytest.mark.parametrize("address", ["", "garbage", "tcp://[::1", "inproc://x", "ucx://host:1", "tls://host:8786",
                                     "tcp://host:99999"])
def test_a_scheduler_address_is_checked_before_anything_starts(capsys, address):
    pytest.importorskip("distributed")
    assert main(["simulate", DUELO, "-n", "2", "--backend", "dask", "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert "error[E0002]: --scheduler:" in err and "is no scheduler address" in err and "E0003" not in err


def test_a_good_address_is_taken():
    assert sim.scheduler_address("tcp://10.0.0.5:8786") == "tcp://10.0.0.5:8786"
    assert sim.scheduler_address("[::1]:8786") == "tcp://[::1]:8786"
    assert sim.scheduler_address("planificador.local:8786") == "tcp://planificador.local:8786"


def _server(answer: bytes | None):
    """A server on localhost that accepts, then says `answer` (None: nothing, ever)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held = []

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)
            if answer is not None:
                try:
                    conn.sendall(answer)
                except OSError:
                    pass
    threading.Thread(target=serve, daemon=True).start()
    return listener, f"tcp://127.0.0.1:{listener.getsockname()[1]}"


@pytest.mark.slow
@pytest.mark.parametrize("answer", [None, b"\xff" * 64 + b"HTTP/1.1 200 OK\r\n\r\n" + os.urandom(256)])
def test_a_server_that_never_answers_or_answers_garbage_is_an_error_in_time(monkeypatch, capsys, answer):
    pytest.importorskip("distributed")
    monkeypatch.setattr(sim, "HANDSHAKE_SECONDS", 3)
    listener, address = _server(answer)
    try:
        start = time.monotonic()
        assert main(["simulate", DUELO, "-n", "2", "--backend", "dask", "--scheduler", address]) == 2
        assert time.monotonic() - start < 30
    finally:
        listener.close()
    err = capsys.readouterr().err
    assert "error[E0034]: the Dask scheduler cannot be reached" in err and "E0003" not in err, err


def _children(pid: int) -> set[int]:
    out = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        out |= {int(c) for c in (task / "children").read_text().split()}
    return out


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc")
def test_workers_die_with_their_parent(tmp_path):
    main_proc = subprocess.Popen([sys.executable, "-c", "import sys; from grimorio._entry import main; sys.exit(main())",
                                  "simulate", DUELO, "-n", "100000000", "--workers", "2"], cwd=tmp_path,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        workers: set[int] = set()
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.2)
            workers = _children(main_proc.pid)
        assert len(workers) >= 2, "the workers did not start"
        main_proc.send_signal(signal.SIGKILL)
        main_proc.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(Path(f"/proc/{w}").exists() and
                                                  "Z" not in Path(f"/proc/{w}/stat").read_text().split()[2]
                                                  for w in workers):
            time.sleep(0.1)
        alive = [w for w in workers if Path(f"/proc/{w}").exists()
                 and "Z" not in Path(f"/proc/{w}/stat").read_text().split()[2]]
        assert not alive, "workers outlived the main process"
    finally:
        if main_proc.poll() is None:
            main_proc.kill()


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc")
def test_ctrl_c_during_a_dask_simulation_ends_it_quietly(tmp_path):
    """Issue 27: Ctrl-C during `--backend dask` printed the resource tracker's leaked-semaphore warning.
    Interrupted once its local cluster's workers run, it ends with 130 and nothing on the error output."""
    from tests.test_simulate import needed
    needed("distributed")
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from grimorio._entry import main; sys.exit(main())",
                             "simulate", DUELO, "-n", "100000000", "--backend", "dask", "--workers", "2"],
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(_children(proc.pid)) < 2 and proc.poll() is None:
            time.sleep(0.2)
        time.sleep(2)                          # the workers have taken their first batches
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err.decode()[-2000:]
    assert b"leaked" not in err and b"resource_tracker" not in err and b"Traceback" not in err, err[-2000:]
