/// <reference lib="dom" />
// A run's error as the panel shows it: the message, a link to its line, and for a credential
// the program needs but the vault lacks, a button that runs "Turn: Add Credential".
import { editorGrantText, grantSetting, missingCredential, PROTOCOL_VERSION, type SiteView } from '../../protocol/panel.js';
import { credentialErrorText } from '../../protocol/credential-text.js';
import { post } from './api.js';
import { h, siteLink } from './dom.js';

export function errorView(error: { message: string; site: SiteView | null }): HTMLElement {
  const name = missingCredential(error.message);
  const add = name !== null ? h('button', { class: 'add-credential', title: `Add the credential "${name}" to the Turn vault` }, 'Add Credential…') : null;
  add?.addEventListener('click', () => post({ type: 'command', v: PROTOCOL_VERSION, command: 'turn.vault.add' }));
  // a missing grant: in the editor it is a setting (turn.run.allowWrite...), not the CLI's --allow-write
  const key = grantSetting(error.message);
  const open = key !== null ? h('button', { class: 'open-setting', title: `Open the setting ${key}` }, `Open Setting ${key}…`) : null;
  open?.addEventListener('click', () => key && post({ type: 'setting', v: PROTOCOL_VERSION, key }));
  // a missing credential in plain words (the raw message, an escaped error value with the CLI's advice, in its tooltip)
  const plain = name !== null ? credentialErrorText(error.message) : null;
  const text = h('p', { class: 'error', ...(plain !== null ? { title: error.message } : {}) }, plain ?? editorGrantText(error.message), ' ', siteLink(error.site));
  return h('div', { class: 'error-box' }, text, add, open);
}
