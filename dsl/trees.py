"""Lark's parse trees, built by one small function per grammar rule.

Lark builds a tree through a chain of generic wrappers (filter the
punctuation, inline the `?rule`s, propagate positions), each a call with
attribute look-ups, for every reduction; with positions on, that chain is
half the time of a parse. Here each rule gets one function, prepared from
the rule's shape once, that builds the same tree with the same positions
(Lark's `propagate_positions` rules, container positions included) and
records each tree's depth as it goes, so no later walk is needed to refuse
a tree nested too deeply. tests/test_parse_trees.py compares the trees with
Lark's own on every file of the repository.
"""
from __future__ import annotations

from lark import Lark, Token, Tree


class Place:
    """A tree's position (Lark's Meta, the attributes grimorio reads) and depth. `outer_*` is the
    container position: it also covers the punctuation and inlined rules around the tree."""
    __slots__ = ("empty", "line", "column", "end_line", "end_column",
                 "outer_line", "outer_column", "outer_end_line", "outer_end_column", "depth")

    def __init__(self, depth: int):
        self.empty = True
        self.depth = depth


def _edge(children):
    """The first child that has a place, walking `children` in their order, or None."""
    for c in children:
        kind = type(c)
        if kind is Token or (kind is Tree and not c._meta.empty):
            return c
    return None


def _placed(res: Tree, children) -> Tree:
    """Give a tree the place of its children, as Lark's PropagatePositions: a new tree its own place,
    a tree passed up from an inlined rule only its container place."""
    first = _edge(children)
    if first is None:
        return res
    last = _edge(reversed(children))
    if type(first) is Tree:
        m = first._meta
        start = m.outer_line, m.outer_column
    else:
        start = first.line, first.column
    if type(last) is Tree:
        m = last._meta
        end = m.outer_end_line, m.outer_end_column
    else:
        end = last.end_line, last.end_column
    p = res._meta
    if p.empty:
        p.line, p.column = start
        p.end_line, p.end_column = end
        p.empty = False
    p.outer_line, p.outer_column = start
    p.outer_end_line, p.outer_end_column = end
    return res


def _included(rule, maybe_placeholders: bool):
    """Which children a rule's tree keeps, as Lark's ChildFilter: (index, splice it, Nones before it), and
    the Nones after the last; None when the tree keeps every child as it is."""
    expansion = rule.expansion
    flags = rule.options.empty_indices if maybe_placeholders else ()
    if flags:
        s = "".join(str(int(b)) for b in flags)
        nones = [len(ones) for ones in s.split("0")]
    else:
        nones = [0] * (len(expansion) + 1)
    keep_all = rule.options.keep_all_tokens
    include, pending = [], 0
    for i, sym in enumerate(expansion):
        pending += nones[i]
        if keep_all or not (sym.is_term and sym.filter_out):
            include.append((i, not sym.is_term and sym.name.startswith("_"), pending))
            pending = 0
    pending += nones[len(expansion)]
    if not flags and len(include) == len(expansion) and not any(splice for _, splice, _ in include):
        return None, 0
    return include, pending


def _passed_up(children):
    return children[0]


def _callback(rule, maybe_placeholders: bool):
    name = rule.alias or rule.options.template_source or rule.origin.name
    inline = rule.options.expand1 and not rule.alias
    include, trailing = _included(rule, maybe_placeholders)
    spliced = frozenset(i for i, splice, _ in include or () if splice)
    if inline and include is None and len(rule.expansion) == 1:
        # `?a: b`: the child is passed up as it is; its container place is its own already.
        return _passed_up

    def build(children):
        if include is None:
            kept = children
        else:
            kept = []
            for i, splice, nones in include:
                if nones:
                    kept += [None] * nones
                if splice:
                    if kept:
                        kept += children[i].children
                    else:
                        kept = children[i].children
                else:
                    kept.append(children[i])
            if trailing:
                kept += [None] * trailing
        if inline and len(kept) == 1:
            res = kept[0]
            if type(res) is not Tree:
                return res
        else:
            # The deepest child, read from the children as written (a few): a spliced `_rule` (a repetition,
            # long for a long block) hands its children up, one level less deep than itself.
            depth = 0
            for i, c in enumerate(children):
                if type(c) is Tree:
                    d = c._meta.depth - (i in spliced)
                    if d > depth:
                        depth = d
            res = Tree(name, kept, Place(depth + 1))
        return _placed(res, children)
    return build


class FastLark(Lark):
    """Lark, with the tree built by the functions above (propagate_positions and maybe_placeholders as
    given to it). Only for LALR without a transformer."""

    def _prepare_callbacks(self) -> None:
        placeholders = self.options.maybe_placeholders
        self._callbacks = {rule: _callback(rule, placeholders) for rule in self.rules}


def tree_depth(tree: Tree) -> int:
    """How deeply a tree built by FastLark nests (1 for a tree of tokens)."""
    return tree._meta.depth
