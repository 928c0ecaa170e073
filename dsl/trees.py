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
from lark.exceptions import UnexpectedInput
from lark.lexer import ContextualLexer
from lark.parsers.lalr_interactive_parser import InteractiveParser
from lark.parsers.lalr_analysis import Shift as _Shift
from lark.parsers.lalr_parser import _Parser as _LarkParser

from .lexer import FastContextualLexer


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

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.parser.parser.parser.__class__ = _Loop      # built or loaded from the cache alike
        lexer = getattr(self.parser.lexer, "lexer", self.parser.lexer)      # behind the indenter
        if type(lexer) is ContextualLexer:
            lexer.__class__ = FastContextualLexer


def tree_depth(tree: Tree) -> int:
    """How deeply a tree built by FastLark nests (1 for a tree of tokens)."""
    return tree._meta.depth


class _Loop(_LarkParser):
    """Lark's LALR loop with the shift and the reduce of a known action written in place: no call per
    token, no lookup of a rule by its (Python-level) hash. Any token the table has no action for goes
    through Lark's own `feed_token`, which raises exactly as Lark does, with the parser's state intact."""

    def parse_from_state(self, state, last_token=None):
        try:
            token = last_token
            table = state.parse_conf.states
            callbacks = state.parse_conf.callbacks
            reduce = self._reduce_info(callbacks)
            states, values = state.state_stack, state.value_stack
            for token in state.lexer.lex(state):
                kind = token.type
                while True:
                    act = table[states[-1]].get(kind)
                    if act is None:
                        state.feed_token(token)             # raises UnexpectedToken
                    if act[0] is _Shift:
                        states.append(act[1])
                        values.append(callbacks[kind](token) if kind in callbacks else token)
                        break
                    size, build, origin = reduce[id(act[1])]
                    if build is None:               # `?a: b`: the child is passed up as it is
                        del states[-1]
                    elif size:
                        children = values[-size:]
                        del states[-size:]
                        del values[-size:]
                        values.append(build(children))
                    else:
                        values.append(build([]))
                    states.append(table[states[-1]][origin][1])
            end = Token.new_borrow_pos("$END", "", token) if token else Token("$END", "", 0, 1, 1)
            return state.feed_token(end, True)
        except UnexpectedInput as e:
            e.interactive_parser = InteractiveParser(self, state, state.lexer)
            raise

    def _reduce_info(self, callbacks) -> dict:
        info = self.__dict__.get("_info")
        if info is None:
            rules = {arg for row in self.parse_table.states.values() for action, arg in row.values()
                     if action is not _Shift}
            info = self._info = {id(r): (len(r.expansion), None if callbacks[r] is _passed_up else callbacks[r],
                                         r.origin.name) for r in rules}
        return info
