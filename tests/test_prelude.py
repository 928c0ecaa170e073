"""The prelude: policy written in the rules language, loaded under every edition
and replaced by an edition's own declarations (enemies/allies, formats)."""
from __future__ import annotations

import json
import textwrap

import pytest

from grimorio.dsl.syntax.builder import build_encounter
from grimorio.dsl.diagnostics import GrimorioError, Sources
from grimorio.dsl.editions.files import bundled_root
from grimorio.interpreter.run.encounter import Prepared
from grimorio.interpreter.compile.programs import program_for
from grimorio.interpreter.run.transcript import render_text
from tests.aquelarre import duel

DICE = """
    Rodrigo iniciativa 9
    Bandido iniciativa 1
    Rodrigo ataque 30
    Bandido parada 95
"""
SCRIPT = """
    round 1:
      Rodrigo: atacar Bandido, pass
      Bandido: parar, pass
"""


def house(tmp_path, rules: str, name="casa", base="aquelarre"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "edicion.rules").write_text(f"edition {name}:\n  extends {base}\n\n" + textwrap.dedent(rules),
                                          encoding="utf-8")
    return [tmp_path, bundled_root()]


def run(text, roots=None, edition=None):
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    program = program_for(edition or enc.edition, None, Sources({"x.enc": text}), roots)
    out = Prepared(enc, program).run()
    assert not out.failed, out.failed
    return render_text(out.engine).splitlines()


def test_the_bundled_editions_hold_the_prelude():
    for edition in ("aquelarre", "yokai"):
        p = program_for(edition)
        assert p.ruleset.origin[("rule", "enemies")] == "(prelude)"
        assert p.format.t["dice"] == "{count}D{faces}"


@pytest.mark.slow
def test_an_edition_replaces_the_dice_and_booleans_format(tmp_path):
    roots = house(tmp_path, 'format dice "{count}d{faces}"\nformat percentile "1d{faces}"\n')
    text = duel(DICE, SCRIPT, strict=False)
    plain = run(text)
    assert "  Rodrigo ataca a Bandido con la Espada corta: 1D100=30 contra 60% -> éxito" in plain
    lines = run(text, roots, "casa")
    assert "  Rodrigo ataca a Bandido con la Espada corta: 1d100=30 contra 60% -> éxito" in lines
    assert [ln.replace("1d100", "1D100").replace("1d10", "1D10").replace("1d6", "1D6") for ln in lines] == plain


@pytest.mark.slow
def test_the_jsonl_of_a_roll_writes_its_dice_by_the_editions_format(tmp_path):
    """How dice print is the edition's in the jsonl too (once Python's own "1D6" and "d100")."""
    from grimorio.interpreter.run.transcript import render_jsonl
    roots = house(tmp_path, 'format dice "{count}d{faces}"\nformat percentile "1d{faces}"\n')
    text = duel(DICE, SCRIPT, strict=False)
    enc, diags = build_encounter(text, "x.enc")
    assert not diags
    dice = {}
    for edition, where in (("aquelarre", None), ("casa", roots)):
        out = Prepared(enc, program_for(edition, None, Sources({"x.enc": text}), where)).run(record=True, json=True)
        dice[edition] = [json.loads(line)["dice"] for line in render_jsonl(out.engine).splitlines()
                         if json.loads(line)["event"] == "roll"]
    assert "1D100" in dice["aquelarre"] and "1D10" in dice["aquelarre"]    # the edition writes 1D100
    assert dice["casa"] == [d.replace("D", "d") for d in dice["aquelarre"]]


@pytest.mark.slow
def test_formats_of_none_lists_and_factors(tmp_path, arena):
    roots = house(tmp_path, 'format none "nada"\nformat empty "ninguno"\nformat separator " y "\n'
                            'format factor "por {n}"\nformat divisor "entre {d}"\nformat true "sí"\n', base="arena")
    from grimorio.interpreter.compile.formats import build_format
    from grimorio.interpreter.run.values import Scale
    fmt = build_format(program_for("casa", roots=[arena] + roots).ruleset)
    assert [fmt.show(v) for v in (None, [], [1, 2, 3], Scale(2), Scale(1, 2), True, False)] == \
        ["nada", "ninguno", "1 y 2 y 3", "por 2", "entre 2", "sí", "false"]


