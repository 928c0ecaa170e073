"""Conditions as values: `add`, `remove` and `receive` take a condition (and a grade) held in a local,
checked by kind where the text shows it and when it runs otherwise, as a written condition is; a grade's
columns read by a text (`g["loss"]`). Over the English edition, rulesets/arena."""
from __future__ import annotations

import pytest

from tests.conftest import diagnostics_of

HEAD = """
    edition arena
    combatant Kira:
      side red
      might 0, agility 0, skill 0
      holds prone
      holds Bleeding Light
    do:
"""


def test_remove_every_condition_through_a_loop_variable(run):
    run(HEAD + """
      for cond in all_conditions():
        remove Kira cond
      expect not has(Kira, prone) and not has(Kira, Bleeding)
    """)


def test_add_remove_and_receive_with_the_condition_and_the_grade_in_locals(run):
    run(HEAD + """
      remove Kira Bleeding
      let b = Bleeding
      let g = Bleeding.Heavy
      add Kira b g
      add Kira b Light with {rounds: 2}
      expect cards(Kira, Bleeding) == [Bleeding.Heavy, Bleeding.Light]
      expect held(Kira, Bleeding) == [none, {rounds: 2}]
      remove Kira b Heavy
      expect cards(Kira, Bleeding) == [Bleeding.Light]
      receive Kira b Light
      expect cards(Kira, Bleeding) == [Bleeding.Heavy]
      let p = prone
      remove Kira p
      receive Kira p
      expect has(Kira, prone)
    """)


def test_a_loop_over_conditions_gives_each_its_data_and_takes_it_away(run):
    """The workaround this replaces: a decision table listing every condition, edited for each new one."""
    run(HEAD + """
      remove Kira Bleeding
      remove Kira prone
      for cond in [prone, Bleeding]:
        if len(grades(cond)) == 0:
          add Kira cond with {rounds: 2}
        else:
          let mildest = first(grades(cond))
          add Kira cond mildest with {rounds: 3}
      expect held(Kira, prone) == [{rounds: 2}] and held(Kira, Bleeding) == [{rounds: 3}]
      expect cards(Kira, Bleeding) == [Bleeding.Light]
      for cond in [prone, Bleeding]:
        remove Kira cond
      expect not has(Kira, prone) and not has(Kira, Bleeding)
    """)


def test_a_grades_columns_read_by_a_text(run):
    run(HEAD + """
      let g = max(cards(Kira, Bleeding))
      expect g["loss"] == 1 and Bleeding.Heavy["loss"] == 2
      let col = "loss"
      expect g[col] == g.loss
    """)


@pytest.mark.parametrize("body, words", [
    ('let x = 3\n      add Kira x', ['error[E0204]: "add" takes a condition, not a number']),
    ('let b = Bleeding\n      add Kira b Medium', ['error[E0201]: no condition has a grade "Medium"']),
    ('let g = Bleeding.Light\n      for x in [g]:\n        add Kira x',
     ['error[E0204]: "add" takes a condition, not a grade of "Bleeding"']),
    ('remove Kira nothing_here', ['error[E0201]: there is no condition "nothing_here"',
                                  'or a local holding one']),
], ids=["a number", "no such grade", "a grade", "neither a condition nor a local"])
def test_what_the_checker_refuses_before_anything_runs(body, words):
    out = diagnostics_of(HEAD + "      " + body + "\n")
    assert all(w in out for w in words), out


@pytest.mark.parametrize("body, words", [
    ('let b = Bleeding\n      add Kira b', ['error[E0204]: condition "Bleeding" has grades: say which',
                                             "one of Light, Heavy"]),
    ('let p = prone\n      let g = Bleeding.Light\n      add Kira p g', ['error[E0204]: "prone" is a state without grades']),
    ('for x in [Bleeding.Light, prone]:\n        add Kira x',
     ['error[E0204]: Light is a grade of Bleeding, and a condition is asked here',
      "give the condition itself: Bleeding"]),
    ('let b = Bleeding\n      receive Kira b Light with 3',
     ['error[E0233]: "Bleeding" decides what it adds on receive: data cannot be given here']),
    ('let g = Bleeding.Light\n      let x = g["speed"]', ['error[E0203]: Light has no column "speed"',
                                                         "the columns: loss"]),
], ids=["a graded condition without a grade", "a grade for a state", "a grade for a condition",
        "data to a condition that decides", "a column it lacks"])
def test_what_is_refused_when_it_runs(body, words):
    out = diagnostics_of(HEAD + "      " + body + "\n")
    assert all(w in out for w in words), out
