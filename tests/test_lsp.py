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
    assert kinds["en_pie"] == {"rule"} and kinds["arma"] == {"field"} and kinds["Garrote"] == {"key"}
    assert kinds["éxito"] == {"outcome"} and kinds["requires"] == {"keyword"}
    assert kinds["ataque"] == {"event", "message", "purpose"} and kinds["iniciativa"] == {"message", "field", "purpose"}
    assert kinds["inconsciente"] == {"condition"} and kinds["directa"] == {"tactic"}

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
