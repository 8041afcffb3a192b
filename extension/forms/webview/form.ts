/// <reference lib="dom" />
// A typed form in a webview (plain DOM): the inputs of a FormNode tree (schema-form.ts) over one
// JSON value, with the webview's validation as a person types (messages at the field) and a JSON
// view to switch to. Used wherever a person answers: the what-if editor, the settle dialog, a
// waiting run's question. The host checks the answer again before acting (forms/check.ts).
//
// Typing in a field changes the value and the messages only (the input keeps its focus); a change
// of shape (a field toggled in or out, a row added or removed, a union's variant) redraws the form.
// No inline styles (the webviews' CSP allows none): looks come from the `form-*` classes.
import {
  checkValue, emptyValue, formModel, getAt, pointer, setAt, variantOf,
  type FormIssue, type FormNode, type Scalar,
} from '../schema-form.js';

export type FormResult = { ok: true; value: unknown } | { ok: false; issues: FormIssue[] };

export interface TypedFormOptions {
  /** the expected type's JSON Schema; null when it is not known (any JSON) */
  schema: object | null;
  /** the value the form starts with (default: each field's zero) */
  value?: unknown;
  /** names the form for screen readers and tests: `value of step 4` */
  label: string;
  /** after each change, with the form's answer or its issues */
  onChange?: (result: FormResult) => void;
}

/** numbers the radio groups, whose inputs share a name */
let radioGroups = 0;

type Child = Node | string | null | undefined | false;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}

/** Field names in words: `/verdict` → `verdict`, `/tags/0` → `tags[0]`. */
export function fieldName(path: string): string {
  if (path === '') return 'the value';
  return path.slice(1).split('/').map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~')).reduce((a, p) => (/^\d+$/.test(p) ? `${a}[${p}]` : a ? `${a}.${p}` : p), '');
}

export class TypedForm {
  readonly el: HTMLElement;
  private readonly node: FormNode;
  private current: unknown;
  /** text a field could not read (a number box with letters), by JSON Pointer */
  private readonly unreadable = new Map<string, string>();
  /** each field's message slot, by JSON Pointer */
  private readonly slots = new Map<string, HTMLElement>();
  private readonly body = el('div', { class: 'form-body' });
  private readonly summary = el('p', { class: 'form-summary', role: 'status' });
  private readonly toggle = el('button', { class: 'secondary form-json-toggle', type: 'button' }, 'Edit as JSON');
  private jsonView = false;
  private jsonText = '';

  constructor(private readonly options: TypedFormOptions) {
    this.node = options.schema === null ? { kind: 'json' } : formModel(options.schema);
    this.current = options.value !== undefined ? options.value : emptyValue(this.node);
    this.toggle.addEventListener('click', () => this.switchView());
    this.el = el('div', { class: 'typed-form', 'aria-label': options.label, 'data-form': options.label }, this.body, el('div', { class: 'form-footer' }, this.toggle, this.summary));
    this.redraw();
  }

  /** The answer, or the issues that stop it. */
  result(): FormResult {
    const issues = this.issues();
    return issues.length === 0 ? { ok: true, value: this.current } : { ok: false, issues };
  }

  /** The answer as JSON text (what is sent to the host, which checks it again). */
  text(): string {
    return JSON.stringify(this.current);
  }

  /** Shows the host's verdict on the answer (its issues at their fields), as the webview's own are. */
  showIssues(issues: FormIssue[]): void {
    this.paint(issues);
  }

  private issues(): FormIssue[] {
    const mine = [...this.unreadable].map(([path, message]) => ({ path, message }));
    if (this.options.schema === null) return mine;
    return [...mine, ...checkValue(this.options.schema, this.current).filter((i) => !this.unreadable.has(i.path))];
  }

  private changed(): void {
    const issues = this.issues();
    this.paint(issues);
    this.options.onChange?.(issues.length === 0 ? { ok: true, value: this.current } : { ok: false, issues });
  }

  /** Each issue at its field's slot (or the nearest enclosing one), and a count below the form. */
  private paint(issues: FormIssue[]): void {
    for (const slot of this.slots.values()) slot.replaceChildren();
    for (const i of issues) {
      let path = i.path;
      while (!this.slots.has(path) && path !== '') path = path.slice(0, Math.max(0, path.lastIndexOf('/')));
      const slot = this.slots.get(path);
      slot?.append(el('span', { class: 'form-issue', 'data-path': i.path }, path === i.path ? i.message : `${fieldName(i.path)} ${i.message}`));
    }
    this.summary.textContent = issues.length === 0 ? 'ok' : `${issues.length} ${issues.length === 1 ? 'problem' : 'problems'} to fix`;
    this.summary.className = issues.length === 0 ? 'form-summary ok' : 'form-summary error';
    this.el.classList.toggle('invalid', issues.length > 0);
  }

