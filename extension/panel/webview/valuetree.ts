/// <reference lib="dom" />
// A value as a collapsible, coloured tree (values.ts parses the text): structs by name, maps and
// lists folded when they hold more than FOLD_AT children (and shown PAGE at a time), long strings
// cut with a "show all", and a "Copy as JSON" button. Children are built only when a node opens,
// so a large value costs what is shown.
import { h } from './dom.js';
import { childCount, parseValue, preview, toJson, type ValueNode } from './values.js';

const FOLD_AT = 8;
const PAGE = 50;
const LONG = 160;

function leaf(v: ValueNode): HTMLElement {
  switch (v.kind) {
    case 'string': {
      if (v.value.length <= LONG) return h('span', { class: 'v-string' }, JSON.stringify(v.value));
      const el = h('span', { class: 'v-string v-long' }, JSON.stringify(`${v.value.slice(0, LONG)}`).slice(0, -1) + '…"');
      const more = h('button', { class: 'v-more link', title: 'Show the whole string' }, `show all ${v.value.length} characters`);
      more.addEventListener('click', (e) => {
        e.stopPropagation();
        el.textContent = JSON.stringify(v.value);
        more.remove();
      });
      return h('span', {}, el, ' ', more);
    }
    case 'number':
      return h('span', { class: 'v-number' }, v.text);
    case 'bool':
      return h('span', { class: 'v-bool' }, String(v.value));
    case 'null':
      return h('span', { class: 'v-null' }, 'null');
    case 'atom':
      return h('span', { class: 'v-atom' }, v.text);
    default:
      return h('span', {}, preview(v));
  }
}

function children(v: ValueNode): [string | null, ValueNode][] {
  if (v.kind === 'struct') return v.fields;
  if (v.kind === 'map') return v.entries.map(([k, x]) => [JSON.stringify(k), x]);
  if (v.kind === 'list') return v.items.map((x, i) => [String(i), x]);
  return [];
}

function node(key: string | null, v: ValueNode, open: boolean): HTMLElement {
  const keyEl = key === null ? null : h('span', { class: v.kind === 'list' || key.startsWith('"') ? 'v-key' : 'v-field' }, key);
  const n = childCount(v);
  if (v.kind !== 'struct' && v.kind !== 'map' && v.kind !== 'list') return h('div', { class: 'v-row' }, keyEl, keyEl ? ': ' : null, leaf(v));
  if (n === 0) return h('div', { class: 'v-row' }, keyEl, keyEl ? ': ' : null, h('span', { class: 'v-punct' }, v.kind === 'struct' ? `${v.name} {}` : v.kind === 'map' ? '{}' : '[]'));
  const head = v.kind === 'struct' ? h('span', { class: 'v-type' }, v.name) : h('span', { class: 'v-punct' }, v.kind === 'map' ? `{${n} ${n === 1 ? 'key' : 'keys'}}` : `[${n} ${n === 1 ? 'item' : 'items'}]`);
  const details = h('details', { class: `v-node v-${v.kind}` }, h('summary', {}, keyEl, keyEl ? ': ' : null, head, ' ', h('span', { class: 'v-preview' }, preview(v, 70))));
  const body = h('div', { class: 'v-children' });
  details.append(body);
  let shown = 0;
  const all = children(v);
  const more = h('button', { class: 'v-more link' });
  const page = () => {
    const next = all.slice(shown, shown + PAGE);
    for (const [k, x] of next) body.insertBefore(node(k, x, false), more.isConnected ? more : null);
    shown += next.length;
    if (shown < all.length) {
      more.textContent = `show ${Math.min(PAGE, all.length - shown)} more of ${all.length - shown}`;
      if (!more.isConnected) body.append(more);
    } else more.remove();
  };
  more.addEventListener('click', (e) => {
    e.stopPropagation();
    page();
  });
  details.addEventListener('toggle', () => {
    if (details.open && shown === 0) page();
  });
  if (open) {
    details.open = true;
    page();
  }
  return details;
}

/** Copies `text` (a user's click): the Clipboard API, else a selection copy. */
function copy(text: string): void {
  const fallback = () => {
    const area = h('textarea', {});
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  };
  if (navigator.clipboard?.writeText) navigator.clipboard.writeText(text).catch(fallback);
  else fallback();
}

/** The value of `text` as a tree, open at the top when it is small; with a Copy as JSON button. */
export function valueTree(text: string, label = 'value'): HTMLElement {
  const v = parseValue(text);
  const root = h('div', { class: 'value-tree', 'aria-label': label });
  root.append(node(null, v, childCount(v) <= FOLD_AT));
  if (childCount(v) > 0) {
    const button = h('button', { class: 'copy-json secondary', title: 'Copy this value as JSON' }, 'Copy as JSON');
    button.addEventListener('click', () => {
      copy(JSON.stringify(toJson(v), null, 2));
      button.textContent = 'Copied';
      setTimeout(() => (button.textContent = 'Copy as JSON'), 1500);
    });
    root.append(button);
  }
  return root;
}

/** A JSON Schema (or any JSON data) as a folded tree: the prompt's schema, pretty and navigable. */
export function jsonTree(data: unknown, label = 'schema'): HTMLElement {
  return valueTree(JSON.stringify(data ?? null), label);
}
