"""Text to Lark syntax trees, with designer-worded syntax errors.

A file is cut into top-level chunks (a line that starts at column 0 begins
a chunk) and each chunk is parsed on its own, so one mistake does not hide
the errors of the declarations after it. A chunk is parsed as it stands and
its positions are then moved down to its place in the file, so parsing time
grows with the file's length, not with its square.

The parser's tables are built when the package is built and shipped in it (setup.py); a source
tree builds them once and keeps them in the user's cache (see dsl/store.py).
"""
from __future__ import annotations

import hashlib
import marshal
import re
from functools import lru_cache
from typing import Callable, NamedTuple
from importlib import resources

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter

from ..bounds import MAX_DIGITS as HELD_DIGITS
from .. import store
from .trees import FastLark, tree_depth
from ..diagnostics import Diagnostic, GrimorioError, Span, did_you_mean

# Words a designer understands, for the grammar's terminals that are patterns;
# terminals that are fixed text ("rule", "(", "..") are shown as that text.
TOKEN_WORDS = {
    "NAME": "a name", "INT": "a number", "NEGATIVE": "a number below zero", "PERCENT": "a percentage", "STRING": "a quoted text",
    "DICE": "dice such as 1D10", "TABLE_ROW": "a table row", "_NL": "the end of the line",
    "_INDENT": "an indented block", "_DEDENT": "the end of the block", "$END": "the end of the declaration",
    "DESC": '"desc"', "CELL_TEXT": "a value", "POLICY": '"first" or "all"', "DICE_MODE": '"strict"', "COMMENT": "a comment",
}
# Deeper syntax trees than this are refused: the generated Python would
# overflow its own limits (nesting of brackets and blocks).
MAX_DEPTH = 90


class _Indenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4

    def handle_NL(self, token):
        if self.paren_level > 0:
            return
        yield token
        indent_str = token.rsplit("\n", 1)[1].split("#", 1)[0]
        indent = indent_str.count(" ") + indent_str.count("\t") * self.tab_len
        if indent > self.indent_level[-1]:
            self.indent_level.append(indent)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, token)
            return
        levels = list(self.indent_level)
        while indent < self.indent_level[-1]:
            self.indent_level.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)
        if indent != self.indent_level[-1]:
            raise _BadDedent(token, indent, levels)

    def _process(self, stream):
        # Texts end with a newline (parse_text adds one); table cells have none and pass through unchanged.
        token = None
        special = _SPECIAL
        for token in stream:
            role = special.get(token.type)
            if role is None:            # most tokens: nothing to do but pass them on
                yield token
            elif role == "number":
                if len(token) > MAX_DIGITS:
                    raise _TooLong(token)
                yield token
            elif role == "newline":
                yield from self.handle_NL(token)
            elif role == "open":
                yield token
                self.paren_level += 1
            else:
                yield token
                self.paren_level = max(0, self.paren_level - 1)
        while len(self.indent_level) > 1:
            self.indent_level.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, "", token) if token else Token(self.DEDENT_type, "")


# What the indenter does with a token, by its type; any other token is passed on as it is.
_SPECIAL = {"INT": "number", "NEGATIVE": "number", "PERCENT": "number", "DICE": "number", _Indenter.NL_type: "newline",
            **dict.fromkeys(_Indenter.OPEN_PAREN_types, "open"), **dict.fromkeys(_Indenter.CLOSE_PAREN_types, "close")}

# Numbers are refused where they are written beyond this many digits, before they are read (Python cannot show
# an integer of more than 4300 digits, and reading one is slow); one of 1001 to 4000 digits is read, and refused
# by the value bound (bounds.MAX_DIGITS, E0506). Both say the bound: that is what a number may hold.
MAX_DIGITS = 4000


class _TooLong(Exception):
    def __init__(self, token):
        self.token = token


def too_long(file: str, line: int, col: int, digits: int, width: int = 1) -> Diagnostic:
    return Diagnostic("E0109", f"this number has {digits} digits; numbers hold at most {HELD_DIGITS}",
                      Span(file, line, col, line, col + width), "numbers this long cannot be computed with or shown")


class _BadDedent(Exception):
    def __init__(self, token, got, levels):
        self.token, self.got, self.levels = token, got, levels


START = ["rules_file", "encounter_file", "cell_tests", "cell_value", "cell_stmts"]


