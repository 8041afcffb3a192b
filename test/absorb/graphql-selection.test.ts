// Issue 38: a value bound from a GraphQL reply has only the fields its query selected
// (runtime/absorb/graphql.ts, typeSelections). A field no generated query selects (one that needs
// an argument, one past the selection's depth everywhere its type is reached) is not in the struct,
// so reading it is a `turn check` error at the field, not a run-time null; a non-null field selected
// in some places but not others is `T?`, to be tested. The server is graphql-yoga on 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import { absorbSchema } from '../../runtime/absorb/index.js';
import { runAbsorbed } from './run-absorbed.js';

const SDL = `
type Book {
  id: ID!
  title: String!
  author: Author!
  reviews(first: Int!): [Review!]!
  related: Book
}

type Author {
  name: String!
  books: [Book!]!
}

type Review {
  stars: Int!
}

type Query {
  book(id: ID!): Book!
  author(name: String!): Author!
}
`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-graphql-selection-'));
fs.writeFileSync(path.join(dir, 'library.graphql'), SDL);
const austen = { name: 'Jane Austen' };
const emma = { id: '1', title: 'Emma', author: austen, reviews: () => [{ stars: 5 }], related: null };
Object.assign(austen, { books: [emma] });
/** the query documents the server answered */
const queries: string[] = [];
let server: http.Server;
let base = '';

before(async () => {
  const yoga = createYoga({
    logging: false,
    maskedErrors: false,
    schema: createSchema({ typeDefs: SDL, resolvers: { Query: { book: () => emma, author: () => austen } } }),
    plugins: [{ onParams: ({ params }: { params: { query?: string } }) => void queries.push(params.query ?? '') }],
  });
  // one connection per request: a kept-alive one the server closes as idle while the client reuses
  // it was a race (ECONNRESET on a loaded machine)
  server = http.createServer((req, res) => {
    res.setHeader('connection', 'close');
    void yoga(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});
after(() => server?.close());

async function check(source: string): Promise<string[]> {
  const { checkSource } = await import('../../runtime/check/index.js');
  const { formatDiagnostic } = await import('../../runtime/diagnostics.js');
  const saved = process.env.TURN_SCHEMA_DIR;
  process.env.TURN_SCHEMA_DIR = path.join(dir, '.schemas');
  try {
    const r = await checkSource(path.join(dir, 'check.tn'), `let lib = use schema::graphql("library.graphql");\nlet api = lib.client("http://127.0.0.1:1/graphql");\n${source}`);
    return r.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(r.file, d).slice(dir.length + 1));
  } finally {
    if (saved === undefined) delete process.env.TURN_SCHEMA_DIR;
    else process.env.TURN_SCHEMA_DIR = saved;
  }
}

test('the structs are what the queries select: a field no query selects is not there, one selected only somewhere is optional', async () => {
  const r = await absorbSchema('graphql', path.join(dir, 'library.graphql'), dir, { cacheDir: path.join(dir, '.cache') });
  const fields = (s: string) => r.structs.find((x) => x.name === s)!.fields.map((f) => `${f.name}${f.optional ? '?' : ''}`);
  // `reviews` needs an argument: no query selects it. `author` is selected where Book is reached at
  // depth 0 or 1, not at depth 2 (`author(name) { books { related { ... } } }`).
  assert.deepEqual(fields('Book'), ['id', 'title', 'author?', 'related?']);
  // `books` is selected by `author(name)`, not inside `book(id) { author { ... } }` (Book is on the path)
  assert.deepEqual(fields('Author'), ['name', 'books?']);
});

test('turn check: reading a field no query selects is an error at the field; one selected only somewhere must be tested', { timeout: 60_000 }, async () => {
  assert.deepEqual(
    await check(`let b = api.book(null, "1");
let r = b.reviews;
let n: Str = b.author.name;
`),
    ['check.tn:4:11: Book has no field `reviews`', 'check.tn:5:23: `b.author` may be null (Author?): test it first, e.g. `if b.author != null { ... }`'],
  );
});

test('against graphql-yoga: the selected fields bind, the optional one is read after a test; a program reading an unselected field does not run', { timeout: 60_000 }, async () => {
  queries.length = 0;
  const { result, lines } = await runAbsorbed(dir, 'run.tn', `let lib = use schema::graphql("library.graphql");
let api = lib.client("${base}");
let b = api.book(null, "1");
let who = b.author;
if who != null { call("echo", b.title + " by " + who.name); }
let a = api.author(null, "Jane Austen");
let books = a.books;
if books != null { call("echo", a.name + ": " + books[0].title); }
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['Emma by Jane Austen', 'Jane Austen: Emma']);
  assert.equal(queries.length, 2);
  assert.doesNotMatch(queries.join('\n'), /reviews/);
  // the attack on the type: a program reading what the query never asked for is refused before it
  // runs (it used to bind and read null from a field typed non-null)
  queries.length = 0;
  await assert.rejects(
    runAbsorbed(dir, 'unselected.tn', `let lib = use schema::graphql("library.graphql");
let api = lib.client("${base}");
let b = api.book(null, "1");
call("echo", b.reviews);
`),
    (e: Error & { kind?: string; diagnostics?: { diagnostic: { message: string } }[] }) =>
      e.kind === 'compile' && !!e.diagnostics?.some((d) => d.diagnostic.message === 'Book has no field `reviews`'),
  );
  assert.equal(queries.length, 0, 'nothing was sent');
});
