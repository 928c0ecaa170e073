"""The one constant evaluator: option values, table cells, condition columns and
encounter settings are worked out here, before anything runs.

`plain` gives what an option can hold (a number, a negated number, a
percentage, true or false, a text); `constant` gives a cell's value, building
scales, dice and outcomes with the makers the runtime passes in (dsl/ never
imports the interpreter); `set_twice`, an option set twice by one encounter or one layer.

Below the layers (dsl/editions/layers.py: `set`) and the checks (dsl/check) that use it."""
from __future__ import annotations

from fractions import Fraction

from . import nodes as n
from ..diagnostics import Diagnostic, Span


class NotConstant(Exception):
    """The node is not a value written out: the caller says what it expected."""


def kind_of(v) -> str:
    """A plain value's kind, in a designer's words (an option's, a combatant line's)."""
    return {bool: "true or false", int: "a number", Fraction: "a number", str: "a text", list: "a list",
            type(None): "none"}.get(type(v), "a value")


def plain(node):
    if isinstance(node, n.Const) and isinstance(node.value, (bool, int, str)):
        return node.value
    if isinstance(node, n.Unary) and node.op == "-" and isinstance(node.operand, n.Const) \
            and type(node.operand.value) is int:
        return -node.operand.value
    raise NotConstant


def written(v) -> str:
    """A plain value as the rules write it, for a diagnostic: true, 3, "a text" (quoted)."""
    return ("true" if v else "false") if type(v) is bool else f'"{v}"' if type(v) is str else str(v)


def constant(node, makers):
    """`makers`: "scale" (a Fraction), "dice" (count, sides) and "name" (an outcome's name) to values."""
    if isinstance(node, n.Const):
        v = node.value
        return makers["scale"](v) if isinstance(v, Fraction) else v
    if isinstance(node, n.DiceLit):
        return makers["dice"](node.count, node.sides)
    if isinstance(node, n.ListExp):
        return [constant(x, makers) for x in node.items]
    if isinstance(node, n.Name):
        return makers["name"](node.id)
    try:
        if isinstance(node, n.Unary) and node.op == "-":
            return -constant(node.operand, makers)
        if isinstance(node, n.Binary) and node.op in "+-":
            a, b = constant(node.left, makers), constant(node.right, makers)
            return a + b if node.op == "+" else a - b
    except TypeError:
        pass
    raise NotConstant


def setting_span(value) -> Span:
    return value.span if isinstance(value, n.Node) else Span("<command line>", 0, 0)


def set_twice(settings) -> list[Diagnostic]:
    """E0325: one option set twice by one encounter (or one layer): the last would win in silence.
    `settings`: (name, value node) in the order written."""
    first: dict = {}
    out = []
    for name, value in settings:
        span = setting_span(value)
        if name in first:
            out.append(Diagnostic("E0325", f'option "{name}" is set twice', span,
                                  f"it is first set at line {first[name].line}; keep one of the two"))
        else:
            first[name] = span
    return out