@lru_cache(maxsize=None)
def grammar_text() -> str:
    return resources.files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def lark_parser(strict: bool = False) -> Lark:
    """The one parser of files and table cells (a start rule each): from the tables shipped in the package,
    else from the user's cache, else built (and kept in the cache)."""
    key = tables_key(strict)
    for found in (_shipped_tables, _cached_tables):
        tables = found(key)
        if tables is not None:
            try:
                return _from_tables(tables)
            except Exception:  # noqa: BLE001 - tables of another Lark, or damaged: built again
                pass
    parser = _build(strict)
    data = tables_bytes(parser, key)
    if data is not None:
        store.keep(_cache_name(key), data)
    return parser


def _build(strict: bool) -> Lark:
    return FastLark(grammar_text(), parser="lalr", lexer="contextual", postlex=_Indenter(), start=START,
                    propagate_positions=True, maybe_placeholders=True, strict=strict)


# Lark's tables as data: the file shipped in the package (made when the package is built, see setup.py)
# and the cache entries hold marshal of {"key", "data", "memo"}, plain dicts, lists, texts and numbers
# (Lark's own serialization without its pickle); the key names the grammar's text, Lark's version and
# the strictness, so tables of another grammar or Lark are never used.
TABLES_FILE = "grammar.tables"


def tables_key(strict: bool) -> str:
    import lark
    return hashlib.sha256(f"{grammar_text()}|{lark.__version__}|{strict}".encode()).hexdigest()


def tables_bytes(parser: Lark, key: str) -> bytes | None:
    from lark.lark import _LOAD_ALLOWED_OPTIONS
    from lark.grammar import Rule
    from lark.lexer import TerminalDef
    try:
        data, memo = parser.memo_serialize([TerminalDef, Rule])
        data["options"] = {k: v for k, v in data["options"].items() if k not in _LOAD_ALLOWED_OPTIONS}
        return marshal.dumps({"key": key, "data": data, "memo": memo})
    except (ValueError, TypeError, AttributeError):       # something Lark serializes that is not plain data
        return None


def _tables(raw: bytes | None, key: str) -> dict | None:
    if raw is None:
        return None
    try:
        tables = marshal.loads(raw)
    except (EOFError, ValueError, TypeError):
        return None
    return tables if isinstance(tables, dict) and tables.get("key") == key else None


def _shipped_tables(key: str) -> dict | None:
    try:
        raw = resources.files(__package__).joinpath(TABLES_FILE).read_bytes()
    except (OSError, ValueError):
        return None
    return _tables(raw, key)


def _cache_name(key: str) -> str:
    return f"grammar-{key[:24]}.tables"


def _cached_tables(key: str) -> dict | None:
    return _tables(store.kept(_cache_name(key)), key)


def _from_tables(tables: dict) -> Lark:
    parser = FastLark.__new__(FastLark)
    parser._load({"data": tables["data"], "memo": tables["memo"]}, postlex=_Indenter(), propagate_positions=True)
    parser.speed_up()
    return parser


def chunks(text: str) -> list[tuple[int, str]]:
    """Top-level chunks as (first line index, text). A line at the margin starts one, unless it starts by
    closing a bracket (`]` under `var x = [1,`): no declaration starts so, and the bracket closes there."""
    lines = text.split("\n")
    starts = [i for i, ln in enumerate(lines)
              if ln[:1] not in ("", " ", "\t", "#", "|", "\r", ")", "]", "}")]
    if not starts:
        return []
    out = []
    for n, s in enumerate(starts):
        e = starts[n + 1] if n + 1 < len(starts) else len(lines)
        out.append((s, "\n".join(lines[s:e])))
    return out


def parse_text(text: str, file: str, start: str) -> tuple[list[Tree], list[Diagnostic]]:
    """Parse a whole file; returns the trees of the chunks that parsed, and the errors. A file that parses
    is parsed in one go; one that does not, chunk by chunk, so each mistake is reported."""
    diags = []
    first_col0 = next((i for i, ln in enumerate(text.split("\n"))
                       if ln.strip() and not ln.lstrip().startswith("#")), None)
    if first_col0 is not None and text.split("\n")[first_col0][:1] in (" ", "\t", "|"):
        ln = text.split("\n")[first_col0]
        col = len(ln) - len(ln.lstrip()) + 1
        diags.append(Diagnostic("E0103", "this line is indented but nothing above it opens a block",
                                Span(file, first_col0 + 1, col, first_col0 + 1, len(ln) + 1),
                                "start the file with a declaration at the left margin"))
    pieces = chunks(text)
    whole = _whole_file(text, pieces, start)
    if whole is not None:
        return whole, diags
    trees, errors = chunk_by_chunk(pieces, file, start)
    return trees, diags + errors


