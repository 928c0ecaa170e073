"""What stops a run: budgets for loops and cascades, and pinned dice that do not
fit; each a diagnostic at the rule or the script line, never a traceback."""
from __future__ import annotations

import re
import textwrap

import pytest

from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.diagnostics import GrimorioError, Sources, render_all
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for
from tests.test_checker import write_edition

RULES = """
sheet ficha:
  FUE: int 1..20
  acciones: int = 1
event golpe(quien)
reaction rebote(yo, e) to golpe:
  by e.quien
  emit golpe(quien: yo)
rule sin_fin(x):
  while true:
    let x = x + 1
rule eco(x):
  return eco(x + 1)
rule tirar(x):
  return roll 2D6 by x as "tirada"
condition Sed grades Leve < Grave:
  | grado | malus |
  |-------|-------|
  | Leve  | 1     |
  | Grave | 2     |
condition Hambre grades Leve < Grave
rule malus(x):
  return [g.malus for g in cards(x, Hambre)]
"""

HEAD = 'encounter "x"\nedition prueba\ncombatant Ana:\n  FUE 3\n'


def failure(tmp_path, body: str, rules: str = RULES) -> str:
    write_edition(tmp_path, rules)
    text = HEAD + textwrap.dedent(body)
    sources = Sources({"x.enc": text})
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    try:
        Prepared(enc, program_for("prueba", sources=sources, roots=[tmp_path])).run()
    except GrimorioError as exc:
        return render_all(exc.diagnostics, sources)
    raise AssertionError("the run did not fail")


@pytest.mark.slow
def test_a_loop_that_never_ends_stops_at_the_step_budget(tmp_path):
    out = failure(tmp_path, "do:\n  sin_fin(1)\n")
    assert "error[E0502]: the rules ran too long" in out
    assert "reglas.rules:9:3" in out and "while true:" in out


def test_a_rule_calling_itself_without_end(tmp_path):
    out = failure(tmp_path, "do:\n  eco(1)\n")
    assert "error[E0502]: the rules call themselves without end" in out
    assert "return eco(x + 1)" in out


def test_an_event_cascade_stops_at_its_depth(tmp_path):
    out = failure(tmp_path, "do:\n  emit golpe(quien: Ana)\n")
    assert "error[E0502]" in out and "nested events" in out


def test_an_event_whose_reactions_nest_nothing_still_stops_at_the_depth(tmp_path):
    # compiler.nests: "eco" has a reaction that emits nothing, so it leaves the depth alone, but it
    # still tests it: emitted at the depth (by the 16th "golpe"), the refusal is told at its own emit.
    rules = RULES.replace("reaction rebote(yo, e) to golpe:\n  by e.quien\n  emit golpe(quien: yo)\n",
                          "event eco_de(quien)\nreaction oir(yo, e) to eco_de:\n  by e.quien\n  pass\n"
                          "reaction rebote(yo, e) to golpe:\n  by e.quien\n  emit eco_de(quien: yo)\n"
                          "  emit golpe(quien: yo)\n")
    assert rules != RULES
    out = failure(tmp_path, "do:\n  emit golpe(quien: Ana)\n", rules)
    assert "error[E0502]" in out and "nested events" in out
    assert "emit eco_de(quien: yo)" in out and "reglas.rules:11:3" in out, out


def test_an_event_emitted_again_through_a_rule_counts_its_depth(tmp_path):
    # compiler.nests follows the rules a reaction calls: this cascade is one of nested events,
    # not a rule calling itself without end.
    rules = RULES.replace("  emit golpe(quien: yo)\n", "  otra_vez(yo)\nrule otra_vez(x):\n  emit golpe(quien: x)\n")
    assert rules != RULES
    out = failure(tmp_path, "do:\n  emit golpe(quien: Ana)\n", rules)
    assert "error[E0502]" in out and "nested events" in out and "emit golpe(quien: x)" in out, out