@pytest.fixture(scope="module")
def arena(tmp_path_factory):
    """The tutorial edition of the docs, written out."""
    from tests.test_docs import LANGUAGE, blocks
    root = tmp_path_factory.mktemp("docs")
    for b in blocks(LANGUAGE):
        if b.file and b.file.startswith("arena/"):
            (root / b.file).parent.mkdir(parents=True, exist_ok=True)
            (root / b.file).write_text(b.text, encoding="utf-8")
    return root


@pytest.mark.slow
def test_an_edition_replaces_enemies(tmp_path, arena):
    # Everybody against everybody: Ana's enemies include Carla, of her own side.
    rules = "rule enemies(c):\n  return [x for x in combatants() if x != c]\n"
    roots = house(tmp_path, rules, base="arena")
    text = ('encounter "x"\nedition casa\ncombatant Ana:\n  side rojos\n  FUE 8, AGI 12\n'
            'combatant Carla:\n  side rojos\n  FUE 7, AGI 10\ncombatant Beto:\n  side azules\n  FUE 6, AGI 9\n'
            "do:\n  expect enemies(Ana) == [Carla, Beto]\n  expect allies(Ana) == [Carla]\n")
    run(text, [arena] + roots)
    # In the tutorial edition itself, the prelude's enemies: only the other side.
    run(text.replace("edition casa", "edition arena").replace("[Carla, Beto]", "[Beto]"), [arena])


@pytest.mark.slow
def test_a_format_of_no_kind_or_a_wrong_placeholder_is_an_error(tmp_path):
    roots = house(tmp_path, 'format dado "{count}"\nformat dice "{n}d{faces}"\n')
    with pytest.raises(GrimorioError) as exc:
        program_for("casa", roots=roots)
    got = sorted((d.code, d.span.line, d.span.col) for d in exc.value.diagnostics)
    assert got == [("E0231", 4, 8), ("E0232", 5, 13)]
    # The checker in dsl/ reports them, before anything is compiled.
    from grimorio.dsl.check.checker import check_ruleset
    from grimorio.dsl.editions.loader import load_edition
    assert sorted(d.code for d in check_ruleset(load_edition("casa", roots=roots))) == ["E0231", "E0232"]


def test_two_formats_of_one_kind_in_an_edition_are_declared_twice(tmp_path):
    roots = house(tmp_path, 'format none "nada"\nformat none "-"\n')
    with pytest.raises(GrimorioError) as exc:
        program_for("casa", roots=roots)
    assert [d.code for d in exc.value.diagnostics] == ["E0202"]


QUIETA = 'tactic quieta:\n  act: atacar\n'
ARENA_DUEL = """encounter "x"
edition casa
{sets}
rounds 1
combatant Ana:
  side rojos
  FUE 8, AGI 12, Armas 60%
  arma Espada
  tactic directa
combatant Beto:
  side azules
  FUE 6, AGI 9, Armas 50%, Esquivar 30%
  arma Daga
dice:
  Ana iniciativa 9
  Beto iniciativa 1
  Ana ataque 10
"""


def test_the_default_tactic_and_the_first_reaction_are_the_preludes_options(tmp_path, arena):
    roots = [arena] + house(tmp_path, QUIETA, base="arena")
    # Beto plays "quieta" (no preference for attacks): by the prelude, he takes the first reaction allowed.
    lines = run(ARENA_DUEL.format(sets='set default_tactic = "quieta"'), roots)
    assert any(ln.startswith("    Beto esquiva:") for ln in lines)
    # With first_reaction false, a tactic without a preference does not react.
    lines = run(ARENA_DUEL.format(sets='set default_tactic = "quieta"\nset first_reaction = false'), roots)
    assert not any("esquiva" in ln for ln in lines) and any(ln.startswith("  Ana ataca a Beto") for ln in lines)
    # Without the setting, Beto plays the edition's first tactic, "directa", which dodges with two actions left.
    lines = run(ARENA_DUEL.format(sets="set first_reaction = false"), roots)
    assert any(ln.startswith("    Beto esquiva:") for ln in lines)


