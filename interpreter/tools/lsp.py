"""`grimorio lsp`: the language server (pygls 2), over stdin and stdout.

Diagnostics as you type (the codes, spans and help of `grimorio check`, for
every file of the edition the changed file belongs to, read from the editor's
unsaved buffers), hover, go to definition, completion and formatting. What the
server knows comes from analysis.py; this module only speaks the protocol.
Importing it needs the optional extra, lsp (see extras.py for the command that installs it).
"""
from __future__ import annotations

from pathlib import Path

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

from ..._version import version
from ...dsl.diagnostics import Diagnostic, Span
from .formatter import format_source

from .analysis import Analysis, analyse, completions, hover_text, locate, lookup, symbols, word_at

KINDS = {
    "keyword": t.CompletionItemKind.Keyword, "field": t.CompletionItemKind.Field,
    "outcome": t.CompletionItemKind.EnumMember, "grade": t.CompletionItemKind.EnumMember,
    "key": t.CompletionItemKind.Value, "purpose": t.CompletionItemKind.Text,
    "combatant": t.CompletionItemKind.Variable, "rule": t.CompletionItemKind.Function,
    "action": t.CompletionItemKind.Function, "reaction": t.CompletionItemKind.Function,
    "check": t.CompletionItemKind.Function, "message": t.CompletionItemKind.Function,
    "table": t.CompletionItemKind.Struct, "sheet": t.CompletionItemKind.Class,
    "condition": t.CompletionItemKind.Enum, "outcomes": t.CompletionItemKind.Enum,
    "event": t.CompletionItemKind.Event, "option": t.CompletionItemKind.Constant,
    "var": t.CompletionItemKind.Variable, "edition": t.CompletionItemKind.Module,
}
UNITS = {"utf-8": lambda ch: len(ch.encode("utf-8")), "utf-32": lambda ch: 1}


class GrimorioServer(LanguageServer):
    def __init__(self):
        super().__init__("grimorio", version(), text_document_sync_kind=t.TextDocumentSyncKind.Full)
        self.analyses: dict[str, Analysis] = {}          # by document URI
        self.known: dict[str, tuple] = {}                # last ruleset that loaded, by document URI
        self.published: dict[str, set[str]] = {}         # URIs whose diagnostics an analysis published

    # -------------------------------------------------------------- positions
    def units(self, text: str) -> int:
        """The length of a text in the client's position units (UTF-16 unless it asked otherwise)."""
        encoding = self.workspace.position_encoding or "utf-16"
        count = UNITS.get(getattr(encoding, "value", encoding))
        return sum(count(ch) for ch in text) if count else len(text.encode("utf-16-le")) // 2

    def position(self, lines: list[str], line: int, col: int) -> t.Position:
        """A span's 1-based line and column (in characters) as an LSP position."""
        line = max(0, line - 1)
        text = lines[line] if line < len(lines) else ""
        return t.Position(line=line, character=self.units(text[:max(0, col - 1)]))

    def range(self, span: Span, text: str | None) -> t.Range:
        lines = (text or "").split("\n")
        if span.line < 1:
            return t.Range(start=t.Position(line=0, character=0), end=t.Position(line=0, character=0))
        end_line, end_col = span.end_line or span.line, span.end_col or span.col + 1
        if (end_line, end_col) <= (span.line, span.col):
            end_line, end_col = span.line, span.col + 1
        return t.Range(start=self.position(lines, span.line, span.col), end=self.position(lines, end_line, end_col))

    def cursor(self, uri: str, pos: t.Position) -> tuple[str, int]:
        """The line at a client position, and the position's column in characters."""
        doc = self.workspace.get_text_document(uri)
        lines = doc.source.split("\n")
        text = lines[pos.line] if pos.line < len(lines) else ""
        col, used = 0, 0
        while col < len(text) and used < pos.character:
            used += self.units(text[col])
            col += 1
        return text, col

    # -------------------------------------------------------------- diagnostics
    def diagnostic(self, d: Diagnostic, text: str | None) -> t.Diagnostic:
        message = d.message + (f"\nhelp: {d.help}" if d.help else "")
        severity = t.DiagnosticSeverity.Warning if d.severity == "warning" else t.DiagnosticSeverity.Error
        return t.Diagnostic(range=self.range(d.span, text), message=message, code=d.code, source="grimorio",
                            severity=severity)

    def recheck(self, uri: str, others: bool = True) -> None:
        doc = self.workspace.get_text_document(uri)
        path = Path(doc.path).resolve()
        unsaved = {str(Path(d.path).resolve()): d.source for d in self.workspace.text_documents.values()}
        a = analyse(path, doc.source, unsaved)
        self.analyses[uri] = a
        if a.ruleset is not None:
            self.known[uri] = (a.ruleset, a.sources)
        texts = {locate(f): text for f, text in a.sources.texts.items()}
        published = set()
        for file in a.files:
            file_uri = from_fs_path(str(file))
            diags = [self.diagnostic(d, texts.get(file) or unsaved.get(str(file))) for d in a.diagnostics.get(file, [])]
            self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=file_uri, diagnostics=diags))
            published.add(file_uri)
        for stale in self.published.get(uri, set()) - published:
            self.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=stale, diagnostics=[]))
        self.published[uri] = published
        if others:
            # Other open files that read this one (an encounter on this edition, an edition that extends it).
            for other, b in list(self.analyses.items()):
                if other != uri and other in self.workspace.text_documents and path in b.files:
                    self.recheck(other, others=False)

    # -------------------------------------------------------------- what the cursor points at
    def visible(self, uri: str):
        a = self.analyses.get(uri)
        if a is None:
            return None, [], None
        ruleset, sources = self.known.get(uri, (None, a.sources))
        return a, symbols(a.ruleset or ruleset, a.decls), (a.sources if a.ruleset else sources)

    def pointed(self, uri: str, pos: t.Position):
        a, syms, sources = self.visible(uri)
        line, col = self.cursor(uri, pos)
        word = word_at(line, col)
        return (lookup(word, syms) if word else []), sources


