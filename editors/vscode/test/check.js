// Loads extension.js and the locked vscode-languageclient against a stub of the `vscode` module (VS
// Code itself is not here), activates the extension, and checks that the client would spawn
// `<creatorpack.path> lsp` over stdio: the spawn is caught, not run. Prints one JSON line of what it
// saw; tests/test_vscode_extension.py runs it (`npm run check` does too).
'use strict';

const assert = require('assert');
const childProcess = require('child_process');
const { EventEmitter } = require('events');
const Module = require('module');
const path = require('path');
const { PassThrough } = require('stream');

// A stub of whatever the client touches: any property is another stub, calling or constructing one
// gives a stub, and the few values the extension reads are set below.
function stub(name, values = {}) {
  const target = function () {};
  return new Proxy(target, {
    get(_, property) {
      if (property in values) return values[property];
      if (property === 'then') return undefined; // not a promise
      if (property === Symbol.toPrimitive) return () => `[vscode stub ${name}]`;
      if (property === Symbol.iterator) return function* () {};
      if (typeof property === 'symbol') return undefined;
      if (!(property in target)) target[property] = stub(`${name}.${String(property)}`);
      return target[property];
    },
    set(_, property, value) {
      target[property] = value;
      return true;
    },
    apply() {
      return stub(`${name}()`);
    },
    construct() {
      return stub(`new ${name}`);
    },
  });
}

const configured = process.argv.length > 2 ? process.argv[2] : '${workspaceFolder}/.venv/bin/creatorpack';
const shown = [];
const vscode = stub('vscode', {
  version: '1.95.0',
  workspace: stub('workspace', {
    workspaceFolders: [{ uri: { fsPath: '/home/creator/packs' } }],
    getConfiguration: (section) => stub(`configuration(${section})`, {
      get: (key, fallback) => (section === 'creatorpack' && key === 'path' ? configured : fallback),
    }),
    onDidChangeConfiguration: () => ({ dispose() {} }),
  }),
  window: stub('window', {
    showErrorMessage: (message) => {
      shown.push(message);
      return Promise.resolve(undefined);
    },
  }),
});

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode };

const spawned = [];
childProcess.spawn = (command, args, options) => {
  spawned.push({ command, args, stdio: options && options.stdio, shell: Boolean(options && options.shell) });
  const fake = new EventEmitter();
  fake.stdin = new PassThrough();
  fake.stdout = new PassThrough();
  fake.stderr = new PassThrough();
  fake.pid = 4242;
  fake.kill = () => true;
  return fake;
};

const extension = require(path.join(__dirname, '..', 'extension.js'));
assert.strictEqual(typeof extension.activate, 'function');
assert.strictEqual(typeof extension.deactivate, 'function');

const context = { subscriptions: [], extensionPath: path.join(__dirname, '..') };
extension.activate(context).catch((error) => {
  console.error(`activate failed: ${error && error.stack}`);
  process.exit(1);
});

const began = Date.now();
(function wait() {
  if (spawned.length === 0 && shown.length === 0 && Date.now() - began < 10000) {
    setTimeout(wait, 20);
    return;
  }
  const selector = extension.clientOptions().documentSelector.map((d) => `${d.scheme}:${d.language}`);
  console.log(JSON.stringify({ spawned, shown, selector, subscriptions: context.subscriptions.length }));
  process.exit(spawned.length === 1 ? 0 : 1);
})();
