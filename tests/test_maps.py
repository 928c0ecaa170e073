"""Maps: `map()`, `m[k]`, `set m[k] = v` (none forgets), `k in m`, `len(m)`, `keys(m)` (docs/language.md,
Maps). Both compiler paths alike; keys that can change refused (E0292) before anything runs where the
text shows them, else when it runs; `set X[K]` of anything but a map refused (E0204)."""
from __future__ import annotations

import pytest

from grimorio.interpreter.run.maps import Map
from grimorio.interpreter.run.values import show
from tests.test_checker import check, only
from tests.test_plain_and_optimized import canonical
from tests.test_searches import both

KEEP = "  let m = map()\n  set m[a] = 2\n  set m[b] = 3\n"


@pytest.mark.parametrize("read, answer", [
    ("m[a]", ("int", "2")), ("m[b]", ("int", "3")), ("m[c]", ("NoneType", "None")),
    ("a in m", ("bool", "True")), ("c in m", ("bool", "False")), ("len(m)", ("int", "2")),
    ("keys(m)", [("str", "'x'"), ("int", "5")]),
])
def test_a_map_gives_what_it_keeps_alike_plain_and_optimized(read, answer):
    assert both(f"{KEEP}  return {read}\n", "x", 5, "y") == answer


def test_true_and_false_are_keys_apart_from_1_and_0():
    body = "  let m = map()\n  set m[1] = 2\n  set m[true] = 3\n  return [m[1], m[true], m[0], m[false]]\n"
    assert both(body) == [("int", "2"), ("int", "3"), ("NoneType", "None"), ("NoneType", "None")]


def test_a_key_of_a_kind_already_seen_is_found_without_asking_again_and_true_is_still_not_1():
    m = Map()
    m.keep(1, "one")
    m.keep("a", "text")
    assert m.lookup(1) == "one" and m.lookup("a") == "text" and m.has(1) and m.has("a")   # int, str: seen
    assert m.lookup(True) is None and not m.has(True) and m.lookup(2) is None and not m.has("b")
    m.keep(True, "true")
    assert m.lookup(True) == "true" and m.lookup(1) == "one" and m.has(True)
    assert m.keys() == [1, "a", True] and m.keys()[2] is True and show(m) == "{1: one, a: text, true: true}"
    m.keep(1, "uno")                                 # a key kept again keeps its place
    assert m.keys() == [1, "a", True] and m.lookup(1) == "uno" and len(m) == 3
    other = Map()
    for k, v in ((1, "uno"), ("a", "text"), (True, "true")):
        other.keep(k, v)
    assert m == other and not (m == Map())


def test_setting_none_forgets_a_key():
    body = KEEP + "  set m[a] = none\n  return [m[a], a in m, len(m), keys(m)]\n"
    assert both(body, "x", 5) == [("NoneType", "None"), ("bool", "False"), ("int", "1"), [("int", "5")]]


def test_two_maps_are_equal_by_their_keys_and_values():
    body = ("  let m = map()\n  let n = map()\n  set m[1] = [1]\n  set n[1] = [1]\n"
            "  return [m == n, n == map(), map() == map()]\n")
    assert both(body) == [("bool", "True"), ("bool", "False"), ("bool", "True")]


def test_a_map_shows_its_keys_and_values_in_the_order_kept():
    m = Map()
    assert show(m) == "-" and not m
    m.keep("Ana", 2)
    m.keep(3, [1, 2])
    assert show(m) == "{Ana: 2, 3: 1, 2}" and m


@pytest.mark.parametrize("key", ["a", "{k: 1}", "map()"])
def test_E0292_a_key_that_can_change_is_refused_when_it_runs(key):
    code, message, help, line = both(f"  let m = map()\n  set m[{key}] = 1\n  return m\n", [1])[0]
    assert code == "E0292" and message.endswith("cannot be a key of a map: it can change after it is kept")
    assert "m[c.name]" in help


def test_set_of_an_item_of_anything_but_a_map_is_refused_when_it_runs():
    code, message, help, line = both("  set a[1] = 2\n  return a\n", [1])[0]
    assert (code, message) == ("E0204", "only a map's items can be set with set X[K] = ..., not those of 1 (a list)")


def test_E0292_before_anything_runs_where_the_text_shows_the_key(tmp_path):
    d = only(check(tmp_path, "rule f():\n  let m = map()\n  set m[[1]] = 2\n  return m\n"), "E0292")
    assert d.message == "a list cannot be a key of a map: it can change after it is kept"
    assert (d.span.line, d.span.col) == (3, 9)


def test_set_of_a_list_item_and_keys_of_a_list_before_anything_runs(tmp_path):
    diags = check(tmp_path, "rule f():\n  let l = [1]\n  set l[1] = 2\n  return keys(l)\n")
    assert [d.code for d in diags] == ["E0204", "E0204"]
    assert diags[0].message == "only a map's items can be set with set X[K] = ..., not those of a list"
    assert diags[1].message == "keys() takes a map, not a list"


def test_a_map_in_a_session_var_counts_across_rules(run):
    out = run("""
        edition aquelarre
        rounds 1
        combatant Ana:
          side a
          FUE 14, AGI 12, HAB 13, RES 14, PER 11
        combatant Beltrán:
          side b
          FUE 14, AGI 12, HAB 13, RES 14, PER 11
        do:
          let m = map()
          set m[Ana] = 1
          set m[Beltrán.name] = 2
          expect m[Ana] == 1 and m["Beltrán"] == 2 and Beltrán not in m
          expect keys(m) == [Ana, "Beltrán"]
        """)
    assert out.engine is not None


def test_canonical_of_a_map_is_its_shown_form():
    m = Map()
    m.keep(1, 2)
    assert canonical(m) == ("Map", "map {1: 2}")


def test_a_relation_between_two_is_a_map_of_maps():
    body = ("  let m = map()\n  set m[a] = map()\n  set m[a][b] = 3\n"
            "  return [m[a][b], b in m[a], m[b]]\n")
    assert both(body, "Ana", "Luis") == [("int", "3"), ("bool", "True"), ("NoneType", "None")]
