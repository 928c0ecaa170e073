"""A Pygments lexer for rules and encounters, registered as "grimorio".

pyproject's `pygments.lexers` entry point makes it available to everything that
uses Pygments by name: Sphinx and MkDocs code blocks, `rich.syntax.Syntax`,
`pygmentize -l grimorio`. Its keywords are the groups of dsl/syntax/keywords.py.
"""
from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, include
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Whitespace

from ...dsl.syntax.keywords import KEYWORDS, NAMED, word_pattern

ROLES = {
    "declaration": Keyword.Declaration, "control": Keyword, "statement": Keyword.Reserved,
    "type": Keyword.Type, "constant": Keyword.Constant, "operator": Operator.Word, "layer": Keyword.Pseudo,
}
NAME = r"[^\W\d]\w*"


class GrimorioLexer(RegexLexer):
    name = "grimorio"
    aliases = ["grimorio", "grimorio-encounter", "grimorio-fragment"]
    filenames = ["*.rules", "*.enc"]
    mimetypes = ["text/x-grimorio"]
    url = "https://github.com/grimorio"

    tokens = {
        "root": [
            (r"[ \t\f]+", Whitespace),
            (r"\n", Whitespace),
            (r"#.*$", Comment.Single),
            (r'"', String.Double, "string"),
            (word_pattern(NAMED).replace("(?:", "(", 1) + r"([ \t]+)(" + NAME + ")",
             bygroups(Keyword.Declaration, Whitespace, Name.Function)),
            include("keywords"),
            (r"(?<![\w])[0-9]*[dD][0-9]+(?![\w])", Number.Other),
            (r"[0-9]+%", Number),
            (r"[0-9]+", Number.Integer),
            (r"(?<=\|)[-: ]*-[-: ]*(?=\|)", Punctuation),
            (r"==|!=|<=|>=|\.\.|[-+*/%<>=]", Operator),
            (r"[()\[\]{},:;.|]", Punctuation),
            (NAME, Name),
            (r".", Name),
        ],
        "keywords": [(word_pattern(words), ROLES[group]) for group, words in KEYWORDS.items()],
        "string": [
            (r'\\.', String.Escape),
            (r"\{[^}\"\n]*\}", String.Interpol),
            (r'[^"\\{\n]+', String.Double),
            (r"\{", String.Double),
            (r'"', String.Double, "#pop"),
            (r"\n", Whitespace, "#pop"),
        ],
    }
