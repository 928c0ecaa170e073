"""Lark syntax trees to the AST, with table cells parsed on their own."""
from __future__ import annotations

import unicodedata

import re
from fractions import Fraction

from lark import Token, Tree

from . import nodes as n
from .texts import outside_texts
from ..pause import collector_paused
from ..bounds import MAX_DICE, MAX_DIGITS, int_literal
from ..diagnostics import Diagnostic, GrimorioError, Span
from ..diagnostics import _span  # Span(...) without the frozen __init__: a file makes spans by the thousand
from .parser import MAX_DIGITS as MAX_WRITTEN, parse_cell, parse_text, too_long
from ..records import fields, is_record, replace
from .patches import PatchBuilder

WORDS = re.compile(r"^[^\W\d][\w' ]*$")
RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*$")
SCALE = re.compile(r"^\s*(x|/)\s*(\d+)\s*$")


def _placeholder(d: Diagnostic, inner: str, where: Span) -> Diagnostic:
    """A placeholder that does not read: say what a placeholder holds, not which tokens could come."""
    if re.fullmatch(r"\s*[^\W\d]\w*(\s+[^\W\d]\w*)+\s*", inner):
        return Diagnostic("E0105", f'a placeholder holds one value: "{inner.strip()}" is {len(inner.split())} names',
                          where, f"names have no spaces ({'_'.join(inner.split())}); a placeholder is a value "
                                  "such as {c}, {c.score} or {floor(x / 2)}")
    return Diagnostic(d.code, d.message, d.span, "a placeholder is one value or expression, such as {c}, {c.score} or "
                                                 '{floor(x / 2)}; write "{{" for a brace')


def _unquote(s: str) -> str:
    return re.sub(r'\\(.)', r'\1', s[1:-1])


