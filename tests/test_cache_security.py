"""The cache trusts nothing it reads back (issue 27, item 1; issue 25, item 5).

Every entry carries a keyed digest under the user's own secret, checked before
anything is unpickled or unmarshalled; the folder is the user's (0700), and one
another user owns or others can write is refused with a warning; writes never
follow a planted link; temporaries of dead writes are removed; and the cache
lives in the user's cache folder, never in the installed package.
"""
from __future__ import annotations

import marshal
import os
import pickle
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from grimorio.dsl import store
from grimorio.dsl.editions import cache
from grimorio.dsl.syntax import parser

ROOT = Path(__file__).resolve().parent.parent
RULES = "var x = 1\nrule f(a):\n  return a + 1\n"


class _Planted:
    """A pickle that, if it is ever loaded, makes the folder `marker`: proof that a cache entry ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return os.mkdir, (self.marker,)


@pytest.fixture
def own(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(folder))
    monkeypatch.setattr(store, "_memory", {})
    monkeypatch.setattr(cache, "_memory", store._memory)
    return folder


def _names_written(folder: Path, prefix: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(prefix))


def test_a_foreign_built_entry_is_never_unpickled(own, tmp_path):
    cache.build_rules(RULES, "t.rules")
    (entry,) = own.glob("built-*")
    marker = tmp_path / "ran"
    entry.write_bytes(pickle.dumps(_Planted(marker)))
    store._memory.clear()
    decls, diags = cache.build_rules(RULES, "t.rules")
    assert not marker.exists(), "a planted cache entry was unpickled"
    assert decls and not diags


def test_a_foreign_or_damaged_code_entry_never_runs(own):
    """41 + 1 stays 42 whatever the entry holds: another's code, or a flipped bit."""
    source = "def f():\n    return 41 + 1\n"
    store.python_code(source, "<t>")
    (entry,) = own.glob("code-*")
    entry.write_bytes(marshal.dumps(compile("def f():\n    return 43\n", "<t>", "exec")))
    store._memory.clear()
    ns: dict = {}
    exec(store.python_code(source, "<t>"), ns)  # noqa: S102 - the test's own text
    assert ns["f"]() == 42
    data = bytearray(entry.read_bytes())            # rewritten, with its digest: now flip one bit of it
    data[-5] ^= 0x01
    entry.write_bytes(bytes(data))
    store._memory.clear()
    ns = {}
    exec(store.python_code(source, "<t>"), ns)  # noqa: S102
    assert ns["f"]() == 42


def test_an_entry_too_large_or_not_a_file_is_not_read(own, monkeypatch):
    store.keep("built-big.pickle", b"x" * 100)
    assert store.kept("built-big.pickle") == b"x" * 100
    monkeypatch.setattr(store, "MAX_ENTRY", 64)
    assert store.kept("built-big.pickle") is None
    monkeypatch.setattr(store, "MAX_ENTRY", 1 << 20)
    (own / "built-fifo.pickle").unlink(missing_ok=True)
    os.mkfifo(own / "built-fifo.pickle")
    assert store.kept("built-fifo.pickle") is None          # opened without blocking, and refused


def test_the_folder_is_made_private_with_a_private_secret(own):
    store.keep("built-a.pickle", b"a")
    assert stat.S_IMODE(own.stat().st_mode) == 0o700
    assert stat.S_IMODE((own / store.SECRET).stat().st_mode) == 0o600
    assert stat.S_IMODE((own / "built-a.pickle").stat().st_mode) == 0o600


def test_a_folder_others_can_write_is_refused_with_a_warning(tmp_path, monkeypatch, capsys):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("GRIMORIO_CACHE_DIR", str(shared))
    monkeypatch.setattr(store, "_memory", {})
    monkeypatch.setattr(cache, "_memory", store._memory)
    monkeypatch.setattr(store, "warned", set(), raising=False)
    decls, _ = cache.build_rules(RULES, "t.rules")
    assert decls and list(shared.iterdir()) == []           # it ran, and kept nothing there
    err = capsys.readouterr().err
    assert "warning[E0010]" in err and "others can write in it" in err


def test_a_secret_others_can_read_refuses_the_folder(own, monkeypatch, capsys):
    monkeypatch.setattr(store, "warned", set(), raising=False)
    store.keep("built-a.pickle", b"a")
    (own / store.SECRET).chmod(0o644)
    monkeypatch.setattr(store, "_opened", {})
    assert store.kept("built-a.pickle") is None
    assert "warning[E0010]" in capsys.readouterr().err


def test_writes_never_follow_a_planted_link(own, tmp_path):
    """The entry's name and the temporary name an older grimorio used (NAME.PID.tmp), both links to
    the user's file: the file stays as it was."""
    victim = tmp_path / "precious.txt"
    victim.write_text("mine\n")
    cache.build_rules(RULES, "t.rules")
    (entry,) = own.glob("built-*")
    name = entry.name
    entry.unlink()
    for planted in (name, f"{name}.{os.getpid()}.tmp"):
        (own / planted).symlink_to(victim)
    store._memory.clear()
    assert cache.build_rules(RULES, "t.rules")[0]
    assert victim.read_text() == "mine\n"
    assert (own / name).is_file() and not (own / name).is_symlink()