def test_an_event_emitted_again_from_a_checks_table_counts_its_depth(tmp_path):
    # compiler.nests follows the checks a reaction makes: a cell may call a rule that emits.
    rules = RULES.replace("  emit golpe(quien: yo)\n", "  let t = check prueba(yo) by yo\n"
                          "rule otra_vez(x):\n  emit golpe(quien: x)\n  return 1\n"
                          "check prueba(x) rolls tirada = d10:\n  | tirada | r |\n  |--|--|\n"
                          "  | <= otra_vez(x) | 1 |\n  | any | 2 |\n")
    out = failure(tmp_path, "do:\n  emit golpe(quien: Ana)\n", rules)
    assert "error[E0502]" in out and "nested events" in out and "emit golpe(quien: x)" in out, out


def test_a_pin_with_the_wrong_number_of_faces(tmp_path):
    out = failure(tmp_path, "dice:\n  Ana tirada 3\ndo:\n  tirar(Ana)\n")
    assert "error[E0503]" in out and "2D6 needs one face per die" in out


def test_a_pin_that_is_no_face_of_its_die(tmp_path):
    out = failure(tmp_path, "dice:\n  Ana tirada 3 7\ndo:\n  tirar(Ana)\n")
    assert "error[E0503]: 7 is not a face of a d6" in out
    assert "x.enc:6:3" in out


def test_strict_dice_run_out(tmp_path):
    out = failure(tmp_path, "dice strict:\n  Ana tirada 3 4\ndo:\n  tirar(Ana)\n  tirar(Ana)\n")
    assert "error[E0503]: the script has no pinned dice left for Ana tirada (2D6)" in out
    assert 'add a line "Ana tirada N"' in out


def test_strict_dice_never_rolled(tmp_path):
    out = failure(tmp_path, "dice strict:\n  Ana tirada 3 4\n  Ana tirada 1 1\ndo:\n  tirar(Ana)\n")
    assert "error[E0505]: this pinned roll was never made" in out
    assert "x.enc:7:3" in out


def test_a_grade_without_the_column_read_names_the_field(tmp_path):
    # Regression: the message said `Leve has no field "?"` (a grade's own lookup
    # raised an AttributeError without a quoted name).
    out = failure(tmp_path, "  holds Hambre Leve\ndo:\n  malus(Ana)\n")
    assert 'error[E0203]: Leve has no field "malus"' in out
    # At the rule's line that reads the field, not at its caller's (it was, while the rule was inlined).
    assert "return [g.malus for g in cards(x, Hambre)]" in out and "malus(Ana)" not in out


# ------------------------------------------------------------ the transcript is kept on errors
STRICT_TOO_SHORT = """\
encounter "corto"
edition aquelarre
rounds 1
combatant Rodrigo:
  side cristianos
  FUE 14, AGI 12, HAB 13, RES 14, PER 11
  Espadas 60%, Esquiva 40%
  arma "Espada corta"
combatant Bandido:
  side bandidos
  FUE 13, AGI 10, HAB 11, RES 13, PER 10
  Palo 45%, Esquiva 30%
  arma "Garrote"
dice strict:
  Rodrigo iniciativa 9
  Bandido iniciativa 1
round 1:
  Rodrigo: atacar Bandido, pass
"""


def _cli(tmp_path, capsys, *extra):
    return _cli_with(tmp_path, capsys, STRICT_TOO_SHORT, "run", *extra)


def test_a_run_stopped_by_an_error_prints_its_transcript_then_the_diagnostic(tmp_path, capsys):
    # The attack roll is not pinned: the run stops there, after the initiative lines.
    code, out = _cli(tmp_path, capsys)
    assert code == 2
    assert out.out.splitlines() == ['# encounter "corto", edition aquelarre, layers: none, seed 0',
                                    "Asalto 1", "  Iniciativa: Rodrigo 21 (1D10=9 + AGI 12)",
                                    "  Iniciativa: Bandido 11 (1D10=1 + AGI 10)"]
    assert "error[E0503]: the script has no pinned dice left for Rodrigo ataque" in out.err


def test_a_run_stopped_by_an_error_keeps_its_jsonl_events(tmp_path, capsys):
    import json
    code, out = _cli(tmp_path, capsys, "--format", "jsonl")
    assert code == 2
    events = [json.loads(line) for line in out.out.splitlines()]
    # (sheet changes, such as the fighters' places on the line as the fight starts, come between)
    assert [e["event"] for e in events if e["event"] != "change"][:5] == ["header", "combatant", "combatant", "say",
                                                                          "roll"]
    assert [e["total"] for e in events if e["event"] == "roll"] == [9, 1]
    assert "error[E0503]" in out.err