def whole_file(text: str, start: str) -> list[Tree] | None:
    """The declarations of a file parsed in one go, or None when parse_text parses it chunk by chunk."""
    return _whole_file(text, chunks(text), start)


def chunk_by_chunk(pieces: list[tuple[int, str]], file: str, start: str) -> tuple[list[Tree], list[Diagnostic]]:
    """Each chunk parsed on its own, its positions moved to its place in the file."""
    parser = lark_parser()
    trees, diags = [], []
    for offset, chunk in pieces:
        try:
            tree = parser.parse(chunk + "\n", start=start)
        except (UnexpectedInput, _BadDedent, _TooLong) as exc:
            diags.append(syntax_diagnostic(exc, file, chunk + "\n", offset))
            continue
        deep = _too_deep(tree, file)
        if deep:
            diags.append(_moved(deep, offset))
            continue
        if offset:
            _move_lines(tree, offset)
        trees.extend(tree.children)
    return trees, diags


def _whole_file(text: str, pieces: list[tuple[int, str]], start: str) -> list[Tree] | None:
    """The declarations of a file parsed in one go, when that gives exactly what parsing it chunk by chunk
    gives (one parse costs less than thousands): the file parses, nothing nests too deeply, and each chunk
    holds one declaration that starts on its first line (a bracket left open across a line at the margin
    would join two chunks). None otherwise: the chunks are parsed on their own, each with its errors."""
    if not pieces:
        return None
    try:
        tree = lark_parser().parse(text + "\n", start=start)
    except (UnexpectedInput, _BadDedent, _TooLong):
        return None
    decls = tree.children
    if tree_depth(tree) > MAX_DEPTH or len(decls) != len(pieces):
        return None
    for decl, (offset, _) in zip(decls, pieces):
        if not isinstance(decl, Tree) or decl.meta.empty or decl.meta.line != offset + 1:
            return None
    return decls


def _move_lines(tree: Tree, offset: int) -> None:
    """Move a chunk's tree down by `offset` lines, to where the chunk sits in its file."""
    stack = [tree]
    while stack:
        t = stack.pop()
        meta = t._meta
        if meta is not None and not meta.empty:
            meta.line += offset
            meta.end_line += offset
        for c in t.children:
            if isinstance(c, Tree):
                stack.append(c)
            elif isinstance(c, Token) and c.line is not None:
                c.line += offset
                c.end_line += offset


def _moved(d: Diagnostic, offset: int) -> Diagnostic:
    sp = d.span
    if not offset or not sp.line:
        return d
    return Diagnostic(d.code, d.message, Span(sp.file, sp.line + offset, sp.col, sp.end_line and sp.end_line + offset,
                                              sp.end_col), d.help, d.severity)


def parse_cell(text: str, start: str, file: str, line: int, col: int) -> Tree:
    """Parse one table cell; raise a diagnostic placed at the cell."""
    try:
        tree = lark_parser().parse(text, start=start)
    except (UnexpectedInput, _BadDedent, _TooLong) as exc:
        d = syntax_diagnostic(exc, file, text)
    else:
        d = _too_deep(tree, file)
        if d is None:
            return tree
    inner = d.span
    span = Span(file, line, col + max(1, inner.col) - 1, line, col + max(1, inner.end_col) - 1)
    raise GrimorioError(Diagnostic(d.code, d.message, span, d.help)) from None


def _too_deep(tree: Tree, file: str) -> Diagnostic | None:
    """A diagnostic at a subtree nested deeper than MAX_DEPTH, or None."""
    if tree_depth(tree) <= MAX_DEPTH:
        return None
    stack = [(tree, 1)]
    while stack:
        t, depth = stack.pop()
        if depth > MAX_DEPTH:
            meta = t.meta
            line, col = (meta.line, meta.column) if not getattr(meta, "empty", True) else (1, 1)
            return Diagnostic("E0106", f"this is nested too deeply (more than {MAX_DEPTH} levels)",
                              Span(file, line, col, line, col + 1),
                              "split it: give a part its own rule, or a name with let")
        stack.extend((c, depth + 1) for c in t.children if isinstance(c, Tree))
    return None


