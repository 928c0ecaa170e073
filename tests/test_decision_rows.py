"""Decision tables compiled for whole numbers: a quotient their rows share worked out once, a last
row of "any" cells taken as the rest, a check's output given to its record by the row that
matches. Each against the plain program, which does none of it (tests/test_plain_and_optimized.py)."""
from __future__ import annotations

import itertools
from fractions import Fraction

from tests.test_plain_and_optimized import AT_EDGES, compiled, outcome, run_compiled
from tests.temp_guard import write_edition

SHARED = """  decide first:
    | a                              | r |
    |--------------------------------|---|
    | <= ceil(b / 10)                | 1 |
    | == ceil(b / 7) + 50            | 6 |
    | >= 90 + ceil(b / 10)           | 2 |
    | 20..floor(b / 3)               | 3 |
    | < floor(b / 3) + ceil(b / 10)  | 4 |
    | any                            | 5 |
  return r
"""

# A row of "any" cells before others: the rows after it are never reached.
EARLY_REST = """  decide first:
    | a                  | b     | r |
    |--------------------|-------|---|
    | <= floor(b / 4)    | any   | 1 |
    | any                | any   | 2 |
    | >= floor(b / 4)    | any   | 3 |
  return r
"""

# Every row whose tests pass: no quotient worked out before them, no rest.
ALL = """  let r = 0
  decide all:
    | a                  | then                 |
    |--------------------|----------------------|
    | <= ceil(b / 10)    | set r = r + 1        |
    | >= ceil(b / 10)    | set r = r + 10       |
    | any                | set r = r + 100      |
  return r
"""

VALUES = [*AT_EDGES, 3, 10, 35, 55, 99, 100, -13, Fraction(7, 2)]


def alike(body, values):
    made = [compiled(body, optimize) for optimize in (False, True)]
    for a, b in values:
        plain, fast = (run_compiled(m, [a, b, None]) for m in made)
        assert plain == fast, (body, a, b, plain, fast)


def test_a_quotient_the_rows_share_gives_what_each_row_worked_out_alone():
    # The rows read ceil(b / 10) three times, floor(b / 3) twice: worked out once where the rows
    # are compiled for whole numbers, the same value for every row, on the way to each row; a
    # quotient of another divisor (ceil(b / 7)) is its own.
    alike(SHARED, itertools.product(range(-3, 104), [0, 1, 3, 7, 10, 35, 55, 99, 100, -13, -1]))
    alike(SHARED, itertools.product(VALUES, VALUES))


def test_a_row_of_any_cells_is_the_rest_and_no_row_after_it_is_tried():
    alike(EARLY_REST, itertools.product(range(-3, 30), [0, 8, 40, -8]))
    alike(EARLY_REST, itertools.product(VALUES, VALUES))
    assert outcome(EARLY_REST, True, [99, 8, None], False) == ("int", "2")


def test_every_row_of_a_decide_all_table_still_runs():
    alike(ALL, itertools.product(range(-3, 30), [0, 8, 40, -8]))
    alike(ALL, itertools.product(VALUES, VALUES))
    assert outcome(ALL, True, [1, 10, None], False) == ("int", "111")


CHECK = """
outcomes grado: pifia < fallo < éxito < crítico

check porcentaje(objetivo) rolls tirada = d100:
  | tirada                        | resultado |
  |-------------------------------|-----------|
  | <= ceil(objetivo / 10)        | crítico   |
  | >= 90 + ceil(objetivo / 10)   | pifia     |
  | >= 96                         | fallo     |
  | <= 5                          | éxito     |
  | <= objetivo                   | éxito     |
  | any                           | fallo     |

check dado(x) rolls t = 1D6 + 1:
  | t         | resultado |
  |-----------|-----------|
  | <= x      | éxito     |
  | any       | fallo     |
"""


def check_programs(tmp_path):
    from grimorio.dsl.editions.loader import load_edition
    from grimorio.interpreter.compile.compiler import compile_checked
    write_edition(tmp_path / "prueba", CHECK)
    return [compile_checked(load_edition("prueba", roots=[tmp_path]), optimize=o) for o in (False, True)]


def test_a_check_rolled_in_place_gives_what_the_plain_program_gives(tmp_path):
    # A lone die rolled in place (no transcript, nothing given) is a whole number: its table is
    # compiled knowing it. With a transcript (a Roll), or a roll given, the table for any value.
    from grimorio.interpreter.run.dice import Dice, make_roll
    from grimorio.interpreter.run.engine import Engine, guarded
    from grimorio.dsl.diagnostics import GrimorioError
    from tests.compiled import function
    from tests.test_plain_and_optimized import canonical
    programs = check_programs(tmp_path)
    targets = [*VALUES, 0, 5, 40, 60, 95, 100, -20, True]
    given = [None, 1, 4, 50, 96, 100, Fraction(9, 2), "x", make_roll(7, Dice.of(1, 10), [7])]

    def results(p, check, record, roll):
        e = Engine(p, [], 3, record)
        out = []
        for target in targets:
            for _ in range(6):         # the stream goes on: six draws for each target
                try:
                    r = guarded(p, function(p, "check", check), e, None, "x", target, roll)
                    out.append(canonical(r))
                except GrimorioError as exc:
                    out.append([(d.code, d.message) for d in exc.diagnostics])
        return out
    for check in ("porcentaje", "dado"):
        for record in (False, True):
            for roll in given:
                plain, fast = (results(p, check, record, roll) for p in programs)
                assert plain == fast, (check, record, roll)
