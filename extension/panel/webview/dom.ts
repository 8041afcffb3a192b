/// <reference lib="dom" />
// Small DOM helpers of the run panel's webview: elements, SVG elements, sections and source links.
// No inline styles (the CSP allows none): looks come from classes in panel.css.
import { PROTOCOL_VERSION, type SiteView } from '../../protocol/panel.js';
import { post } from './api.js';

export type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, ...children: Child[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

export function section(id: string, title: string, ...children: Child[]): HTMLElement {
  return h('section', { id }, h('h2', {}, title), ...children);
}

/** Opens `site` in the editor. */
export function reveal(site: SiteView): void {
  post({ type: 'reveal', v: PROTOCOL_VERSION, path: site.path, line: site.line });
}

export function siteLink(site: SiteView | null, label?: string): Node | null {
  if (!site) return null;
  const a = h('a', { href: '#', class: 'site', title: `${site.path}:${site.line}` }, label ?? `line ${site.line}`);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    e.stopPropagation();
    reveal(site);
  });
  return a;
}

/** Replaces `el`'s children (nulls skipped). */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false));
}
