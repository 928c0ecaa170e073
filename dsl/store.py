"""What grimorio keeps between runs, on disk: the store under every cache (the built parser, the
built files, compiled code, programs, remembered checks). The lowest module of the language but the
pause: it imports none of grimorio's own, so every stage may keep its results here.

The cache belongs to the user (docs/security.md). It lives in the user's
own cache folder, by the platform's conventions (platformdirs'): on Linux
$XDG_CACHE_HOME/grimorio (default ~/.cache/grimorio), on macOS
~/Library/Caches/grimorio, on Windows %LOCALAPPDATA%/grimorio/Cache;
GRIMORIO_CACHE_DIR chooses another ("" turns the cache off). Never the
installed package's folder. The folder is made 0700; one that is not the
user's own, or that others can write, is refused with a warning (E0010)
and the run goes on without a cache.

Nothing read back is trusted: every entry carries a keyed digest (HMAC-
SHA256 under a per-user secret kept 0600 in the folder, over the entry's
name and bytes), checked before anything is unpickled or unmarshalled; an
entry that fails it, is not a regular file of the user's, or is larger
than MAX_ENTRY is ignored and built again. Every write makes a temporary
file beside the entry with O_CREAT|O_EXCL|O_NOFOLLOW (mode 0600), syncs
it and renames it over the entry, all relative to the folder opened once
(no path is followed twice); temporaries of dead processes are removed.
A folder that cannot be made, read or written only costs time.

What is kept, and under which names, is its users' business: dsl/editions/cache.py (built files,
and what a load read), dsl/syntax/parser.py (the parser's tables), dsl/records.py (the records'
methods), interpreter/compile/stored.py (compiled programs).
"""
from __future__ import annotations

import hashlib
import hmac
import marshal
import os
import stat
import sys
import time
from pathlib import Path


KEEP = 256            # built files kept on disk; the oldest are dropped beyond this
KEEP_BY_KIND = {"program": 16}    # compiled programs are larger: fewer are kept
MAX_ENTRY = 256 * 1024 * 1024     # an entry larger than this is not read (no program comes near it)
MAGIC = b"grimorio-cache 1\n"
SECRET = "secret"                 # the per-user key of the entries' digests
STALE_SECONDS = 3600              # a temporary file this old is a dead write, whoever made it
_memory: dict[str, bytes] = {}



def user_cache_folder() -> Path:
    """The user's cache folder for grimorio, as platformdirs' user_cache_dir("grimorio") names it."""
    home = Path(os.path.expanduser("~"))
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local") / "grimorio" / "Cache"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "grimorio"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return Path(xdg if os.path.isabs(xdg) else home / ".cache") / "grimorio"


def folder_path() -> Path | None:
    """The cache folder asked for: GRIMORIO_CACHE_DIR ("" for none), else the user's cache folder."""
    chosen = os.environ.get("GRIMORIO_CACHE_DIR")
    if chosen is not None:
        return Path(chosen) if chosen else None
    try:
        return user_cache_folder()
    except (OSError, RuntimeError, KeyError, ValueError):      # no home folder
        return None


class _Folder:
    """The cache folder, opened once and checked: every name is opened relative to it."""

    def __init__(self, path: Path, fd: int | None, secret: bytes):
        self.path, self.fd, self.secret = path, fd, secret

    def at(self, name: str):
        return (name, self.fd) if self.fd is not None else (str(self.path / name), None)

    def open(self, name: str, flags: int, mode: int = 0o600) -> int:
        path, fd = self.at(name)
        return os.open(path, flags | _NOFOLLOW | _CLOEXEC, mode, dir_fd=fd)

    def stat(self, name: str):
        path, fd = self.at(name)
        return os.stat(path, dir_fd=fd, follow_symlinks=False)

    def replace(self, old: str, new: str) -> None:
        (a, fd), b = self.at(old), self.at(new)[0]
        os.replace(a, b, src_dir_fd=fd, dst_dir_fd=fd)

    def unlink(self, name: str) -> None:
        path, fd = self.at(name)
        os.unlink(path, dir_fd=fd)

    def names(self) -> list[str]:
        with os.scandir(self.fd if self.fd is not None else self.path) as listing:
            return [e.name for e in listing]

    def digest(self, name: str, data: bytes) -> bytes:
        return hmac.new(self.secret, name.encode("utf-8", "surrogatepass") + b"\0" + data, hashlib.sha256).digest()


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIR_FD = hasattr(os, "supports_dir_fd") and {os.open, os.replace, os.unlink, os.stat} <= os.supports_dir_fd
_opened: dict[str, "_Folder | None"] = {}
warned: set[str] = set()        # folders refused with a warning, once each per process


