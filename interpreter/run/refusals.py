"""What stops a rule while it runs, as the language says it: refusals (values.Refusal and
RuleFailure), the step budget, `stop`. The lowest module of the runtime but values.py: the
generated code's helpers (runtime_helpers, generic) and the engine all import it, and it
imports none of them.

Generated code is compiled under FILENAME, so the engine can tell a frame of the rules
from a frame of the runtime when it locates a failure (engine.locate)."""
from __future__ import annotations

from .values import Refusal

FILENAME = "<grimorio>"
EMIT_DEPTH = 16
STEP_BUDGET = 1_000_000


class RuleFailure(Refusal):
    """A rule did something the language forbids; located by the engine."""


class Budget(Exception):
    """A loop or a cascade of events ran past its budget."""


class StopRun(Exception):
    """The `stop` statement: ends the encounter."""
