// The entl extension: the TextMate grammar and language configuration come from package.json;
// this starts `entlc lsp` (the path from the `entl.server.path` setting) for `.entl` files and
// restarts it when the setting changes.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

function serverOptions(): ServerOptions {
  const command = vscode.workspace.getConfiguration("entl").get<string>("server.path", "entlc");
  return { command, args: ["lsp"] };
}

async function start(): Promise<void> {
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "entl" },
      { scheme: "untitled", language: "entl" },
    ],
    // Rule files changed outside the editor (a git checkout) are checked again.
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.entl") },
  };
  client = new LanguageClient("entl", "entl language server", serverOptions(), clientOptions);
  try {
    await client.start();
  } catch (error) {
    void vscode.window.showErrorMessage(
      `entl: could not start \`entlc lsp\` (${String(error)}). Install entlc or set "entl.server.path".`,
    );
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("entl.server.path")) {
        await client?.stop();
        await start();
      }
    }),
  );
  await start();
}

export function deactivate(): Thenable<void> | undefined {
  return client?.stop();
}
