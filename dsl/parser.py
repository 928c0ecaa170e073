"""Text to Lark syntax trees, with designer-worded syntax errors.

A file is cut into top-level chunks (a line that starts at column 0 begins
a chunk) and each chunk is parsed on its own, so one mistake does not hide
the errors of the declarations after it.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter

from .diagnostics import Diagnostic, GrimorioError, Span

# Words a designer understands, for the grammar's terminals.
TOKEN_WORDS = {
    "NAME": "a name", "INT": "a number", "PERCENT": "a percentage", "STRING": "a quoted text",
    "DICE": "dice such as 1D10", "TABLE_ROW": "a table row", "_NL": "the end of the line",
    "_INDENT": "an indented block", "_DEDENT": "the end of the block", "$END": "the end of the file",
    "DESC": '"desc"', "POLICY": '"first" or "all"', "DICE_MODE": '"strict"',
    "LPAR": '"("', "RPAR": '")"', "LSQB": '"["', "RSQB": '"]"', "LBRACE": '"{"', "RBRACE": '"}"',
    "COLON": '":"', "COMMA": '","', "DOT": '"."', "EQUAL": '"="', "SEMICOLON": '";"',
    "PLUS": '"+"', "MINUS": '"-"', "STAR": '"*"', "SLASH": '"/"', "PERCENT_SIGN": '"%"',
    "LESSTHAN": '"<"', "MORETHAN": '">"', "__ANON_0": '".."',
}


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
        while indent < self.indent_level[-1]:
            self.indent_level.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)
        if indent != self.indent_level[-1]:
            raise _BadDedent(token, indent, self.indent_level[-1])

    def _process(self, stream):
        token = None
        for token in stream:
            if token.type == self.NL_type:
                yield from self.handle_NL(token)
            else:
                yield token
            if token.type in self.OPEN_PAREN_types:
                self.paren_level += 1
            elif token.type in self.CLOSE_PAREN_types:
                self.paren_level = max(0, self.paren_level - 1)
        # A file that does not end with a newline still closes its blocks.
        if token is not None and token.type != self.NL_type and self.paren_level == 0:
            yield Token.new_borrow_pos(self.NL_type, "\n", token)
        while len(self.indent_level) > 1:
            self.indent_level.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, "", token) if token else Token(self.DEDENT_type, "")


class _BadDedent(Exception):
    def __init__(self, token, got, want):
        self.token, self.got, self.want = token, got, want


START = ["rules_file", "encounter_file", "cell_tests", "cell_value", "cell_stmts"]


@lru_cache(maxsize=None)
def grammar_text() -> str:
    return resources.files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def lark_parser(strict: bool = False) -> Lark:
    return Lark(grammar_text(), parser="lalr", lexer="contextual", postlex=_Indenter(),
                start=START, propagate_positions=True, maybe_placeholders=True, strict=strict)


@lru_cache(maxsize=None)
def _cell_parser() -> Lark:
    # Cells are one line: no indentation handling needed.
    return Lark(grammar_text(), parser="lalr", lexer="contextual", start=START[2:],
                propagate_positions=True, maybe_placeholders=True)


def chunks(text: str) -> list[tuple[int, str]]:
    """Top-level chunks as (first line index, text)."""
    lines = text.split("\n")
    starts = [i for i, ln in enumerate(lines)
              if ln[:1] not in ("", " ", "\t", "#", "|", "\r")]
    if not starts:
        return []
    out = []
    for n, s in enumerate(starts):
        e = starts[n + 1] if n + 1 < len(starts) else len(lines)
        out.append((s, "\n".join(lines[s:e])))
    return out


def parse_text(text: str, file: str, start: str) -> tuple[list[Tree], list[Diagnostic]]:
    """Parse a whole file; returns the trees of the chunks that parsed, and the errors."""
    parser = lark_parser()
    trees, diags = [], []
    first_col0 = next((i for i, ln in enumerate(text.split("\n"))
                       if ln.strip() and not ln.lstrip().startswith("#")), None)
    if first_col0 is not None and text.split("\n")[first_col0][:1] in (" ", "\t", "|"):
        ln = text.split("\n")[first_col0]
        col = len(ln) - len(ln.lstrip()) + 1
        diags.append(Diagnostic("E0103", "this line is indented but nothing above it opens a block",
                                Span(file, first_col0 + 1, col, first_col0 + 1, len(ln) + 1),
                                "start the file with a declaration at the left margin"))
    for offset, chunk in chunks(text):
        padded = "\n" * offset + chunk + "\n"
        try:
            tree = parser.parse(padded, start=start)
        except (UnexpectedInput, _BadDedent) as exc:
            diags.append(syntax_diagnostic(exc, file, padded))
            continue
        trees.extend(tree.children)
    return trees, diags


def parse_cell(text: str, start: str, file: str, line: int, col: int) -> Tree:
    """Parse one table cell; raise a diagnostic placed at the cell."""
    try:
        return _cell_parser().parse(text, start=start)
    except UnexpectedInput as exc:
        d = syntax_diagnostic(exc, file, text)
        inner = d.span
        span = Span(file, line, col + inner.col - 1, line, col + inner.end_col - 1)
        raise GrimorioError(Diagnostic(d.code, d.message, span, d.help)) from None


def _describe(tok) -> str:
    if tok is None or tok.type == "$END":
        return "the end of the file"
    if tok.type == "_NL":
        return "the end of the line"
    if tok.type in ("_INDENT",):
        return "an indented block"
    if tok.type in ("_DEDENT",):
        return "the end of the block"
    return f'"{str(tok)}"'


def _expected(names) -> str:
    words = sorted({TOKEN_WORDS.get(n, _literal_word(n)) for n in names if not n.startswith("__ANON") or n in TOKEN_WORDS})
    if len(words) > 6:
        words = words[:6] + ["..."]
    return ", ".join(words)


def _literal_word(name: str) -> str:
    # Keyword terminals are named by their text in upper case.
    return f'"{name.lower()}"'


def syntax_diagnostic(exc, file: str, text: str) -> Diagnostic:
    lines = text.split("\n")
    if isinstance(exc, _BadDedent):
        tok = exc.token
        line = tok.end_line or tok.line
        return Diagnostic("E0103", "this line's indentation matches no enclosing block",
                          Span(file, line, 1, line, exc.got + 1),
                          f"indent it by {exc.want} spaces, like the lines of the block it belongs to")
    if isinstance(exc, UnexpectedCharacters):
        line, col = exc.line, exc.column
        ch = lines[line - 1][col - 1:col] if 0 < line <= len(lines) else "?"
        help = None
        if ch == '"':
            help = "a text must open and close its quotes on the same line"
        elif ch == "\t":
            help = "use spaces for indentation"
        return Diagnostic("E0102", f'unexpected character "{ch}"', Span(file, line, col, line, col + 1), help)
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END" or (tok.type == "_DEDENT" and not str(tok)):
            last = max(1, len(text.rstrip("\n").split("\n")))
            lastline = lines[last - 1] if last <= len(lines) else ""
            return Diagnostic("E0104", "the file ends in the middle of a declaration",
                              Span(file, last, len(lastline) + 1, last, len(lastline) + 2),
                              f"expected {_expected(exc.expected)}")
        line, col = tok.line, tok.column
        if tok.type in ("_NL", "_INDENT", "_DEDENT"):
            # Point at the end of the line where something was missing.
            line = tok.line
            src = lines[line - 1] if 0 < line <= len(lines) else ""
            col = len(src.split("#")[0].rstrip()) + 1
            width = 1
        else:
            width = max(1, len(str(tok)))
        help = f"expected {_expected(exc.expected)}" if exc.expected else None
        if tok.type == "_INDENT":
            msg = "unexpected indentation"
            help = "indent a line only inside a block opened by a line ending in \":\""
        else:
            msg = f"unexpected {_describe(tok)}"
        return Diagnostic("E0101", msg, Span(file, line, col, line, col + width), help)
    if isinstance(exc, UnexpectedEOF):
        last = max(1, len(lines))
        return Diagnostic("E0104", "the text ends too early", Span(file, last, 1, last, 2),
                          f"expected {_expected(exc.expected)}")
    return Diagnostic("E0101", "this text cannot be read as rules", Span(file, 1, 1, 1, 2))
