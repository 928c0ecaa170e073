"""`grimorio lsp` end to end: a client speaks JSON-RPC to the server process over stdio."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from queue import Empty, Queue

import pytest

from grimorio.interpreter.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 30


class Client:
    """A minimal LSP client: Content-Length framed JSON-RPC over the server's stdin and stdout."""

    def __init__(self, cwd: Path):
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen([sys.executable, "-m", "grimorio.interpreter.tools.cli", "lsp"], cwd=cwd, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox: Queue = Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                key, _, value = line.decode("ascii").partition(":")
                headers[key.strip().lower()] = value.strip()
            self.inbox.put(json.loads(out.read(int(headers["content-length"])).decode("utf-8")))

    def send(self, message: dict):
        body = json.dumps(message).encode("utf-8")
        self.proc.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: dict):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        reply = self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)
        assert "error" not in reply, reply
        return reply["result"]

    def wait(self, wanted, seen=None):
        while True:
            try:
                message = self.inbox.get(timeout=TIMEOUT)
            except Empty:
                self.proc.kill()                  # its stderr can be read to the end only once it has stopped
                raise AssertionError(f"no reply from the server; stderr: {self.proc.stderr.read().decode()[-2000:]}")
            if seen is not None:
                seen.append(message)
            if wanted(message):
                return message

    def diagnostics(self, uri: str, some: bool = False) -> list[dict]:
        """The next diagnostics published for a file (the next non-empty ones, with `some`)."""
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri and (m["params"]["diagnostics"] or not some)
                         )["params"]["diagnostics"]


