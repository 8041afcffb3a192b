/// <reference lib="dom" />
// The actor tree (actors named by the function they run) and one actor's context tiers, memory
// and mailbox. Used for the live run and for the journal scrubber's state at a step. Both are
// components made once and updated: the tree is a windowed list (virtual.ts) whose rows change only
// when their actor does (selecting one repaints two rows); the details rebuild only when the
// selected actor changes, and the memory search filters the memory list alone.
import type { ActorView } from '../../protocol/panel.js';
import { fill, h, siteLink } from './dom.js';
import { actorLabel } from './lanes.js';
import { valueTree } from './valuetree.js';
import { treeOrder, type TreeRow } from './actor-order.js';
import { VirtualList } from './virtual.js';

export interface ActorUi {
  selected: number | null;
  search: string;
  select(pid: number): void;
  searchFor(text: string): void;
}

function statusText(a: ActorView): string {
  return `${a.status}${a.waitingOn ? ` on ${a.waitingOn}` : ''}${a.restarts ? `, ${a.restarts} restarts` : ''}${a.detached ? ', detached' : ''}`;
}

/** The actor tree, windowed. */
export class ActorTree {
  readonly el: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly list: VirtualList<TreeRow & { selected: boolean }>;
  private actors: ActorView[] | null = null;
  private rows: TreeRow[] = [];

  constructor(private readonly ui: ActorUi, private title = 'Actors', idPrefix = '') {
    this.heading = h('h2', {}, title);
    this.list = new VirtualList({
      className: 'actor-list',
      rowHeight: 22,
      maxRows: 16,
      label: title,
      key: (r) => String(r.a.pid),
      signature: (r) => `${r.selected ? 1 : 0}|${r.depth}|${r.a.name ?? ''}|${statusText(r.a)}|${r.a.site?.line ?? ''}`,
      render: (r) => {
        const row = h('div', { class: `actor status-${r.a.status}${r.selected ? ' selected' : ''}`, 'data-pid': String(r.a.pid), tabindex: '0' },
          h('span', { class: 'actor-name' }, actorLabel(r.a.pid, r.a.name)), ' ', h('span', { class: 'actor-status' }, statusText(r.a)), ' ', siteLink(r.a.site));
        row.style.paddingLeft = `${4 + Math.min(r.depth, 30) * 14}px`;
        row.addEventListener('click', () => this.ui.select(r.a.pid));
        row.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' || e.key === ' ') this.ui.select(r.a.pid);
        });
        return row;
      },
    });
    this.el = h('section', { id: `${idPrefix}actors` }, this.heading, this.list.el);
  }

  update(actors: ActorView[], title = this.title): void {
    if (actors !== this.actors || title !== this.title) {
      this.actors = actors;
      this.title = title;
      this.rows = treeOrder(actors);
      this.heading.textContent = `${title} (${actors.length})`;
    }
    const selected = this.ui.selected ?? actors[0]?.pid ?? null;
    this.list.setItems(this.rows.map((r) => ({ ...r, selected: r.a.pid === selected })));
  }
}

function tier(a: ActorView, name: 'P0' | 'P1' | 'P2', title: string): HTMLElement {
  return h('div', { class: `tier tier-${name}` },
    h('h3', {}, `${name} ${title} — ${a.context.tokens[name]} tokens${name === 'P1' ? ` of ${a.context.limits.working}` : name === 'P2' ? ` of ${a.context.limits.episodic}` : ''}`),
    ...(a.context[name].length ? a.context[name].map((e) => h('pre', { class: 'entry' }, h('span', { class: 'tokens' }, `${e.tokens} tokens`), ' ', e.text)) : [h('p', { class: 'muted' }, 'empty')]));
}

type Memory = ActorView['memory'][number];

/** One actor's tiers, memory and mailbox. The main actor's result is the run's result, shown with the output instead. */
export class ActorDetails {
  readonly el: HTMLElement;
  private shown = '';
  private actor: ActorView | null = null;
  private readonly memoryTitle: HTMLElement;
  private readonly search: HTMLInputElement;
  private readonly memory: VirtualList<Memory & { i: number }>;
  private readonly memoryEmpty: HTMLElement;
  private readonly memoryValue: HTMLElement;
  private readonly rest: HTMLElement;
  private readonly context: HTMLElement;
  private openKey: string | null = null;

