"""Names are resolved once (issue 19, build 1): the resolver writes down each name node's binding
and each local's slot (dsl/check/bindings.py); the compiler only reads them, constructs no
names.Resolver or Scope, and knows no scope rule."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from grimorio.dsl.check import resolver as R
from grimorio.dsl.check.bindings import Bindings
from grimorio.dsl.editions.loader import load_edition
from grimorio.dsl.syntax import nodes as n
from grimorio.dsl.syntax.nodes import walk
from grimorio.interpreter.compile.compiler import compile_checked
from tests.test_checker import write_edition
from tests.test_core_regressions import BASE, passes

COMPILE = Path(__file__).resolve().parent.parent / "interpreter" / "compile"


def test_the_compiler_constructs_no_resolver_and_no_scope():
    """No module of the compiler imports names.Resolver or Scope, builds one, threads a scope
    through its methods, or asks a resolver what a name means (resolve, callee): it reads the
    bindings."""
    found = []
    for path in sorted(COMPILE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("names"):
                found += [f"{path.name}: imports {a.name}" for a in node.names if a.name in ("Resolver", "Scope")]
            if isinstance(node, ast.Name) and node.id in ("Resolver", "Scope"):
                found.append(f"{path.name}:{node.lineno}: {node.id}")
            if isinstance(node, ast.arg) and node.arg == "scope":        # no scope threaded through
                found.append(f"{path.name}:{node.lineno}: parameter scope")
            if isinstance(node, ast.Attribute) and node.attr in ("resolve", "callee") and \
                    "resolver" in ast.unparse(node.value):
                found.append(f"{path.name}:{node.lineno}: .{node.attr}")
    assert not found, found


RULES = """
rule sombra(x):
  return [x for x in [x, 1]]
rule bucle(l):
  let t = 0
  for i in l:
    set t = t + i
  return t
rule cambia(x):
  if x > 0:
    let x = 2
  return x
rule ramas(x):
  if x > 0:
    let a = 1
  else:
    let a = 2
  return a
rule anidada():
  return [a * b for a in [1, 2] for b in [a, 10]]
rule len(l):
  return 7
rule llama():
  return len([1, 2])
rule campo(c):
  let FUE = c.FUE + 1
  return FUE
rule tipos(c):
  let n = 3
  let t = "a"
  let n2 = n
  set n2 = t
  return [n, t, n2, c]
action empuja(yo):
  requires yo.FUE > 2
  set yo.marca = 1
"""


def _checked(tmp_path):
    write_edition(tmp_path, BASE + RULES)
    rs = load_edition("prueba", roots=[tmp_path])
    return rs, compile_checked(rs)


def _names(rs, rule: str, name: str) -> list:
    """The Name nodes spelling `name` in a rule's body, in the order the text has them."""
    found = [x for x in walk(rs.space("rule")[rule].body) if isinstance(x, n.Name) and x.id == name]
    return sorted(found, key=lambda x: (x.span.line, x.span.col))


def test_the_bindings_follow_the_scopes_the_language_gives(tmp_path):
    rs, program = _checked(tmp_path)
    b = R.bindings_of(rs)
    rules = rs.space("rule")
    slot = lambda x: b.of(x).target       # noqa: E731
    # A comprehension's variable shadows the parameter of its name; the list reads the parameter.
    x_elt, x_list = _names(rs, "sombra", "x")
    param = b.slot(rules["sombra"].params[0])
    assert slot(x_list) == param and slot(x_elt) != param
    # A loop's variable; a `let` in a block replaces the parameter (one slot); every branch binds alike.
    (i_read,) = _names(rs, "bucle", "i")
    assert slot(i_read) == b.slot(next(x for x in walk(rules["bucle"].body) if isinstance(x, n.For)))
    (x_read,) = [x for x in _names(rs, "cambia", "x") if x.span.line == max(y.span.line for y in _names(rs, "cambia", "x"))]
    assert slot(x_read) == b.slot(rules["cambia"].params[0])
    lets = [x for x in walk(rules["ramas"].body) if isinstance(x, n.Let)]
    (a_read,) = _names(rs, "ramas", "a")
    assert b.slot(lets[0]) == b.slot(lets[1]) == slot(a_read)
    # Each clause of a comprehension binds its own; a later clause reads an earlier one's.
    comp = next(x for x in walk(rules["anidada"].body) if isinstance(x, n.Comprehension))
    a_reads = _names(rs, "anidada", "a")
    assert b.slot(comp, 0) != b.slot(comp, 1) and {slot(a) for a in a_reads} == {b.slot(comp, 0)}
    # A rule named like a builtin (W0240) is what the call calls; a field is no local of its name.
    call = next(x for x in walk(rules["llama"].body) if isinstance(x, n.Call))
    assert b.of(call).kind == "rule" and b.of(call).target is rules["len"]
    (fue_read,) = _names(rs, "campo", "FUE")
    assert slot(fue_read) == b.slot(next(x for x in walk(rules["campo"].body) if isinstance(x, n.Let)))


