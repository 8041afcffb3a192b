/// <reference lib="dom" />
// The actor tree (actors named by the function they run) and one actor's context tiers, memory
// and mailbox. Used for the live run and for the journal scrubber's state at a step.
import type { ActorView } from '../../protocol/panel.js';
import { h, section, siteLink } from './dom.js';
import { actorLabel } from './lanes.js';

export interface ActorUi {
  selected: number | null;
  search: string;
  select(pid: number): void;
  searchFor(text: string): void;
}

export function actorTree(actors: ActorView[], ui: ActorUi, title = 'Actors', idPrefix = ''): HTMLElement {
  const byParent = new Map<number, ActorView[]>();
  for (const a of actors) {
    const list = byParent.get(a.parent) ?? [];
    list.push(a);
    byParent.set(a.parent, list);
  }
  const known = new Set(actors.map((a) => a.pid));
  const roots = actors.filter((a) => !known.has(a.parent));
  const item = (a: ActorView): HTMLElement => {
    const status = `${a.status}${a.waitingOn ? ` on ${a.waitingOn}` : ''}${a.restarts ? `, ${a.restarts} restarts` : ''}${a.detached ? ', detached' : ''}`;
    const row = h('div', { class: `actor status-${a.status}${ui.selected === a.pid ? ' selected' : ''}`, 'data-pid': String(a.pid), tabindex: '0' },
      h('span', { class: 'actor-name' }, actorLabel(a.pid, a.name)), ' ', h('span', { class: 'actor-status' }, status), ' ', siteLink(a.site));
    row.addEventListener('click', () => ui.select(a.pid));
    const kids = byParent.get(a.pid) ?? [];
    return h('li', {}, row, kids.length ? h('ul', {}, ...kids.map(item)) : null);
  };
  return section(`${idPrefix}actors`, `${title} (${actors.length})`, h('ul', { class: 'tree' }, ...roots.map(item)));
}

/** One actor's tiers, memory and mailbox. The main actor's result is the run's result, shown with the output instead. */
export function actorDetails(actors: ActorView[], ui: ActorUi, idPrefix = ''): HTMLElement {
  const a = actors.find((x) => x.pid === ui.selected) ?? actors[0];
  if (!a) return section(`${idPrefix}context`, 'Context', h('p', { class: 'muted' }, 'No actor yet.'));
  const who = actorLabel(a.pid, a.name);
  const tier = (name: 'P0' | 'P1' | 'P2', title: string) =>
    h('div', { class: `tier tier-${name}` },
      h('h3', {}, `${name} ${title} — ${a.context.tokens[name]} tokens${name === 'P1' ? ` of ${a.context.limits.working}` : name === 'P2' ? ` of ${a.context.limits.episodic}` : ''}`),
      ...(a.context[name].length ? a.context[name].map((e) => h('pre', { class: 'entry' }, h('span', { class: 'tokens' }, `${e.tokens} tokens`), ' ', e.text)) : [h('p', { class: 'muted' }, 'empty')]));
  const q = ui.search.toLowerCase();
  const mem = a.memory.filter((m) => !q || m.key.toLowerCase().includes(q) || m.value.toLowerCase().includes(q));
  const searchId = `${idPrefix}memory-search`;
  const search = h('input', { type: 'search', id: searchId, placeholder: 'Search memory', value: ui.search });
  search.addEventListener('input', () => {
    ui.searchFor(search.value);
    const again = document.getElementById(searchId) as HTMLInputElement | null;
    again?.focus();
    again?.setSelectionRange(again.value.length, again.value.length);
  });
  const isMain = a.parent <= 0 || !actors.some((x) => x.pid === a.parent);
  return h('div', { class: 'details' },
    section(`${idPrefix}context`, `Context of ${who}`,
      tier('P0', 'system'), tier('P1', 'working'), tier('P2', 'episodic'),
      h('p', { class: 'muted' }, `demoted P1→P2: ${a.context.demoted.entries} entries (${a.context.demoted.tokens} tokens); dropped from P2: ${a.context.dropped.entries} entries (${a.context.dropped.tokens} tokens)`)),
    section(`${idPrefix}memory`, `Memory of ${who}`, search,
      mem.length ? h('table', {}, ...mem.map((m) => h('tr', {}, h('td', { class: 'key' }, m.key), h('td', {}, h('pre', {}, m.value))))) : h('p', { class: 'muted' }, 'nothing remembered')),
    section(`${idPrefix}mailbox`, `Mailbox of ${who} (${a.mailbox.length})`, ...(a.mailbox.length ? a.mailbox.map((m) => h('pre', {}, m)) : [h('p', { class: 'muted' }, 'empty')])),
    a.result !== null && !isMain ? section(`${idPrefix}actor-result`, `Result of ${who}`, h('pre', { class: 'actor-result' }, a.result)) : null,
    a.error !== null ? h('p', { class: 'error' }, `${who} failed: `, h('code', {}, a.error)) : null,
  );
}
