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


def _placed(res: Tree, children, first_is_token: bool = False, last_is_token: bool = False) -> Tree:
    """Give a tree the place of its children, as Lark's PropagatePositions: a new tree its own place,
    a tree passed up from an inlined rule only its container place. `first_is_token` (`last_is_token`)
    says the rule's first (last) symbol is a terminal, so that child is a token: no walk to find it."""
    first = children[0] if first_is_token else _edge(children)
    if first is None:
        return res
    last = children[-1] if last_is_token else _edge(reversed(children))
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
    expansion = rule.expansion
    first_is_token = bool(expansion) and expansion[0].is_term
    last_is_token = bool(expansion) and expansion[-1].is_term
    # Where a child can be a tree (a rule's symbol), and whether it is spliced into this one.
    subtrees = tuple((i, i in spliced) for i, sym in enumerate(expansion) if not sym.is_term)
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
            for i, minus in subtrees:
                c = children[i]
                if type(c) is Tree:
                    d = c._meta.depth - minus
                    if d > depth:
                        depth = d
            res = Tree(name, kept, Place(depth + 1))
        return _placed(res, children, first_is_token, last_is_token)
    return build


class FastLark(Lark):
    """Lark, with the tree built by the functions above (propagate_positions and maybe_placeholders as
    given to it). Only for LALR without a transformer."""

    def _prepare_callbacks(self) -> None:
        placeholders = self.options.maybe_placeholders
        self._callbacks = {rule: _callback(rule, placeholders) for rule in self.rules}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.speed_up()

    def speed_up(self) -> None:
        """The loop and the lexer replaced by the fast ones (once built, or loaded from tables)."""
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
        actions = self._actions(state.parse_conf.callbacks)
        if actions is None:                 # callbacks on tokens: Lark's own loop runs them
            return super().parse_from_state(state, last_token)
        try:
            token = last_token
            states, values = state.state_stack, state.value_stack
            for token in state.lexer.lex(state):
                kind = token.type
                while True:
                    act = actions[states[-1]].get(kind)
                    if act is None:
                        state.feed_token(token)             # raises UnexpectedToken
                    if act.__class__ is int:                # shift to that state
                        states.append(act)
                        values.append(token)
                        break
                    size, build, origin = act
                    if build is None:                       # `?a: b`: the child is passed up as it is
                        states[-1] = actions[states[-2]][origin]
                        continue
                    if size:
                        children = values[-size:]
                        del states[-size:]
                        del values[-size:]
                        values.append(build(children))
                    else:
                        values.append(build([]))
                    states.append(actions[states[-1]][origin])
            end = Token.new_borrow_pos("$END", "", token) if token else Token("$END", "", 0, 1, 1)
            return state.feed_token(end, True)
        except UnexpectedInput as e:
            e.interactive_parser = InteractiveParser(self, state, state.lexer)
            raise

    def _actions(self, callbacks) -> dict | None:
        """Lark's parse table with each action in the form the loop reads fastest: a shift (or a goto) as
        the state it leads to, a reduce as (the rule's size, its tree builder or None for a unit rule
        that passes its child up, the name it reduces to). None when tokens have callbacks."""
        if "_table" not in self.__dict__:
            if any(isinstance(key, str) for key in callbacks):
                self._table = None
            else:
                self._table = {state: {symbol: arg if action is _Shift else _reduction(arg, callbacks[arg])
                                       for symbol, (action, arg) in row.items()}
                               for state, row in self.parse_table.states.items()}
        return self._table


def _reduction(rule, build) -> tuple:
    return len(rule.expansion), None if build is _passed_up else build, rule.origin.name