def test_the_bindings_keep_the_kinds_the_resolver_learned(tmp_path):
    """A local read where the text shows its kind keeps that kind; set anew, the kind of its new value;
    a parameter's, none."""
    from grimorio.dsl.check import kinds as K
    rs, _program = _checked(tmp_path)
    b = R.bindings_of(rs)
    ret = rs.space("rule")["tipos"].body[-1].value
    assert [b.kind_of(x) for x in ret.items] == [K.NUMBER, K.TEXT, K.TEXT, None]


def test_the_compiled_rules_do_what_their_bindings_say(tmp_path):
    passes(tmp_path, "expect sombra(5) == [5, 1]\nexpect bucle([1, 2, 3]) == 6\nexpect cambia(1) == 2\n"
                     "expect cambia(-1) == -1\nexpect ramas(1) == 1\nexpect ramas(0) == 2\n"
                     "expect anidada() == [1, 10, 4, 20]\nexpect llama() == 7\nexpect campo(Ana) == 4\n", RULES)


def test_the_compiler_reads_only_what_the_resolver_reported(tmp_path, monkeypatch):
    """Every binding and slot the compiler reads is the one a walk of the resolver reports for
    that node: the compiler decides nothing of its own about a name."""
    write_edition(tmp_path, BASE + RULES)
    rs = load_edition("prueba", roots=[tmp_path])
    read = []
    monkeypatch.setattr(Bindings, "of", lambda self, node, real=Bindings.of: read.append(("of", node)) or real(self, node))
    monkeypatch.setattr(Bindings, "slot", lambda self, node, part=None, real=Bindings.slot:
                        read.append(("slot", node, part)) or real(self, node, part))
    compile_checked(rs)
    monkeypatch.undo()
    walker = R._Walker(rs)
    walker.run()
    again = walker.bound
    assert read and all(again.of(r[1]) == R.bindings_of(rs).of(r[1]) if r[0] == "of" else
                        again.slot(r[1], r[2]) == R.bindings_of(rs).slot(r[1], r[2]) for r in read)


def test_an_encounter_script_reads_its_own_bindings(tmp_path):
    """A `do:` script's lets, loops and comprehensions, beside the ruleset's names and a combatant."""
    passes(tmp_path, "do:\n  let x = 2\n  for i in [1, 2]:\n    let x = x + i\n  let l = [x for x in [7]]\n"
                     "  expect x == 5\n  expect l == [7]\n  expect sombra(x) == [5, 1]\n  expect Ana.FUE == 3\n",
           RULES)


def test_an_odds_expression_reads_its_own_bindings(tmp_path):
    from grimorio.dsl.syntax.builder import build_rules
    write_edition(tmp_path, BASE + RULES)
    rs = load_edition("prueba", roots=[tmp_path])
    program = compile_checked(rs)
    (decl,), _ = build_rules("rule q():\n  return [y + 1 for y in [1, 2]]\n", "q.rules")
    node = decl.body[0].value
    assert R.resolve_script(rs, (), [node], ["Ana"], program.resolver) == []
    b = R.script_bindings(rs, (), [node], ["Ana"])
    (y,) = [x for x in walk(node) if isinstance(x, n.Name) and x.id == "y"]
    assert b.of(y).kind == "local" and b.of(y).target == b.slot(node, 0)
    assert "expects" in program.compile_snippet("odds_q", (), [node], ["Ana"])


def test_a_program_read_back_walks_its_ruleset_again_only_when_asked(tmp_path):
    """Bindings are keyed by node ids: never stored with a program; one read back asks the resolver
    again when it compiles code of its own (an encounter's script)."""
    from grimorio.interpreter.compile import stored
    from grimorio.interpreter.compile.compiler import load
    rs, program = _checked(tmp_path)
    data = stored.dumps(program.program)
    assert data is not None and b"Bindings" not in data
    back = load(stored.loads(data))
    assert "bindings" not in vars(back) and "bindings" not in vars(back.program)
    R._BOUND.clear()
    got = back.compile_snippet("s", [], [n.Binary(rs.edition.span, "==", n.Const(rs.edition.span, 1),
                                                   n.Const(rs.edition.span, 1))], ["Ana"])
    assert got["expects"][0] is not None
    R._BOUND.clear()
    (clause, _span, test), = back.requirement_checks(back.ruleset.space("action")["empuja"])
    assert clause == "requires" and callable(test)


class _Once(dict):
    """A binding written twice for one node must be the same: a node shared by two places that
    mean different things would read the last one."""

    def __setitem__(self, key, value):
        assert self.get(key, value) == value, (key, self[key], value)
        super().__setitem__(key, value)


@pytest.mark.slow
def test_every_node_of_the_bundled_editions_is_bound_one_way(monkeypatch):
    from grimorio.dsl.editions.files import bundled_root
    real = Bindings.__init__

    def init(self, *args, **kw):
        real(self, *args, **kw)
        self.names, self.slots = _Once(), _Once()
    monkeypatch.setattr(Bindings, "__init__", init)
    houses = [p for p in sorted((bundled_root() / "casa").glob("*.rules"))
              if "\nextends aquelarre\n" in "\n" + p.read_text(encoding="utf-8")]
    for edition, layers in (("aquelarre", houses), ("aquelarre_estados", ()), ("yokai", ()), ("arena", ())):
        R.resolve_ruleset(load_edition(edition, houses=layers))