server = GrimorioServer()


@server.feature(t.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: GrimorioServer, params: t.DidOpenTextDocumentParams):
    ls.recheck(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: GrimorioServer, params: t.DidChangeTextDocumentParams):
    ls.recheck(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: GrimorioServer, params: t.DidSaveTextDocumentParams):
    ls.recheck(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: GrimorioServer, params: t.DidCloseTextDocumentParams):
    """Forget the file's analysis and its diagnostics; the open files that read it now read the disk."""
    uri = params.text_document.uri
    closed = ls.analyses.pop(uri, None)
    ls.known.pop(uri, None)
    for stale in ls.published.pop(uri, set()):
        ls.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=stale, diagnostics=[]))
    if closed is not None:
        for other, b in list(ls.analyses.items()):
            if other in ls.workspace.text_documents and closed.path in b.files:
                ls.recheck(other, others=False)


@server.feature(t.TEXT_DOCUMENT_HOVER)
def hover(ls: GrimorioServer, params: t.HoverParams):
    found, sources = ls.pointed(params.text_document.uri, params.position)
    if not found:
        return None
    text = "\n\n---\n\n".join(hover_text(s, sources) for s in found[:3])
    return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=text))


@server.feature(t.TEXT_DOCUMENT_DEFINITION)
def definition(ls: GrimorioServer, params: t.DefinitionParams):
    found, sources = ls.pointed(params.text_document.uri, params.position)
    out = []
    for s in found:
        path = locate(s.span.file)
        if path is not None:
            out.append(t.Location(uri=from_fs_path(str(path)), range=ls.range(s.span, sources.texts.get(s.span.file))))
    return out or None


@server.feature(t.TEXT_DOCUMENT_COMPLETION, t.CompletionOptions(trigger_characters=["."]))
def completion(ls: GrimorioServer, params: t.CompletionParams):
    a, _, _ = ls.visible(params.text_document.uri)
    if a is None:
        return None
    ruleset = a.ruleset or ls.known.get(params.text_document.uri, (None,))[0]
    items = [t.CompletionItem(label=word, kind=KINDS.get(kinds[0], t.CompletionItemKind.Text), detail=", ".join(kinds))
             for word, kinds in sorted(completions(a, ruleset).items())]
    return t.CompletionList(is_incomplete=False, items=items)


@server.feature(t.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: GrimorioServer, params: t.DocumentFormattingParams):
    doc = ls.workspace.get_text_document(params.text_document.uri)
    text = doc.source.replace("\r\n", "\n")
    result, diags = format_source(text, str(Path(doc.path)))
    if result is None or result == doc.source:
        return []
    lines = doc.source.split("\n")
    end = t.Position(line=len(lines) - 1, character=ls.units(lines[-1]))
    return [t.TextEdit(range=t.Range(start=t.Position(line=0, character=0), end=end), new_text=result)]


def serve() -> int:
    server.start_io()
    # The protocol's exit code: 0 after a shutdown request, 1 without. The server has closed stdout,
    # so leave now rather than return to a command line that would flush it.
    raise SystemExit(0 if getattr(server.protocol, "_shutdown", False) else 1)