# ------------------------------------------------------------------ syntax errors
@lru_cache(maxsize=None)
def _words(parser: Lark) -> dict[str, str]:
    out = {}
    for t in parser.terminals:
        out[t.name] = f'"{t.pattern.value}"' if t.pattern.type == "str" else TOKEN_WORDS.get(t.name, "a word")
    out.update((k, v) for k, v in TOKEN_WORDS.items() if k not in out)
    return out


def _expected(names, parser: Lark) -> str:
    words = {_words(parser).get(n, "something else") for n in names}
    # Descriptions first (a name, a number), then keywords, then punctuation.
    order = sorted(words, key=lambda w: (w[:1] == '"', not w[1:2].isalpha(), w))
    if len(order) > 7:
        return "one of " + ", ".join(order[:7]) + ", ..."
    return ", ".join(order[:-1]) + " or " + order[-1] if len(order) > 1 else "".join(order)


def _sentence(expected, word: str) -> str:
    """What to write instead of a long list of tokens: whether the line was complete before the word, or a
    value was wanted there."""
    if "_NL" in expected or "$END" in expected:
        return (f"the line reads as complete before {_show(word)}: end the line there, or join what follows "
                "with an operator (+, and, ==, ...) or a comma")
    if "NAME" in expected and "INT" in expected:
        return "a value goes here: a number, a name, dice, a quoted text, a list or an expression in brackets"
    return f"{_show(word)} cannot stand here"


def _keywords(names, parser: Lark) -> list[str]:
    words = _words(parser)
    return [words[n].strip('"') for n in names if words.get(n, "")[1:2].isalpha() and words[n][:1] == '"']


def _show(text: str) -> str:
    if len(text) == 1 and (not text.isprintable() or text.isspace()):
        return f"U+{ord(text):04X}"
    return '"' + (text if len(text) <= 30 else text[:27] + "...") + '"'


BRACKETS = {"(": ")", "[": "]", "{": "}"}


def _open_brackets(lines: list[str], upto: tuple[int, int] | None = None) -> list[tuple[int, int, str]]:
    """The brackets still open (line, column, bracket) before a position, skipping texts, comments and rows."""
    stack = []
    for ln, line in enumerate(lines, 1):
        if line.lstrip().startswith("|"):
            continue
        quoted = False
        for col, ch in enumerate(line, 1):
            if upto is not None and (ln, col) >= upto:
                return stack
            if ch == '"':
                quoted = not quoted
            elif quoted:
                continue
            elif ch == "#":
                break
            elif ch in BRACKETS:
                stack.append((ln, col, ch))
            elif ch in BRACKETS.values() and stack and BRACKETS[stack[-1][2]] == ch:
                stack.pop()
    return stack


def _unclosed(file: str, line: int, col: int, ch: str) -> Diagnostic:
    return Diagnostic("E0104", f'this "{ch}" is never closed', Span(file, line, col, line, col + 1),
                      f'add the "{BRACKETS[ch]}" that closes it')


def syntax_diagnostic(exc, file: str, text: str, offset: int = 0) -> Diagnostic:
    """The diagnostic of a parse error in `text`, a chunk that starts `offset` lines into its file."""
    return _moved(_syntax_diagnostic(exc, file, text, offset), offset)