  constructor(private readonly ui: ActorUi, private readonly idPrefix = '') {
    this.context = h('section', { id: `${idPrefix}context` });
    this.memoryTitle = h('h2', {}, 'Memory');
    this.search = h('input', { type: 'search', id: `${idPrefix}memory-search`, placeholder: 'Search memory' });
    this.search.value = ui.search;
    this.search.addEventListener('input', () => {
      this.ui.searchFor(this.search.value);
      this.filterMemory();
    });
    this.memory = new VirtualList({
      className: 'memory-list',
      rowHeight: 22,
      maxRows: 12,
      label: 'Memory',
      key: (m) => `${m.i}`,
      signature: (m) => `${m.key}\u0000${m.value}\u0000${m.key === this.openKey ? 1 : 0}`,
      render: (m) => {
        const row = h('div', { class: `memory-row${m.key === this.openKey ? ' open' : ''}`, tabindex: '0', title: 'Show this value as a tree' },
          h('span', { class: 'key' }, m.key), h('code', { class: 'value' }, m.value));
        row.addEventListener('click', () => this.openMemory(m.key));
        return row;
      },
    });
    this.memoryEmpty = h('p', { class: 'muted' }, 'nothing remembered');
    this.memoryValue = h('div', { class: 'memory-value' });
    this.rest = h('div', {});
    this.el = h('div', { class: 'details' }, this.context,
      h('section', { id: `${idPrefix}memory` }, this.memoryTitle, this.search, this.memory.el, this.memoryEmpty, this.memoryValue), this.rest);
  }

  update(actors: ActorView[]): void {
    const a = actors.find((x) => x.pid === this.ui.selected) ?? actors[0] ?? null;
    // rebuilt only when what it shows changed (a new message with the same actor keeps it)
    const sig = a ? JSON.stringify(a) : '';
    if (sig === this.shown) return;
    const same = a !== null && this.actor?.pid === a.pid;
    this.shown = sig;
    this.actor = a;
    if (!same) this.openKey = null;
    if (!a) {
      this.context.replaceChildren(h('h2', {}, 'Context'), h('p', { class: 'muted' }, 'No actor yet.'));
      this.memoryTitle.textContent = 'Memory';
      this.memory.setItems([]);
      this.memoryValue.replaceChildren();
      this.rest.replaceChildren();
      return;
    }
    const who = actorLabel(a.pid, a.name);
    this.context.replaceChildren(h('h2', {}, `Context of ${who}`),
      tier(a, 'P0', 'system'), tier(a, 'P1', 'working'), tier(a, 'P2', 'episodic'),
      h('p', { class: 'muted' }, `demoted P1→P2: ${a.context.demoted.entries} entries (${a.context.demoted.tokens} tokens); dropped from P2: ${a.context.dropped.entries} entries (${a.context.dropped.tokens} tokens)`));
    this.memoryTitle.textContent = `Memory of ${who} (${a.memory.length})`;
    this.filterMemory();
    const isMain = a.parent <= 0 || !actors.some((x) => x.pid === a.parent);
    const mailbox = new VirtualList<{ m: string; i: number }>({
      className: 'mailbox-list', rowHeight: 22, maxRows: 8, label: 'Mailbox',
      key: (x) => String(x.i), signature: (x) => x.m,
      render: (x) => h('div', { class: 'mail-row', title: x.m }, h('code', { class: 'value' }, x.m)),
    });
    mailbox.setItems(a.mailbox.map((m, i) => ({ m, i })));
    fill(this.rest,
      h('section', { id: `${this.idPrefix}mailbox` }, h('h2', {}, `Mailbox of ${who} (${a.mailbox.length})`), a.mailbox.length ? mailbox.el : h('p', { class: 'muted' }, 'empty'),
        a.mailbox.length ? h('details', { class: 'mail-values' }, h('summary', {}, 'messages as values'), ...a.mailbox.slice(0, 20).map((m) => valueTree(m, 'message'))) : null),
      a.result !== null && !isMain ? h('section', { id: `${this.idPrefix}actor-result` }, h('h2', {}, `Result of ${who}`), h('div', { class: 'actor-result' }, valueTree(a.result, 'result'))) : null,
      a.error !== null ? h('p', { class: 'error' }, `${who} failed: `, h('code', {}, a.error)) : null,
    );
  }

  private filterMemory(): void {
    const a = this.actor;
    if (!a) return;
    const q = this.ui.search.toLowerCase();
    const mem = a.memory.map((m, i) => ({ ...m, i })).filter((m) => !q || m.key.toLowerCase().includes(q) || m.value.toLowerCase().includes(q));
    this.memory.setItems(mem);
    this.memory.el.hidden = mem.length === 0;
    this.memoryEmpty.hidden = mem.length > 0;
    this.memoryEmpty.textContent = a.memory.length === 0 ? 'nothing remembered' : `nothing matches "${this.ui.search}"`;
    this.showOpen();
  }

  private openMemory(key: string): void {
    this.openKey = this.openKey === key ? null : key;
    this.filterMemory();
  }

  private showOpen(): void {
    const m = this.openKey === null ? undefined : this.actor?.memory.find((x) => x.key === this.openKey);
    this.memoryValue.replaceChildren(...(m ? [h('h3', {}, m.key), valueTree(m.value, `memory ${m.key}`)] : []));
  }
}