def test_expectations_failed_before_the_error_are_printed_with_it(tmp_path, capsys):
    # Two expectations fail in do:, then the attack roll is not pinned: all three are told, in order.
    code, out = _cli_with(tmp_path, capsys, STRICT_TOO_SHORT.replace(
        "round 1:", 'do:\n  expect Rodrigo.FUE == 2\n  expect said "zzz"\n  expect Rodrigo.FUE == 14\nround 1:'))
    assert code == 2
    assert out.out.splitlines()[1] == "Asalto 1"
    codes = re.findall(r"^error\[(E\d+)\]", out.err, re.M)
    assert codes == ["E0601", "E0601", "E0503"]
    assert "the left side is 14, the right side is 2" in out.err and 'no line so far contains "zzz"' in out.err


def test_diff_compares_runs_up_to_the_error_then_tells_it(tmp_path, capsys):
    code, out = _cli_with(tmp_path, capsys, STRICT_TOO_SHORT, "diff", "--edition", "aquelarre",
                          "--edition", "aquelarre")
    assert code == 2
    assert out.out.splitlines() == ["same transcript under aquelarre and aquelarre (3 lines)",
                                    "the run under aquelarre stopped on an error",
                                    "the run under aquelarre stopped on an error"]
    assert out.err.count("error[E0503]: the script has no pinned dice left for Rodrigo ataque") == 1


def _cli_with(tmp_path, capsys, text, command="run", *extra):
    from grimorio.interpreter.tools.cli import main
    path = tmp_path / "corto.enc"
    path.write_text(text, encoding="utf-8")
    code = main([command, str(path), *extra])
    return code, capsys.readouterr()


def test_the_error_carries_the_run_so_far(tmp_path):
    from tests.conftest import run_text
    try:
        run_text(STRICT_TOO_SHORT)
    except GrimorioError as exc:
        said = [ev[2] for ev in exc.outcome.engine.events if ev[0] == "say"]
        assert said[0] == "Asalto 1" and len(said) == 3
    else:
        raise AssertionError("the run should stop at the unpinned attack")


def ticks_of(program, rule: str, *args) -> int:
    """The steps a call of the rule's generated function counts against the budget."""
    from tests.compiled import engine, function
    e = engine(program)
    function(program, "rule", rule)(e, *args)
    return e.steps


def test_calls_that_multiply_still_meet_the_budget(tmp_path):
    # A rule that calls only leaf rules, or makes at most 16 calls all the way down, is no step of
    # its own (its cost is bounded); above that every call counts again: f20 calling f19 twice ...
    # down to f0 is about a million calls, and a budget of 1,000 steps stops it long before.
    chain = "rule f0(x):\n  return x + 1\n" + "".join(
        f"rule f{k}(x):\n  return f{k - 1}(x) + f{k - 1}(x)\n" for k in range(1, 21))
    write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\n" + chain)
    program = program_for("prueba", roots=[tmp_path])
    ticks = {k: ticks_of(program, f"f{k}", 1) for k in range(9)}
    # f0 a leaf; f1, f2, f3 make 2, 6 and 14 calls all the way down; f4 makes 30: a step each call
    # of it, so f5 (two calls of f4) 2 steps, f6 4 ... (f9 and up, the same, only slower to call)
    assert ticks == {0: 0, 1: 0, 2: 0, 3: 0, 4: 1, 5: 3, 6: 7, 7: 15, 8: 31}, ticks
    text = HEAD + "do:\n  f20(1)\n"
    enc, diags = build_encounter(text, "x.enc")
    with pytest.raises(GrimorioError) as exc:
        Prepared(enc, program).run(budget=1000)
    assert exc.value.diagnostics[0].code == "E0502"