class Builder:
    def __init__(self, file: str):
        self.file = file
        self.diags: list[Diagnostic] = []

    # -------------------------------------------------------------- spans
    def span(self, item) -> Span:
        if isinstance(item, Token):
            return _span(self.file, item.line or 0, item.column or 0,
                         item.end_line or item.line or 0, item.end_column or item.column or 0)
        meta = item.meta
        if getattr(meta, "empty", True):
            return Span(self.file, 0, 0)
        return _span(self.file, meta.line, meta.column, meta.end_line, meta.end_column)

    # -------------------------------------------------------------- declarations
    def declaration(self, t: Tree):
        method = getattr(self, "d_" + t.data, None) or getattr(PatchBuilder(self), t.data)
        try:
            return method(t)
        except GrimorioError as exc:
            self.diags.extend(exc.diagnostics)
            return None

    def d_edition(self, t):
        name, *items = t.children
        title = desc = ext = None
        includes, settings = [], []
        for it in items:
            k = it.data
            if k == "ed_title":
                title = _unquote(it.children[0])
            elif k == "ed_description":
                desc = _unquote(it.children[0])
            elif k == "ed_extends":
                ext = str(it.children[0])
            elif k == "ed_include":
                includes += [self._include(s) for s in it.children]
            elif k == "ed_set":
                settings.append((str(it.children[0]), self.expr(it.children[1])))
        return n.Edition(self.span(t), str(name), title, desc, ext, tuple(includes), tuple(settings))

    def _include(self, item):
        if item.data == "inc_module":
            return n.ModuleRef(str(item.children[0])), self.span(item)
        return _unquote(item.children[0]), self.span(item.children[0])

    def d_module(self, t):
        name, *items = t.children
        heads = {"ed_title": None, "ed_description": None}
        includes, expects = [], []
        for it in items:
            if it.data in heads:
                heads[it.data] = _unquote(it.children[0])
            elif it.data == "ed_include":
                includes += [self._include(s) for s in it.children]
            else:
                kind, *names = it.children
                expects.append(n.Expects(str(kind), self.span(kind), tuple((str(x), self.span(x)) for x in names)))
        return n.Module(self.span(t), str(name), heads["ed_title"], heads["ed_description"], tuple(includes),
                        tuple(expects))

    def d_option(self, t):
        name, value, desc = t.children
        return n.Option(self.span(t), str(name), self.expr(value), _unquote(desc) if desc else None)

    def d_format(self, t):
        key, template = t.children
        return n.Format(self.span(t), str(key.children[0]), _unquote(template), self.span(key.children[0]),
                        self.span(template))

    def d_var(self, t):
        return n.Var(self.span(t), str(t.children[0]), self.expr(t.children[1]))

    def d_session_var(self, t):
        return n.Var(self.span(t), str(t.children[0]), self.expr(t.children[1]), session=True)

    def d_sheet(self, t):
        name, parent, *fields = t.children
        return n.Sheet(self.span(t), str(name), self.fields(fields), str(parent) if parent is not None else None,
                       self.span(parent) if parent is not None else None)

    def fields(self, trees) -> tuple:
        """A sheet's fields (also the ones a layer adds to it)."""
        out = []
        for f in trees:
            name, ty, default = f.children
            kw = dict(type=ty.data[2:])
            if ty.data == "t_int" and ty.children and ty.children[0] is not None:
                kw.update(low=int(ty.children[0]), high=int(ty.children[1]))
            if ty.data == "t_row":
                kw.update(table=str(ty.children[0]), type_span=self.span(ty.children[0]))
            out.append(n.Field(self.span(f), str(name), default=self.expr(default) if default else None, **kw))
        return tuple(out)

    def d_outcomes(self, t):
        return n.Outcomes(self.span(t), str(t.children[0]), tuple(str(c) for c in t.children[1:]),
                          tuple(self.span(c) for c in t.children[1:]))

    def d_condition(self, t):
        name = str(t.children[0])
        grades = tuple(str(c) for c in t.children[1:] if isinstance(c, Token))
        items = [c for c in t.children[1:] if isinstance(c, Tree)]
        rows = [c.children[0] for c in items if c.data == "cond_row"]
        columns, cells, row_spans, header_spans = (), [], [], ()
        if rows:
            header, body = self.table_rows(rows)
            columns = tuple(h for h, _ in header[1:])
            header_spans = tuple(sp for _, sp in header)
            for row, cols in body:
                grade = self.word(row[0], cols[0])
                cells.append((grade, tuple(self.value_cell(c, col) for c, col in zip(row[1:], cols[1:]))))
                row_spans.append(cols[0])
        on = [c for c in items if c.data == "on_receive"]
        on_receive = None
        if on:
            on_receive = (self.params(on[0].children[0]), self.body(on[0].children[1]))
        return n.Condition(self.span(t), name, grades, columns, tuple(cells), on_receive, tuple(row_spans),
                           header_spans)

    def d_table(self, t):
        name, dice, *rows = t.children
        header, body = self.table_rows(rows)
        columns = tuple(h for h, _ in header)
        out = [self.table_row(row, cols, dice is not None) for row, cols in body]
        spans = [cols[0] for _, cols in body]
        dice_node = self.dice_token(dice) if dice is not None else None
        return n.Table(self.span(t), str(name), dice_node, columns, tuple(out), tuple(spans),
                       tuple(sp for _, sp in header))

    def table_row(self, row, cols, by_roll: bool) -> tuple:
        """A table row's cells as values; a dice table's first cell is a range of rolls."""
        if by_roll:
            m = RANGE.match(row[0])
            if not m:
                raise GrimorioError(Diagnostic("E0105", f'"{row[0].strip()}" is not a roll or a range of rolls',
                                               cols[0], "write a number such as 7, or a range such as 4-6"))
            lo = _number(m.group(1), cols[0])
            key = (lo, _number(m.group(2) or m.group(1), cols[0]))
        else:
            key = self.value_cell(row[0], cols[0])
        return (key,) + tuple(self.value_cell(c, col) for c, col in zip(row[1:], cols[1:]))

    def d_check(self, t):
        name, params, roll_name, dice, *rows = t.children
        decide = self.decide_table("first", rows, self.span(t))
        return n.Check(self.span(t), str(name), self.params(params), str(roll_name), self.expr(dice), decide)

    def d_message(self, t):
        name, params, template = t.children
        return n.Message(self.span(t), str(name), self.params(params), _unquote(template), self.template(template))

    def template(self, tok) -> tuple:
        """A message's text as literal parts and {placeholder} expressions, each placed in the file."""
        text, parts, lit, i = _unquote(tok), [], "", 0
        while i < len(text):
            pair = text[i:i + 2]
            if pair in ("{{", "}}"):
                lit += pair[0]
                i += 2
                continue
            if text[i] != "{":
                lit += text[i]
                i += 1
                continue
            col = tok.column + 1 + i                       # the "{" (after the opening quote)
            j = text.find("}", i)
            if j < 0:
                raise GrimorioError(Diagnostic("E0105", 'this placeholder has no closing "}"',
                                               Span(self.file, tok.line, col, tok.line, col + 1),
                                               'close it, or write "{{" for a brace'))
            if lit:
                parts.append(lit)
                lit = ""
            inner = text[i + 1:j]
            where = Span(self.file, tok.line, col + 1, tok.line, col + 1 + max(1, len(inner)))
            if not inner.strip():
                raise GrimorioError(Diagnostic("E0105", "this placeholder is empty", where,
                                               'put a value between the braces, such as {c} or {c.FIELD}'))
            parts.append(self.placeholder(inner, tok.line, col + 1, where))
            i = j + 1
        if lit:
            parts.append(lit)
        return tuple(parts)

    def placeholder(self, inner: str, line: int, col: int, where: Span):
        """{EXPR}, or {EXPR:WORD} / {EXPR:WORD|PLURAL}: WORD agreeing with the value (a count, or the
        form the value gives), read as the builtin call agree(EXPR, "WORD"[, "PLURAL"])."""
        cut = _agreement_colon(inner)
        text = inner if cut < 0 else inner[:cut]
        try:
            tree = parse_cell(text, "cell_value", self.file, line, col)
        except GrimorioError as exc:
            raise GrimorioError([_placeholder(d, text, where) for d in exc.diagnostics]) from None
        value = _relocate(self.expr(tree.children[0]), where)
        if cut < 0:
            return value
        words = inner[cut + 1:].split("|")
        wspan = Span(self.file, line, col + cut + 1, line, col + max(cut + 2, len(inner)))
        if len(words) > 2 or not all(n.AGREE_WORD.fullmatch(w.strip()) for w in words):
            words = [inner[cut + 1:]]           # no word: the checker says so (E0261), with the file's other errors
        args = (n.Arg(where, None, value),) + tuple(n.Arg(wspan, None, n.Const(wspan, w.strip())) for w in words)
        return n.Call(where, n.Name(where, "agree"), args)

    def d_event(self, t):
        fields = []
        for f in t.children[1].children:
            if f is None:
                continue
            fname, default = f.children
            fields.append((str(fname), self.expr(default) if default is not None else None))
        return n.Event(self.span(t), str(t.children[0]), tuple(fields))

    def d_rule(self, t):
        name, params, body = t.children
        return n.Rule(self.span(t), str(name), self.params(params), self.body(body))

    def _clauses(self, items):
        requires, costs, cost_spans, stmts, by = [], [], [], [], None
        for it in items:
            if isinstance(it, Tree) and it.data == "requires":
                requires.append(self.expr(it.children[0]))
            elif isinstance(it, Tree) and it.data == "cost":
                costs.append((str(it.children[0]), self.expr(it.children[1])))
                cost_spans.append(self.span(it.children[0]))
            elif isinstance(it, Tree) and it.data == "reactor":
                by = self.expr(it.children[0])
            else:
                stmts.append(it)
        return tuple(requires), tuple(costs), self.stmts(stmts), by, tuple(cost_spans)

    def d_action(self, t):
        name, params, *items = t.children
        requires, costs, body, by, cost_spans = self._clauses(items)
        if by is not None:
            self.diags.append(Diagnostic("E0101", '"by" names who reacts; it belongs in a reaction', by.span))
        return n.Action(self.span(t), str(name), self.params(params), requires, costs, body, cost_spans)

    def d_reaction(self, t):
        name, params, event, *items = t.children
        requires, costs, body, by, cost_spans = self._clauses(items)
        return n.Reaction(self.span(t), str(name), self.params(params), str(event), by, requires, costs, body,
                          cost_spans)

    def d_tactic(self, t):
        act, react, choose = [], [], []
        for it in t.children[1:]:
            if it.data == "t_act":
                act.extend(self.prefs(it.children[0]))
            elif it.data == "t_choose":
                choose.extend(self.picks(*it.children))
            else:
                react.append((str(it.children[0]), self.prefs(it.children[1])))
        return n.Tactic(self.span(t), str(t.children[0]), tuple(act), tuple(react), tuple(choose))

    def prefs(self, t):
        out = []
        for p in t.children:
            name, args, when = p.children
            out.append(n.Pref(self.span(p), str(name), self.args(args) if args is not None else (),
                              self.expr(when) if when is not None else None))
        return tuple(out)

    def picks(self, chooser, t):
        """A tactic's `choose` line: each pick, with the name the line gives the combatant asked."""
        who = str(chooser.children[0]) if chooser is not None else None
        who_span = self.span(chooser.children[0]) if chooser is not None else None
        out = []
        for p in t.children:
            order, key, when = p.children
            out.append(n.Pick(self.span(p), who, str(order.children[0]), self.expr(key),
                              self.expr(when) if when is not None else None, who_span))
        return tuple(out)

    def d_round(self, t):
        steps, until, final, start = [], None, None, None
        for it in t.children[1:]:
            if it.data == "round_start":
                start = self.body(it.children[0])
            elif it.data == "step":
                steps.append(n.Step(self.span(it), str(it.children[0]), self.body(it.children[1])))
            elif it.data == "until":
                until = self.expr(it.children[0])
            else:
                final = self.body(it.children[0])
        return n.Round(self.span(t), str(t.children[0]), tuple(steps), until, final, start)

    def d_tally(self, t):
        name, param, value = t.children
        return n.Tally(self.span(t), str(name), str(param) if param is not None else None, self.expr(value))

    def d_stands(self, t):
        param, value = t.children
        return n.Stands(self.span(t), "stands", str(param), self.expr(value))

    def d_draw(self, t):
        name, value = t.children
        return n.Draw(self.span(t), str(name), None, self.expr(value))

    def params(self, t):
        out = []
        for p in t.children:
            if p is None:
                continue
            name, domain = p.children
            out.append(n.Param(self.span(p), str(name), self.expr(domain) if domain is not None else None))
        return tuple(out)

    # -------------------------------------------------------------- tables
    def table_rows(self, rows):
        """Split TABLE_ROW tokens into (header, body) of cell texts with spans."""
        parsed = []
        for tok in rows:
            cells = self.split_row(tok)
            if all(set(c.strip()) <= set("-: ") for c, _ in cells):
                continue                                   # |---|---| separator
            parsed.append((tok, cells))
        if not parsed:
            raise GrimorioError(Diagnostic("E0207", "this table has no header row", self.span(rows[0])))
        (_, header), body = parsed[0], parsed[1:]
        hdr = [(c.strip(), sp) for c, sp in header]
        for c, sp in hdr:
            if not c:
                raise GrimorioError(Diagnostic("E0207", "a table column has no name", sp,
                                               "write a name in every cell of the header row"))
        out = []
        for tok, cells in body:
            if len(cells) != len(hdr):
                raise GrimorioError(Diagnostic(
                    "E0207", f"this row has {len(cells)} cells but the header has {len(hdr)}", self.span(tok),
                    "give every row one cell per column"))
            out.append(([c for c, _ in cells], [sp for _, sp in cells]))
        return hdr, out

    def split_row(self, tok: Token):
        text = str(tok)
        if not text.rstrip().endswith("|") or len(text.strip()) < 2:
            sp = self.span(tok)
            end = len(text.rstrip())
            comment = re.search(r'\|\s*(#.*)$', text)
            if comment:
                end = comment.start(1)
            help = "a comment cannot follow a table row: put it on a line of its own" if comment else None
            raise GrimorioError(Diagnostic("E0207", "a table row must end with \"|\"",
                                           Span(self.file, sp.line, sp.col + end, sp.line, sp.col + end + 1), help))
        cells, start, inq, escaped = [], 1, False, False
        for i, ch in enumerate(text):
            if escaped:                         # the character after a backslash inside a text
                escaped = False
            elif inq and ch == "\\":
                escaped = True
            elif ch == '"':
                inq = not inq
            elif ch == "|" and not inq and i > 0:
                cells.append((text[start:i], start))
                start = i + 1
        out = []
        for cell, off in cells:
            lead = len(cell) - len(cell.lstrip())
            col = tok.column + off + lead
            width = max(1, len(cell.strip()))
            out.append((cell.strip(), Span(self.file, tok.line, col, tok.line, col + width)))
        return out

    def word(self, text: str, span: Span) -> str:
        if not WORDS.match(text):
            raise GrimorioError(Diagnostic("E0105", f'"{text}" should be a name', span))
        return text.strip()

    def value_cell(self, text: str, span: Span):
        """A data cell: words are names (text), else numbers, dice, lists, scales."""
        text = text.strip()
        if text in ("", "-"):
            return n.Const(span, None)
        if text in ("yes", "true"):
            return n.Const(span, True)
        if text in ("no", "false"):
            return n.Const(span, False)
        m = SCALE.match(text)
        if m:
            k = _number(m.group(2), span)
            if k == 0:
                raise GrimorioError(Diagnostic("E0105", "a scale of zero" if m.group(1) == "x" else
                                               "a scale cannot divide by zero", span,
                                               "write x1 for no change, x2 to double, /2 to halve"))
            return n.Const(span, Fraction(k) if m.group(1) == "x" else Fraction(1, k))
        if "," in text and all(WORDS.match(p.strip()) for p in text.split(",")):
            return n.ListExp(span, tuple(n.Const(span, p.strip()) for p in text.split(",")))
        if WORDS.match(text) and text not in ("none",):
            return n.Const(span, text)
        tree = parse_cell(text, "cell_value", self.file, span.line, span.col)
        return self.cell_expr(tree.children[0], span)

    def cell_expr(self, tree, span):
        node = self.expr(tree)
        return _relocate(node, span)

    def decide_table(self, policy: str, rows, span: Span) -> n.Decide:
        header, body = self.table_rows(rows)
        if len(header) < 2:
            raise GrimorioError(Diagnostic("E0207", "a decision table needs at least one input column and one "
                                                    "output column", header[0][1]))
        inputs = []
        for text, sp in header[:-1]:
            tree = parse_cell(text, "cell_value", self.file, sp.line, sp.col)
            inputs.append(_relocate(self.expr(tree.children[0]), sp, exact=False, origin=sp))
        out_name, out_span = header[-1]
        if not WORDS.match(out_name) or " " in out_name:
            raise GrimorioError(Diagnostic("E0207", f'the output column "{out_name}" needs a plain name', out_span,
                                           'name it "then" for actions, or after the value it gives'))
        drows = tuple(self.decision_row(cells, spans, out_name) for cells, spans in body)
        return n.Decide(span, policy, tuple(inputs), out_name, drows)

    def decision_row(self, cells, spans, out_name: str) -> n.DecisionRow:
        """One row of a decision table: a test per input column, then the output cell."""
        tests = []
        for text, sp in zip(cells[:-1], spans[:-1]):
            tree = parse_cell(text, "cell_tests", self.file, sp.line, sp.col)
            tests.append(tuple(self.test(c, sp) for c in tree.children))
        text, sp = cells[-1], spans[-1]
        if out_name == "then":
            tree = parse_cell(text, "cell_stmts", self.file, sp.line, sp.col)
            output = tuple(_relocate(self.stmt(c), sp, exact=False, origin=sp) for c in tree.children)
        else:
            tree = parse_cell(text, "cell_value", self.file, sp.line, sp.col)
            output = _relocate(self.expr(tree.children[0]), sp, False, sp)
        return n.DecisionRow(sp, tuple(tests), output)

    def test(self, t, span):
        k = t.data
        if k == "t_any":
            return n.Test(span, "any")
        if k == "t_cmp":
            return n.Test(span, "cmp", str(t.children[0].children[0]), _relocate(self.expr(t.children[1]), span, False, span))
        if k == "t_range":
            return n.Test(span, "range", None, _relocate(self.expr(t.children[0]), span, False, span),
                          _relocate(self.expr(t.children[1]), span, False, span))
        value = _relocate(self.expr(t.children[0]), span, False, span)
        if isinstance(value, n.Const) and value.value is None:
            return n.Test(span, "none")
        return n.Test(span, "eq", None, value)

    # -------------------------------------------------------------- statements
    def body(self, t):
        return self.stmts(t.children)

    def stmts(self, items):
        out = []
        for s in items:
            try:
                out.append(self.stmt(s))
            except GrimorioError as exc:
                self.diags.extend(exc.diagnostics)
        return tuple(out)

    def stmt(self, t):
        make = _STATEMENTS.get(t.data)
        if make is None:
            raise GrimorioError(Diagnostic("E0101", "this is not a statement", self.span(t)))
        return make(self, t.children, self.span(t))

    def card_op(self, kind: str, c, sp):
        """A card statement: its condition and grade are names (a written one, or a local), or any other
        expression (kept as `source` and `grade_source`, the name then empty)."""
        data = self.expr(c[3]) if len(c) > 3 and c[3] is not None else None
        cond = self.expr(c[1])
        grade = self.expr(c[2]) if c[2] is not None else None
        named = isinstance(cond, n.Name)
        grade_named = grade is None or isinstance(grade, n.Name)
        return n.CardOp(sp, kind, self.expr(c[0]), cond.id if named else "",
                        grade.id if grade_named and grade is not None else None, cond.span, data,
                        None if named else cond, None if grade_named else grade)

    def if_stmt(self, c, sp):
        branches = [(self.expr(c[0]), self.body(c[1]))]
        orelse = None
        for extra in c[2:]:
            if extra is None:
                continue
            if extra.data == "elif":
                branches.append((self.expr(extra.children[0]), self.body(extra.children[1])))
            else:
                orelse = self.body(extra.children[0])
        return n.If(sp, tuple(branches), orelse)

    def for_stmt(self, c, sp, group: bool):
        var, it, order, where, body = c
        key, desc, more = None, False, ()
        if order is not None:
            key = self.expr(order.children[0])
            desc = _descending(order.children[1])
            more = tuple(n.OrderKey(self.span(k), self.expr(k.children[0]), _descending(k.children[1]))
                         for k in order.children[2:])
        return n.For(sp, str(var), self.expr(it), key, desc, self.expr(where) if where is not None else None,
                     self.body(body), group, more)

    # -------------------------------------------------------------- expressions
    def args(self, t):
        out = []
        if t is None:
            return ()
        for a in t.children:
            if a is None:
                continue
            name, value = a.children
            out.append(n.Arg(self.span(a), str(name) if name is not None else None, self.expr(value)))
        return tuple(out)

    def comp_for(self, t) -> n.CompFor:
        var, it, cond = t.children
        return n.CompFor(self.span(t), str(var), self.expr(it), self.expr(cond) if cond is not None else None)

    def dice_token(self, tok) -> n.DiceLit:
        text = str(tok).lower()
        count, sides = text.split("d")
        count, sides = int(count or 1), int(sides)
        sp = self.span(tok)
        if sides < 1 or count < 1:
            raise GrimorioError(Diagnostic("E0204", f'"{tok}" rolls no dice', sp,
                                           "dice need at least one die of at least one face, such as 1D6"))
        if count > MAX_DICE or sides > 1000000:
            raise GrimorioError(Diagnostic("E0204", f'"{tok}" is too many dice', sp,
                                           f"at most {MAX_DICE} dice of at most 1000000 faces"))
        return n.DiceLit(sp, count, sides)

    def expr(self, t):
        if isinstance(t, Token):
            return self.token_expr(t)
        make = _EXPRESSIONS.get(t.data)
        if make is None:
            raise GrimorioError(Diagnostic("E0101", "this is not an expression", self.span(t)))
        return make(self, t.children, self.span(t))

    def token_expr(self, tok):
        sp = self.span(tok)
        if tok.type == "INT":
            return n.Const(sp, _whole(str(tok), sp))
        if tok.type == "NAME":
            return n.Name(sp, str(tok))
        raise GrimorioError(Diagnostic("E0101", f'"{tok}" is not a value', sp))

    # -------------------------------------------------------------- encounters
    def encounter(self, items) -> n.Encounter:
        title = edition = seed = rounds = None
        ed_span = None
        settings, combatants, pins, script, do, expects, round_expects = [], [], [], [], [], [], []
        strict = False
        for it in items:
            k, c = it.data, it.children
            try:
                if k == "e_title":
                    title = _unquote(c[0])
                elif k == "e_edition":
                    edition, ed_span = str(c[0]), self.span(c[0])
                elif k == "e_seed":
                    seed = int(c[0])
                elif k == "e_set":
                    settings.append((str(c[0]), self.expr(c[1])))
                elif k == "e_rounds":
                    rounds = int(c[0])
                elif k == "e_combatant":
                    combatants.append(self.combatant(it))
                elif k == "e_dice":
                    strict = strict or c[0] is not None
                    for p in c[1:]:
                        words = tuple(_word(x) for x in p.children if x.type in ("NAME", "STRING"))
                        faces = tuple(int(x) for x in p.children if x.type == "INT")
                        pins.append(n.Pin(self.span(p), words, faces))
                elif k == "e_round":
                    decisions = []
                    for d in c[1:]:
                        if d.data == "r_expect":
                            round_expects.append((int(c[0]), self.expectation(d.children[0], self.span(d))))
                        else:
                            decisions.append(n.Decision(self.span(d), _word(d.children[0]),
                                                        tuple(self.choice(ch) for ch in d.children[1:])))
                    script.append((int(c[0]), tuple(decisions)))
                elif k == "e_do":
                    do.extend(self.body(c[0]))
                elif k == "e_expect":
                    expects.append(self.expectation(c[0], self.span(it)))
            except GrimorioError as exc:
                self.diags.extend(exc.diagnostics)
        sp = Span(self.file, 1, 1)
        return n.Encounter(sp, title, edition, ed_span, seed, tuple(settings), rounds, tuple(combatants), strict,
                           tuple(pins), tuple(script), tuple(do), tuple(expects), tuple(round_expects))

    def c_value(self, t):
        """A value of a combatant's line: a constant, a word (as a text), or a list of them."""
        if isinstance(t, Tree) and t.data == "c_list":
            return [self.c_value(x) for x in t.children if x is not None]
        v = self.expr(t)
        return v.id if isinstance(v, n.Name) else v.value

    def choice(self, ch):
        """A scripted choice: its words, its place, and what a refusal it expects says."""
        words = tuple(_word(w) for w in ch.children if isinstance(w, Token))
        refusal = next((r for r in ch.children if isinstance(r, Tree)), None)
        refused = None
        if refusal is not None:
            text = refusal.children[0] if refusal.children else None
            refused = _unquote(text) if text is not None else ""
        return words, self.span(ch), refused

    def expectation(self, t, span):
        span = self.span(t) if t.meta and not getattr(t.meta, "empty", True) else span
        if t.data == "x_expr":
            return n.Expect(span, self.expr(t.children[0]))
        return n.Expect(span, None, _unquote(t.children[0]), t.data == "x_not_said")

    def combatant(self, t):
        name = _word(t.children[0])
        fields, holds, changes = [], [], set()
        for line in t.children[1:]:
            if line is None:                # "combatant Akira:" alone: everything from a loaded state
                continue
            if line.data == "c_holds":
                cond, grade = line.children
                holds.append((str(cond), str(grade) if grade is not None else None, self.span(line)))
                continue
            for pair in line.children:
                fname, value = pair.children
                fields.append((str(fname), self.c_value(value), self.span(pair)))
                if line.data == "c_changes":
                    changes.add(str(fname))
        return n.Combatant(self.span(t), name, tuple(fields), tuple(holds), frozenset(changes))


