// Starts tl-language-server for .tl documents: diagnostics on every change,
// types on hover, go to definition, the outline (document symbols).
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const settings = vscode.workspace.getConfiguration("tensorlang");
  const server = {
    command: settings.get("server.path") || "tl-language-server",
    args: settings.get("server.arguments") || [],
  };
  client = new LanguageClient(
    "tensorlang",
    "TensorLang",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "tensorlang" }] }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
