"""`grimorio lsp`: the language server (pygls 2), over stdin and stdout.

Diagnostics as you type (the codes, spans and help of `grimorio check`, for
every file of the edition the changed file belongs to, read from the editor's
unsaved buffers), hover, go to definition, completion by context, quick fixes
for every "did you mean", the outline of a file, and formatting. What the
server knows comes from analysis.py and editing.py; this module only speaks the
protocol. Checks run one at a time on a worker thread, a short while after the
last change (a newer change makes an older check's result be dropped), so
hover and completion answer from the last analysis while a big file is checked.
Only documents the client opened are read from the client; nothing is read
for a document it did not open. Importing it needs the optional extra, lsp
(extras.py gives the command that installs it from where grimorio came).
"""
from __future__ import annotations

import asyncio
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from threading import Event

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

from ..._version import version
from ...dsl.diagnostics import Diagnostic, Span, suggestion
from .analysis import (Analysis, analyse, change_text, changes_at, completions, hover_text, locate, lookup, symbols,
                       word_at)
from .editing import completions_at, encounter_outline, outline, quick_fix
from .formatter import format_source
from .lsp_io import BoundedStdinReader, serve_messages

KINDS = {
    "keyword": t.CompletionItemKind.Keyword, "field": t.CompletionItemKind.Field,
    "column": t.CompletionItemKind.Field,
    "outcome": t.CompletionItemKind.EnumMember, "grade": t.CompletionItemKind.EnumMember,
    "key": t.CompletionItemKind.Value, "purpose": t.CompletionItemKind.Text,
    "combatant": t.CompletionItemKind.Variable, "rule": t.CompletionItemKind.Function,
    "action": t.CompletionItemKind.Function, "reaction": t.CompletionItemKind.Function,
    "check": t.CompletionItemKind.Function, "message": t.CompletionItemKind.Function,
    "table": t.CompletionItemKind.Struct, "sheet": t.CompletionItemKind.Class,
    "condition": t.CompletionItemKind.Enum, "outcomes": t.CompletionItemKind.Enum,
    "event": t.CompletionItemKind.Event, "option": t.CompletionItemKind.Constant,
    "var": t.CompletionItemKind.Variable, "edition": t.CompletionItemKind.Module,
    "builtin": t.CompletionItemKind.Function,
}
SYMBOL_KINDS = {
    "rule": t.SymbolKind.Function, "action": t.SymbolKind.Method, "reaction": t.SymbolKind.Method,
    "check": t.SymbolKind.Function, "message": t.SymbolKind.String, "table": t.SymbolKind.Struct,
    "sheet": t.SymbolKind.Class, "condition": t.SymbolKind.Enum, "outcomes": t.SymbolKind.Enum,
    "event": t.SymbolKind.Event, "option": t.SymbolKind.Constant, "var": t.SymbolKind.Variable,
    "tactic": t.SymbolKind.Interface, "round": t.SymbolKind.Namespace, "edition": t.SymbolKind.Module,
    "module": t.SymbolKind.Module, "field": t.SymbolKind.Field, "outcome": t.SymbolKind.EnumMember,
    "grade": t.SymbolKind.EnumMember, "key": t.SymbolKind.Key, "step": t.SymbolKind.Event,
    "combatant": t.SymbolKind.Object,
}
UNITS = {"utf-8": lambda ch: len(ch.encode("utf-8", "surrogatepass")), "utf-32": lambda ch: 1}
DEBOUNCE = 0.15        # seconds a change waits for the next before it is checked


