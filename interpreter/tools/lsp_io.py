"""The language server's framing: Content-Length messages read from the client, within bounds.

pygls's own loop trusts the client: a huge Content-Length is allocated whole (the server died),
a malformed or negative one leaves it reading bodies as headers (alive but deaf), and a request
whose params do not fit its method is never answered. This loop bounds the size of a message,
finds the next header after a malformed one, and answers every request it cannot take with a
JSON-RPC error, so the client never waits for a reply that will not come.
"""
from __future__ import annotations

import json
import logging
import re

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcParseError

MAX_MESSAGE = 64 * 1024 * 1024        # bytes of one message's body; an edition's file is at most 4 MiB
HEADER = re.compile(rb"content-length:", re.IGNORECASE)
LENGTH = re.compile(rb"content-length:[ \t]*(\S*)[ \t]*\r?\n?$", re.IGNORECASE)
MAX_HEADER_LINE = 64 * 1024

logger = logging.getLogger(__name__)


async def read_header(reader) -> tuple[bool, int | None]:
    """The next message's Content-Length: (True, length), (True, None) for a malformed one, and
    (False, None) at the end of input. A header block starts at a Content-Length line; bytes before
    it (a body that was not read: its length was wrong or too large) are passed over, a line of at
    most MAX_HEADER_LINE bytes at a time."""
    length, seen = None, False
    while True:
        line = await reader.readline()
        if not line:
            return False, None
        if len(line) > MAX_HEADER_LINE:
            line = line[-MAX_HEADER_LINE:]
        found = list(HEADER.finditer(line))
        if found:
            seen = True
            match = LENGTH.match(line, found[-1].start())
            text = match.group(1) if match else b""
            length = int(text) if text.isdigit() else None
            continue
        if seen and not line.strip():
            return True, length


def refuse(protocol, raw: bytes, error: type[JsonRpcException]) -> None:
    """Answer a request that could not be taken with `error` (a notification gets no answer)."""
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError):
        message = None
    if not isinstance(message, dict):
        if error is JsonRpcParseError:
            protocol._send_response(None, error=error().to_response_error())
        return
    msg_id = message.get("id")
    if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool) and "method" in message:
        protocol._send_response(msg_id, error=error().to_response_error())


def handle(protocol, body: bytes) -> None:
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except JsonRpcInvalidParams:
        refuse(protocol, body, JsonRpcInvalidParams)
        return
    except (ValueError, RecursionError, JsonRpcException):
        refuse(protocol, body, JsonRpcParseError)
        return
    if isinstance(message, dict) or not hasattr(message, "jsonrpc"):
        refuse(protocol, body, JsonRpcParseError)
        return
    protocol.handle_message(message)


async def serve_messages(stop_event, reader, protocol, tell) -> None:
    """Read and dispatch messages until the input ends or the server stops. `tell(text)` reports a
    message that was dropped (as a log message to the client)."""
    while not stop_event.is_set():
        more, length = await read_header(reader)
        if not more:
            break
        if length is None:
            tell("a message without a valid Content-Length was skipped")
            continue
        if length > MAX_MESSAGE:
            # Not read: its bytes are passed over as they come, up to the next header, so a length
            # that lies costs nothing and the next message is read as usual.
            tell(f"a message of {length} bytes was skipped: the limit is {MAX_MESSAGE} bytes")
            continue
        body = await reader.readexactly(length) if length else b""
        if len(body) < length:
            break
        try:
            handle(protocol, body)
        except Exception:                 # a handler's own failure: pygls answers requests itself
            logger.exception("unable to handle a message")


class BoundedStdinReader:
    """Standard input read in a worker thread, a header line at most MAX_HEADER_LINE bytes long (a
    line without end is read in pieces, never whole)."""

    def __init__(self, stdin, executor=None):
        self.stdin = stdin
        self.executor = executor

    def readline(self):
        import asyncio
        return asyncio.get_running_loop().run_in_executor(self.executor, self.stdin.readline, MAX_HEADER_LINE)

    def readexactly(self, n: int):
        import asyncio
        return asyncio.get_running_loop().run_in_executor(self.executor, self.stdin.read, n)