def _syntax_diagnostic(exc, file: str, text: str, offset: int) -> Diagnostic:
    parser = lark_parser()
    lines = text.split("\n")
    if isinstance(exc, _TooLong):
        tok = exc.token
        return too_long(file, tok.line, tok.column, sum(ch.isdigit() for ch in tok), len(tok))
    if isinstance(exc, _BadDedent):
        tok = exc.token
        line = tok.end_line or tok.line
        levels = " or ".join(str(x) for x in exc.levels)
        tabs = " (a tab counts 4)" if "\t" in str(tok).rsplit("\n", 1)[-1] else ""
        return Diagnostic("E0103", "this line's indentation matches no enclosing block",
                          Span(file, line, 1, line, max(2, exc.got + 1)),
                          f"line it up with the block it belongs to: indent it by {levels} spaces{tabs}")
    if isinstance(exc, UnexpectedCharacters):
        line, col = exc.line, exc.column
        ch = lines[line - 1][col - 1:col] if 0 < line <= len(lines) else ""
        help = None
        if ch == '"':
            return Diagnostic("E0102", "this text has no closing quote", Span(file, line, col, line, col + 1),
                              "a text must open and close its quotes on the same line")
        if ch == "'":
            help = 'texts are written in double quotes, "like this"'
        elif ch == "\t":
            help = "use spaces for indentation"
        elif ch == "|":
            help = "a table row starts its own line, inside a table"
        return Diagnostic("E0102", f"unexpected character {_show(ch or '?')}", Span(file, line, col, line, col + 1),
                          help)
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END" or (tok.type == "_DEDENT" and not str(tok)):
            opened = _open_brackets(lines)
            if opened:
                return _unclosed(file, *opened[-1])
            code = [i for i, ln in enumerate(lines, 1) if ln.split("#", 1)[0].strip()] or [1]
            last = code[-1]
            end = len(lines[last - 1].split("#", 1)[0].rstrip()) + 1 if last <= len(lines) else 1
            return Diagnostic("E0104", "the declaration stops before it is complete",
                              Span(file, last, end, last, end + 1), f"expected {_expected(exc.expected, parser)}")
        line, col = tok.line or 1, tok.column or 1
        width = max(1, len(str(tok)))
        expected = f"expected {_expected(exc.expected, parser)}" if exc.expected else None
        if tok.type in ("_NL", "_INDENT", "_DEDENT"):
            # Point at the end of the line where something was missing.
            src = lines[line - 1] if 0 < line <= len(lines) else ""
            col, width = len(src.split("#")[0].rstrip()) + 1, 1
        if tok.type == "_INDENT":
            # The indented line is the one the token ends on: the caret goes on its first character.
            at = tok.end_line or line
            src = lines[at - 1] if 0 < at <= len(lines) else ""
            lead = len(src) - len(src.lstrip(" \t")) + 1
            return Diagnostic("E0101", "unexpected indentation",
                              Span(file, at, lead, at, max(lead + 1, len(src.rstrip()) + 1)),
                              "indent a line only inside a block opened by a line ending in \":\"")
        if tok.type == "_NL":
            msg = "this line stops before it is complete"
        elif tok.type == "_DEDENT":
            msg = "this block stops before it is complete"
        elif tok.type == "TABLE_ROW":
            msg, width = "unexpected table row", 1
        else:
            msg = f"unexpected {_show(str(tok))}"
        opened = _open_brackets(lines, (line, col))
        if opened and opened[-1][0] < line and opened[-1] in _open_brackets(lines):
            # Inside brackets lines run on: the cause is the bracket left open, not where reading stopped
            # (a bracket closed further down is not: the mistake is where reading stopped).
            ln, c, ch = opened[-1]
            return Diagnostic("E0104", f'this "{ch}" is never closed', Span(file, ln, c, ln, c + 1),
                              f'add the "{BRACKETS[ch]}" that closes it; line {line + offset} cannot go on inside it')
        src = lines[line - 1] if 0 < line <= len(lines) else ""
        known = _known_mistake(_Spot(tok, frozenset(exc.expected), src[:col - 1], src), file, line, col, width)
        if known:
            return known
        if expected and len(exc.expected) > 7:
            expected = _sentence(exc.expected, str(tok))
        if tok.type == "NAME":
            close = did_you_mean(str(tok), _keywords(exc.expected, parser))
            expected = close or expected
        return Diagnostic("E0101", msg, Span(file, line, col, line, col + width), expected)
    if isinstance(exc, UnexpectedEOF):
        last = max(1, len(lines))
        return Diagnostic("E0104", "the text stops before it is complete", Span(file, last, 1, last, 2),
                          f"expected {_expected(exc.expected, parser)}")
    return Diagnostic("E0101", "this text cannot be read as rules", Span(file, 1, 1, 1, 2))


# ------------------------------------------------------------------ known mistakes
# Everyday typos get a message in the designer's words instead of a list of tokens, the way Lark's
# match_examples maps example inputs to errors. Each entry recognises the mistake at the token where reading
# stopped, says what to write instead, and carries the examples tests/test_mistakes.py checks it against.