def _owner() -> int | None:
    return os.geteuid() if hasattr(os, "geteuid") else None


def opened() -> _Folder | None:
    """The cache folder, made (0700), opened and checked; None when there is none or it is refused."""
    path = folder_path()
    if path is None:
        return None
    key = str(path)
    if key not in _opened:
        _opened[key] = _open_folder(path)
    return _opened[key]


class _Refused(Exception):
    pass


def _open_folder(path: Path) -> _Folder | None:
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except (OSError, ValueError):
        pass
    fd = None
    try:
        if _DIR_FD:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
            st = os.fstat(fd)
        else:
            st = os.stat(path)
        if not stat.S_ISDIR(st.st_mode):
            raise _Refused
        problem = _foreign(st)
        if problem:
            _refuse(path, problem)
            raise _Refused
        folder = _Folder(path, fd, b"")
        folder.secret = _secret(folder)
        return folder
    except (OSError, ValueError, _Refused):
        if fd is not None:
            os.close(fd)
        return None


def _foreign(st) -> str | None:
    """Why a file or folder cannot be trusted as the user's own, or None."""
    owner = _owner()
    if owner is None:
        return None
    if st.st_uid != owner:
        return f"it belongs to another user (uid {st.st_uid})"
    if st.st_mode & 0o022:
        return "others can write in it"
    return None


def _refuse(path: Path, problem: str) -> None:
    """Warn (once per folder) that the cache is not used. Written as diagnostics are rendered, without them:
    the cache is read while the diagnostics module itself is being imported (dsl/records.py)."""
    if str(path) in warned:
        return
    warned.add(str(path))
    shown = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in str(path))
    try:
        print(f"warning[E0010]: the cache folder is not used: {problem}\n  --> {shown}\n"
              "   = help: grimorio runs without its cache (only slower); make the folder your own (chmod 700), "
              "or choose another with GRIMORIO_CACHE_DIR", file=sys.stderr)
    except (OSError, ValueError, AttributeError):
        pass


