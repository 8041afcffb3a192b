// The Runs view's tooltips (issue 28, item 8): a run's entry file's base name goes into Markdown
// escaped, so a name such as `[x](http://e).tn` or `*a*<b>.tn` shows as written, not as a link,
// emphasis or HTML. Rendered by a real CommonMark renderer (markdown-it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
// @ts-expect-error: markdown-it ships no types here
import MarkdownIt from 'markdown-it';
import { markdownText, tooltipHeading } from '../../extension/runs/model.js';

const md = new MarkdownIt({ html: true, linkify: false });
const textOf = (html: string) => html.replace(/<[^>]+>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&').trim();

const NAMES = ['[click](evil.example).tn', '<https:evil.example>.tn', '*star*_under_.tn', '<img src=x onerror=1>.tn', '# heading.tn', '`code`.tn', 'a\\b|c~~d~~!.tn', '1. list.tn', '- item.tn', 'plain.tn'];

test('a base name in a Runs view tooltip renders as its own text: no link, emphasis, HTML or heading', () => {
  for (const name of NAMES) {
    const html = md.render(tooltipHeading({ entry: `/w/${name}`, state: 'suspended' }));
    assert.doesNotMatch(html, /<a |<em>|<img|<h1|<code>|<del>|<s>|<ol|<ul/, `${name} → ${html}`);
    assert.match(html, /^<p><strong>/, `${name} → ${html}`);
    assert.equal(textOf(html), `${name} — suspended`, `${name} → ${html}`);
  }
});

test('markdownText leaves ordinary names readable', () => {
  assert.equal(textOf(md.render(markdownText('research_team.tn'))), 'research_team.tn');
  assert.equal(textOf(md.renderInline(markdownText('a&b.tn'))), 'a&b.tn');
});