def _clean(text: str) -> str:
    """A client's text with lone surrogates (which no encoding can write) made U+FFFD, one UTF-16 unit
    each as before, so positions stay where the client counts them."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace") if any(
        "\ud800" <= ch <= "\udfff" for ch in text) else text


class GrimorioServer(LanguageServer):
    def __init__(self):
        super().__init__("grimorio", version(), text_document_sync_kind=t.TextDocumentSyncKind.Full)
        self.analyses: dict[str, Analysis] = {}          # by document URI
        self.known: dict[str, tuple] = {}                # last ruleset that loaded, by document URI
        self.published: dict[str, set[str]] = {}         # URIs whose diagnostics an analysis published
        self.generation: dict[str, int] = {}             # by URI: bumped by every change; a check of an older one is dropped
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="grimorio-check")

    # -------------------------------------------------------------- transport
    def start_io(self, stdin=None, stdout=None):
        """As pygls's, reading with the bounded loop of lsp_io.py."""
        from pygls.io_ import StdoutWriter
        self._stop_event = Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        reader = BoundedStdinReader(stdin or sys.stdin.buffer, self.thread_pool)

        def tell(text: str) -> None:
            self.window_log_message(t.LogMessageParams(type=t.MessageType.Warning, message=text))
        try:
            asyncio.run(serve_messages(self._stop_event, reader, self.protocol, tell))
        except BrokenPipeError:
            pass
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.checker.shutdown(wait=False, cancel_futures=True)
            self.shutdown()

    # -------------------------------------------------------------- positions
    def units(self, text: str) -> int:
        """The length of a text in the client's position units (UTF-16 unless it asked otherwise)."""
        encoding = self.workspace.position_encoding or "utf-16"
        count = UNITS.get(getattr(encoding, "value", encoding))
        return sum(count(ch) for ch in text) if count else len(text.encode("utf-16-le", "surrogatepass")) // 2

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

    def column(self, text: str, units: int) -> int:
        """A client's position in a line, in characters."""
        col, used = 0, 0
        while col < len(text) and used < units:
            used += self.units(text[col])
            col += 1
        return col

    def document(self, uri: str):
        """An open document, or None: a document the client did not open is never read from disk."""
        return self.workspace.text_documents.get(uri)

    def cursor(self, uri: str, pos: t.Position) -> tuple[str, int] | None:
        """The line at a client position, and the position's column in characters."""
        doc = self.document(uri)
        if doc is None:
            return None
        lines = _clean(doc.source).split("\n")
        text = lines[pos.line] if 0 <= pos.line < len(lines) else ""
        return text, self.column(text, pos.character)

    # -------------------------------------------------------------- diagnostics
    def diagnostic(self, d: Diagnostic, text: str | None) -> t.Diagnostic:
        message = d.message + (f"\nhelp: {d.help}" if d.help else "")
        severity = t.DiagnosticSeverity.Warning if d.severity == "warning" else t.DiagnosticSeverity.Error
        fix = suggestion(d.help)
        return t.Diagnostic(range=self.range(d.span, text), message=message, code=d.code, source="grimorio",
                            severity=severity, data={"suggestion": fix} if fix else None)

    def schedule(self, uri: str, delay: float = DEBOUNCE) -> None:
        """Check a document a while from now; a newer change to it replaces this check."""
        self.generation[uri] = generation = self.generation.get(uri, 0) + 1
        old = self.pending.pop(uri, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self.pending[uri] = loop.call_later(delay, lambda: loop.create_task(self.check(uri, generation)))

    async def check(self, uri: str, generation: int, others: bool = True) -> None:
        self.pending.pop(uri, None)
        doc = self.document(uri)
        if doc is None or generation != self.generation.get(uri):
            return
        path = Path(doc.path).resolve()
        unsaved = {str(Path(d.path).resolve()): _clean(d.source) for d in self.workspace.text_documents.values()}
        try:
            a = await asyncio.get_running_loop().run_in_executor(self.checker, analyse, path, _clean(doc.source), unsaved)
        except Exception as exc:      # a bug of grimorio's: said, never a silent end of the checks
            self.window_log_message(t.LogMessageParams(
                type=t.MessageType.Error, message=f"internal error while checking {doc.path}: {exc!r} (E0003)"))
            return
        if generation != self.generation.get(uri) or self.document(uri) is None:
            return                    # a newer change came meanwhile: its own check follows
        self.publish(uri, a, unsaved)
        if others:
            # Other open files that read this one (an encounter on this edition, an edition that extends it).
            for other, b in list(self.analyses.items()):
                if other != uri and self.document(other) is not None and path in b.files:
                    self.schedule(other, 0)

    def publish(self, uri: str, a: Analysis, unsaved: dict[str, str]) -> None:
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

    # -------------------------------------------------------------- what the cursor points at
    def visible(self, uri: str):
        a = self.analyses.get(uri)
        if a is None or self.document(uri) is None:
            return None, [], None
        ruleset, sources = self.known.get(uri, (None, a.sources))
        return a, symbols(a.ruleset or ruleset, a.decls), (a.sources if a.ruleset else sources)

    def pointed(self, uri: str, pos: t.Position):
        a, syms, sources = self.visible(uri)
        at = self.cursor(uri, pos)
        if a is None or at is None:
            return [], sources
        word = word_at(*at)
        return (lookup(word, syms) if word else []), sources


server = GrimorioServer()


@server.feature(t.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: GrimorioServer, params: t.DidOpenTextDocumentParams):
    ls.schedule(params.text_document.uri, 0)


@server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: GrimorioServer, params: t.DidChangeTextDocumentParams):
    ls.schedule(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: GrimorioServer, params: t.DidSaveTextDocumentParams):
    ls.schedule(params.text_document.uri, 0)


@server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: GrimorioServer, params: t.DidCloseTextDocumentParams):
    """Forget the file's analysis and its diagnostics; the open files that read it now read the disk."""
    uri = params.text_document.uri
    ls.generation[uri] = ls.generation.get(uri, 0) + 1          # a check under way is dropped
    pending = ls.pending.pop(uri, None)
    if pending is not None:
        pending.cancel()
    closed = ls.analyses.pop(uri, None)
    ls.known.pop(uri, None)
    for stale in ls.published.pop(uri, set()):
        ls.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=stale, diagnostics=[]))
    if closed is not None:
        for other, b in list(ls.analyses.items()):
            if other != uri and ls.document(other) is not None and closed.path in b.files:
                ls.schedule(other, 0)