def _secret(folder: _Folder) -> bytes:
    """The folder's secret: read (a regular file of the user's, 0600, of 32 bytes), else made."""
    for _attempt in range(2):
        try:
            fd = folder.open(SECRET, os.O_RDONLY | _NONBLOCK)
        except FileNotFoundError:
            try:
                fd = folder.open(SECRET, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                continue                   # another process made it meanwhile: read theirs
            try:
                secret = os.urandom(32)
                os.write(fd, secret)
                os.fsync(fd)
                return secret
            finally:
                os.close(fd)
        try:
            st = os.fstat(fd)
            problem = _foreign(st) or ("others can read it" if _owner() is not None and st.st_mode & 0o077 else None)
            if not stat.S_ISREG(st.st_mode) or st.st_size != 32 or problem:
                _refuse(folder.path, f'its file "{SECRET}" is not the user\'s own 32-byte secret'
                                     + (f" ({problem})" if problem else ""))
                raise _Refused
            return os.read(fd, 32)
        finally:
            os.close(fd)
    raise _Refused


def place(name: str) -> Path | None:
    """Where the cached `name` is, or would be written; None when there is no usable cache folder."""
    folder = opened()
    return folder.path / name if folder is not None else None



def python_code(source: str, filename: str):
    """compile(source, filename, "exec"), or the code object kept from an earlier compile of the same text
    (the generated Python of an edition is the same from run to run: compiling it is most of a cached run)."""
    key = hashlib.sha256(f"{sys.version}\0{filename}\0{source}".encode("utf-8", "surrogatepass")).hexdigest()
    name = f"code-{key[:32]}.marshal"
    data = _memory.get(key) or kept(name)
    if data is not None:
        try:
            return marshal.loads(data)
        except (EOFError, ValueError, TypeError):      # a damaged entry is compiled again
            pass
    code = compile(source, filename, "exec")
    data = marshal.dumps(code)
    _memory[key] = data
    keep(name, data)
    return code


def kept(name: str) -> bytes | None:
    """The bytes kept under `name`, if they are there, the user's, and carry this user's digest."""
    folder = opened()
    if folder is None:
        return None
    try:
        fd = folder.open(name, os.O_RDONLY | _NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_ENTRY or _foreign(st):
            return None
        data = _read_all(fd, st.st_size)
    except OSError:
        return None
    finally:
        os.close(fd)
    head = len(MAGIC) + 32
    if data[:len(MAGIC)] != MAGIC or not hmac.compare_digest(data[len(MAGIC):head], folder.digest(name, data[head:])):
        return None
    return data[head:]


def _read_all(fd: int, size: int) -> bytes:
    chunks, got = [], 0
    while got <= size:
        chunk = os.read(fd, min(1 << 24, size + 1 - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def keep(name: str, data: bytes) -> None:
    """Write atomically (a reader never sees half a file), then drop the oldest entries beyond KEEP."""
    folder = opened()
    if folder is None:
        return
    tmp = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        fd = folder.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return
    try:
        try:
            view = memoryview(MAGIC + folder.digest(name, data) + data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        folder.replace(tmp, name)
        kind, _, rest = name.partition("-")
        _trim(folder, kind, Path(rest).suffix, KEEP_BY_KIND.get(kind, KEEP))
    except OSError:
        try:
            folder.unlink(tmp)
        except OSError:
            pass


_writes: dict = {}       # this process's writes by kind, since the start


def _trim(folder: _Folder, kind: str, suffix: str, limit: int) -> None:
    """Drop the oldest entries of a kind down to `limit`, once they are a quarter over it, and the temporary
    files of writes that died. A process looks at the folder on its first write of a kind and then once
    every quarter of the limit's writes, so the folder holds at most about a quarter over the limit for
    each process writing it (listing it and reading the entries' times on every write cost a test suite
    that builds many small editions a tenth of its time)."""
    count = _writes[kind] = _writes.get(kind, 0) + 1
    if (count - 1) % max(1, limit // 4):
        return
    names = folder.names()
    _clean_temporaries(folder, [nm for nm in names if nm.startswith(".") and nm.endswith(".tmp")])
    entries = [nm for nm in names if nm.startswith(kind + "-") and nm.endswith(suffix)]
    if len(entries) <= limit + limit // 4:
        return
    times = {}
    for nm in entries:
        try:
            times[nm] = folder.stat(nm).st_mtime
        except OSError:
            pass
    for old in sorted(times, key=times.get)[:-limit]:
        try:
            folder.unlink(old)
        except OSError:
            pass


def _clean_temporaries(folder: _Folder, names) -> None:
    """Remove the temporary files (".NAME.PID.RANDOM.tmp") of processes that are gone, or older than an hour."""
    now = time.time()
    for nm in names:
        parts = nm.rsplit(".", 3)
        pid = int(parts[1]) if len(parts) == 4 and parts[1].isdigit() else None
        try:
            old = now - folder.stat(nm).st_mtime > STALE_SECONDS
            if old or (pid is not None and pid != os.getpid() and not alive(pid)):
                folder.unlink(nm)
        except OSError:
            pass


def alive(pid: int) -> bool:
    """Whether a process of this number may still run (one of another user's counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError, ValueError):
        return True          # another user's process, or no process number: left alone
    return True


def code_digest(*roots: str) -> str:
    """A digest of grimorio's own files under `roots` (each one's name, size and time of change, as
    Python itself tells a stale .pyc) and of Python's version: what other code made is never reused."""
    h = hashlib.sha256(sys.version.encode())
    for root in roots:
        for folder, subfolders, names in sorted(os.walk(root)):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for name in sorted(nm for nm in names if nm.endswith((".py", ".lark", ".rules"))):
                st = os.stat(os.path.join(folder, name))
                h.update(f"{folder}/{name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode("utf-8", "surrogateescape"))
    return h.hexdigest()
