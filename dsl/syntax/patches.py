"""Layer patches: syntax trees of `replace`, `remove`, `insert`, `add`,
`change` and `set` to Patch nodes. What they change is found when the layer
is applied (dsl/editions/layers.py); rows are kept as cell texts until then, because
how a row reads depends on the table or check it joins."""
from __future__ import annotations

from lark import Token, Tree

from . import nodes as n
from ..diagnostics import Diagnostic, GrimorioError, Span

KIND_OF = n.KIND_OF


class PatchBuilder:
    """Builds Patch nodes with the file's Builder (spans, statements, expressions)."""

    def __init__(self, builder):
        self.b = builder

    # ------------------------------------------------------------ helpers
    def _span(self, t) -> Span:
        return self.b.span(t)

    def _target(self, t, kind, name_tok, part=None, key=None) -> n.Target:
        return n.Target(self.b.span(name_tok), str(kind), str(name_tok), part, key)

    @staticmethod
    def _kind(tree) -> str:
        return str(tree.children[0])

    def _rows(self, toks) -> tuple:
        """Each row as (cell texts, cell spans), separator rows left out."""
        out = []
        for tok in toks:
            cells = self.b.split_row(tok)
            if all(set(c.strip()) <= set("-: ") for c, _ in cells):
                continue
            out.append((tuple(c for c, _ in cells), tuple(sp for _, sp in cells)))
        return tuple(out)

    def _key(self, t):
        return self.b.expr(t).value if not isinstance(t, Tree) or t.data != "name" else str(t.children[0])

    def _place(self, t) -> n.Target:
        c = t.children
        if t.data == "place_step":
            return n.Target(self._span(c[1]), "round", str(c[1]), "step", str(c[0]))
        if t.data == "place_start":
            return n.Target(self._span(c[0]), "round", str(c[0]), "start")
        if t.data == "place_block":
            return n.Target(self._span(c[2]), self._kind(c[1]), str(c[2]), "block", str(c[0]))
        return n.Target(self._span(c[1]), self._kind(c[0]), str(c[1]))

    # ------------------------------------------------------------ whole declarations
    def p_replace(self, t):
        decl = self.b.declaration(t.children[0])
        if decl is None:
            return None
        if isinstance(decl, n.Module):
            raise GrimorioError(Diagnostic(
                "E0312", f'a patch cannot replace module "{decl.name}"', self._span(t),
                f'a module is included whole ("include module {decl.name}"); replace or patch its declarations '
                "one by one, by name"))
        if isinstance(decl, n.Patch):
            raise GrimorioError(Diagnostic(
                "E0320", f'a patch cannot replace another patch ("{decl.op}")', self._span(t),
                "write one `replace` before the declaration it replaces"))
        return n.Patch(self._span(t), "replace", n.Target(decl.span, KIND_OF[type(decl)], decl.name), new=decl)

    def house_extends(self, t):
        return n.HouseHead(self._span(t.children[0]), str(t.children[0]))

    def p_remove(self, t):
        kind, name = t.children
        return n.Patch(self._span(t), "remove", self._target(t, self._kind(kind), name))

    def p_set(self, t):
        name, value = t.children
        return n.Patch(self._span(t), "set", self._target(t, "option", name), new=self.b.expr(value))

    # ------------------------------------------------------------ steps and blocks
    def p_remove_step(self, t):
        step, rnd = t.children
        return n.Patch(self._span(t), "remove", self._target(t, "round", rnd, "step", str(step)))

    def p_replace_step(self, t):
        step, rnd, body = t.children
        new = n.Step(self._span(t), str(step), self.b.body(body))
        return n.Patch(self._span(t), "replace", self._target(t, "round", rnd, "step", str(step)), new=new)

    def p_insert_step(self, t):
        new_name, where, old, rnd, body = t.children
        new = n.Step(self._span(t), str(new_name), self.b.body(body))
        return n.Patch(self._span(t), "insert", self._target(t, "round", rnd, "step", str(old)),
                       where=str(where.children[0]), new=new)

    def p_remove_start(self, t):
        rnd, = t.children
        return n.Patch(self._span(t), "remove", self._target(t, "round", rnd, "start"))

    def p_replace_start(self, t):
        rnd, body = t.children
        return n.Patch(self._span(t), "replace", self._target(t, "round", rnd, "start"), new=self.b.body(body))

    def p_remove_block(self, t):
        block, kind, name = t.children
        return n.Patch(self._span(t), "remove", self._target(t, self._kind(kind), name, "block", str(block)))

    def p_replace_block(self, t):
        block, kind, name, body = t.children
        new = n.Block(self._span(t), str(block), self.b.body(body))
        return n.Patch(self._span(t), "replace", self._target(t, self._kind(kind), name, "block", str(block)),
                       new=new)

    def p_insert_block(self, t):
        where, block, kind, name, body = t.children
        return n.Patch(self._span(t), "insert", self._target(t, self._kind(kind), name, "block", str(block)),
                       where=str(where.children[0]), new=self.b.body(body))

    def p_insert_edge(self, t):
        edge, place, body = t.children
        return n.Patch(self._span(t), "insert", self._place(place), where=str(edge.children[0]),
                       new=self.b.body(body))

    # ------------------------------------------------------------ rows of tables and checks
    def p_add_rows(self, t):
        _word, name, *rows = t.children
        return n.Patch(self._span(t), "add", self._target(t, "table", name, "rows"), new=self._rows(rows))

    def p_remove_rows(self, t):
        _word, *keys, name = t.children
        return n.Patch(self._span(t), "remove",
                       self._target(t, "table", name, "row", tuple(self._key(k) for k in keys)))

    def p_remove_check_row(self, t):
        _word, number, name = t.children
        return n.Patch(self._span(t), "remove", self._target(t, "check", name, "row", int(number)))

    def p_replace_check_row(self, t):
        _word, number, name, *rows = t.children
        return n.Patch(self._span(t), "replace", self._target(t, "check", name, "row", int(number)),
                       new=self._rows(rows))

    def p_insert_check_rows(self, t):
        _word, where, number, name, *rows = t.children
        return n.Patch(self._span(t), "insert", self._target(t, "check", name, "row", int(number)),
                       where=str(where.children[0]), new=self._rows(rows))

    def p_change(self, t):
        name, key, column, text = t.children
        return n.Patch(self._span(t), "change", self._target(t, "", name, "cell", self._key(key)),
                       new=(_strip_comment(str(text)), _text_span(self.b.file, text)), column=str(column))

    # ------------------------------------------------------------ conditions, tactics, actions
    def p_remove_grade(self, t):
        grade, cond = t.children
        return n.Patch(self._span(t), "remove", self._target(t, "condition", cond, "grade", str(grade)))

    def p_replace_on_receive(self, t):
        cond, params, body = t.children
        return n.Patch(self._span(t), "replace", self._target(t, "condition", cond, "on receive"),
                       new=(self.b.params(params), self.b.body(body)))

    def p_replace_act(self, t):
        name, prefs = t.children
        return n.Patch(self._span(t), "replace", self._target(t, "tactic", name, "act"), new=self.b.prefs(prefs))

    def p_replace_react(self, t):
        event, name, prefs = t.children
        return n.Patch(self._span(t), "replace", self._target(t, "tactic", name, "react", str(event)),
                       new=self.b.prefs(prefs))

    def p_replace_choose(self, t):
        chooser, name, picks = t.children
        return n.Patch(self._span(t), "replace", self._target(t, "tactic", name, "choose"),
                       new=self.b.picks(chooser, picks))

    # ------------------------------------------------------------ one preference of a tactic
    @staticmethod
    def _line(t):
        """The event of a `react EVENT` line, or None for the act line."""
        return str(t.children[0]) if t.data == "pl_react" else None

    def _pref_target(self, t, line, name_tok, pref=None) -> n.Target:
        return n.Target(self.b.span(name_tok), "tactic", str(name_tok), "pref",
                        (self._line(line), pref))

    def p_add_prefs(self, t):
        line, prefs, name = t.children
        return n.Patch(self._span(t), "add", self._pref_target(t, line, name), new=self.b.prefs(prefs))

    def p_insert_prefs(self, t):
        line, prefs, where, pref, name = t.children
        return n.Patch(self._span(t), "insert", self._pref_target(t, line, name, str(pref)),
                       where=str(where.children[0]), new=self.b.prefs(prefs))

    def p_remove_pref(self, t):
        line, pref, name = t.children
        return n.Patch(self._span(t), "remove", self._pref_target(t, line, name, str(pref)))

    def p_replace_pref(self, t):
        line, pref, name, prefs = t.children
        return n.Patch(self._span(t), "replace", self._pref_target(t, line, name, str(pref)),
                       new=self.b.prefs(prefs))

    def p_add_requires(self, t):
        expr, kind, name = t.children
        return n.Patch(self._span(t), "add", self._target(t, self._kind(kind), name, "requires"),
                       new=self.b.expr(expr))


    # ------------------------------------------------------------ sheets
    def p_add_fields(self, t):
        name, *fields = t.children
        return n.Patch(self._span(t), "add", self._target(t, "sheet", name, "fields"), new=self.b.fields(fields))


def _strip_comment(text: str) -> str:
    """The cell text after "=", without a trailing comment (a "#" outside quotes)."""
    inq = False
    for i, ch in enumerate(text):
        if ch == '"':
            inq = not inq
        elif ch == "#" and not inq:
            return text[:i].strip()
    return text.strip()


def _text_span(file: str, tok: Token) -> Span:
    lead = len(tok) - len(tok.lstrip())
    width = max(1, len(_strip_comment(str(tok))))
    return Span(file, tok.line, tok.column + lead, tok.line, tok.column + lead + width)
