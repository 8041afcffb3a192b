/// <reference lib="dom" />
// A windowed list: however many items it holds, only the rows in view (plus a few either side) are
// in the DOM. Rows have one fixed height; the list is a scroll box of at most `maxRows` rows over a
// spacer as tall as all of them. `setItems` keeps every row whose key and signature did not change
// (an update touches only the rows that changed), and scrolling moves rows in and out.
//
// Heights and offsets are set through the CSSOM (`el.style.x = ...`), which the panel's CSP allows;
// only `style` attributes and inline <style> are refused.

/** The rows [first, last) to render for a scroll position; pure (tested in Node). */
export function visibleRange(scrollTop: number, viewport: number, rowHeight: number, count: number, overscan = 6): { first: number; last: number } {
  if (count <= 0) return { first: 0, last: 0 };
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + Math.max(viewport, rowHeight)) / rowHeight) + overscan);
  return { first: Math.min(first, last), last };
}

export interface VirtualListOptions<T> {
  /** the list's class (besides `vlist`) */
  className: string;
  rowHeight: number;
  /** the box shows at most this many rows; more scroll */
  maxRows: number;
  key(item: T, index: number): string;
  /** what the row shows: a row whose key and signature are unchanged is kept as it is */
  signature(item: T, index: number): string;
  render(item: T, index: number): HTMLElement | SVGElement;
  label?: string;
}

interface Row {
  el: HTMLElement | SVGElement;
  signature: string;
  index: number;
}

export class VirtualList<T> {
  readonly el: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private items: T[] = [];
  private readonly rows = new Map<string, Row>();
  private painting = false;

  constructor(private readonly o: VirtualListOptions<T>) {
    // plain DOM calls (no dom.ts, which needs the webview's API): visibleRange loads in Node
    this.spacer = document.createElement('div');
    this.spacer.className = 'vlist-spacer';
    this.el = document.createElement('div');
    this.el.className = `vlist ${o.className}`;
    this.el.setAttribute('role', 'list');
    this.el.tabIndex = 0;
    this.el.append(this.spacer);
    if (o.label) this.el.setAttribute('aria-label', o.label);
    this.el.addEventListener('scroll', () => this.schedule(), { passive: true });
  }

  get length(): number {
    return this.items.length;
  }

  setItems(items: T[]): void {
    this.items = items;
    const total = items.length * this.o.rowHeight;
    this.spacer.style.height = `${total}px`;
    this.el.style.height = `${Math.min(items.length, this.o.maxRows) * this.o.rowHeight + 2}px`;
    this.paint();
  }

  /** Scrolls so that row `index` is in view. */
  reveal(index: number): void {
    const top = index * this.o.rowHeight;
    const view = this.viewport();
    if (top < this.el.scrollTop) this.el.scrollTop = top;
    else if (top + this.o.rowHeight > this.el.scrollTop + view) this.el.scrollTop = top + this.o.rowHeight - view;
    this.paint();
  }

  private viewport(): number {
    return this.el.clientHeight || this.o.maxRows * this.o.rowHeight;
  }

  private schedule(): void {
    if (this.painting) return;
    this.painting = true;
    requestAnimationFrame(() => {
      this.painting = false;
      this.paint();
    });
  }

  /** Puts exactly the rows in view into the DOM, reusing the unchanged ones. */
  paint(): void {
    const { first, last } = visibleRange(this.el.scrollTop, this.viewport(), this.o.rowHeight, this.items.length);
    const keep = new Set<string>();
    for (let i = first; i < last; i++) {
      const item = this.items[i];
      const key = this.o.key(item, i);
      const sig = this.o.signature(item, i);
      keep.add(key);
      let row = this.rows.get(key);
      if (row && row.signature !== sig) {
        row.el.remove();
        row = undefined;
      }
      if (!row) {
        const el = this.o.render(item, i);
        el.classList.add('vrow');
        el.setAttribute('role', 'listitem');
        row = { el, signature: sig, index: -1 };
        this.rows.set(key, row);
        this.spacer.append(el);
      }
      if (row.index !== i) {
        row.index = i;
        row.el.style.top = `${i * this.o.rowHeight}px`;
        row.el.style.height = `${this.o.rowHeight}px`;
      }
    }
    for (const [key, row] of this.rows) {
      if (!keep.has(key)) {
        row.el.remove();
        this.rows.delete(key);
      }
    }
  }
}