class _Spot(NamedTuple):
    tok: Token              # where reading stopped
    expected: frozenset     # the terminals that could have come there
    before: str             # the line's text before the token
    line: str               # the whole line


class Mistake(NamedTuple):
    name: str
    examples: tuple[tuple[str, str], ...]       # (start rule, text) that make this mistake
    found: Callable[[_Spot], tuple[int, int] | None]     # the mistake's columns on the line (from, to), or None
    message: Callable[[_Spot], str]
    help: Callable[[_Spot], str]


def _dice_without_faces(s: _Spot):
    m = re.search(r"(\d+)$", s.before)
    if s.tok.type == "NAME" and str(s.tok) in ("d", "D") and m:
        return m.start(1) + 1, len(s.before) + 2
    return None


def _single_equals(s: _Spot):
    if str(s.tok) == "=" and "EQUAL" not in s.expected:
        return len(s.before) + 1, len(s.before) + 2
    return None


def _misspelled_line_word(s: _Spot):
    m = re.match(r"(\s*)([^\W\d]\w*)\s*$", s.before)
    if m and m.group(2) not in _line_words() and did_you_mean(m.group(2), _line_words()):
        return m.start(2) + 1, m.end(2) + 1
    return None


def _late_start(s: _Spot):
    if str(s.tok) == "start" and not s.before.strip() and any("STEP" in e for e in s.expected):
        return len(s.before) + 1, len(s.before) + len("start") + 1
    return None


_CARD_LINE = re.compile(r"^\s*(add|remove|receive)\s")
_ENDS = ("_NL", "$END", "_DEDENT")


def _card_without_condition(s: _Spot):
    """`remove c 3`, `add c (x)`: where a card statement's condition (or grade) goes, something that is
    no name (a number, a bracket, nothing)."""
    if not (_CARD_LINE.match(s.before) and "NAME" in s.expected and "STRING" in s.expected):
        return None
    if s.tok.type in ("NAME", "STRING") or (_card_slot(s) == "a grade" and s.tok.type in _ENDS):
        return None
    if s.tok.type in _ENDS:                     # the statement stops after WHO: underline it all
        start = _CARD_LINE.match(s.before).start(1)
        return start + 1, len(s.before.rstrip()) + 1
    return len(s.before) + 1, len(s.before) + len(str(s.tok)) + 1


def _card_op(s: _Spot) -> str:
    return _CARD_LINE.match(s.before).group(1)


def _card_slot(s: _Spot) -> str:
    """The condition's place, or (WHO and a condition written before it) the grade's."""
    rest = s.before[_CARD_LINE.match(s.before).end():]
    while _BRACKETED.search(rest):              # c (x) and c[1] are one WHO
        rest = _BRACKETED.sub("", rest)
    return "a grade" if len(rest.split()) >= 2 else "a condition"


_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")


def _card_help(s: _Spot) -> str:
    if _card_slot(s) == "a grade":
        return ("the grade's name (Light), or a name that holds one: a local, a field (w.grade), a grade's name "
                "in quotes")
    return (f"{_card_op(s)} WHO CONDITION [GRADE]: the condition's name, or a name that holds one (a local, a "
            f"field, condition_named(TEXT)); an expression in brackets after WHO reads as part of WHO: name "
            f"it first with let")


def _decimal_point(s: _Spot):
    m = re.search(r"(\d+)\.$", s.before)
    if str(s.tok)[:1].isdigit() and m:          # an INT, or whatever a contextual lexer made of the digits
        return m.start(1) + 1, len(s.before) + len(s.tok) + 1
    return None


def _else_if(s: _Spot):
    m = re.search(r"\belse\s*$", s.before)
    if str(s.tok) == "if" and m:
        return m.start() + 1, len(s.before) + 3
    return None


def _until_outside_a_round(s: _Spot):
    m = re.match(r"(\s+)(until)\b", s.line)
    if m and len(s.before) >= m.end(2):
        return m.start(2) + 1, m.end(2) + 1
    return None


_DECIMAL = re.compile(r"(?:^|(?<=[\s|(\[=,+*-]))([x/]?)(\d+)$")