@server.feature(t.TEXT_DOCUMENT_HOVER)
def hover(ls: GrimorioServer, params: t.HoverParams):
    found, sources = ls.pointed(params.text_document.uri, params.position)
    a = ls.analyses.get(params.text_document.uri)
    changed = changes_at(a, params.position.line + 1) if a is not None and found is not None else []
    if not found and not changed:
        return None
    parts = [change_text(c, sources) for c in changed[:3]] + [hover_text(s, sources) for s in found[:3]]
    text = "\n\n---\n\n".join(parts)
    return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=_clean(text)))


@server.feature(t.TEXT_DOCUMENT_DEFINITION)
def definition(ls: GrimorioServer, params: t.DefinitionParams):
    found, sources = ls.pointed(params.text_document.uri, params.position)
    out = []
    for s in found:
        path = locate(s.span.file)
        if path is not None:
            out.append(t.Location(uri=from_fs_path(str(path)), range=ls.range(s.span, sources.texts.get(s.span.file))))
    return out or None


@server.feature(t.TEXT_DOCUMENT_COMPLETION, t.CompletionOptions(trigger_characters=[".", "[", '"']))
def completion(ls: GrimorioServer, params: t.CompletionParams):
    a, _, _ = ls.visible(params.text_document.uri)
    at = ls.cursor(params.text_document.uri, params.position)
    if a is None or at is None:
        return None
    line, col = at
    ruleset = a.ruleset or ls.known.get(params.text_document.uri, (None,))[0]
    words = completions_at(line[:col], ruleset, a.decls, completions(a, ruleset), a.path.suffix == ".enc")
    items = [t.CompletionItem(label=word, kind=KINDS.get(kinds[0], t.CompletionItemKind.Text), detail=", ".join(kinds))
             for word, kinds in sorted(words.items())]
    return t.CompletionList(is_incomplete=False, items=items)


@server.feature(t.TEXT_DOCUMENT_CODE_ACTION,
                t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix]))
def code_action(ls: GrimorioServer, params: t.CodeActionParams):
    """A quick fix for every diagnostic in the range whose help suggests a name ("did you mean")."""
    doc = ls.document(params.text_document.uri)
    if doc is None:
        return None
    lines = _clean(doc.source).split("\n")
    actions = []
    for d in params.context.diagnostics:
        fix_to = (d.data or {}).get("suggestion") if isinstance(d.data, dict) else None
        fix_to = fix_to or suggestion(d.message.partition("\nhelp: ")[2])
        if not fix_to:
            continue
        start, end = d.range.start, d.range.end
        line = lines[start.line] if 0 <= start.line < len(lines) else ""
        end_text = lines[end.line] if 0 <= end.line < len(lines) else ""
        fix = quick_fix(lines, start.line, ls.column(line, start.character), end.line,
                        ls.column(end_text, end.character), fix_to)
        if fix is None:
            continue
        edit = t.TextEdit(range=t.Range(start=t.Position(line=fix.line, character=ls.units(line[:fix.start])),
                                        end=t.Position(line=fix.line, character=ls.units(line[:fix.end]))),
                          new_text=fix.new_text)
        actions.append(t.CodeAction(title=fix.title, kind=t.CodeActionKind.QuickFix, diagnostics=[d],
                                    is_preferred=True,
                                    edit=t.WorkspaceEdit(changes={params.text_document.uri: [edit]})))
    return actions or None


@server.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: GrimorioServer, params: t.DocumentSymbolParams):
    a = ls.analyses.get(params.text_document.uri)
    doc = ls.document(params.text_document.uri)
    if a is None or doc is None:
        return None
    text = _clean(doc.source)
    parts = encounter_outline(a.encounter) if a.encounter is not None else outline(a.decls)

    def symbol(o) -> t.DocumentSymbol:
        where = ls.range(o.span, text)
        head = t.Range(start=where.start, end=where.start if where.end.line > where.start.line else where.end)
        return t.DocumentSymbol(name=o.name, kind=SYMBOL_KINDS.get(o.kind, t.SymbolKind.Variable), detail=o.kind,
                                range=where, selection_range=head, children=[symbol(c) for c in o.children] or None)
    return [symbol(o) for o in parts]


@server.feature(t.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: GrimorioServer, params: t.DocumentFormattingParams):
    doc = ls.document(params.text_document.uri)
    if doc is None:
        return None
    source = _clean(doc.source)
    result, diags = format_source(source.replace("\r\n", "\n"), str(Path(doc.path)))
    if result is None or result == source:
        return []
    lines = source.split("\n")
    end = t.Position(line=len(lines) - 1, character=ls.units(lines[-1]))
    return [t.TextEdit(range=t.Range(start=t.Position(line=0, character=0), end=end), new_text=result)]


def serve() -> int:
    server.start_io()
    # The protocol's exit code: 0 after a shutdown request, 1 without. The server has closed stdout,
    # so leave now rather than return to a command line that would flush it.
    raise SystemExit(0 if getattr(server.protocol, "_shutdown", False) else 1)