  private switchView(): void {
    if (this.jsonView) {
      try {
        this.current = JSON.parse(this.jsonText) as unknown;
      } catch {
        return; // the JSON box keeps its message; the form would show something else than the text
      }
      this.jsonView = false;
    } else {
      this.jsonView = true;
      this.jsonText = JSON.stringify(this.current, null, 2);
    }
    this.unreadable.clear();
    this.redraw();
  }

  private redraw(): void {
    this.slots.clear();
    this.toggle.textContent = this.jsonView ? 'Edit as form' : 'Edit as JSON';
    this.toggle.hidden = this.node.kind === 'json';
    this.body.replaceChildren(this.jsonView ? this.jsonBox('', this.jsonText, (t) => (this.jsonText = t)) : this.draw(this.node, '', this.options.label));
    this.changed();
  }

  /** The slot where `path`'s messages go. */
  private slot(path: string): HTMLElement {
    const s = el('div', { class: 'form-issues', 'data-issues': path, 'aria-live': 'polite' });
    this.slots.set(path, s);
    return s;
  }

  private set(path: string, value: unknown): void {
    this.current = setAt(this.current, path, value);
  }

  private draw(node: FormNode, path: string, label: string): HTMLElement {
    const value = getAt(this.current, path);
    switch (node.kind) {
      case 'object': {
        const box = el('fieldset', { class: 'form-object', 'data-path': path },
          el('legend', {}, node.title ?? label), node.description ? el('p', { class: 'muted form-description' }, node.description) : null, this.slot(path));
        for (const f of node.fields) {
          const fp = pointer(path, f.name);
          const present = getAt(this.current, fp) !== undefined;
          const row = el('div', { class: `form-field kind-${f.node.kind}`, 'data-path': fp });
          const name = el('span', { class: 'form-name' }, f.name);
          if (f.optional) {
            const include = el('input', { type: 'checkbox', class: 'form-include', 'aria-label': `give ${fieldName(fp)}` });
            include.checked = present;
            include.addEventListener('change', () => {
              this.set(fp, include.checked ? emptyValue(f.node) : undefined);
              this.redraw();
            });
            row.append(el('label', { class: 'form-label' }, include, name, el('span', { class: 'muted' }, ' (optional)')));
          } else row.append(el('label', { class: 'form-label' }, name));
          if (f.description) row.append(el('p', { class: 'muted form-description' }, f.description));
          if (!f.optional || present) row.append(this.draw(f.node, fp, fieldName(fp)));
          else row.append(this.slot(fp));
          box.append(row);
        }
        return box;
      }
      case 'string': {
        const input = node.multiline ? el('textarea', { rows: '2' }) : el('input', { type: 'text' });
        input.className = 'form-input';
        input.setAttribute('aria-label', label);
        input.setAttribute('data-path', path);
        input.value = typeof value === 'string' ? value : '';
        if (typeof value !== 'string') this.set(path, input.value);
        input.addEventListener('input', () => {
          this.set(path, input.value);
          this.changed();
        });
        return el('div', { class: 'form-leaf' }, input, this.slot(path));
      }
      case 'number':
      case 'integer': {
        // a text box, not type=number: the browser empties a number box it cannot read, which would hide the mistake
        const input = el('input', { type: 'text', inputmode: node.kind === 'integer' ? 'numeric' : 'decimal', class: 'form-input', 'aria-label': label, 'data-path': path });
        input.value = typeof value === 'number' ? String(value) : '';
        input.addEventListener('input', () => {
          const t = input.value.trim();
          const n = t === '' ? NaN : Number(t);
          if (Number.isFinite(n)) {
            this.unreadable.delete(path);
            this.set(path, n);
          } else {
            this.unreadable.set(path, node.kind === 'integer' ? 'must be a whole number' : 'must be a number');
          }
          this.changed();
        });
        return el('div', { class: 'form-leaf' }, input, this.slot(path));
      }
      case 'boolean': {
        const input = el('input', { type: 'checkbox', class: 'form-input', 'aria-label': label, 'data-path': path });
        input.checked = value === true;
        if (typeof value !== 'boolean') this.set(path, false);
        input.addEventListener('change', () => {
          this.set(path, input.checked);
          this.changed();
        });
        return el('div', { class: 'form-leaf' }, input, this.slot(path));
      }
      case 'enum':
        return this.choice(node.values, value, path, label);
      case 'const':
        if (value !== node.value) this.set(path, node.value);
        return el('div', { class: 'form-leaf' }, el('code', { class: 'form-const' }, JSON.stringify(node.value)), this.slot(path));
      case 'null':
        if (value !== null) this.set(path, null);
        return el('div', { class: 'form-leaf' }, el('code', {}, 'null'), this.slot(path));
      case 'nullable': {
        const given = el('input', { type: 'checkbox', class: 'form-given', 'aria-label': `${label} is not null` });
        given.checked = value !== null && value !== undefined;
        if (value === undefined) this.set(path, null);
        given.addEventListener('change', () => {
          this.set(path, given.checked ? emptyValue(node.inner) : null);
          this.redraw();
        });
        return el('div', { class: 'form-nullable', 'data-path': path }, el('label', { class: 'muted' }, given, ' a value (else null)'),
          given.checked ? this.draw(node.inner, path, label) : this.slot(path));
      }
      case 'list': {
        const rows = Array.isArray(value) ? value : [];
        if (!Array.isArray(value)) this.set(path, rows);
        const box = el('div', { class: 'form-list', 'data-path': path }, this.slot(path));
        rows.forEach((_, i) => {
          const rp = pointer(path, i);
          const remove = el('button', { type: 'button', class: 'secondary form-remove', 'aria-label': `remove ${fieldName(rp)}` }, 'Remove');
          remove.addEventListener('click', () => {
            this.set(rp, undefined);
            this.redraw();
          });
          box.append(el('div', { class: 'form-row', 'data-path': rp }, el('span', { class: 'muted form-index' }, `${i + 1}.`), this.draw(node.item, rp, fieldName(rp)), remove));
        });
        const add = el('button', { type: 'button', class: 'secondary form-add', 'aria-label': `add to ${label}` }, 'Add');
        if (node.maxItems !== undefined && rows.length >= node.maxItems) add.setAttribute('disabled', '');
        add.addEventListener('click', () => {
          this.set(pointer(path, rows.length), emptyValue(node.item));
          this.redraw();
        });
        box.append(add);
        return box;
      }
      case 'union': {
        const at = variantOf(node, value);
        const pick = el('select', { class: 'form-variant', 'aria-label': `kind of ${label}` });
        node.variants.forEach((v, i) => {
          const o = el('option', { value: String(i) }, v.label);
          if (i === at) o.selected = true;
          pick.append(o);
        });
        pick.addEventListener('change', () => {
          this.set(path, emptyValue(node.variants[Number(pick.value)].node));
          this.redraw();
        });
        return el('div', { class: 'form-union', 'data-path': path }, pick, this.draw(node.variants[at].node, path, label));
      }
      case 'json': {
        const box = this.jsonBox(path, JSON.stringify(value === undefined ? null : value, null, 2), null);
        if (node.note) box.prepend(el('p', { class: 'muted form-note' }, node.note));
        return box;
      }
    }
  }