def test_a_default_tactic_that_does_not_exist_is_an_error_at_its_setting(tmp_path, arena):
    roots = [arena] + house(tmp_path, QUIETA, base="arena")
    text = ARENA_DUEL.format(sets='set default_tactic = "quieto"')
    enc, _ = build_encounter(text, "x.enc")
    with pytest.raises(GrimorioError) as exc:
        Prepared(enc, program_for("casa", None, Sources({"x.enc": text}), roots))
    [d] = exc.value.diagnostics
    assert (d.code, d.message, d.help, d.span.line) == ("E0201", 'there is no tactic "quieto"',
                                                       'did you mean "quieta"?', 3)


TWICE = """encounter "x"
edition arena
set reactions_per_event = 2
rounds 1
combatant Ana:
  side rojos
  FUE 8, AGI 12, Armas 60%
  arma Espada
combatant Beto:
  side azules
  FUE 6, AGI 9, Armas 50%, Esquivar 30%
  arma Daga
dice strict:
  Ana iniciativa 9
  Beto iniciativa 1
  Ana ataque 10
  Beto esquiva 90
  Beto esquiva 20
round 1:
  Ana: atacar Beto, pass
  Beto: esquivar, esquivar, pass
  expect Beto.acciones == 0
"""


def test_reactions_per_event_is_the_preludes_option(arena):
    # Two reactions to one attack: Beto dodges twice (fails, then succeeds) and is not hit.
    lines = run(TWICE, [arena])
    assert [ln for ln in lines if "esquiva" in ln] == ["    Beto esquiva: d100=90 contra 30% -> fallo",
                                                       "    Beto esquiva: d100=20 contra 30% -> éxito"]
    # By the prelude, one: the second dodge is never asked for.
    with pytest.raises(GrimorioError) as exc:
        run(TWICE.replace("set reactions_per_event = 2\n", "").replace("  Beto esquiva 90\n", ""), [arena])
    assert [d.message for d in exc.value.diagnostics] == ['Beto never got to "esquivar" in round 1']


@pytest.mark.slow
def test_conditions_is_the_preludes_rule_and_an_edition_can_replace_it(tmp_path):
    base = 'encounter "x"\nedition {ed}\ncombatant Akira:\n  FUE 3, AGI 2, DES 2, PER 2, INT 2, VOL 2\ndo:\n{do}'
    do = ("  expect len(conditions()) == 5 and incapacitado not in conditions()\n"
          "  expect incapacitado in all_conditions() and len(all_conditions()) > 5\n"
          "  expect grades(Heridas) == [Heridas.Leve, Heridas.Persistente, Heridas.Grave] and grades(incapacitado) == []\n")
    run(base.format(ed="yokai", do=do))
    roots = house(tmp_path, "rule conditions():\n  return all_conditions()\n", base="yokai")
    run(base.format(ed="casa", do="  expect incapacitado in conditions()\n"), roots)


SIDELESS = ('encounter "x"\nedition EDITION\ncombatant Ana:\n  FUE 8, AGI 12\n'
            'combatant Carla:\n  FUE 7, AGI 10\ncombatant Beto:\n  side azules\n  FUE 6, AGI 9\n')


