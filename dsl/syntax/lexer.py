"""Lark's contextual lexer, run by one loop of grimorio's own.

Lark lexes a token through a chain of method calls (the contextual lexer
picks the parser state's lexer, which asks its scanner for a match, builds
the token, feeds a line counter object, then runs the keyword callback),
and that chain was more than half of a parse. This loop does the same work
in place, from the same pieces Lark prepared: for each parser state, the
same compiled patterns in the same order, the same ignored and multi-line
terminals, and the keyword table Lark's callback would consult. So the
tokens are Lark's, with the same types and positions (tests/test_lexer.py
compares them on every file of the repository). Any text no pattern of the
state matches goes through Lark's own `lex` from that point, which raises
exactly as Lark does.
"""
from __future__ import annotations

from lark import Token
from lark.lexer import ContextualLexer, PatternStr, UnlessCallback

_new_str = str.__new__


class _Plan:
    """What lexing in one parser state needs, taken from Lark's lexer for that state."""
    __slots__ = ("patterns", "ignore", "newline", "keywords", "callbacks")

    def __init__(self, lexer):
        scanner = lexer.scanner                      # built on first use: it also fills lexer.callback
        self.patterns = tuple(scanner._mres)
        self.ignore = lexer.ignore_types
        self.newline = lexer.newline_types
        self.keywords, self.callbacks = {}, {}
        for kind, callback in lexer.callback.items():
            table = _keyword_table(callback)
            if table is None:
                self.callbacks[kind] = callback
            else:
                self.keywords[kind] = table


def _keyword_table(callback) -> dict | None:
    """A keyword callback (a name that is also a fixed word of the state) as the table it consults:
    written word -> terminal. None for any other callback, which is then called as Lark calls it."""
    if type(callback) is not UnlessCallback:
        return None
    table = {}
    for terminal in callback.scanner.terminals:
        pattern = terminal.pattern
        if type(pattern) is not PatternStr or pattern.flags:
            return None
        table.setdefault(pattern.value, terminal.name)
    return table


class _Plans(dict):
    """Plans by parser state, each made on first use (Lark too compiles a state's patterns only when
    the state is first lexed in): states that share a lexer share its plan."""

    def __init__(self, lexers: dict):
        super().__init__()
        self.lexers, self.by_lexer = lexers, {}

    def __missing__(self, state):
        lexer = self.lexers[state]
        plan = self.by_lexer.get(id(lexer))
        if plan is None:
            plan = self.by_lexer[id(lexer)] = _Plan(lexer)
        self[state] = plan
        return plan


class FastContextualLexer(ContextualLexer):
    """Lark's ContextualLexer with `lex` written as one loop."""

    def _plans(self) -> _Plans:
        plans = self.__dict__.get("_plan_by_state")
        if plans is None:
            plans = self._plan_by_state = _Plans(self.lexers)
        return plans

    def lex(self, lexer_state, parser_state):
        plans = self._plans()
        counter = lexer_state.line_ctr
        text, end = lexer_state.text.text, lexer_state.text.end
        pos, line, line_start = counter.char_pos, counter.line, counter.line_start_pos
        states = parser_state.state_stack           # the parser's own list, changed in place as it parses
        while pos < end:
            plan = plans[states[-1]]
            for pattern in plan.patterns:
                m = pattern.match(text, pos, end)
                if m is not None:
                    break
            else:
                # Nothing of this state matches here: Lark's own lexer raises its error (or, through its
                # root lexer, the token it did not expect) from this very place.
                yield from ContextualLexer.lex(self, lexer_state, parser_state)
                return
            value, kind = m.group(0), m.lastgroup
            start, start_line, column = pos, line, pos - line_start + 1
            pos = m.end()
            if kind in plan.newline:
                breaks = value.count("\n")
                if breaks:
                    line += breaks
                    line_start = start + value.rindex("\n") + 1
            counter.char_pos, counter.line, counter.line_start_pos = pos, line, line_start
            counter.column = pos - line_start + 1
            table = plan.keywords.get(kind)
            if table is not None:
                if kind in plan.ignore:
                    continue
                kind = table.get(value, kind)
            elif kind in plan.ignore and kind not in plan.callbacks:
                continue
            token = _new_str(Token, value)
            token.type, token.value, token.start_pos = kind, value, start
            token.line, token.column, token.end_line = start_line, column, line
            token.end_column, token.end_pos = counter.column, pos
            if table is None and kind in plan.callbacks:
                ignored = kind in plan.ignore
                token = plan.callbacks[kind](token)
                if ignored:
                    continue
            lexer_state.last_token = token
            yield token
