// The creatorpack extension for VS Code: starts `creatorpack lsp` (a language server on standard
// input and output) for JSON documents, with vscode-languageclient. The server checks only the
// documents that declare a `protocol_version` (packs); other JSON files get nothing from it.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

const SECTION = 'creatorpack';
let client;

/** The command of the setting `creatorpack.path`, with `${workspaceFolder}` and a leading `~/` expanded. */
function command(configured, folder, home) {
  let path = (configured || '').trim() || 'creatorpack';
  if (folder) {
    path = path.split('${workspaceFolder}').join(folder);
  }
  if (home && path.startsWith('~/')) {
    path = home + path.slice(1);
  }
  return path;
}

/**
 * How vscode-languageclient starts the server: `<creatorpack.path> lsp`, over stdio. No `transport`:
 * stdio is the default for a command, and `TransportKind.stdio` would append a `--stdio` argument
 * that `creatorpack lsp` does not take.
 */
function serverOptions(configuration, folder, home) {
  return { command: command(configuration.get('path'), folder, home), args: ['lsp'] };
}

/** The documents the server is asked about: JSON files and unsaved JSON documents. */
function clientOptions() {
  return {
    documentSelector: [
      { scheme: 'file', language: 'json' },
      { scheme: 'file', language: 'jsonc' },
      { scheme: 'untitled', language: 'json' },
    ],
  };
}

function workspaceFolder() {
  const folders = vscode.workspace.workspaceFolders;
  return folders && folders.length > 0 ? folders[0].uri.fsPath : undefined;
}

async function start() {
  const configuration = vscode.workspace.getConfiguration(SECTION);
  const options = serverOptions(configuration, workspaceFolder(), process.env.HOME);
  client = new LanguageClient(SECTION, 'creatorpack', options, clientOptions());
  try {
    await client.start();
  } catch (error) {
    const reason = error && error.message ? error.message : String(error);
    vscode.window.showErrorMessage(
      `creatorpack: could not start "${options.command} lsp" (${reason}). Install it with ` +
        `pip install 'creatorpack[lsp]', or set creatorpack.path to the command.`,
    );
  }
}

async function activate(context) {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration(`${SECTION}.path`)) {
        await deactivate();
        await start();
      }
    }),
  );
  await start();
}

async function deactivate() {
  const running = client;
  client = undefined;
  if (running && running.isRunning()) {
    await running.stop();
  }
}

module.exports = { activate, deactivate, command, serverOptions, clientOptions };