def test_the_side_of_a_combatant_without_a_side_line_is_the_preludes_option(tmp_path, arena):
    # The prelude: each alone on a side named after itself.
    run(SIDELESS.replace("EDITION", "arena") + 'do:\n  expect Ana.side == "Ana"\n'
        "  expect enemies(Ana) == [Carla, Beto]\n  expect allies(Ana) == none\n", [arena])
    # An edition that sets it: every combatant without a side line on one side.
    roots = house(tmp_path, 'set default_side = "libres"\n', base="arena")
    run(SIDELESS.replace("EDITION", "casa") + 'do:\n  expect Ana.side == "libres"\n'
        '  expect enemies(Ana) == [Beto]\n  expect allies(Ana) == [Carla]\n  expect Beto.side == "azules"\n',
        [arena] + roots)


def test_an_edition_or_an_encounter_may_name_the_default_side_after_the_combatant(tmp_path, arena):
    roots = house(tmp_path, 'option default_side = "banda de {name}"\n', base="arena")
    run(SIDELESS.replace("EDITION", "casa") + 'do:\n  expect Carla.side == "banda de Carla"\n', [arena] + roots)
    run(SIDELESS.replace("EDITION", "arena") + 'set default_side = "{name}{name}"\n'
        'do:\n  expect Carla.side == "CarlaCarla"\n  expect Beto.side == "azules"\n', [arena])


def test_a_default_side_with_another_placeholder_is_an_error_before_running(tmp_path, arena):
    from grimorio.dsl.check.checker import check_ruleset
    from grimorio.dsl.editions.loader import load_edition
    roots = house(tmp_path, 'set default_side = "{nombre}"\n', base="arena")
    diags = check_ruleset(load_edition("casa", roots=[arena] + roots))
    assert [(d.code, d.span.line) for d in diags] == [("E0208", 4)], diags
    text = SIDELESS.replace("EDITION", "arena") + 'set default_side = "{lado}"\n'
    enc, _ = build_encounter(text, "x.enc")
    with pytest.raises(GrimorioError) as exc:
        Prepared(enc, program_for("arena", None, Sources({"x.enc": text}), [arena]))
    assert [d.code for d in exc.value.diagnostics] == ["E0208"]


FORMATTED = """
outcomes nivel: bajo < alto
table mult:
  | nombre | f  |
  |--------|----|
  | doble  | x2 |
  | medio  | /2 |
condition Miedo grades Leve < Grave
message valores(a, b, c, d, e, f, g) "{a} {b} {c} {d} {e} {f} {g}"
rule muestra(c):
  let r = roll 2D6 by c as "prueba"
  say valores(1D20, r, mult["doble"].f, [3D6, mult["medio"].f], {dado: 1D4, n: 7 / 2}, alto, Miedo.Grave)
"""


@pytest.mark.parametrize("formats, dice", [("", ["1D20", "2D6", "x2", "3D6", "/2", "1D4"]),
                                           ('format dice "{count}d{faces}"\nformat factor "por {n}"\n'
                                            'format divisor "entre {d}"\n',
                                            ["1d20", "2d6", "por 2", "3d6", "entre 2", "1d4"])])
def test_message_arguments_in_the_jsonl_print_as_the_text_does(tmp_path, formats, dice):
    """Dice and factors in a message's arguments once printed by Python in the jsonl (always 1D20, x2)."""
    from grimorio.interpreter.run.transcript import render_jsonl
    from tests.test_checker import write_edition
    write_edition(tmp_path, FORMATTED + formats)
    text = "edition prueba\ncombatant Ana:\n  side a\ndice:\n  Ana prueba 3 4\ndo:\n  muestra(Ana)\n"
    enc, diags = build_encounter(text, "x.enc")
    assert not diags, diags
    out = Prepared(enc, program_for("prueba", None, Sources({"x.enc": text}), [tmp_path])).run(json=True)
    said = [json.loads(line) for line in render_jsonl(out.engine).splitlines() if '"say"' in line]
    args = said[0]["args"]
    assert args == [dice[0], {"dice": dice[1], "faces": [3, 4], "total": 7}, dice[2], [dice[3], dice[4]],
                    {"dado": dice[5], "n": "7/2"}, "alto", "Grave"], args
    shown = said[0]["text"]
    assert shown.startswith(f"{dice[0]} {dice[1]}=7 (3+4) {dice[2]} {dice[3]}, {dice[4]}"), shown


