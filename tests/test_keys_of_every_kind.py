"""True and false equal no number (issue 27, item 3): not in a catalogue's index, not in a memo's key,
not in a tally's buckets, although Python's True == 1 and hash(True) == hash(1)."""
from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest

from grimorio.interpreter.compile.data import Table
from grimorio.interpreter.run import runtime_helpers as H
from grimorio.interpreter.run.engine import _memo_key
from grimorio.interpreter.run.values import hash_key, make_struct, unhash_key
from grimorio.interpreter.tools.cli import main
from grimorio.interpreter.tools.tally import Histogram, Tally, bucket

# Keys of every kind a rule can hand a lookup (numbers, fractions, truths, texts, nothing).
KEYS = [True, False, 1, 0, 2, Fraction(1), Fraction(1, 2), "1", "yes", "", None]


def same(a, b) -> bool:
    """The language's equality of keys: truths only equal truths, numbers equal numbers by value."""
    if (type(a) is bool) != (type(b) is bool):
        return False
    return type(a) is type(b) or (isinstance(a, (int, Fraction)) and isinstance(b, (int, Fraction))) and a == b


def catalogue(keys) -> Table:
    cls = make_struct("t", ("clave", "valor"), key="clave", frozen=True)
    rows = [cls(k, i) for i, k in enumerate(keys)]
    return Table("t", rows, {hash_key(k): r for k, r in zip(keys, rows)})


@pytest.mark.parametrize("row_keys", [[1, 0], [True, False], ["1", "yes"], [1, True], [0, False, 2]])
def test_every_kind_of_key_against_every_catalogue(row_keys):
    table = catalogue(row_keys)
    for key in KEYS:
        want = next((i for i, k in enumerate(row_keys) if same(k, key) and k == key), None)
        try:
            got = table.rows.index(table.lookup(key))
        except H.RuleFailure:
            got = None
        assert got == want, (row_keys, key)


def test_memo_keys_keep_truths_apart_from_numbers():
    rule = object()
    keys = {_memo_key(rule, "v", (k,)) for k in (True, 1, Fraction(1), False, 0)}
    assert len(keys) == 4                       # true, 1 (= 1/1), false, 0
    assert _memo_key(rule, "v", (True,)) != _memo_key(rule, "v", (1,))
    assert _memo_key(rule, "v", (False,)) != _memo_key(rule, "v", (0,))
    for k in KEYS:
        assert unhash_key(hash_key(k)) == k and type(unhash_key(hash_key(k))) is type(k)


def test_tally_buckets_keep_truths_apart_from_numbers():
    h = Histogram()
    for v in (True, 1, 1, False, 0, Fraction(1)):
        h.add(v)
    assert h.counts[bucket(True)] == 1 and h.counts[bucket(1)] == 3 and h.counts[bucket(False)] == 1
    other = Tally()
    other.histogram(None, "m").add(True)
    mine = Tally()
    mine.histogram(None, "m").add(1)
    mine.merge(other)
    assert mine.histogram(None, "m").counts == {bucket(1): 1, bucket(True): 1}
    assert [v for v, _c in mine.histogram(None, "m").values()] == [1, True]
    truth = Histogram()
    truth.add(True)
    truth.add(False)
    assert truth.truth and truth.describe()["true"] == 1


EDITION = """\
sheet ficha:
  FUE: int 0..9

table por_numero:
  | clave | valor |
  |-------|-------|
  | 1     | uno   |
  | 0     | cero  |

table por_verdad:
  | clave | valor |
  |-------|-------|
  | yes   | si    |
  | no    | nada  |

rule numero(k):
  return por_numero[k].valor

rule verdad(k):
  return por_verdad[k].valor

rule lado(x):
  return [c for c in combatants() if c.side == x]
"""


def _edition(tmp_path: Path, expects: str) -> Path:
    (tmp_path / "claves").mkdir(exist_ok=True)
    (tmp_path / "claves" / "edicion.rules").write_text('edition claves:\n  title "Claves"\n  include "reglas.rules"\n',
                                                       encoding="utf-8")
    (tmp_path / "claves" / "reglas.rules").write_text(EDITION, encoding="utf-8")
    enc = tmp_path / "claves" / "e.enc"
    enc.write_text('encounter "claves"\nedition claves\ncombatant Ana:\n  FUE 1\n  side 1\n' + expects,
                   encoding="utf-8")
    return enc


@pytest.mark.slow
@pytest.mark.parametrize("expect", [
    "expect numero(1) == \"uno\"\nexpect verdad(true) == \"si\"\nexpect verdad(false) == \"nada\"\n",
    "expect len(lado(1)) == 1\nexpect len(lado(true)) == 0\nexpect len(lado(1)) == 1\n",
    "expect len(lado(true)) == 0\nexpect len(lado(1)) == 1\n",
])
def test_a_run_keeps_truths_and_numbers_apart(tmp_path, capsys, expect):
    assert main(["run", str(_edition(tmp_path, expect))]) == 0, capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("call, key", [("numero(true)", "true"), ("verdad(1)", "1"), ("numero(false)", "false"),
                                       ("verdad(0)", "0")])
def test_a_truth_finds_no_row_of_a_number_nor_a_number_of_a_truth(tmp_path, capsys, call, key):
    enc = _edition(tmp_path, f'expect {call} == "x"\n')
    assert main(["run", str(enc)]) == 2
    assert f"has no row for {key}" in capsys.readouterr().err
