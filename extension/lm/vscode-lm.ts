// The real `vscode.lm` behind LmApi (extension/lm/models.ts holds the logic, tested with a fake).
import * as vscode from 'vscode';
import type { LmApi } from './models.js';

export const vscodeLm: LmApi = {
  selectChatModels: (selector) => vscode.lm.selectChatModels(selector),
  userMessage: (text) => vscode.LanguageModelChatMessage.User(text),
  assistantMessage: (text) => vscode.LanguageModelChatMessage.Assistant(text),
  cancellation: () => new vscode.CancellationTokenSource(),
};