# The prelude's policy options hold what the runtime reads of them, whoever gives the value
# (regressions of issue 5's audit, G6: a wrong kind stopped the run with a generic E0204 in the
# rules, a missing tactic was reported at the encounter's first line, -1 reactions meant none).
POLICY_ERRORS = [
    ('option reactions_per_event = "dos" "x"', "E0204", 'option "reactions_per_event" takes a whole number from 0, '
                                                        'not "dos"'),
    ('option reactions_per_event = -1 "x"', "E0204", 'option "reactions_per_event" takes a whole number from 0, not -1'),
    ('option default_tactic = true "x"', "E0204", 'option "default_tactic" takes the name of a tactic, as a text, '
                                                  "not true"),
    ('option default_tactic = "nada" "x"', "E0201", 'there is no tactic "nada"'),
    ('option first_reaction = 5 "x"', "E0204", 'option "first_reaction" takes true or false, not 5'),
    ("set reactions_per_event = -1", "E0204", 'option "reactions_per_event" takes a whole number from 0, not -1'),
    ('set default_tactic = "nada"', "E0201", 'there is no tactic "nada"'),
]


@pytest.mark.parametrize("line, code, message", POLICY_ERRORS)
def test_a_policy_option_declared_again_or_set_by_an_edition_is_checked_where_it_is(tmp_path, arena, line, code,
                                                                                      message):
    from grimorio.dsl.check.checker import check_ruleset
    from grimorio.dsl.editions.loader import load_edition
    roots = house(tmp_path, line + "\n", base="arena")
    diags = check_ruleset(load_edition("casa", roots=[arena] + roots))
    assert [(d.code, d.message, d.span.file.endswith("edicion.rules"), d.span.line) for d in diags] == \
        [(code, message, True, 4)], diags
    assert diags[0].help


@pytest.mark.parametrize("line, code, message", [x for x in POLICY_ERRORS if x[0].startswith("set")])
def test_a_policy_option_set_by_an_encounter_or_the_command_line_is_checked_where_it_is(arena, line, code, message):
    from grimorio.dsl.syntax import nodes as n
    from grimorio.dsl.diagnostics import Span
    text = SIDELESS.replace("EDITION", "arena") + line + "\n"
    enc, _ = build_encounter(text, "x.enc")
    program = program_for("arena", None, Sources({"x.enc": text}), [arena])
    with pytest.raises(GrimorioError) as exc:
        Prepared(enc, program)
    assert [(d.code, d.message, d.span.file, d.span.line) for d in exc.value.diagnostics] == \
        [(code, message, "x.enc", 10)]
    name, value = line[4:].split(" = ")
    given = n.Const(Span("<command line>", 1, 7), -1 if value == "-1" else value.strip('"'))
    with pytest.raises(GrimorioError) as exc:
        Prepared(build_encounter(SIDELESS.replace("EDITION", "arena"), "x.enc")[0], program, {name: given})
    assert [(d.code, d.message, d.span.file) for d in exc.value.diagnostics] == [(code, message, "<command line>")]


def test_a_policy_option_an_edition_declares_again_is_read_by_the_runtime_and_not_unread(tmp_path, arena):
    from grimorio.dsl.check.deadcode import dead_data
    from grimorio.dsl.editions.loader import load_edition
    roots = house(tmp_path, 'option reactions_per_event = 2 "dos reacciones"\noption nadie = 1 "x"\n', base="arena")
    warned = [d.message for d in dead_data(load_edition("casa", roots=[arena] + roots)) if d.code == "W0705"]
    assert warned == ['no rule reads option "nadie"']
    lines = run(TWICE.replace("edition arena\nset reactions_per_event = 2\n", "edition casa\n"), [arena] + roots)
    assert sum("esquiva" in ln for ln in lines) == 2


