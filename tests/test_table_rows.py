"""rows(TABLE): walking a table's rows, in the order written, with the checker knowing the row's columns;
a table walked without it is refused with the way to write it."""
from __future__ import annotations

import pytest

from tests.conftest import diagnostics_of

HEAD = """
    edition arena
    combatant Kira:
      side red
      might 1, agility 2, skill 0
    do:
"""


def test_the_rows_in_order_filtered_sorted_and_read_by_column(run):
    run(HEAD + """
      expect [w.name for w in rows(weapons)] == ["Fists", "Dagger", "Short sword", "Axe", "Maul"]
      expect [w.name for w in rows(weapons) if w.hands == 2] == ["Axe", "Maul"]
      expect first(rows(weapons)) == weapons["Fists"]
      let order = []
      for w in rows(weapons) ordered by maximum(it.damage) desc, it.name:
        append order, w.name
      expect order == ["Maul", "Axe", "Short sword", "Dagger", "Fists"]
      let fresh = rows(weapons)
      append fresh, 1
      expect len(rows(weapons)) == 5
    """)


@pytest.mark.parametrize("body, words", [
    ("let x = [w.might for w in rows(weapons)]",
     ['error[E0203]: a row of "weapons" has no field "might"', "its fields are: name, damage, hands"]),
    ("let x = rows(Bleeding)", ["error[E0204]: rows() takes a table, not the condition Bleeding"]),
    ("for w in weapons:\n        pass", ["error[E0204]: only a list can be walked, not the table weapons",
                                        "walk its rows: rows(weapons)"]),
    ("for w in rows(weapons):\n        set w.hands = 3", ["error[E0204]"]),
], ids=["a column it lacks", "not a table", "a table walked", "a row set"])
def test_what_the_checker_refuses(body, words):
    out = diagnostics_of(HEAD + "      " + body + "\n")
    assert all(w in out for w in words), out


def test_a_table_held_in_a_local_is_checked_when_it_runs():
    out = diagnostics_of(HEAD + "      for t in [3, weapons]:\n        let x = rows(t)\n")
    assert "error[E0204]: rows() takes a table, not 3 (a number)" in out, out