# A statement's tree to its node, by the tree's rule: (builder, children, span) -> node.
_STATEMENTS = {
    "let": lambda self, c, sp: n.Let(sp, str(c[0]), self.expr(c[1])),
    "set": lambda self, c, sp: n.Set(sp, self.expr(c[0]), self.expr(c[1])),
    "say": lambda self, c, sp: n.Say(sp, str(c[0]), self.args(c[1])),
    "return_": lambda self, c, sp: n.Return(sp, self.expr(c[0]) if c and c[0] is not None else None),
    "receive": lambda self, c, sp: self.card_op("receive", c, sp),
    "add": lambda self, c, sp: self.card_op("add", c, sp),
    "remove": lambda self, c, sp: self.card_op("remove", c, sp),
    "append": lambda self, c, sp: n.Append(sp, self.expr(c[0]), self.expr(c[1])),
    "act": lambda self, c, sp: n.Act(sp, self.expr(c[0])),
    "pass_": lambda self, c, sp: n.Pass(sp),
    "stop": lambda self, c, sp: n.Stop(sp),
    "expr_stmt": lambda self, c, sp: n.ExprStmt(sp, self.expr(c[0])),
    "expect_stmt": lambda self, c, sp: self.expectation(c[0], sp),
    "if_stmt": lambda self, c, sp: self.if_stmt(c, sp),
    "for_stmt": lambda self, c, sp: self.for_stmt(c, sp, False),
    "for_group": lambda self, c, sp: self.for_stmt(c, sp, True),
    "while_stmt": lambda self, c, sp: n.While(sp, self.expr(c[0]), self.body(c[1])),
    "decide": lambda self, c, sp: self.decide_table(str(c[0]), c[1:], sp),
    "labeled": lambda self, c, sp: n.Block(sp, str(c[0]), self.body(c[1])),
}