def test_temporaries_of_dead_writes_are_removed(own):
    store.keep("built-a.pickle", b"a")
    dead = own / ".built-b.pickle.99999999.0badf00d.tmp"
    dead.write_bytes(b"half")
    mine = own / f".built-c.pickle.{os.getpid()}.0badf00d.tmp"
    mine.write_bytes(b"under way")
    store._writes.clear()
    store.keep("built-d.pickle", b"d")
    assert not dead.exists() and mine.exists()


def test_the_cache_is_the_users_never_the_package(tmp_path, monkeypatch):
    monkeypatch.delenv("GRIMORIO_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(store, "_memory", {})
    monkeypatch.setattr(cache, "_memory", store._memory)
    package = Path(cache.__file__).resolve().parent.parent
    before = {p for p in package.rglob("*") if "built-" in p.name}
    cache.build_rules(RULES + "var unique_to_this_test = 1\n", "t.rules")
    assert {p for p in package.rglob("*") if "built-" in p.name} == before
    assert list((tmp_path / "xdg" / "grimorio").glob("built-*"))


@pytest.mark.slow
def test_a_planted_parser_entry_is_never_loaded(own, tmp_path, monkeypatch):
    """Every entry a cold start writes (the parser's tables among them), planted: none is loaded, and a
    link planted under each name (or the temporary name an older grimorio wrote through) is not followed."""
    parser.lark_parser.cache_clear()
    try:
        parser.lark_parser()
        names = _names_written(own, "grammar-")
        assert names
        marker, victim = tmp_path / "ran", tmp_path / "precious.txt"
        victim.write_text("mine\n")
        for name in names:
            (own / name).write_bytes(b"0" * 64 + b"\n" + pickle.dumps(_Planted(marker)))
        parser.lark_parser.cache_clear()
        assert parser.lark_parser().parse("var x = 1\n", start="rules_file").children
        assert not marker.exists(), "a planted parser entry was loaded"
        for name in names:
            (own / name).unlink()
            (own / name).symlink_to(victim)
            (own / f"{name}.{os.getpid()}.tmp").symlink_to(victim)
        parser.lark_parser.cache_clear()
        parser.lark_parser()
        assert victim.read_text() == "mine\n"
    finally:
        parser.lark_parser.cache_clear()


def _other_user():
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("two users: the test drops privileges, so it runs as root (CI does)")
    import pwd
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user 'nobody' to drop privileges to")


def _as_other_user(user, code: str, *args):
    python = shutil.which("python3", path="/usr/bin:/bin:/usr/local/bin")      # one the other user can run
    if python is None or not os.access(python, os.X_OK):
        pytest.skip("no system python3 for the other user")
    out = subprocess.run([python, "-c", code, *args], user=user.pw_uid, group=user.pw_gid,
                         extra_groups=[], capture_output=True, text=True, timeout=60, cwd="/")
    assert out.returncode == 0, out.stderr


PLANT = """
import os, sys, shutil
folder, payloads = sys.argv[1], sys.argv[2]
os.makedirs(folder, exist_ok=True)
os.chmod(folder, 0o777)
for name in os.listdir(payloads):
    shutil.copyfile(os.path.join(payloads, name), os.path.join(folder, name))
    os.chmod(os.path.join(folder, name), 0o666)
"""


@pytest.mark.slow
@pytest.mark.parametrize("how", ["GRIMORIO_CACHE_DIR", "XDG_CACHE_HOME"])
def test_another_users_cache_folder_is_refused_and_nothing_of_it_runs(tmp_path, how):
    """Another user makes the cache folder (world-writable) and plants an entry under every name a run
    reads; the victim's run prints its transcript, warns E0010, and runs none of it."""
    user = _other_user()
    warm = tmp_path / "warm"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GRIMORIO_CACHE_DIR": str(warm)}
    command = [sys.executable, "-c", "import sys; from grimorio._entry import main; sys.exit(main())",
               "run", str(ROOT / "rulesets" / "aquelarre" / "duelo.enc")]
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    shared = Path(tempfile.mkdtemp(prefix="grimorio-shared-"))
    try:
        shared.chmod(0o755)
        marker = shared / "ran"
        payloads = shared / "payloads"
        payloads.mkdir()
        payloads.chmod(0o755)
        evil = pickle.dumps(_Planted(marker))
        for entry in warm.iterdir():
            (payloads / entry.name).write_bytes(b"0" * 64 + b"\n" + evil if entry.name.startswith("grammar-")
                                               else evil)
        (shared / "home").mkdir()
        (shared / "home").chmod(0o777)
        folder = shared / "home" / ("cache" if how == "GRIMORIO_CACHE_DIR" else "grimorio")
        _as_other_user(user, PLANT, str(folder), str(payloads))
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("GRIMORIO_CACHE_DIR", None)
        env[how] = str(folder if how == "GRIMORIO_CACHE_DIR" else shared / "home")
        victim = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert not marker.exists(), "another user's cache entry ran in the victim's process"
        assert victim.returncode == 0 and victim.stdout == first.stdout, victim.stderr
        assert "warning[E0010]" in victim.stderr and "belongs to another user" in victim.stderr
    finally:
        shutil.rmtree(shared, ignore_errors=True)
