"""`grimorio odds`: exact distributions, held to distributions computed here by other means
(by convolution, by the rules' own arithmetic, and by icepool), to simulate's frequencies,
and to its budget."""
from __future__ import annotations

import json
import re
import textwrap
from fractions import Fraction
from pathlib import Path

import icepool
import pytest

from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.interpreter.run.encounter import Prepared
from grimorio.dsl.check.front import load_encounter
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.tools import odds as O
from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
ODDS = ROOT / "docs" / "odds"


# ---------------------------------------------------------------- independent reckonings
def die(faces: int, sign: int = 1) -> dict:
    return {sign * f: Fraction(1, faces) for f in range(1, faces + 1)}


def convolve(*dists: dict) -> dict:
    """The distribution of a sum of independent values, by convolution."""
    out = {0: Fraction(1)}
    for d in dists:
        nxt: dict = {}
        for a, p in out.items():
            for b, q in d.items():
                nxt[a + b] = nxt.get(a + b, 0) + p * q
        out = nxt
    return out


def shifted(d: dict, k: int) -> dict:
    return {v + k: p for v, p in d.items()}


def of_icepool(d) -> dict:
    den = d.denominator()
    return {int(v): Fraction(q, den) for v, q in d.items() if q}


def answer(dist: O.Distribution) -> dict:
    """A distribution as {value: probability}: numbers as numbers, anything else as it shows."""
    return {(_number(v) if O.is_number(v) else shown): p for v, shown, p in dist.ordered()}


def _number(v):
    v = Fraction(v)
    return int(v) if v.denominator == 1 else v


@pytest.fixture(scope="module")
def aquelarre():
    return O.bare_encounter("aquelarre", program_for("aquelarre"))


def ask(prepared, text, budget=None):
    return O.exact(O.question_from_text(prepared, text, "<--expr>", Sources()), budget)


# ---------------------------------------------------------------- conformance: dice expressions
# (expression as the language writes it, as d20 writes it, its exact distribution reckoned apart)
CONFORMANCE = [
    ("3D6", "3d6", convolve(die(6), die(6), die(6))),
    ("keep_highest(4D6, 3)", "4d6kh3", of_icepool(icepool.d6.highest(4, 3))),
    ("keep_highest(2D20, 1)", "2d20kh1", of_icepool(icepool.d20.highest(2, 1))),
    ("keep_lowest(2D20, 1)", "2d20kl1", of_icepool(icepool.d20.lowest(2, 1))),
    ("1D8 + 1D4 + 1", "1d8+1d4+1", shifted(convolve(die(8), die(4)), 1)),
    ("2D6 - 1D4", "2d6-1d4", convolve(die(6), die(6), die(4, -1))),
    ("10 - 1D6", "10-1d6", shifted(die(6, -1), 10)),
    ("-1D6", "-1d6", die(6, -1)),
    ("dice(2, 10)", "2d10", of_icepool(2 @ icepool.d10)),
    ("roll 1D6 + roll 1D6", "1d6+1d6", convolve(die(6), die(6))),
    # The dice of d20's own test suite (tests/test_dice.py) that the language writes.
    ("1D20", "1d20", die(20)),
    ("d6", "d6", die(6)),
    ("1D6", "1d6", die(6)),
    ("2D6", "2d6", convolve(die(6), die(6))),
    ("keep_lowest(3D6, 1)", "3d6kl1", of_icepool(icepool.d6.lowest(3, 1))),
    ("keep_highest(10D6, 5)", "10d6kh5", of_icepool(icepool.d6.highest(10, 5))),
    ("max(roll 1D20, 10)", "1d20mi10", of_icepool(icepool.d20.map(lambda x: max(x, 10)))),
    ("min(roll 1D6, 5)", "1d6ma5", of_icepool(icepool.d6.map(lambda x: min(x, 5)))),
    ("roll 1D6 * 4 + 9", "1d6*4+9", {4 * f + 9: Fraction(1, 6) for f in range(1, 7)}),
]


@pytest.mark.parametrize("expr, d20, expected", CONFORMANCE, ids=[c[1] for c in CONFORMANCE])
def test_dice_expressions_have_their_exact_distributions(aquelarre, expr, d20, expected):
    dist = ask(aquelarre, expr)
    assert answer(dist) == {v: p for v, p in sorted(expected.items())}
    assert dist.mean() == sum(v * p for v, p in expected.items())


