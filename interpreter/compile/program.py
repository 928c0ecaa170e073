"""What compiling a checked ruleset makes: the Program, a record of plain data.

A Program holds no compiler, no resolver and no function: the checked declarations (the ruleset,
with its sources), the data the rules read (tables, conditions, outcomes, options), the generated
module's code (marshalled) with the rule text each of its lines came from, and what compiling an
encounter's own code against it needs (the Python names of the declarations, the constants the
code reads, the record classes by their fields). The standard pickle writes and reads it
(stored.py, shipped.py). interpreter/run/loaded.py makes it ready to run in a process: it runs
the code once, with the runtime's helpers, and links the functions it defines.
"""
from __future__ import annotations

import marshal

from ...dsl.records import dataclass, field
from ..run.values import Struct, struct_shape


@dataclass(frozen=True)
class Program:
    ruleset: object = field(repr=False)         # the checked declarations (dsl/syntax/nodes), with their sources
    optimized: bool = True                      # compiled with the optimizer's plan (optimizer.py), or plain
    text_sides: bool = False                    # its code takes every combatant's side as a text (sides.py)
    # What code compiled later against it reads of the optimizer's plan, with no node id in it
    # (optimizer.Plan.kept, snippet_plan): a program read back works none of it out again.
    plan: object = field(default=None, repr=False, compare=False)
    warnings: tuple = ()                        # what the checker warned of
    facts: object = field(default=None, repr=False)  # what the front end learned of the rules (dsl/check/facts.py)
    fields: frozenset = frozenset()             # every field name the rules know (the resolver's)
    # The data the rules read, as runtime values (interpreter/run/values.py, definitions.py).
    options: dict = field(default_factory=dict, repr=False)
    outcome_values: dict = field(default_factory=dict, repr=False)
    tables: dict = field(default_factory=dict, repr=False)
    conditions: dict = field(default_factory=dict, repr=False)
    event_types: dict = field(default_factory=dict, repr=False)   # event -> its record class's shape
    check_types: dict = field(default_factory=dict, repr=False)   # check -> its result's shape
    structs: dict = field(default_factory=dict, repr=False)       # a record literal's field names -> shape
    format: object = field(default=None, repr=False)             # how values print (run/formats.py)
    sheet: object = field(default=None, repr=False)              # the base sheet's declaration
    sheet_fields_by: dict = field(default_factory=dict, repr=False)
    vars: tuple = field(default=(), repr=False)                   # the edition's variables, in order
    pure_defaults: bool = False                                   # no sheet default rolls or calls a rule
    reacted: tuple = field(default=(), repr=False)                # events some reaction answers
    # The generated module.
    source: str = field(default="", repr=False)
    code: bytes = field(default=b"", repr=False)                  # marshal of its code object
    line_spans: tuple = field(default=(), repr=False)             # each line's rule text (or None)
    line_owner: tuple = field(default=(), repr=False)             # each line's declaration, as words
    consts: dict = field(default_factory=dict, repr=False)        # constant name -> value the code reads
    classes: dict = field(default_factory=dict, repr=False)       # constant name -> a record class's shape
    gids: dict = field(default_factory=dict, repr=False)          # (kind, name) -> the Python name
    purposes: frozenset = field(default=frozenset(), repr=False)
    leaves: dict = field(default_factory=dict, repr=False)
    weights: dict = field(default_factory=dict, repr=False)

    @property
    def lines(self) -> list[str]:
        return self.source.splitlines()


# What a compiler made that the Program keeps as it is (plain data).
_KEPT_AS_IS = ("options", "outcome_values", "tables", "conditions", "format", "sheet", "sheet_fields_by",
               "pure_defaults", "source", "leaves", "weights")


def program_of(compiler, code, warnings=(), optimize: bool = True, facts=None) -> Program:
    """The Program a compiler made, `code` its compiled module."""
    consts, classes = {}, {}
    for name in compiler.consts.values():
        value = compiler.ns[name]
        if isinstance(value, type) and issubclass(value, Struct):
            classes[name] = struct_shape(value)
        else:
            consts[name] = value
    return Program(
        ruleset=compiler.ruleset, optimized=optimize, text_sides=compiler.plan.text_sides, plan=compiler.plan.kept(compiler.ruleset, compiler.bindings),
        warnings=tuple(warnings), facts=facts,
        fields=frozenset(compiler.resolver.fields), **{k: getattr(compiler, k) for k in _KEPT_AS_IS},
        event_types={k: struct_shape(v) for k, v in compiler.event_types.items()},
        check_types={k: struct_shape(v) for k, v in compiler.check_types.items()},
        structs={k: struct_shape(v) for k, v in compiler.structs.items()},
        vars=tuple(compiler.vars), reacted=tuple(compiler.reacted), code=marshal.dumps(code),
        line_spans=tuple(compiler.line_spans), line_owner=tuple(compiler.line_owner), consts=consts,
        classes=classes, gids=dict(compiler.gids), purposes=frozenset(compiler.purposes))