# An expression's tree to its node, by the tree's rule: (builder, children, span) -> node.
_EXPRESSIONS = {
    "int_": lambda self, c, sp: n.Const(sp, _whole(str(c[0]), sp)),
    "neg_int": lambda self, c, sp: n.Const(sp, -_whole(str(c[0]), sp)),
    "percent": lambda self, c, sp: n.Const(sp, _whole(str(c[0])[:-1], sp)),
    "string": lambda self, c, sp: n.Const(sp, _unquote(c[0])),
    "dice": lambda self, c, sp: self.dice_token(c[0]),
    "name": lambda self, c, sp: n.Name(sp, str(c[0])),
    "true": lambda self, c, sp: n.Const(sp, True),
    "false": lambda self, c, sp: n.Const(sp, False),
    "none": lambda self, c, sp: n.Const(sp, None),
    "option_ref": lambda self, c, sp: n.OptionRef(sp, str(c[0])),
    "list_": lambda self, c, sp: n.ListExp(sp, tuple(self.expr(x) for x in c if x is not None)),
    "comprehension": lambda self, c, sp: n.Comprehension(sp, self.expr(c[0]), str(c[1]), self.expr(c[2]),
                                                         self.expr(c[3]) if c[3] is not None else None,
                                                         tuple(self.comp_for(f) for f in c[4:])),
    "record": lambda self, c, sp: n.RecordExp(sp, tuple((str(f.children[0]), self.expr(f.children[1]))
                                                        for f in c if f is not None)),
    "roll": lambda self, c, sp: n.Roll(sp, self.expr(c[0]), self.expr(c[1]) if c[1] is not None else None,
                                       _unquote(c[2]) if c[2] is not None else None),
    "check_call": lambda self, c, sp: n.CheckCall(sp, str(c[0]), self.args(c[1]),
                                                  self.expr(c[2]) if c[2] is not None else None,
                                                  _unquote(c[3]) if c[3] is not None else None),
    "emit": lambda self, c, sp: n.Emit(sp, str(c[0]), self.args(c[1])),
    "maximum": lambda self, c, sp: n.Maximum(sp, self.expr(c[0])),
    "first_call": lambda self, c, sp: n.Call(sp, n.Name(Span(sp.file, sp.line, sp.col, sp.line, sp.col + 5), "first"),
                                             self.args(c[0])),
    "search_first": lambda self, c, sp: n.Search(sp, "first", str(c[0]), self.expr(c[1]), self.expr(c[2]),
                                                 self.expr(c[3]) if c[3] is not None else None),
    "search_any": lambda self, c, sp: n.Search(sp, "any", str(c[0]), self.expr(c[1]), self.expr(c[2])),
    "search_all": lambda self, c, sp: n.Search(sp, "all", str(c[0]), self.expr(c[1]), self.expr(c[2])),
    "attr": lambda self, c, sp: n.Attr(sp, self.expr(c[0]), str(c[1]), self.span(c[1])),
    "index": lambda self, c, sp: n.Index(sp, self.expr(c[0]), self.expr(c[1])),
    "call": lambda self, c, sp: n.Call(sp, self.expr(c[0]), self.args(c[1])),
    "neg": lambda self, c, sp: n.Unary(sp, "-", self.expr(c[0])),
    "not_": lambda self, c, sp: n.Unary(sp, "not", self.expr(c[0])),
    "binop": lambda self, c, sp: n.Binary(sp, str(c[1].children[0]), self.expr(c[0]), self.expr(c[2])),
    "compare": lambda self, c, sp: n.Binary(sp, str(c[1].children[0]), self.expr(c[0]), self.expr(c[2])),
    "in_": lambda self, c, sp: n.Binary(sp, "in", self.expr(c[0]), self.expr(c[1])),
    "not_in": lambda self, c, sp: n.Binary(sp, "notin", self.expr(c[0]), self.expr(c[1])),
    "and_": lambda self, c, sp: n.Binary(sp, "and", self.expr(c[0]), self.expr(c[1])),
    "or_": lambda self, c, sp: n.Binary(sp, "or", self.expr(c[0]), self.expr(c[1])),
    "ifexp": lambda self, c, sp: n.IfExp(sp, self.expr(c[1]), self.expr(c[0]), self.expr(c[2])),
}