def test_the_two_independent_reckonings_agree():
    """The convolution here and icepool give the same (the table mixes both)."""
    assert convolve(die(6), die(6), die(6)) == of_icepool(3 @ icepool.d6)
    assert convolve(die(8), die(4)) == of_icepool(icepool.d8 + icepool.d4)


@pytest.mark.parametrize("skill", [1, 5, 45, 60, 100])
def test_d100_under_a_percentage(aquelarre, skill):
    dist = ask(aquelarre, f"d100 <= {skill}")
    assert answer(dist) == {k: v for k, v in {"false": Fraction(100 - skill, 100),
                                               "true": Fraction(skill, 100)}.items() if v}


def test_a_comparison_of_dice_rolls_them_as_a_calculator_does(aquelarre):
    dist = ask(aquelarre, "keep_highest(2d20, 1) + 5 >= 15")
    # At least 10 on the better of two d20: 1 - (9/20)^2.
    assert answer(dist) == {"false": Fraction(81, 400), "true": Fraction(319, 400)}


def test_a_table_looked_up_by_a_roll(aquelarre):
    dist = ask(aquelarre, "localización[roll 1D10].factor")
    assert answer(dist) == {Fraction(1, 2): Fraction(4, 10), 1: Fraction(5, 10), 2: Fraction(1, 10)}


def test_a_check_of_the_edition(aquelarre):
    """porcentaje(60): critical up to ceil(60/10) = 6, fumble from 96, success up to 60."""
    dist = ask(aquelarre, "(check porcentaje(60)).resultado")
    assert answer(dist) == {"pifia": Fraction(5, 100), "fallo": Fraction(35, 100), "éxito": Fraction(54, 100),
                            "crítico": Fraction(6, 100)}
    assert [s for _v, s, _p in dist.ordered()] == ["pifia", "fallo", "éxito", "crítico"]   # by rank


def test_roll_totals_of_kept_dice_match_icepool():
    from grimorio.interpreter.run.dice import Dice
    for n, faces, k in [(4, 6, 3), (5, 10, 2), (3, 20, 1), (6, 4, 6)]:
        for which, icep in (("highest", icepool.Die(range(1, faces + 1)).highest(n, k)),
                            ("lowest", icepool.Die(range(1, faces + 1)).lowest(n, k))):
            got = dict(O.roll_totals(Dice(((1, n, faces),), 0, (k, which))))
            assert got == of_icepool(icep), (n, faces, k, which)


# ---------------------------------------------------------------- re-rolled and exploding dice, as rules
DADOS = """
rule una_vez(d, bajo):
  let r = roll d
  if r <= bajo:
    let r = roll d
  return r

rule explota(caras, veces):
  let total = 0
  let n = 0
  let r = caras
  while r == caras and n <= veces:
    let r = roll dice(1, caras)
    let total = total + r
    let n = n + 1
  return total

rule hasta(d, mínimo):
  let r = roll d
  while r < mínimo:
    let r = roll d
  return r
"""


@pytest.fixture(scope="module")
def dados(tmp_path_factory):
    root = tmp_path_factory.mktemp("odds")
    folder = root / "dados"
    folder.mkdir()
    (folder / "edicion.rules").write_text('edition dados:\n  title "Dados"\n  include "reglas.rules"\n',
                                          encoding="utf-8")
    (folder / "reglas.rules").write_text(textwrap.dedent(DADOS).lstrip(), encoding="utf-8")
    return O.bare_encounter("dados", program_for("dados", roots=[root]))


@pytest.mark.slow
@pytest.mark.parametrize("expr, expected", [
    ("una_vez(1D20, 1)", of_icepool(icepool.d20.reroll([1], depth=1))),          # d20: 1d20ro1
    ("una_vez(1D6, 2)", of_icepool(icepool.d6.reroll([1, 2], depth=1))),         # 1d6rol2 (below 3)
    ("explota(6, 2)", of_icepool(icepool.d6.explode(depth=2))),                   # 1d6e6, at most 2 more
    ("explota(4, 3)", of_icepool(icepool.d4.explode(depth=3))),
])
def test_rerolled_and_exploding_dice_written_as_rules(dados, expr, expected):
    assert answer(ask(dados, expr)) == expected