def _decimal_comma(s: _Spot):
    """A number written with a decimal comma (1,5 60,5% x1,5), where no comma can follow a number, or where a
    comma stands with no space between two numbers of a combatant's line."""
    rest = s.line[len(s.before):]
    if str(s.tok) == "," and re.match(r",\d", rest) and _DECIMAL.search(s.before):
        m = _DECIMAL.search(s.before)
        end = len(s.before) + 1 + len(re.match(r",(\d+%?)", rest).group(1))
        return m.start() + 1, end + 1
    m = re.search(r"(?:^|(?<=[\s|(\[=,+*-]))([x/]?)(\d+),$", s.before)
    if m and re.match(r"\d+%?", str(s.tok)):
        return m.start() + 1, len(s.before) + len(str(s.tok)) + 1
    return None


def _decimal_parts(s: _Spot):
    """(scale prefix, whole part, decimals, percent) of the number the mistake is about."""
    at = _decimal_comma(s)
    text = s.line[at[0] - 1:at[1] - 1]
    m = re.match(r"([x/]?)(\d+),(\d+)(%?)", text)
    return m.groups()


def _decimal_message(s: _Spot) -> str:
    scale, _whole, _dec, pct = _decimal_parts(s)
    return ("a scale has no decimals" if scale else "percentages have no decimals" if pct
            else "numbers have no decimals") + " (a comma is not a decimal point)"


def _decimal_help(s: _Spot) -> str:
    from fractions import Fraction
    scale, whole, dec, pct = _decimal_parts(s)
    value = Fraction(f"{whole}.{dec}")
    low = value.numerator // value.denominator
    if pct:
        return f"write a whole percentage: {low}% or {low + 1}%"
    if re.search(r"[^\W\d]\w*\s+$", s.line[:_decimal_comma(s)[0] - 1]) and "=" not in s.before:
        return f"a combatant's value is a whole number: {low} or {low + 1}"     # FUE 14,5
    frac = f"{value.numerator}/{value.denominator}" if value.denominator != 1 else f"{value.numerator}"
    if scale:
        return f"scales are xN, /N or a fraction: x{frac} for {whole},{dec}"
    return f'write a fraction with "/": {frac} is {whole},{dec}'


def _by_with_nothing_after(s: _Spot):
    m = re.search(r"\b(?:roll|check)\b.*\b(by|as)\s*$", s.before)
    if m and s.tok.type in ("_NL", "$END", "_DEDENT"):
        return m.start(1) + 1, m.end(1) + 1
    return None


def _last_word(s: _Spot) -> str:
    return re.search(r"(\w+)\s*$", s.before).group(1)


NEEDS = {"by": ('who rolls', 'write who makes the roll after "by": roll 1D6 by c (or leave "by" out)'),
         "as": ("a quoted text", 'write what the roll is for, in quotes: roll 1D6 as "luck" (or leave "as" out); '
                                 "an encounter's dice lines name it")}


def _by_after_arithmetic(s: _Spot):
    m = re.search(r"\broll\s+(.+?)\s*$", s.before)
    if str(s.tok) in ("by", "as") and m and s.tok.type != "NAME" and re.search(r"[-+*/%]", m.group(1)):
        return len(s.before) + 1, len(s.before) + len(str(s.tok)) + 1
    return None


def _roll_dice(s: _Spot) -> str:
    return re.search(r"\broll\s+(.+?)\s*$", s.before).group(1)


def _count(s: _Spot) -> str:
    return re.search(r"(\d+)$", s.before).group(1)


def _first_word(s: _Spot) -> str:
    return re.match(r"\s*(\w*)", s.line).group(1)


