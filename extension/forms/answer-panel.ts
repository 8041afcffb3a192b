// The answer webview (issue 43): a question a person answers in the editor through the typed form
// (settling an unknown outcome: "it happened: enter its result" / "it did not happen" / "run it
// again", with "and resume"). One panel per question; closing it is no answer. The webview's
// answer is read and checked on the host (answer.ts) before it is given back: a refused one goes
// back to the webview, with its faults at their fields, and the panel stays.
import * as vscode from 'vscode';
import { nonce, panelHtml } from '../panel/html.js';
import { readAnswer, type Answer } from './answer.js';
import { elicitationAnswer, elicitationQuestion, type ElicitationAnswer, type ElicitationQuestion } from './elicitation.js';
import { ANSWER_PROTOCOL, isAnswerWebviewMessage, type AnswerHostMessage, type QuestionView } from './protocol.js';
import { askQuestionView, askView } from './ask.js';
import type { AskPort } from '../../runtime/index.js';

export const ANSWER_VIEW_TYPE = 'turn.answer';
const EXTENSION_ID = 'turn-lang.turn-vscode';

/**
 * An MCP server's question to a run the editor runs (`RunOptions.elicit`), in the answer webview:
 * its form answered, or declined; closing the panel cancels; a URL question goes to the next answerer.
 */
export async function answerElicitation(q: ElicitationQuestion, signal?: AbortSignal): Promise<ElicitationAnswer | undefined> {
  const view = elicitationQuestion(q);
  if (!view) return undefined;
  const a = await askInForm(view, signal);
  return a ? elicitationAnswer(a) : { action: 'cancel' };
}

/**
 * `ask T { prompt }` in a run the editor runs (`RunOptions.ask`): the form generated from T. The
 * answer is checked here and again by the run (runtime/ask/); Cancel or closing the panel is the
 * program's AskError.
 */
export const answerAsk: AskPort = async (q) => {
  const a = await askInForm(askQuestionView(askView(q)), q.signal);
  if (!a) throw new Error(`the question at ${askView(q).where} was cancelled in the editor`);
  return a.value;
};

/** Asks `question` in a webview beside the editor; resolves with the checked answer, or undefined when the panel is closed (or `signal` aborts). */
export function askInForm(question: QuestionView, signal?: AbortSignal): Promise<Answer | undefined> {
  const root = vscode.extensions.getExtension(EXTENSION_ID)?.extensionUri;
  if (!root) return Promise.reject(new Error('the Turn extension\'s files are not found'));
  const assets = vscode.Uri.joinPath(root, 'dist', 'webview');
  const panel = vscode.window.createWebviewPanel(ANSWER_VIEW_TYPE, question.title, { viewColumn: vscode.ViewColumn.Active, preserveFocus: false }, {
    enableScripts: true,
    localResourceRoots: [assets],
  });
  const asset = (name: string) => panel.webview.asWebviewUri(vscode.Uri.joinPath(assets, name)).toString();
  // the run panel's page and CSP, with its own root (the run panel's `#turn-panel` names that panel alone)
  panel.webview.html = panelHtml(panel.webview.cspSource, asset('answer.js'), asset('panel.css'), nonce())
    .replace('<title>Turn Run</title>', '<title>Turn</title>').replace('<div id="turn-panel"></div>', '<div id="turn-answer"></div>');
  const post = (m: AnswerHostMessage) => void panel.webview.postMessage(m);
  return new Promise((resolve) => {
    let done = false;
    const finish = (a: Answer | undefined) => {
      if (done) return;
      done = true;
      resolve(a);
      sub.dispose();
      panel.dispose();
    };
    const sub = panel.webview.onDidReceiveMessage((m: unknown) => {
      if (!isAnswerWebviewMessage(m)) return;
      if (m.type === 'ready') return post({ type: 'question', v: ANSWER_PROTOCOL, question });
      if (m.type === 'cancel') return finish(undefined);
      const read = readAnswer(question, m);
      if (read.ok) finish(read.answer);
      else post({ type: 'refused', v: ANSWER_PROTOCOL, message: read.message, issues: read.issues });
    });
    panel.onDidDispose(() => finish(undefined));
    signal?.addEventListener('abort', () => finish(undefined), { once: true });
  });
}
