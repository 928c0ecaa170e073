"""Grammatical agreement in messages ({x:WORD}, the builtin agree): the table the prelude's option
"agreement" names, checked as a table of words and forms; the cells other tables give in its form
field; and the words a placeholder asks of it, where the text shows the value is no count."""
from __future__ import annotations

from ..syntax import nodes as n
from ..diagnostics import Diagnostic, GrimorioError, did_you_mean
from . import kinds as K

OPTION = "agreement"


def _named(rs):
    """The option's value as the ruleset gives it (an edition's set, else the declared default), and where."""
    for name, value in rs.edition.settings:
        if name == OPTION:
            return (value.value if isinstance(value, n.Const) else None), value.span
    for o in rs.all(n.Option):
        if o.name == OPTION:
            return (o.default.value if isinstance(o.default, n.Const) else None), o.default.span
    return "", None


def cell(v):
    """A table cell as written: the value of a plain one."""
    return v.value if isinstance(v, n.Const) else v


def agreement_words(rs) -> set | None:
    """The words of the agreement table; None when the rules name none."""
    table = agreement_table(rs)
    return None if table is None else {cell(row[0]) for row in table.rows}


def agreement_table(rs) -> n.Table | None:
    name, _span = _named(rs)
    return next((t for t in rs.all(n.Table) if t.name == name), None) if isinstance(name, str) and name else None


def agreement_columns(rs) -> set[str]:
    """The columns the runtime reads for {x:WORD}: the agreement table's, its first header being the
    field every value gives its form in."""
    table = agreement_table(rs)
    return set(table.columns) if table is not None else set()


def check_agreement(rs) -> list[Diagnostic]:
    name, span = _named(rs)
    if not isinstance(name, str) or not name:
        return []
    tables = [t.name for t in rs.all(n.Table)]
    table = agreement_table(rs)
    if table is None:
        return [Diagnostic("E0262", f'option "{OPTION}" names no table: there is no table "{name}"', span,
                           did_you_mean(name, tables) or "name a table of words and forms, or \"\" for none")]
    if len(table.columns) < 2 or table.dice is not None:
        return [Diagnostic("E0262", f'the agreement table "{name}" needs a column of words and one per form',
                           table.span, "| género | m | f |: the header of the words names the field values give "
                                       "their form in; the other headers are the forms")]
    out = []
    for row, sp in zip(table.rows, table.row_spans or [table.span] * len(table.rows)):
        if not all(isinstance(cell(c), str) for c in row):
            out.append(Diagnostic("E0262", f'the agreement table "{name}" holds words: this row has something else',
                                  sp, "write each word and each of its forms as a word (a text)"))
    return out + _forms_given(rs, table)


def _forms_given(rs, table) -> list[Diagnostic]:
    """Every table with a column named like the agreement field gives in it one of the forms (or none)."""
    field, forms = table.columns[0], table.columns[1:]
    out = []
    for t in rs.all(n.Table):
        if t is table or field not in t.columns:
            continue
        i = t.columns.index(field)
        for row, sp in zip(t.rows, t.row_spans or [t.span] * len(t.rows)):
            v = cell(row[i])
            if v is not None and v not in forms:
                out.append(Diagnostic("E0263", f'"{v}" in column "{field}" of table "{t.name}" is not a form of '
                                      f'the agreement table "{table.name}"', sp,
                                      did_you_mean(str(v), forms) or f"its forms: {', '.join(forms)}"))
    return out


def check_agree_call(args, resolve, words):
    """agree(x, WORD): a WORD that is no word (E0261: {n:}, {n:3}, three forms); one the agreement table
    lacks, where x is shown to be no count."""
    for a in args[1:]:
        if isinstance(a.value, n.Const) and isinstance(a.value.value, str) and not n.AGREE_WORD.fullmatch(a.value.value.strip()):
            raise GrimorioError(Diagnostic("E0261", f'"{a.value.value.strip()}" is not a word to agree', a.value.span,
                                           'after ":" write one word, as {x:the} or {n:apple}, or a word and its '
                                           'plural, as {n:mouse|mice}'))
    if len(args) < 2 or not isinstance(args[1].value, n.Const) or len(args) > 2:
        return
    word = args[1].value.value
    _forms_written(args[0].value, word, args[1].value.span, words)
    k = K.kind(args[0].value, resolve)
    if k is None or k in (K.NUMBER, K.FRACTION, K.LIST):
        return
    if words is None:
        raise GrimorioError(Diagnostic("E0264", f'"{word}" cannot agree with {k}: the rules name no agreement table',
                                       args[1].value.span, 'set the option "agreement" to a table of words and '
                                       'forms (docs/language.md, "Agreement"); a number only counts: {n:WORD}'))
    if word not in words:
        raise GrimorioError(Diagnostic("E0264", f'the agreement table has no word "{word}"', args[1].value.span,
                                       did_you_mean(word, words) or f"its words: {', '.join(sorted(words))}"))


def _forms_written(value, word, span, words):
    """{c:his her}: forms written side by side where one word of the agreement table goes. No count
    agrees with such a word (it is no word of the table), whatever the value: the run would stop."""
    if words is None or word in words:
        return
    known = [w for w in word.split() if w in words]
    if known and len(word.split()) > 1:
        raise GrimorioError(Diagnostic("E0264", f'"{word}" is not a word of the agreement table: write one word, '
                                       "and the value gives its form", span,
                                       f'did you mean {{{value.id if isinstance(value, n.Name) else "..."}:'
                                       f"{known[0]}}}? Its row of the table holds each of its forms"))