MISTAKES: tuple[Mistake, ...] = (
    Mistake("dice without faces",
            (("rules_file", "var x = 2D\n"), ("rules_file", "rule f():\n  return roll 3d + 1\n")),
            _dice_without_faces,
            lambda s: "dice need a number of faces",
            lambda s: "write the number of faces after the D: {0}D6, {0}D10...".format(_count(s))),
    Mistake("a single = to compare",
            (("rules_file", "rule f(c):\n  if c.n = 0:\n    pass\n"), ("encounter_file", "expect Ana.n = 5\n"),
             ("rules_file", "rule f(c):\n  while c.n = 0:\n    pass\n")),
            _single_equals,
            lambda s: 'to compare, write "==": a single "=" gives a value',
            lambda s: '"==" compares (if a == b); "=" belongs to let, set and options (let a = b)'),
    Mistake("a misspelled word at the start of a line",
            (("rules_file", "action mover(a, b):\n  requieres listo(a)\n  pass\n"),
             ("rules_file", "rule f(c):\n  retrun c\n")),
            _misspelled_line_word,
            lambda s: f'"{_first_word(s)}" is not a word of the language',
            lambda s: did_you_mean(_first_word(s), _line_words())),
    Mistake("a decimal point",
            (("rules_file", "var x = 0.5\n"), ("rules_file", "rule f(c):\n  return c.n * 1.5\n")),
            _decimal_point,
            lambda s: "numbers have no decimals",
            lambda s: 'write a fraction with "/" (1/2 is a half, 3/2 one and a half) or a percentage (50%)'),
    Mistake("until outside a round",
            (("rules_file", "rule f(c):\n  let x = 1\n  until c.score <= 0\n"),
             ("rules_file", "round r:\n  step a:\n    pass\n    until true\n")),
            _until_outside_a_round,
            lambda s: '"until" belongs to a round, after its steps',
            lambda s: 'a round repeats until its "until CONDITION" holds, written after its steps at their '
                      'indentation; inside a rule or a step, repeat with "while not CONDITION:"'),
    Mistake("a decimal comma",
            (("rules_file", "var x = 1,5\n"), ("rules_file", "table t:\n  | k | f |\n  | a | x1,5 |\n"),
             ("rules_file", "table t:\n  | k | f |\n  | a | 1,5 |\n"),
             ("encounter_file", "combatant Ana:\n  Arte 60,5%\n"),
             ("encounter_file", "combatant Ana:\n  FUE 14,5\n")),
            _decimal_comma, _decimal_message, _decimal_help),
    Mistake("roll by with nothing after",
            (("rules_file", "rule f(c):\n  return roll 1d6 by\n"),
             ("rules_file", "rule f(c):\n  return roll 1D6 as\n")),
            _by_with_nothing_after,
            lambda s: f'"{_last_word(s)}" needs {NEEDS[_last_word(s)][0]} after it',
            lambda s: NEEDS[_last_word(s)][1]),
    Mistake("roll by after arithmetic",
            (("rules_file", "rule f(c):\n  return roll 1D20 + mod(c.DEX) by c\n"),
             ("rules_file", 'rule f(c):\n  return roll 1D6 + 2 as "luck"\n')),
            _by_after_arithmetic,
            lambda s: f'"{s.tok}" follows the dice right after "roll", not a sum',
            lambda s: f'roll takes one value: to roll the sum, put it in brackets: roll ({_roll_dice(s)}) {s.tok} ...; '
                      f'or roll the dice alone and add after: (roll DICE {s.tok} ...) + ...'),
    Mistake("else if",
            (("rules_file", "rule f(c):\n  if c:\n    pass\n  else if c:\n    pass\n"),),
            _else_if,
            lambda s: 'write "elif", not "else if"',
            lambda s: "elif CONDITION: starts the next branch of an if"),
    Mistake("a round's start after a step",
            (("rules_file", "round r:\n  step a:\n    pass\n  start:\n    pass\n"),),
            _late_start,
            lambda s: "a round's start: comes before its steps",
            lambda s: "move start: and its lines above the round's first step: it runs once, before round 1"),
    Mistake("a card statement without its condition",
            (("rules_file", "rule f(c):\n  remove c 3\n"), ("rules_file", "rule f(c):\n  add c (x)\n"),
             ("rules_file", "rule f(c):\n  receive c\n"), ("rules_file", "rule f(c):\n  add c Heridas 2\n")),
            _card_without_condition,
            lambda s: f'"{_card_op(s)}" needs {_card_slot(s)} here' + (f', not "{s.tok}"' if s.tok.type not in _ENDS else ""),
            _card_help),
)


@lru_cache(maxsize=None)
def _line_words() -> frozenset[str]:
    """The keywords of the grammar: the words a line can start with, and the rest."""
    return frozenset(t.pattern.value for t in lark_parser().terminals
                     if t.pattern.type == "str" and t.pattern.value.isalpha())


def _known_mistake(spot: _Spot, file: str, line: int, col: int, width: int) -> Diagnostic | None:
    for m in MISTAKES:
        where = m.found(spot)
        if where:
            return Diagnostic("E0101", m.message(spot), Span(file, line, where[0], line, where[1]), m.help(spot))
    return None