@pytest.mark.slow
def test_a_reroll_without_end_stops_at_the_budget(dados):
    """1d20rr<20 (d20 refuses it as too many rolls): its tree never ends; the budget says so."""
    with pytest.raises(O.OverBudget) as info:
        ask(dados, "hasta(1D20, 20)", O.Budget(runs=300))
    assert info.value.runs == 300 and info.value.open > 0


# ---------------------------------------------------------------- the bundled editions
def prepared(name, edit=None):
    sources = Sources()
    enc = load_encounter(ODDS / name, sources)
    if edit is not None:
        enc = edit(enc)
    return Prepared(enc, program_for(enc.edition))


def percent_check(skill: int) -> dict:
    """porcentaje(skill) as tiradas.rules says it, reckoned face by face."""
    crit, out = -(-skill // 10), {}
    for face in range(1, 101):
        r = "crítico" if face <= crit else "pifia" if face >= 90 + crit else "fallo" if face >= 96 \
            else "éxito" if face <= 5 or face <= skill else "fallo"
        out[r] = out.get(r, 0) + Fraction(1, 100)
    return out


@pytest.mark.slow
def test_attack_against_parry_every_outcome():
    """Rodrigo (Espadas 60%) attacks Bandido, who parries with his Garrote (Palo 45%): hit,
    parried, critical and fumble, exactly. A failed or fumbled attack asks no parry."""
    dist = O.exact(O.Question(prepared("parada.enc")))
    a, p = percent_check(60), percent_check(45)
    expected = {"Rodrigo ataque: pifia": a["pifia"], "Rodrigo ataque: fallo": a["fallo"]}
    for ra in ("éxito", "crítico"):
        for rp, q in p.items():
            expected[f"Rodrigo ataque: {ra}; Bandido parada: {rp}"] = a[ra] * q
    assert answer(dist) == expected
    hit = sum(v for k, v in expected.items() if "parada: fallo" in k or "parada: pifia" in k)
    assert hit == Fraction(3, 5) * Fraction(55, 100)        # through: any success, and a failed parry


def blow(weapon: str, armour: str) -> dict:
    """Points Bandido loses to a non-critical blow of Rodrigo (FUE 14, AGI 12, HAB 13: no bonus),
    as danos.rules reckons it: the weapon's dice less the FUE it lacks, less the armour's
    protection, by the location (a d10: x2, /2 four times in ten, x1 five), rounded down."""
    program = program_for("aquelarre")
    w, a = program.tables["armas"].lookup(weapon), program.tables["armaduras"].lookup(armour)
    dice = w.get("daño")
    rolls = convolve(*[die(f, s) for s, c, f in dice.terms for _ in range(c)])
    lacking = max(0, w.get("fue_min") - 14)
    out: dict = {}
    for d, p in rolls.items():
        through = max(0, d + dice.const - lacking)
        through -= min(through, a.get("protección"))
        for factor, q in ((Fraction(2), Fraction(1, 10)), (Fraction(1, 2), Fraction(4, 10)),
                          (Fraction(1), Fraction(5, 10))):
            v = int(through * factor // 1)
            out[v] = out.get(v, 0) + p * q
    return out


def with_gear(weapon, armour):
    from grimorio.interpreter.tools.odds_cli import with_fields

    class _Line:
        def span(self, _value=None):
            return None
    return lambda enc: with_fields(enc, [f'Rodrigo.arma="{weapon}"', f'Bandido.armadura="{armour}"'], _Line())


def damage(weapon, armour):
    prep = prepared("golpe.enc", with_gear(weapon, armour))
    return O.exact(O.question_from_text(prep, "Bandido.RES - Bandido.pv", "<--expr>", Sources()))


def test_damage_of_a_heavy_mace_through_a_gambeson():
    dist = damage("Maza pesada", "Gambesón")
    expected = blow("Maza pesada", "Gambesón")
    assert answer(dist) == {v: p for v, p in sorted(expected.items()) if p}
    assert dist.mean() == sum(v * p for v, p in expected.items())
    assert max(answer(dist)) == 18                 # the worst: 12 less 1 FUE lacking, less 2, on the head


@pytest.mark.slow
def test_damage_of_every_weapon_against_every_armour():
    program = program_for("aquelarre")
    weapons = [row.get("nombre") for row in program.tables["armas"].rows]
    armours = [row.get("nombre") for row in program.tables["armaduras"].rows]
    for weapon in weapons:
        for armour in armours:
            expected = {v: p for v, p in sorted(blow(weapon, armour).items()) if p}
            assert answer(damage(weapon, armour)) == expected, (weapon, armour)


@pytest.mark.slow
def test_an_estados_card_escalates_under_a_sequence():
    """Three days with a Heridas Grave and no Curación (FUE 3: a TS passes on 1 to 3): the wound
    stays clean only if all three TS pass."""
    prep = prepared("infeccion.enc")
    dist = O.exact(O.Question(prep))
    assert dist.expectations == [1 - Fraction(1, 2) ** 3]
    cards = O.exact(O.question_from_text(prep, "len(cards(Akira, Afección)) > 0", "<--expr>", Sources()))
    assert answer(cards) == {"false": Fraction(1, 8), "true": Fraction(7, 8)}


# ---------------------------------------------------------------- odds and simulate
def simulated_counts(prep, tally: str, who: str, seeds, runs: int) -> tuple[dict, int]:
    from grimorio.interpreter.tools.simulate import Runner, run_seed
    from grimorio.interpreter.tools.tally import Tally
    counts, n = {}, 0
    for base in seeds:
        t = Tally()
        Runner(prep).run_all(t, ((i, run_seed(base, i)) for i in range(runs)))
        for v, k in t.histogram(who, tally).values():
            counts[v] = counts.get(v, 0) + k
        n += runs
    return counts, n


def agree(exact: O.Distribution, counts: dict, n: int, sigmas: float = 4.5):
    """Every outcome's simulated share lies within `sigmas` standard errors of its exact probability
    (and nothing simulated is impossible)."""
    probs = answer(exact)
    assert set(counts) <= set(probs), set(counts) - set(probs)
    for v, p in probs.items():
        share = counts.get(v, 0) / n
        half = sigmas * (float(p * (1 - p)) / n) ** 0.5 + 1 / n
        assert abs(share - float(p)) <= half, (v, share, float(p))


def test_odds_and_simulate_agree_on_a_tally():
    prep = prepared("golpe.enc")
    exact = O.tally_odds(prep, "puntos_perdidos", "Bandido")
    counts, n = simulated_counts(prep, "puntos_perdidos", "Bandido", seeds=[1], runs=300)
    agree(exact, counts, n)


@pytest.mark.slow
def test_odds_and_simulate_agree_over_many_seeds():
    prep = prepared("golpe.enc", with_gear("Hacha de combate", "Ninguna"))
    exact = O.tally_odds(prep, "puntos_perdidos", "Bandido")
    counts, n = simulated_counts(prep, "puntos_perdidos", "Bandido", seeds=range(1, 21), runs=500)
    agree(exact, counts, n)
    # The estimate of odds itself is simulate's dice, and agrees the same way.
    question = O.question_from_text(prep, "Bandido.RES - Bandido.pv", "<--expr>", Sources())
    est = O.estimate(question, 4000, seed=3)
    agree(exact, {v: round(p * 4000) for v, p in answer(est).items()}, 4000)


def test_a_wrong_exact_answer_would_fail_the_agreement():
    """The agreement test can fail: a distribution one face off is told apart from the runs."""
    prep = prepared("golpe.enc")
    exact = O.tally_odds(prep, "puntos_perdidos", "Bandido")
    counts, n = simulated_counts(prep, "puntos_perdidos", "Bandido", seeds=[1], runs=300)
    wrong = O.Distribution()
    for v, shown, p in exact.ordered():
        wrong.add(v + 1, str(v + 1), p)
    with pytest.raises(AssertionError):
        agree(wrong, counts, n)


# ---------------------------------------------------------------- the command line
def test_cli_text_has_fractions_percentages_mean_and_at_least(capsys):
    assert main(["odds", "--edition", "aquelarre", "--expr", "3D6"]) == 0
    out = capsys.readouterr().out
    assert "odds of 3D6 (exact" in out
    assert re.search(r"^  10\s+1/8\s+12\.50%\s+62\.50%$", out, re.M)       # P(>= 10) = 5/8
    assert "mean 10.5 (= 21/2); lowest 3, highest 18" in out


def test_cli_json(capsys):
    assert main(["odds", "--edition", "aquelarre", "--expr", "keep_highest(2D20, 1) + 5 >= 15",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exact"] is True
    assert [(o["outcome"], o["probability"]) for o in data["outcomes"]] == [("false", "81/400"), ("true", "319/400")]


@pytest.mark.slow
def test_cli_encounter_without_a_question_gives_its_checks_and_expectations(capsys):
    assert main(["odds", str(ODDS / "infeccion.enc")]) == 0
    out = capsys.readouterr().out
    assert "Akira ts: fallo; Akira ts: fallo; Akira ts: fallo" in out
    assert "expect at line" in out and "holds with 7/8 (87.50%)" in out


def test_cli_rule_with_arguments(capsys):
    assert main(["odds", str(ODDS / "golpe.enc"), "--rule", "competencia_arma", "Rodrigo", "Rodrigo.arma"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^  60\s+1\s+100\.00%", out, re.M)


def test_cli_budget_stops_with_a_clear_message(capsys):
    code = main(["odds", "--edition", "aquelarre", "--expr", "sum([roll 1D10 for i in range(1, 8)])",
                 "--max-runs", "300"])
    err = capsys.readouterr().err
    assert code == 2
    assert "error[E0070]: the exact odds need more than the budget: 300 runs of the rules" in err
    assert "--estimate N" in err


def test_cli_estimate_past_the_budget_says_it_is_one(capsys):
    code = main(["odds", "--edition", "aquelarre", "--expr", "sum([roll 1D10 for i in range(1, 8)]) >= 40",
                 "--max-runs", "300", "--estimate", "400", "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0
    data = json.loads(captured.out)
    assert data["exact"] is False and data["runs"] == 400
    assert all("interval95" in o for o in data["outcomes"])
    assert "instead, an estimate from 400 runs" in captured.err


def test_cli_mistakes_are_diagnostics(capsys):
    assert main(["odds", "--expr", "3D6"]) == 2
    assert "E0071" in capsys.readouterr().err
    assert main(["odds", "--edition", "aquelarre", "--expr", "3D6 +"]) == 2
    assert "error[E01" in capsys.readouterr().err
    assert main(["odds", "--edition", "aquelarre", "--expr", "nada + 1"]) == 2
    assert 'unknown name "nada"' in capsys.readouterr().err
    assert main(["odds", str(ODDS / "golpe.enc"), "--with", "Nadie.arma=Daga", "--expr", "1"]) == 2
    assert "E0071" in capsys.readouterr().err


@pytest.mark.slow
def test_docs_examples_run(capsys, monkeypatch):
    """Every `grimorio odds ...` command of docs/odds.md, with the output the page shows."""
    import shlex
    text = (ROOT / "docs" / "odds.md").read_text(encoding="utf-8")
    examples = re.findall(r"```text\n\$ grimorio (odds .*?)\n(.*?)```", text, re.S)
    assert len(examples) >= 4
    monkeypatch.chdir(ROOT)
    for command, shown in examples:
        main(shlex.split(command))
        captured = capsys.readouterr()
        assert (captured.err + captured.out).strip() == shown.strip(), command


@pytest.mark.slow
def test_rolls_made_as_the_encounter_starts_are_refused(tmp_path, capsys):
    folder = tmp_path / "suerte"
    folder.mkdir()
    (folder / "edicion.rules").write_text('edition suerte:\n  title "Suerte"\n  include "reglas.rules"\n')
    (folder / "reglas.rules").write_text("var suerte = roll 1D6\n")
    (folder / "tirada.enc").write_text("edition suerte\ncombatant Ana:\n  side a\n")
    assert main(["odds", str(folder / "tirada.enc"), "--expr", "suerte"]) == 2
    assert "error[E0072]: the combatants' sheets or the vars roll dice as the encounter starts" in \
        capsys.readouterr().err


def test_a_draw_used_otherwise_than_as_a_face_is_refused(aquelarre):
    """E0073 guards the enumeration: a draw that is not read as a die's face is never guessed."""
    question = O.Question(aquelarre, lambda eng: eng.streams.get(None)() + 1, "a raw draw")
    with pytest.raises(GrimorioError) as info:
        O.exact(question)
    assert [d.code for d in info.value.diagnostics] == ["E0073"]
