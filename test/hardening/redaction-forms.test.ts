// What redaction promises (issue 28, item 3; docs/authority.md, "Redaction"): a secret reflected by
// an allowed host in hex, split in two pieces, reversed, as a list of characters or percent-encoded
// whole got through, so the program could join it, `remember` it and `turn inspect` printed it;
// an echoed model key reached a `*_test.cassette.json` in hex and in halves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Redactor } from '../../runtime/effects/vault.js';

const SECRET = 'ghp_S3cr3tT0kenValue42';
const MODEL_KEY = 'sk-proj-' + 'A1b2C3d4E5f6'.repeat(13);

function redactor(): Redactor {
  const r = new Redactor();
  r.add('github', SECRET);
  r.addKnown('OPENAI_API_KEY', MODEL_KEY);
  return r;
}

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
const percent = (s: string, upper: boolean) => [...Buffer.from(s, 'utf8')].map((b) => '%' + (upper ? b.toString(16).toUpperCase() : b.toString(16)).padStart(2, '0')).join('');

test('a secret is redacted in hex, reversed, as a list of its characters and percent-encoded whole', () => {
  const r = redactor();
  for (const secret of [SECRET, MODEL_KEY]) {
    const forms = {
      hex: hex(secret),
      HEX: hex(secret).toUpperCase(),
      reversed: [...secret].reverse().join(''),
      'a JSON list of characters': JSON.stringify([...secret]),
      'a list as Turn prints it': '[' + [...secret].map((c) => JSON.stringify(c)).join(', ') + ']',
      'a list, indented': JSON.stringify([...secret], null, 2),
      'percent-encoded (lower case)': percent(secret, false),
      'percent-encoded (upper case)': percent(secret, true),
    };
    for (const [what, form] of Object.entries(forms)) {
      const out = r.redact(`the server says: ${form} (end)`);
      assert.match(out, /«redacted:(github|OPENAI_API_KEY)»/, `${what}: ${out}`);
      for (const piece of [secret.slice(0, 8), secret.slice(-8), hex(secret).slice(0, 12)]) assert.ok(!out.includes(piece), `${what} keeps ${piece}: ${out}`);
    }
  }
});

test('a secret split in two anywhere: the longer piece is always redacted, so no two pieces rebuild it', () => {
  const r = redactor();
  for (const secret of [SECRET, MODEL_KEY]) {
    for (let k = 1; k < secret.length; k++) {
      const a = r.redact(`first: ${secret.slice(0, k)}.`);
      const b = r.redact(`second: ${secret.slice(k)}.`);
      const longer = k >= secret.length - k ? a : b;
      assert.match(longer, /«redacted:/, `split at ${k}: ${a} / ${b}`);
      // what is left visible is less than half the secret
      const visible = (a + b).replace(/first: |second: |«redacted:[^»]*»|\./g, '');
      assert.ok(visible.length < secret.length / 2 + 1, `split at ${k}: ${visible}`);
    }
  }
});

test('text around a secret and innocent text are kept', () => {
  const r = redactor();
  assert.equal(r.redact(`Bearer ${SECRET}!`), 'Bearer «redacted:github»!');
  assert.equal(r.redact('ghp_ and Value42 and S3cr are short enough to be ordinary text'), 'ghp_ and Value42 and S3cr are short enough to be ordinary text');
  assert.equal(r.redact('lists ["a", "b"] and %41%42 stay'), 'lists ["a", "b"] and %41%42 stay');
});

test('half of a short secret is ordinary text: a 10-character token does not mangle a tool name sharing its first 7', () => {
  const r = new Redactor();
  r.add('conformance', 'test-token');
  assert.equal(r.redact('tools: test-tool, test-tokens'), 'tools: test-tool, «redacted:conformance»s');
  // a piece of 8 characters or more is still redacted
  assert.match(r.redact('first: test-tok.'), /«redacted:conformance»/);
});
