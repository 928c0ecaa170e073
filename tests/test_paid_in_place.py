"""A statement whose expression walks the combatants before anything else (`let n = len(distinct([x.side
for x in combatants() if ...]))`, a round's `until`, a rule's `return [...]`) pays their number
from the step budget in place, just before it: the same steps at the same moment as the plain
program, which pays inside the expression (H.counted). At every budget, both refuse at the same
statement with the same things done."""
from __future__ import annotations

import textwrap

from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.dsl.check.front import load_encounter
from grimorio.dsl.editions.loader import load_edition
from grimorio.interpreter.compile.compiler import compile_checked
from grimorio.interpreter.run.encounter import Prepared

EDITION = """
edition tiny:
  title "Paid in place"
sheet s:
  pv: int = 3
var log = []
rule vivos():
  return [c for c in combatants() if c.pv > 0]
rule cuenta():
  let k = 0
  for c in combatants():
    let k = k + 1
  return k
round r:
  step one:
    for c in combatants():
      let n = len(distinct([x.side for x in combatants() if x.pv > 0]))
      let m = cuenta() + len([x for x in combatants() if x.pv > 1])
      if len([x for x in combatants() if x.pv > 1]) > 0 and c.pv > 0:
        set c.pv = c.pv - 1
      append log, [n, m, len(vivos())]
      let q = [x.pv for x in standing()]
      append log, q
  until len(distinct([x.side for x in standing()])) <= 1
stands(c): c.pv > 0
"""

# A `stands` that is a number for a fighter at 1: standing() refuses it, on the line that works it out.
REFUSING = EDITION.replace("stands(c): c.pv > 0", "stands(c): c.pv > 1 or (c.pv == 1 and 7)")

ENCOUNTER = """
edition tiny
rounds 6
combatant A:
  side a
combatant B:
  side b
  pv 2
combatant C:
  side b
  pv 4
"""


def prepared(tmp_path, optimize: bool, edition: str = EDITION) -> Prepared:
    folder = tmp_path / ("fast" if optimize else "plain") / "tiny"
    folder.mkdir(parents=True)
    (folder / "tiny.rules").write_text(textwrap.dedent(edition).lstrip(), encoding="utf-8")
    (folder / "x.enc").write_text(ENCOUNTER.lstrip(), encoding="utf-8")
    program = compile_checked(load_edition("tiny", [folder.parent]), optimize=optimize)
    return Prepared(load_encounter(folder / "x.enc", Sources()), program)


def moments(p: Prepared) -> list:
    """For each budget until the run ends: where it refused (line, column) and the log then."""
    out, budget = [], 1
    while True:
        try:
            whole = p.run(seed=1, budget=budget, record=False)
        except GrimorioError as exc:
            d = exc.diagnostics[0]
            out.append((budget, d.code, d.span.line, d.span.col, repr(exc.outcome.engine.v.a_log)))
            if d.code != "E0502":
                return out
            budget += 1
            continue
        return out + [(budget, whole.engine.steps, repr(whole.engine.v.a_log))]


def test_every_budget_refuses_where_the_plain_program_refuses(tmp_path):
    fast, plain = moments(prepared(tmp_path, True)), moments(prepared(tmp_path, False))
    assert fast == plain
    assert len(fast) > 40 and {m[1] for m in fast[:-1]} == {"E0502"}


def test_a_list_worked_out_before_its_statement_refuses_where_it_did(tmp_path):
    # standing() worked out on a line of its own, before the statement that walks it: a `stands`
    # that refuses is told where the plain program tells it, at every budget.
    fast, plain = (moments(prepared(tmp_path / "r", optimize, REFUSING)) for optimize in (True, False))
    assert fast == plain
    assert isinstance(fast[-1][1], str) and fast[-1][1] not in ("E0502", "E0003"), fast[-1]