def test_every_policy_option_of_the_prelude_has_its_contract():
    from grimorio.dsl.syntax import nodes as n
    from grimorio.dsl.editions.files import prelude
    from grimorio.dsl.check.policy import POLICY, check_policy
    options = {d.name: d for d in prelude()[1] if isinstance(d, n.Option)}
    assert set(POLICY) == set(options)
    # and the prelude's own defaults keep it
    assert all(check_policy(name, d.default.value, d.default.span, []) == [] for name, d in options.items())


SHAPES = """
format roll "{dice}: {total}"
format roll_faces "{total} ({dice}: {faces})"
format ratio "{n} entre {d}"
format record "[{fields}]"
format field "{name} vale {value}"
format field_separator "; "
format percentile "1D{faces}"
format none "nada"
message ver(x) "{x}"
rule una(c):
  let r = roll 1D6 by c as "una"
  say ver(r)
rule cien(c):
  return roll d100 by c as "cien"
"""


def test_rolls_fractions_records_and_diagnostics_print_by_the_editions_formats(tmp_path):
    """The shape of a roll, a fraction, a record; the dice of a diagnostic and the sides of a failed
    expectation: each as the edition's formats say (once fixed in Python: `=`, `(3+4)`, `7/2`, `{k: v}`,
    `d100`, and `-` for none)."""
    from tests.test_checker import write_edition
    write_edition(tmp_path, FORMATTED + SHAPES)
    text = ("edition prueba\ncombatant Ana:\n  side a\ndice strict:\n  Ana prueba 3 4\n  Ana una 5\n"
            "do:\n  muestra(Ana)\n  una(Ana)\n  expect none == 7 / 2\n  cien(Ana)\n")
    enc, diags = build_encounter(text, "x.enc")
    assert not diags, diags
    with pytest.raises(GrimorioError) as exc:
        Prepared(enc, program_for("prueba", None, Sources({"x.enc": text}), [tmp_path])).run()
    assert render_text(exc.value.outcome.engine).splitlines() == [
        "1D20 7 (2D6: 3+4) x2 3D6, /2 [dado vale 1D4; n vale 7 entre 2] alto Grave", "1D6: 5"]
    [(verdict, _left, _right)] = exc.value.outcome.failed
    # none, true, false, texts, lists and records as the language writes them (an expectation's words:
    # [none] is not [], nor "nada" a text); numbers, fractions and dice by the edition's formats.
    assert verdict.diagnostic().help == "the left side is none, the right side is 7 entre 2"
    [d] = exc.value.diagnostics
    assert (d.code, d.message) == ("E0503", "the script has no pinned dice left for Ana cien (1D100)")


def test_the_new_format_kinds_have_their_own_placeholders(tmp_path):
    from grimorio.dsl.check.checker import check_ruleset
    from grimorio.dsl.editions.loader import load_edition
    roots = house(tmp_path, 'format roll "{faces}"\nformat record "{name}"\nformat field "{fields}"\n'
                            'format ratio "{n}:{d}"\nformat roll_faces "{dice}{total}{faces}"\n')
    diags = check_ruleset(load_edition("casa", roots=roots))
    assert sorted((d.code, d.span.line) for d in diags) == [("E0232", 4), ("E0232", 5), ("E0232", 6)], diags


def test_a_policy_option_set_by_an_extending_edition_is_checked_by_its_contract(tmp_path):
    # The layer's own kind test said E0309 "takes true or false, not a number" for what an encounter's
    # set or --set calls E0204, with a help line: one contract, one code, wherever the value is given.
    from grimorio.dsl.check.checker import check_ruleset
    from grimorio.dsl.editions.loader import load_edition
    roots = house(tmp_path, "set first_reaction = 5\n")
    diags = check_ruleset(load_edition("casa", roots=roots))
    assert [(d.code, d.message) for d in diags] == [("E0204", 'option "first_reaction" takes true or false, not 5')]
    assert diags[0].help and diags[0].span.file.endswith("edicion.rules")