def _agreement_colon(inner: str) -> int:
    """Where the ":" of {EXPR:WORD} is: the last one outside brackets and quotes; -1 if none."""
    depth, cut = 0, -1
    for i, ch in outside_texts(inner):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == ":" and depth == 0:
            cut = i
    return cut


def _relocate(node, cell: Span, exact: bool = True, origin: Span | None = None):
    """Move spans of a node parsed from a cell (line 1) onto the cell's place in the file."""
    if isinstance(node, tuple):
        return tuple(_relocate(x, cell, exact, origin) for x in node)
    if not is_record(node) or isinstance(node, Span):
        return node
    changes = {}
    for f in fields(node):
        v = getattr(node, f.name)
        if isinstance(v, Span):
            if v.line == 1 and v.file == cell.file:
                changes[f.name] = Span(cell.file, cell.line, cell.col + v.col - 1, cell.line, cell.col + v.end_col - 1)
            elif v.line == 0:
                changes[f.name] = cell
        elif isinstance(v, (tuple, n.Node)):
            changes[f.name] = _relocate(v, cell, exact, origin)
    return replace(node, **changes) if changes else node


def _word(tok: Token) -> str:
    """A name as written: a NAME, or a quoted text (a combatant's name with spaces)."""
    return _unquote(tok) if tok.type == "STRING" else str(tok)


