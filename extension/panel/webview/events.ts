/// <reference lib="dom" />
// The raw event list under the timeline, windowed (a run's 20,000 events draw the rows in view).
import type { TimelineItem } from '../../protocol/panel.js';
import { h, siteLink } from './dom.js';
import { VirtualList } from './virtual.js';

export class EventList {
  readonly el: HTMLDetailsElement;
  private readonly summary = h('summary', {}, 'Events');
  private readonly list = new VirtualList<TimelineItem>({
    className: 'event-list',
    rowHeight: 20,
    maxRows: 16,
    label: 'Events',
    key: (t, i) => `${i}:${t.seq}`, // seqs of journal steps and live events may meet in a resumed run
    signature: (t) => `${t.state}|${t.summary}`,
    render: (t) => h('div', { class: `event state-${t.state}`, title: t.summary },
      h('span', { class: 'ms' }, `${t.ms.toFixed(1)} ms`), ' ', t.pid !== null ? `#${t.pid} ` : '', t.summary, t.state !== 'done' ? ` (${t.state})` : '', ' ', siteLink(t.site)),
  });
  private items: TimelineItem[] = [];

  constructor() {
    this.el = h('details', { id: 'events' }, this.summary, this.list.el);
    // a closed <details> has no height to window in: fill it when it opens
    this.el.addEventListener('toggle', () => this.el.open && this.list.setItems(this.items));
  }

  update(items: TimelineItem[]): void {
    this.items = items;
    this.summary.textContent = `Events (${items.length})`;
    if (this.el.open) this.list.setItems(items);
  }
}
