// Runs inside VS Code desktop (@vscode/test-electron, see .vscode-test.mjs): the installed .vsix
// activates on a Turn file, reports diagnostics and completes struct fields.
const assert = require('node:assert/strict');
const path = require('node:path');
const vscode = require('vscode');

const folder = () => vscode.workspace.workspaceFolders[0].uri.fsPath;

async function until(probe, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

suite('Turn extension in VS Code desktop', () => {
  test('activates, reports diagnostics, completes fields, registers commands', async () => {
    const broken = vscode.Uri.file(path.join(folder(), 'broken.tn'));
    await vscode.window.showTextDocument(broken);
    const diags = await until(() => vscode.languages.getDiagnostics(broken).length > 0 && vscode.languages.getDiagnostics(broken));
    assert.match(diags[0].message, /missing_value/);

    const fields = await vscode.workspace.openTextDocument(path.join(folder(), 'fields.tn'));
    await vscode.window.showTextDocument(fields);
    const edit = new vscode.WorkspaceEdit();
    const end = new vscode.Position(fields.lineCount, 0);
    edit.insert(fields.uri, end, '\nt.');
    await vscode.workspace.applyEdit(edit);
    const at = new vscode.Position(fields.lineCount - 1, 2);
    const list = await vscode.commands.executeCommand('vscode.executeCompletionItemProvider', fields.uri, at, '.');
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.ok(labels.includes('title') && labels.includes('priority'), labels.join(', '));

    const commands = await vscode.commands.getCommands(true);
    for (const c of ['turn.runInPanel', 'turn.debugFile', 'turn.vault.add', 'turn.vault.remove']) assert.ok(commands.includes(c), c);
  });
});