def _number(digits: str, span: Span) -> int:
    """A number written in a table cell, refused at its place when it is too long to compute with."""
    if len(digits) > MAX_WRITTEN:
        raise GrimorioError(too_long(span.file, span.line, span.col, len(digits), span.end_col - span.col))
    return _whole(digits, span)


def nfc(text: str) -> str:
    """The text with every character composed (NFC): "ñ" typed as n and a combining tilde is the name "ñ"."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def build_rules(text: str, file: str) -> tuple[list[n.Decl], list[Diagnostic]]:
    text = nfc(text)
    with collector_paused():
        trees, diags = parse_text(text, file, "rules_file")
        b = Builder(file)
        decls = [d for d in (b.declaration(t) for t in trees) if d is not None]
    return decls, diags + b.diags


def build_encounter(text: str, file: str) -> tuple[n.Encounter, list[Diagnostic]]:
    text = nfc(text)
    with collector_paused():
        trees, diags = parse_text(text, file, "encounter_file")
        b = Builder(file)
        enc = b.encounter(trees)
    return enc, diags + b.diags


def _whole(text: str, span) -> int:
    value = int_literal(text)
    if value is None:
        raise GrimorioError(Diagnostic("E0506", f"this number has more than {MAX_DIGITS} digits", span,
                                       f"numbers hold at most {MAX_DIGITS} digits; a rule needs no larger one"))
    return value


def _descending(word) -> bool:
    """A key of `ordered by` is ascending unless it says `desc` (`asc` says so explicitly)."""
    return word is not None and str(word) == "desc"
