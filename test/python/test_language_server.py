"""tl-language-server driven as an editor drives it: a client over stdio
with Content-Length framing (not the --lit-test mode), through an edit
session: open, hover, an edit that does not parse, hover and definitions
from the last version that did, the fix, the outline, a CFDlang document,
close, shutdown and exit. Positions are UTF-16 code units, as the client
offers only that encoding, and the document has a non-ASCII comment."""

import json
import os
import queue
import subprocess
import threading

import pytest

BIN_DIR = os.environ.get(
    "TENSORLANG_BIN_DIR",
    os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin"))


class Client:
    """A minimal LSP client: requests, notifications, and the messages the
    server sends, read by a thread so that no read blocks the test."""

    def __init__(self):
        self.process = subprocess.Popen(
            [os.path.join(BIN_DIR, "tl-language-server")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        self.messages = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(stream.read(length)))

    def send(self, message):
        body = json.dumps(dict(message, jsonrpc="2.0")).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body)
                                 + body)
        self.process.stdin.flush()

    def notify(self, method, params=None):
        self.send({"method": method, "params": params or {}})

    def request(self, method, params=None):
        ident = self.next_id
        self.next_id += 1
        self.send({"id": ident, "method": method, "params": params or {}})
        return self.wait(lambda m: m.get("id") == ident)["result"]

    def wait(self, matches, timeout=30):
        """The next message `matches` accepts (others are dropped)."""
        while True:
            message = self.messages.get(timeout=timeout)
            if matches(message):
                return message

    def diagnostics(self, uri):
        return self.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri)["params"]


GOOD = ("var input A : [2 3]\nvar input B : [3 2]\nvar output C : [2 2]\n"
        "/* \u00fc */ C = A # B . [[2 3]]\n")
BROKEN = GOOD.replace("A # B", "A # # B")
FIXED = GOOD.replace("/*", "var output D : [2 2]\n/*") + "D = C * 2\n"


def position(text, line, needle):
    """The UTF-16 position of `needle` on `line` of `text`."""
    column = text.splitlines()[line].index(needle)
    prefix = text.splitlines()[line][:column]
    return {"line": line,
            "character": len(prefix.encode("utf-16-le")) // 2}


@pytest.fixture
def client():
    client = Client()
    yield client
    if client.process.poll() is None:
        client.process.kill()
    client.process.wait(timeout=30)


def test_edit_session(client):
    reply = client.request("initialize", {
        "processId": os.getpid(), "rootUri": None,
        "capabilities": {"general": {"positionEncodings": ["utf-16"]}}})
    assert reply["capabilities"]["positionEncoding"] == "utf-16"
    assert reply["capabilities"]["hoverProvider"]
    client.notify("initialized")

    uri = "file:///tmp/session.tl"
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "tensorlang", "version": 1, "text": GOOD}})
    assert client.diagnostics(uri)["diagnostics"] == []
    at_a = position(GOOD, 3, "A #")
    assert at_a["character"] == 12   # (13 bytes: the 'ü' is two)
    hover = client.request("textDocument/hover", {
        "textDocument": {"uri": uri}, "position": at_a})
    assert hover["contents"]["value"].startswith("`[2 3]`")
    assert hover["range"]["start"] == at_a

    # An edit that does not parse: its diagnostic, in UTF-16 columns; hover
    # and definitions still answer, from the version that parsed.
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"text": BROKEN}]})
    published = client.diagnostics(uri)
    assert published["version"] == 2
    [error] = published["diagnostics"]
    assert error["severity"] == 1
    assert error["range"]["start"] == position(BROKEN, 3, "# B")
    hover = client.request("textDocument/hover", {
        "textDocument": {"uri": uri}, "position": at_a})
    assert hover is not None and hover["contents"]["value"].startswith(
        "`[2 3]`")
    [definition] = client.request("textDocument/definition", {
        "textDocument": {"uri": uri}, "position": at_a})
    assert definition["range"]["start"] == {"line": 0, "character": 10}

    # The fix, with a new variable: the outline has it.
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 3},
        "contentChanges": [{"text": FIXED}]})
    assert client.diagnostics(uri)["diagnostics"] == []
    symbols = client.request("textDocument/documentSymbol", {
        "textDocument": {"uri": uri}})
    assert [s["name"] for s in symbols] == ["A", "B", "C", "D", "C = ...",
                                            "D = ..."]

    # A CFDlang document is read as CFDlang (0-based contractions).
    cfd = "file:///tmp/session.cfd"
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": cfd, "languageId": "cfdlang", "version": 1,
        "text": GOOD.replace("[[2 3]]", "[[1 2]]")}})
    assert client.diagnostics(cfd)["diagnostics"] == []

    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri)["diagnostics"] == []
    assert client.request("shutdown") is None
    client.notify("exit")
    assert client.process.wait(timeout=30) == 0
