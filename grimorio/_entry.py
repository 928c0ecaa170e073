"""The console script's entry: Ctrl-C handled from the first instruction.

This module imports nothing heavy before it installs the handler, so an
interrupt at any moment, even while the language and the runtime are still
being imported, ends grimorio with exit 130 and no traceback.
"""
import os
import signal


def _interrupted(signum, frame):
    os._exit(130)


signal.signal(signal.SIGINT, _interrupted)


def main() -> int:
    from .interpreter.tools.cli import main as command_line
    return command_line()
