// The extension starts `grimorio lsp` over stdio for grimorio files: checked with stand-ins for the
// editor's API and the client library (no VS Code is needed to run it).
const test = require("node:test");
const assert = require("node:assert");
const Module = require("module");

const started = [];
const fakes = {
  vscode: {
    workspace: { getConfiguration: () => ({ get: (key, fallback) => fallback }) },
  },
  "vscode-languageclient/node": {
    TransportKind: { stdio: 0 },
    LanguageClient: class {
      constructor(id, name, server, client) {
        Object.assign(this, { id, name, server, client });
      }
      start() {
        started.push(this);
        return Promise.resolve();
      }
      stop() {}
      dispose() {}
    },
  },
};
const load = Module._load;
Module._load = function (request, parent, isMain) {
  return request in fakes ? fakes[request] : load.call(this, request, parent, isMain);
};

test("activating starts the grimorio language server over stdio", async () => {
  const extension = require("../extension.js");
  const context = { subscriptions: [] };
  await extension.activate(context);
  assert.strictEqual(started.length, 1);
  const [client] = started;
  assert.deepStrictEqual(client.server, { command: "grimorio", args: ["lsp"], transport: 0 });
  assert.deepStrictEqual(client.client.documentSelector[0], { scheme: "file", language: "grimorio" });
  assert.strictEqual(context.subscriptions[0], client);
});