def test_a_rule_that_calls_itself_or_many_is_a_step_of_its_own(tmp_path):
    # counted_by_caller: a rule on a cycle (a calls b, b calls a) ticks however few its calls, and
    # so does one whose calls, all the way down, pass 16; a short chain of calls does not.
    rules = ("rule hoja(x):\n  return x\n"
             "rule medio(x):\n  return hoja(x) + hoja(x)\n"
             "rule arriba(x):\n  return medio(x) + medio(x)\n"            # 2 * (1 + 2) = 6 calls
             "rule muchas(x):\n  return " + " + ".join(["arriba(x)"] * 3) + "\n"   # 3 * 7 = 21 calls
             "rule a(x):\n  return 0 if x <= 0 else b(x - 1)\n"
             "rule b(x):\n  return a(x)\n")
    write_edition(tmp_path, "sheet ficha:\n  FUE: int 1..20\n" + rules)
    program = program_for("prueba", roots=[tmp_path])
    got = {name: ticks_of(program, name, 0) > 0 for name in ("hoja", "medio", "arriba", "muchas", "a", "b")}
    assert got == {"hoja": False, "medio": False, "arriba": False, "muchas": True, "a": True, "b": True}
    text = HEAD + "expect a(3) == 0\n"
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    assert [v.ok for v in Prepared(enc, program).run().expectations] == [True]
    with pytest.raises(GrimorioError) as exc:        # a cycle still meets the budget
        Prepared(enc, program).run(budget=5)
    assert exc.value.diagnostics[0].code == "E0502"


# ------------------------------------------------------------ errors of the language's own (issue 19, Build 5)
def _raised_in_rule_text(source: str) -> Exception:
    """The exception a line of code compiled as generated code (engine.FILENAME) raises."""
    from grimorio.interpreter.run.refusals import FILENAME
    ns: dict = {"__spans__": [None]}
    exec(compile(f"def f():\n    {source}\n", FILENAME, "exec"), ns)  # noqa: S102 - the test's own line
    try:
        ns["f"]()
    except Exception as exc:  # noqa: BLE001 - the test looks at whatever it is
        return exc
    raise AssertionError("the line raised nothing")


def test_a_python_error_no_refusal_explains_is_grimorio_s_bug_whatever_its_message():
    # Regression: locate read Python's message, so a TypeError that merely said "cannot be
    # compared by order" became the designer's E0204; a bug in grimorio looked like theirs.
    from grimorio.interpreter.run.engine import locate
    for line in ('raise TypeError("a and b cannot be compared by order")', "return 1 + 'a'", "return {}['k']",
                 "return [][3]", "return 1 // 0", "raise ValueError('x')"):
        assert locate(None, _raised_in_rule_text(line)).code == "E0003", line


def test_a_field_a_runtime_helper_lacks_is_grimorio_s_bug_not_a_missing_field():
    # Regression: any AttributeError became E0203 "has no field", also one raised inside
    # the runtime (a bug of grimorio's); only a field the rule text itself reads is the designer's.
    from grimorio.interpreter.run.engine import locate
    try:
        Sources().nothing_here     # noqa: B018 - an attribute error raised outside generated code
    except AttributeError as exc:
        assert locate(None, exc).code == "E0003"
    else:
        raise AssertionError("no AttributeError")


def test_a_field_the_rule_text_reads_of_a_value_without_it_is_told_by_the_exception_s_fields():
    from types import SimpleNamespace

    from grimorio.interpreter.run.engine import locate
    from grimorio.interpreter.run.values import show
    program = SimpleNamespace(format=SimpleNamespace(show=show))
    d = locate(program, _raised_in_rule_text("return (3).a_FUE"))
    assert (d.code, d.message) == ("E0203", '3 has no field "FUE"')
    d = locate(program, _raised_in_rule_text("return None.cards"))
    assert (d.code, d.message) == ("E0204", "this value is none, not a combatant")     # and says where none comes from
    assert "first()" in d.help


def test_a_zero_divisor_is_refused_on_the_optimized_path_too(tmp_path):
    # The optimized % and floor(a / b) ran Python's own operator on whole numbers, whose
    # ZeroDivisionError reached the designer only through the old reading of Python's errors.
    write_edition(tmp_path, RULES + "rule resto(a, b):\n  return a % b\nrule suelo(a, b):\n  return floor(a / b)\n")
    for call in ("resto(7, 0)", "suelo(7, 0)", "resto(7, Ana.FUE - 3)"):
        text = HEAD + f"do:\n  let y = {call}\n"
        enc, diags = build_encounter(text, "x.enc")
        assert not diags
        with pytest.raises(GrimorioError) as failed:
            Prepared(enc, program_for("prueba", roots=[tmp_path])).run()
        assert [(d.code, d.message) for d in failed.value.diagnostics] == [("E0501", "division by zero")], call