  /** Choices: radios for a few, a select for more. */
  private choice(values: Scalar[], value: unknown, path: string, label: string): HTMLElement {
    const at = Math.max(0, values.findIndex((v) => v === value));
    if (!values.some((v) => v === value)) this.set(path, values[at]);
    const text = (v: Scalar) => (typeof v === 'string' ? v : JSON.stringify(v));
    if (values.length <= 4) {
      const group = el('div', { class: 'form-radios', role: 'radiogroup', 'aria-label': label, 'data-path': path });
      const name = `form-radio-${++radioGroups}`;
      values.forEach((v, i) => {
        const r = el('input', { type: 'radio', name, value: String(i), 'aria-label': `${label}: ${text(v)}` });
        r.checked = i === at;
        r.addEventListener('change', () => {
          this.set(path, values[i]);
          this.changed();
        });
        group.append(el('label', { class: 'form-radio' }, r, ' ', text(v)));
      });
      return el('div', { class: 'form-leaf' }, group, this.slot(path));
    }
    const pick = el('select', { class: 'form-input', 'aria-label': label, 'data-path': path });
    values.forEach((v, i) => {
      const o = el('option', { value: String(i) }, text(v));
      if (i === at) o.selected = true;
      pick.append(o);
    });
    pick.addEventListener('change', () => {
      this.set(path, values[Number(pick.value)]);
      this.changed();
    });
    return el('div', { class: 'form-leaf' }, pick, this.slot(path));
  }

  /** A JSON text box for the value at `path` (`whole`: the JSON view's own text keeper). */
  private jsonBox(path: string, text: string, whole: ((t: string) => void) | null): HTMLElement {
    const area = el('textarea', { class: 'form-json', rows: String(Math.min(12, Math.max(3, text.split('\n').length))), 'aria-label': `${this.options.label} as JSON`, 'data-path': path, spellcheck: 'false' });
    area.value = text;
    area.addEventListener('input', () => {
      whole?.(area.value);
      try {
        this.set(path, JSON.parse(area.value) as unknown);
        this.unreadable.delete(path);
      } catch (e) {
        this.unreadable.set(path, `is not JSON: ${(e as Error).message}`);
      }
      this.changed();
    });
    return el('div', { class: 'form-leaf' }, area, this.slot(path));
  }
}

/** A typed form for `options.schema`, starting at `options.value`. */
export function typedForm(options: TypedFormOptions): TypedForm {
  return new TypedForm(options);
}
