// The grimorio extension: highlighting (the TextMate grammar) and a client of `grimorio lsp`, the
// language server, which gives diagnostics, hover, go to definition, completion, quick fixes,
// the outline and formatting. The server is the grimorio command (setting grimorio.server.command;
// a virtual environment's bin/grimorio, for example), started over standard input and output.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function serverOptions(settings) {
  const command = settings.get("server.command", "grimorio");
  const args = settings.get("server.args", ["lsp"]);
  return { command, args, transport: TransportKind.stdio };    // the client adds --stdio
}

function activate(context) {
  const settings = vscode.workspace.getConfiguration("grimorio");
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "grimorio" }, { scheme: "untitled", language: "grimorio" }],
  };
  client = new LanguageClient("grimorio", "grimorio", serverOptions(settings), clientOptions);
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, serverOptions };
