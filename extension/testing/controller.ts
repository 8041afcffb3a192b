// The Test Explorer (VS Code's testing API) for Turn tests (docs/testing.md): every `*_test.tn` in
// the workspace with its tests, found from the syntax as you type; Run (recorded replies, as
// `turn test` does), Debug (the test under the Turn debugger, answered from its recording) and
// Re-record (the test live against the `turn.model` setting, its recording rewritten). A failure
// is shown at the failing assert; a stale recording at the test, with the diff between the recorded
// request and the one sent now, and a "Re-record" action on the message.
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  cassettePath, discoverSource, discoverTests, readCassette, runTestFile, testProgram, TEST_FILE_SUFFIX, type FileResult, type RecordMode, type TestFile,
} from '../../runtime/index.js';
import { readRunSettings, runOptionsFromSettings } from '../settings.js';
import { shownMessage, testId } from './results.js';

const GLOB = `**/*${TEST_FILE_SUFFIX}`;

export function registerTestController(): vscode.Disposable[] {
  const ctrl = vscode.tests.createTestController('turn.tests', 'Turn');
  const disposables: vscode.Disposable[] = [ctrl];

  const isTestFile = (uri: vscode.Uri): boolean => uri.scheme === 'file' && uri.fsPath.endsWith(TEST_FILE_SUFFIX);

  const show = (uri: vscode.Uri, found: TestFile): void => {
    let file = ctrl.items.get(uri.toString());
    if (!file) {
      file = ctrl.createTestItem(uri.toString(), path.basename(uri.fsPath), uri);
      ctrl.items.add(file);
    }
    file.error = found.error;
    const children = found.tests.map((t) => {
      const item = ctrl.createTestItem(testId(uri.toString(), t.name), t.name, uri);
      item.range = new vscode.Range(t.line - 1, t.column - 1, t.endLine - 1, 0);
      return item;
    });
    file.children.replace(children);
  };

  const refresh = async (uri: vscode.Uri, text?: string): Promise<void> => {
    if (!isTestFile(uri)) return;
    show(uri, text !== undefined ? await discoverSource(uri.fsPath, text) : await discoverTests(uri.fsPath));
  };

  const scan = async (): Promise<void> => {
    for (const uri of await vscode.workspace.findFiles(GLOB, '**/node_modules/**')) await refresh(uri);
  };
  ctrl.resolveHandler = async (item) => {
    if (!item) await scan();
  };
  ctrl.refreshHandler = async () => {
    ctrl.items.replace([]);
    await scan();
  };

  const watcher = vscode.workspace.createFileSystemWatcher(GLOB);
  disposables.push(
    watcher,
    watcher.onDidCreate((uri) => void refresh(uri)),
    watcher.onDidChange((uri) => {
      // an open document is followed as it is typed; a closed one from the disk
      if (!vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) void refresh(uri);
    }),
    watcher.onDidDelete((uri) => ctrl.items.delete(uri.toString())),
    vscode.workspace.onDidOpenTextDocument((d) => void refresh(d.uri, d.getText())),
    vscode.workspace.onDidChangeTextDocument((e) => void refresh(e.document.uri, e.document.getText())),
  );
  for (const d of vscode.workspace.textDocuments) void refresh(d.uri, d.getText());

  /** The selected tests, grouped by file: a file item stands for all its tests. */
  const selected = (request: vscode.TestRunRequest): Map<vscode.TestItem, vscode.TestItem[]> => {
    const out = new Map<vscode.TestItem, vscode.TestItem[]>();
    const excluded = new Set(request.exclude ?? []);
    const roots: vscode.TestItem[] = [];
    if (request.include) roots.push(...request.include);
    else ctrl.items.forEach((f) => roots.push(f));
    for (const item of roots) {
      if (excluded.has(item)) continue;
      const file = item.parent ?? item;
      const tests: vscode.TestItem[] = [];
      if (item.parent) tests.push(item);
      else item.children.forEach((t) => tests.push(t));
      out.set(file, [...(out.get(file) ?? []), ...tests.filter((t) => !excluded.has(t))]);
    }
    return out;
  };

  const folderOf = (uri: vscode.Uri): string => vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? path.dirname(uri.fsPath);

  const runWith = (mode: RecordMode) => async (request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> => {
    const run = ctrl.createTestRun(request);
    try {
      for (const [file, tests] of selected(request)) {
        if (token.isCancellationRequested) break;
        if (!file.uri || tests.length === 0) continue;
        for (const t of tests) run.started(t);
        const cwd = folderOf(file.uri);
        const settings = readRunSettings((key, dflt) => vscode.workspace.getConfiguration('turn', file.uri).get(key, dflt));
        const options = runOptionsFromSettings(settings, cwd);
        let result: FileResult;
        try {
          result = await runTestFile(file.uri.fsPath, {
            mode,
            only: tests.map((t) => t.label),
            cwd,
            model: settings.model,
            ...(options.hostModels ? { hostModels: options.hostModels } : {}),
            ...(options.authority ? { authority: options.authority } : {}),
            ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
            ...(options.maxTimeMs !== undefined ? { maxTimeMs: options.maxTimeMs } : {}),
          });
        } catch (e) {
          for (const t of tests) run.errored(t, new vscode.TestMessage(e instanceof Error ? e.message : String(e)));
          continue;
        }
        if (result.error) {
          for (const t of tests) run.errored(t, new vscode.TestMessage(result.error));
          continue;
        }
        for (const r of result.tests) {
          const item = tests.find((t) => t.label === r.name);
          if (!item) continue;
          if (r.output.length > 0) run.appendOutput(r.output.join('\r\n') + '\r\n', undefined, item);
          if (r.status === 'passed') {
            run.passed(item, r.durationMs);
            continue;
          }
          const shown = shownMessage(r, cwd);
          // a stale recording: first the readable difference (it wraps), then both requests side by side
          const message = new vscode.TestMessage(shown.text);
          const messages = [message];
          if (shown.diff) messages.push(vscode.TestMessage.diff('the whole requests: recorded (left) and now (right)', shown.diff.expected, shown.diff.actual));
          for (const m of messages) {
            if (shown.location) m.location = new vscode.Location(vscode.Uri.file(shown.location.file), new vscode.Position(shown.location.line, shown.location.column));
            if (shown.contextValue) m.contextValue = shown.contextValue;
          }
          run.failed(item, messages, r.durationMs);
        }
      }
    } finally {
      run.end();
    }
  };

  ctrl.createRunProfile('Run', vscode.TestRunProfileKind.Run, runWith('replay'), true);
  const rerecord = ctrl.createRunProfile('Re-record (live, turn.model)', vscode.TestRunProfileKind.Run, runWith('record'), false);
  ctrl.createRunProfile(
    'Debug',
    vscode.TestRunProfileKind.Debug,
    async (request) => {
      for (const [file, tests] of selected(request)) {
        if (!file.uri) continue;
        const recording = (() => {
          try {
            return readCassette(cassettePath(file.uri.fsPath));
          } catch {
            return undefined;
          }
        })();
        for (const t of tests) {
          const exchanges = recording ? (recording.cassette.tests[t.label]?.exchanges ?? []) : undefined;
          const prepared = testProgram(file.uri.fsPath, t.label, exchanges);
          await vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(file.uri), {
            type: 'turn',
            request: 'launch',
            name: `Debug test ${t.label}`,
            program: prepared.program,
            cwd: folderOf(file.uri),
            ...(prepared.model !== undefined ? { model: prepared.model } : {}),
          });
        }
      }
    },
    true,
  );

  disposables.push(
    // the testing/message menus pass { test, message }
    vscode.commands.registerCommand('turn.test.rerecord', async (arg?: { test?: vscode.TestItem }) => {
      const test = arg?.test;
      if (!test) return;
      const source = new vscode.CancellationTokenSource();
      try {
        await rerecord.runHandler(new vscode.TestRunRequest([test], undefined, rerecord), source.token);
      } finally {
        source.dispose();
      }
    }),
  );
  return disposables;
}