def uri(path: Path) -> str:
    return path.resolve().as_uri()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A copy of a small frozen edition (tests/lsp_fixture: the tests point at its lines), so the
    tests edit files freely and do not follow the bundled ruleset as it grows."""
    root = tmp_path_factory.mktemp("lsp")
    shutil.copytree(ROOT / "tests" / "lsp_fixture" / "aquelarre", root / "aquelarre")
    return root


@pytest.fixture(scope="module")
def server(workspace):
    """One server for the module (it takes seconds to start); each test closes the files it opens."""
    c = Client(workspace)
    result = c.request("initialize", {"processId": os.getpid(), "rootUri": uri(workspace), "capabilities": {}})
    caps = result["capabilities"]
    assert caps["hoverProvider"] and caps["definitionProvider"] and caps["documentFormattingProvider"]
    assert "completionProvider" in caps
    c.notify("initialized", {})
    yield c
    c.request("shutdown", None)
    c.notify("exit", None)
    assert c.proc.wait(timeout=TIMEOUT) == 0


@pytest.fixture
def client(server):
    server.opened = []
    yield server
    for path in server.opened:
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri(path)}})


def open_doc(client: Client, path: Path, text: str | None = None):
    text = path.read_text(encoding="utf-8") if text is None else text
    client.opened.append(path)
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri(path), "languageId": "grimorio", "version": 1, "text": text}})


def change(client: Client, path: Path, text: str, version: int = 2):
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri(path), "version": version},
                                             "contentChanges": [{"text": text}]})


@pytest.mark.slow
def test_diagnostics_hover_definition_completion_formatting(client, workspace):
    acciones = workspace / "aquelarre" / "acciones.rules"
    broken = acciones.read_text(encoding="utf-8").replace("requires en_pie(objetivo)", "requires en_pei(objetivo)")
    open_doc(client, acciones, broken)
    [d] = client.diagnostics(uri(acciones))
    # The same code, place and help as `grimorio check` (line 7, column 12, 1-based there).
    assert d["code"] == "E0201" and d["source"] == "grimorio" and d["severity"] == 1
    assert d["range"] == {"start": {"line": 6, "character": 11}, "end": {"line": 6, "character": 17}}
    assert d["message"] == 'unknown rule "en_pei"\nhelp: did you mean "en_pie"?'

    change(client, acciones, broken.replace("en_pei", "en_pie"))
    assert client.diagnostics(uri(acciones)) == []

    # Hover over "en_pie" in "  requires en_pie(yo)": its text, from another file of the edition.
    lines = acciones.read_text(encoding="utf-8").split("\n")
    line = lines.index("  requires en_pie(yo)")
    pos = {"line": line, "character": 13}
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri(acciones)}, "position": pos})
    value = hover["contents"]["value"]
    assert "rule en_pie(c):" in value and "# En pie: ni inconsciente ni muerto." in value
    assert "edition **aquelarre**" in value and "estados.rules:6" in value

    [loc] = client.request("textDocument/definition", {"textDocument": {"uri": uri(acciones)}, "position": pos})
    assert loc["uri"] == uri(workspace / "aquelarre" / "estados.rules")
    assert loc["range"]["start"] == {"line": 5, "character": 0}

    # A sheet field ("arma" in "yo.arma.para") goes to the sheet.
    [loc] = client.request("textDocument/definition", {"textDocument": {"uri": uri(acciones)},
                                                       "position": {"line": lines.index("  requires yo.arma.para"),
                                                                    "character": 15}})
    assert loc["uri"] == uri(workspace / "aquelarre" / "hoja.rules")

    items = client.request("textDocument/completion", {"textDocument": {"uri": uri(acciones)},
                                                       "position": {"line": line, "character": 11}})["items"]
    kinds = {i["label"]: set(i["detail"].split(", ")) for i in items}
    assert kinds["en_pie"] == {"rule"} and kinds["éxito"] == {"outcome"} and kinds["requires"] == {"keyword"}
    assert kinds["ataque"] == {"event", "message", "purpose"} and kinds["iniciativa"] == {"message", "purpose"}
    assert kinds["inconsciente"] == {"condition"} and kinds["directa"] == {"tactic"}
    assert "arma" not in kinds and "Garrote" not in kinds          # fields after a dot, keys in brackets

    # After "yo.": the sheet's fields, and nothing else.
    field_line = lines.index("  requires yo.arma.para")
    items = client.request("textDocument/completion", {"textDocument": {"uri": uri(acciones)},
                                                       "position": {"line": field_line, "character": 14}})["items"]
    assert {i["label"] for i in items} >= {"arma", "pv", "FUE"} and "en_pie" not in {i["label"] for i in items}

    tablas = workspace / "aquelarre" / "tablas.rules"
    messy = tablas.read_text(encoding="utf-8").replace("| Daga             |", "|Daga|")
    open_doc(client, tablas, messy)
    assert client.diagnostics(uri(tablas)) == []
    [edit] = client.request("textDocument/formatting", {"textDocument": {"uri": uri(tablas)},
                                                        "options": {"tabSize": 2, "insertSpaces": True}})
    assert edit["newText"] == tablas.read_text(encoding="utf-8")
    assert edit["range"]["start"] == {"line": 0, "character": 0}


@pytest.mark.slow
def test_a_change_in_an_included_file_rechecks_its_edition_and_encounters(client, workspace):
    folder = workspace / "aquelarre"
    duelo = folder / "duelo.enc"
    open_doc(client, duelo)
    assert client.diagnostics(uri(duelo)) == []
    # Unsaved: the table loses "Garrote"; the encounter that uses it is rechecked with the buffer's text.
    tablas = folder / "tablas.rules"
    text = tablas.read_text(encoding="utf-8")
    open_doc(client, tablas, text)
    assert client.diagnostics(uri(tablas)) == []
    seen: list = []
    change(client, tablas, text.replace("| Garrote          |", "| Garrota          |"))
    diags = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                        and m["params"]["uri"] == uri(duelo) and m["params"]["diagnostics"], seen)
    [d] = diags["params"]["diagnostics"]
    assert d["code"] == "E0201" and 'did you mean "Garrota"?' in d["message"]
    assert tablas.read_text(encoding="utf-8") == text              # nothing was written to disk
    # Closed without saving: the encounter is rechecked with the file on disk.
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri(tablas)}})
    client.opened.remove(tablas)
    assert client.diagnostics(uri(duelo)) == []

    open_doc(client, tablas, text)
    # A syntax error in an included file shows in that file, found through the edition.
    change(client, tablas, text.replace("table armaduras:", "table armaduras"), version=3)
    [d] = client.diagnostics(uri(tablas), some=True)
    assert d["code"].startswith("E01")


@pytest.mark.slow
def test_hover_and_definition_reach_into_the_extended_edition(client, workspace):
    casa = workspace / "casa" / "casa.rules"
    casa.parent.mkdir()
    casa.write_text('edition casa:\n  extends aquelarre\n\nrule de_pie(c):\n  return en_pie(c)\n', encoding="utf-8")
    open_doc(client, casa)
    assert client.diagnostics(uri(casa)) == []
    pos = {"line": 4, "character": 12}
    value = client.request("textDocument/hover", {"textDocument": {"uri": uri(casa)}, "position": pos})
    assert "rule en_pie(c):" in value["contents"]["value"] and "edition **aquelarre**" in value["contents"]["value"]
    [loc] = client.request("textDocument/definition", {"textDocument": {"uri": uri(casa)}, "position": pos})
    assert loc["uri"] == uri(workspace / "aquelarre" / "estados.rules")
    # The edition's own rule is this edition's.
    value = client.request("textDocument/hover", {"textDocument": {"uri": uri(casa)},
                                                  "position": {"line": 3, "character": 6}})
    assert "edition **casa**" in value["contents"]["value"]
    # No declaration under the cursor: no hover.
    assert client.request("textDocument/hover", {"textDocument": {"uri": uri(casa)},
                                                 "position": {"line": 4, "character": 2}}) is None


@pytest.mark.slow
def test_a_wide_character_before_the_error_counts_in_utf16(client, workspace):
    casa = workspace / "casa.rules"
    open_doc(client, casa, 'rule r(x):\n  let s = "𝔊" + * 1\n')
    [d] = client.diagnostics(uri(casa), some=True)
    # grimorio puts the "*" at column 17 (1-based, one character for "𝔊"); in UTF-16 "𝔊" takes two units.
    assert d["code"] == "E0101" and d["range"]["start"] == {"line": 1, "character": 17}


def test_without_the_extra_the_command_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pygls", None)        # import pygls now fails
    monkeypatch.setitem(sys.modules, "lsprotocol", None)   # and pygls's own dependency (a second to import)
    monkeypatch.delitem(sys.modules, "grimorio.interpreter.tools.lsp", raising=False)
    assert main(["lsp"]) == 2
    err = capsys.readouterr().err
    assert "error[E0022]" in err
    # The help installs the extra into this environment, from where grimorio came (here: this checkout).
    assert f"{sys.executable} -m pip install " in err and "[lsp]" in err


@pytest.mark.slow
def test_quick_fixes_symbols_and_context_completion(client, workspace):
    acciones = workspace / "aquelarre" / "acciones.rules"
    broken = acciones.read_text(encoding="utf-8").replace("requires en_pie(objetivo)", "requires en_pei(objetivo)")
    open_doc(client, acciones, broken)
    [d] = client.diagnostics(uri(acciones), some=True)
    assert d["data"] == {"suggestion": "en_pie"}
    [action] = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri(acciones)}, "range": d["range"], "context": {"diagnostics": [d]}})
    assert action["kind"] == "quickfix" and action["title"] == 'change "en_pei" to "en_pie"'
    [edit] = action["edit"]["changes"][uri(acciones)]
    assert edit == {"range": d["range"], "newText": "en_pie"}
    # The outline: every declaration of the file, with its parts.
    tablas = workspace / "aquelarre" / "tablas.rules"
    open_doc(client, tablas)
    assert client.diagnostics(uri(tablas)) == []
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri(tablas)}})
    armas = next(s for s in symbols if s["name"] == "armas")
    assert armas["detail"] == "table" and armas["range"]["start"] == {"line": 3, "character": 0}
    assert "Garrote" in [c["name"] for c in armas["children"]]
    # Inside a table's brackets: its keys.
    text = tablas.read_text(encoding="utf-8") + '\nrule r(c):\n  return armas["'
    change(client, tablas, text)
    client.diagnostics(uri(tablas), some=True)
    items = client.request("textDocument/completion", {"textDocument": {"uri": uri(tablas)}, "position": {
        "line": text.count("\n"), "character": len('  return armas["')}})["items"]
    assert {"Garrote", "Daga"} <= {i["label"] for i in items} and "en_pie" not in {i["label"] for i in items}


def raw_client(workspace, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-m", "grimorio.interpreter.tools.cli", "lsp", *args], cwd=workspace,
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.slow
def test_stdio_flag_and_bad_frames_leave_the_server_answering(workspace):
    """`--stdio` (what VS Code passes) is accepted; a huge, a negative and a malformed Content-Length, a body
    that is no JSON and a request with params that do not fit are each dropped or answered with an error,
    and the server still answers the next request."""
    c = Client.__new__(Client)
    c.proc = raw_client(workspace, "--stdio")
    c.inbox, c.next_id = Queue(), 0
    threading.Thread(target=c._read, daemon=True).start()
    c.request("initialize", {"processId": os.getpid(), "rootUri": uri(workspace), "capabilities": {}})
    c.notify("initialized", {})
    w = c.proc.stdin
    w.write(b"Content-Length: 100000000000\r\n\r\n" + b"x" * 1000)     # a length that lies: never allocated
    w.flush()
    c.proc.stdin.write(b"Content-Length: -5\r\n\r\n{}")
    c.proc.stdin.write(b"Content-Length: abc\r\n\r\n{\"jsonrpc\": \"2.0\"}")
    c.proc.stdin.flush()
    body = b"not json at all"
    c.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    c.proc.stdin.flush()
    c.next_id += 1
    c.send({"jsonrpc": "2.0", "id": c.next_id, "method": "textDocument/hover", "params": {"nonsense": 1}})
    reply = c.wait(lambda m: m.get("id") == c.next_id)
    assert reply["error"]["code"] == -32602
    c.proc.kill()
    c.proc.wait(timeout=TIMEOUT)


@pytest.mark.slow
def test_a_huge_content_length_is_skipped_and_the_server_goes_on(workspace):
    c = Client.__new__(Client)
    c.proc = raw_client(workspace)
    c.inbox, c.next_id = Queue(), 0
    threading.Thread(target=c._read, daemon=True).start()
    c.request("initialize", {"processId": os.getpid(), "rootUri": uri(workspace), "capabilities": {}})
    body = b"y" * (65 * 1024 * 1024)
    c.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body))
    c.proc.stdin.write(body)
    c.proc.stdin.flush()
    log = c.wait(lambda m: m.get("method") == "window/logMessage")
    assert "skipped" in log["params"]["message"] and "limit" in log["params"]["message"]
    assert c.request("shutdown", None) is None
    c.notify("exit", None)
    assert c.proc.wait(timeout=TIMEOUT) == 0


@pytest.mark.slow
def test_unopened_documents_are_never_read_and_lone_surrogates_are_harmless(client, workspace):
    fifo = workspace / "tubo.rules"
    os.mkfifo(fifo)
    # A hover on a document the client never opened: no answer from disk (a FIFO would block for good).
    assert client.request("textDocument/hover", {"textDocument": {"uri": uri(fifo)},
                                                 "position": {"line": 0, "character": 0}}) is None
    casa = workspace / "surrogate.rules"
    open_doc(client, casa, 'rule r(x):\n  return "\ud800" + x\n')
    assert [d["code"] for d in client.diagnostics(uri(casa))] == ["W0323"]     # a file of no edition: said
    assert client.request("textDocument/hover", {"textDocument": {"uri": uri(casa)},
                                                 "position": {"line": 1, "character": 14}}) is None


@pytest.mark.slow
def test_quick_edits_are_checked_once_the_typing_stops(client, workspace):
    """Twenty changes in a row: the last state is the one checked, and a hover asked meanwhile answers."""
    acciones = workspace / "aquelarre" / "acciones.rules"
    text = acciones.read_text(encoding="utf-8")
    open_doc(client, acciones, text)
    assert client.diagnostics(uri(acciones)) == []
    seen: list = []
    for version in range(2, 22):
        change(client, acciones, text.replace("requires en_pie(objetivo)", f"requires en_pie{version}(objetivo)"),
               version)
    line = text.split("\n").index("  requires en_pie(yo)")
    assert client.request("textDocument/hover", {"textDocument": {"uri": uri(acciones)},
                                                 "position": {"line": line, "character": 13}}) is not None
    [d] = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == uri(acciones) and m["params"]["diagnostics"], seen)["params"]["diagnostics"]
    published = [m for m in seen if m.get("method") == "textDocument/publishDiagnostics"
                 and m["params"]["uri"] == uri(acciones)]
    assert "en_pie21" in d["message"]                 # the last state
    assert len(published) < 5                          # not one check per change


@pytest.mark.slow
def test_a_plain_house_file_is_checked_over_its_edition_and_hover_names_what_it_replaces(client, workspace):
    folder = workspace / "reglas_casa"
    folder.mkdir()
    house = folder / "quinto.rules"
    text = ("# Crítico hasta la quinta parte.\nextends aquelarre\n"
            "replace row 1 of check porcentaje:\n  | <= ceil(objetivo / 5) | crítico |\n")
    house.write_text(text, encoding="utf-8")
    open_doc(client, house)
    assert client.diagnostics(uri(house)) == []
    value = client.request("textDocument/hover", {"textDocument": {"uri": uri(house)},
                                                  "position": {"line": 3, "character": 4}})["contents"]["value"]
    assert 'house rules quinto' in value and 'replaces row 1 of check "porcentaje"' in value
    assert "tiradas.rules:9" in value and "check porcentaje(objetivo) rolls tirada = d100:" in value
    # A misspelled name in the house file: its diagnostic, with the quick fix, at the designer's line.
    change(client, house, text.replace("porcentaje", "porcentage"))
    [d] = client.diagnostics(uri(house), some=True)
    assert d["range"]["start"]["line"] == 2 and d["data"] == {"suggestion": "porcentaje"}
    # Without its extends line the file cannot be checked: it says so instead of ok.
    change(client, house, text.replace("extends aquelarre\n", ""), version=3)
    [d] = client.diagnostics(uri(house), some=True)
    assert d["code"] == "E0323" and d["severity"] == 1
