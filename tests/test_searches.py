"""Searches: `first X in LIST where COND [else VALUE]`, `any X in LIST where COND`, `all X in LIST
where COND` (docs/language.md, Searches). Each stops as soon as it knows its answer, and pays the run's
budget only for the items it reached; what they give on an empty list or when nothing matches; the
checker's E0290 and E0291; both compiler paths alike (tests/test_plain_and_optimized.py fuzzes them)."""
from __future__ import annotations

import pytest

from grimorio.dsl.syntax.builder import build_rules
from grimorio.interpreter.tools.formatter import format_source
from tests.test_checker import check, only
from tests.test_plain_and_optimized import compiled, outcome, run_compiled


def both(body: str, *values):
    """What `rule f(a, b, c)` with `body` returns, the same compiled plain and optimized."""
    values = values + (0,) * (3 - len(values))
    plain, fast = outcome(body, False, values, False), outcome(body, True, values, False)
    assert plain == fast, body
    return plain


def value(body: str, *values):
    kind, shown = both(body, *values)
    return shown


@pytest.mark.parametrize("body, answer", [
    ("first x in a where x > 2", "3"),
    ("first x in a where x > 9", "None"),
    ("first x in [] where x > 9", "None"),
    ("first x in a where x > 9 else b", "7"),
    ("first x in a where x > 2 else b", "3"),
    ("first x in a where x > 9 else b + 1", "8"),
    ("any x in a where x > 3", "True"),
    ("any x in a where x > 4", "False"),
    ("any x in [] where x > 4", "False"),
    ("all x in a where x > 0", "True"),
    ("all x in a where x > 1", "False"),
    ("all x in [] where x > 1", "True"),
    # The condition counts as `if` counts it: 0, "", none and [] are nothing there.
    ("first x in [0, \"\", none, [], 5] where x", "5"),
    ("first x in a where x > 1 and (any y in a where y == x + 1)", "2"),
    ("sum([first x in a where x == y for y in a])", "10"),
])
def test_a_search_gives_its_answer_alike_plain_and_optimized(body, answer):
    assert value(f"  return {body}\n", [1, 2, 3, 4], 7) == answer


def steps_of(body: str, items: list, optimize: bool) -> int:
    from grimorio.interpreter.run.engine import Engine, guarded
    program, f = compiled(body, optimize)
    engine = Engine(program, [], 7, False)
    guarded(program, f, engine, list(items), 0, 0)
    return engine.steps


@pytest.mark.parametrize("optimize", [False, True])
@pytest.mark.parametrize("search, reached", [
    ("first x in a where x == 3", 3), ("any x in a where x == 3", 3), ("all x in a where x < 3", 3),
    ("first x in a where x == 0", 1000), ("all x in a where x > 0", 1000),
])
def test_a_search_stops_at_its_answer_and_pays_only_the_items_it_reached(search, reached, optimize):
    # A comprehension pays for the whole list (1000 steps) before its first item.
    assert steps_of(f"  return {search}\n", list(range(1, 1001)), optimize) == reached
    assert steps_of("  return first([x for x in a if x == 3])\n", list(range(1, 1001)), optimize) == 1000


def test_the_else_of_first_is_worked_out_only_when_nothing_matches():
    # Dividing by zero in the else would stop the run: it is never reached when an item matches.
    assert value("  return first x in a where x > 1 else 1 / b\n", [1, 2], 0) == "2"
    assert both("  return first x in a where x > 5 else 1 / b\n", [1, 2], 0)[0][0] == "E0501"


def test_a_search_of_anything_but_a_list_is_refused_when_it_runs():
    code, message, help, line = both("  return any x in a where x > 3\n", 5)[0]
    assert (code, message) == ("E0204", "only a list can be searched, not 5 (a number)")
    assert help == "a search walks a list: first x in LIST where COND (any, all alike)"


def test_a_search_of_a_text_is_refused_before_anything_runs(tmp_path):
    d = only(check(tmp_path, 'rule f():\n  return any x in "abc" where x == "a"\n'), "E0204")
    assert d.message == "only a list can be walked, not a text"
    assert d.help == "a search walks a list: any x in LIST where COND"


def test_E0290_a_condition_that_never_reads_the_item(tmp_path):
    d = only(check(tmp_path, "rule f(xs, y):\n  return any x in xs where y > 2\n"), "E0290")
    assert d.message == 'this search\'s condition never reads "x": it is the same for every item'
    assert (d.span.line, d.span.col) == (2, 28)
    assert "len(LIST) > 0" in d.help


SHEET = "sheet s:\n  k: int = 0\n\n"


@pytest.mark.parametrize("read", ["(first x in xs where x.k > 2).k", "(first x in xs where x.k > 2)[1]"])
def test_E0291_a_field_read_from_a_first_that_may_find_nothing(tmp_path, read):
    d = only(check(tmp_path, f"{SHEET}rule f(xs):\n  return {read}\n"), "E0291")
    assert d.message.startswith('"first x in ... where ..." gives none when no item matches')
    assert "first x in LIST where COND else VALUE" in d.help


def test_a_first_with_an_else_or_kept_and_tested_reads_its_fields_freely(tmp_path):
    assert check(tmp_path, SHEET + (
        "rule f(xs, otro):\n"
        "  let y = first x in xs where x.k > 2\n"
        "  if y != none:\n"
        "    return y.k\n"
        "  return (first x in xs where x.k > 2 else otro).k\n")) == []


def test_first_of_a_list_is_still_the_builtin():
    decls, diags = build_rules("rule f(xs):\n  return first(xs)\n", "f.rules")
    assert not diags and decls[0].body[0].value.func.id == "first"
    assert value("  return first(a)\n", [4, 5]) == "4"


def test_the_formatter_keeps_a_search_and_lays_out_its_lines():
    text = "rule f(xs):\n    return   first x in xs where x > 1   else 0\n"
    out, diags = format_source(text, "f.rules")
    assert not diags and out == "rule f(xs):\n  return   first x in xs where x > 1   else 0\n"


def test_the_language_server_offers_the_search_words_where_an_expression_starts():
    from grimorio.dsl.syntax.keywords import KEYWORDS
    from grimorio.interpreter.tools.analysis import completions
    from grimorio.interpreter.tools.editing import completions_at
    everything = completions(type("A", (), {"decls": [], "encounter": None})(), None)
    offered = completions_at("  return ", None, [], everything)
    assert {"first", "any", "all", "where", "else"} <= {w for w, kinds in offered.items() if "keyword" in kinds}
    assert {"first", "any", "all", "where"} <= set(KEYWORDS["control"])      # highlighted as control words
