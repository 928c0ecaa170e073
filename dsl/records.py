"""`dataclass`, with the methods it writes compiled once and kept.

The standard decorator writes each class's __init__, __repr__, __eq__,
__hash__, __setattr__ and __delattr__ as Python text and compiles it, on
every start: for the AST's seventy classes that is most of the cost of
importing them. This decorator is the standard one, run with its `exec`
taking the code of a text it has seen before from the cache (dsl/cache.py)
instead of compiling it again: the same text, compiled the same way, so the
classes are exactly what `dataclasses.dataclass` makes. A text not seen
before is compiled as usual and the cache is written once, as the process
ends. A class without a docstring gets the one dataclasses would give it
(its name and signature) when it is first read, not at import.
"""
from __future__ import annotations

import atexit
import builtins
import dataclasses
import hashlib
import marshal
import sys

from . import cache

NAME = f"dataclasses-{sys.implementation.cache_tag}-{hashlib.sha256(sys.version.encode()).hexdigest()[:16]}.marshal"
KEEP = 4000                   # texts kept at most: older ones (from an earlier grimorio) are let go beyond this
_known: dict | None = None    # text -> code, as kept
_used: dict = {}              # text -> code, this process
_compiled = False             # whether this process compiled one (then the cache is written at exit)
_MISSING = object()


def dataclass(cls=None, /, **options):
    """dataclasses.dataclass(cls, **options)."""
    def wrap(c):
        before = dataclasses.__dict__.get("exec", _MISSING)
        undocumented = not c.__dict__.get("__doc__")
        if undocumented:
            c.__doc__ = "(signature)"            # dataclasses leaves a docstring as it is
        dataclasses.exec = _exec
        try:
            made = dataclasses.dataclass(c, **options)
        finally:
            if before is _MISSING:
                del dataclasses.exec
            else:
                dataclasses.exec = before
        if undocumented:
            made.__doc__ = _Signature()
        return made
    return wrap if cls is None else wrap(cls)


class _Signature:
    """A class's __doc__ as dataclasses writes it, worked out when first read (inspect.signature is
    slow, and nothing reads it on a run)."""

    def __get__(self, obj, cls):
        import inspect
        try:
            text = str(inspect.signature(cls)).replace(" -> None", "")
        except (TypeError, ValueError):
            text = ""
        cls.__doc__ = doc = cls.__name__ + text
        return doc


def _exec(source, globals=None, locals=None):
    global _compiled
    if isinstance(source, str):
        code = _table().get(source)
        if code is None:
            # As exec(text) in the dataclasses module compiles it: no __future__ flag of this module.
            code = compile(source, "<string>", "exec", dont_inherit=True)
            if not _compiled:
                _compiled = True
                atexit.register(_keep)
        _used[source] = code
        source = code
    return builtins.exec(source, globals, locals)


def _table() -> dict:
    global _known
    if _known is None:
        _known = {}
        data = cache.kept(NAME)
        if data is not None and hashlib.sha256(data[32:]).digest() == data[:32]:
            try:
                table = marshal.loads(data[32:])
                if isinstance(table, dict):
                    _known = table
            except (EOFError, ValueError, TypeError):
                pass
    return _known


def _keep() -> None:
    table = {**_known, **_used} if len(_known) + len(_used) <= KEEP else dict(_used)
    try:
        data = marshal.dumps(table)
    except ValueError:
        return
    cache.keep(NAME, hashlib.sha256(data).digest() + data)
