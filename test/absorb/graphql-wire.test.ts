// Issue 38 against a real server built on graphql-yoga, on 127.0.0.1: what an absorbed GraphQL
// operation puts on the wire. Arguments and input fields left out are not sent (the server applies
// its defaults: `limit: Int = 10`, `page: Int! = 1`, `rating: Float = 3.5`), a `null` given is sent
// as null (it erases), fields whose GraphQL names are Turn keywords (`type`, `scope`) are written
// `type_`/`scope_` in Turn and go out and come back as `type`/`scope` — nested in input objects, in
// lists, in union and interface members — and a nullable result binds null.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import type { RunResult } from '../../runtime/index.js';
import { runAbsorbed } from './run-absorbed.js';

const SDL = `
enum Genre { NOVEL POETRY SCIFI }

interface Node { id: ID! }

type Tag { type: String!, label: String }

type Book implements Node {
  id: ID!
  title: String!
  year: Int
  genre: Genre
  rating: Float
  type: String
  scope: [Tag!]
}

type Author implements Node { id: ID!, name: String!, type: String }

union SearchResult = Book | Author

input TagInput { type: String!, label: String }

input BookInput {
  title: String!
  year: Int
  genre: Genre = NOVEL
  rating: Float = 3.5
  type: String
  scope: [TagInput!]
}

type Query {
  book(id: ID!): Book
  books(limit: Int = 10, page: Int! = 1): [Book!]!
  search(text: String!): [SearchResult!]!
  node(id: ID!): Node
}

type Mutation {
  addBook(book: BookInput!): Book!
  updateBook(id: ID!, title: String, year: Int, genre: Genre): Book
}
`;

type Tag = { type: string; label: string | null };
type Book = { id: string; title: string; year: number | null; genre: string | null; rating: number | null; type: string | null; scope: Tag[] | null };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-graphql-wire-'));
fs.writeFileSync(path.join(dir, 'shelf.graphql'), SDL);
let books: Book[] = [];
/** the `variables` of every request, as they came over the wire */
const sent: Record<string, unknown>[] = [];
/** the arguments every resolver saw (after the server applied its defaults) */
const seen: Record<string, unknown>[] = [];
let server: http.Server;
let base = '';

before(async () => {
  const yoga = createYoga({
    logging: false,
    maskedErrors: false,
    schema: createSchema({
      typeDefs: SDL,
      resolvers: {
        Node: { __resolveType: (v: { title?: string }) => (v.title !== undefined ? 'Book' : 'Author') },
        SearchResult: { __resolveType: (v: { title?: string }) => (v.title !== undefined ? 'Book' : 'Author') },
        Query: {
          book: (_: unknown, args: { id: string }) => books.find((b) => b.id === args.id) ?? null,
          books: (_: unknown, args: { limit: number; page: number }) => {
            seen.push(args);
            return books.slice((args.page - 1) * args.limit, args.page * args.limit);
          },
          search: () => [books[0], { id: 'a1', name: 'Jane Austen', type: 'novelist' }],
          node: (_: unknown, args: { id: string }) => (args.id === 'a1' ? { id: 'a1', name: 'Jane Austen', type: 'novelist' } : (books.find((b) => b.id === args.id) ?? null)),
        },
        Mutation: {
          addBook: (_: unknown, args: { book: Partial<Book> & { title: string } }) => {
            seen.push(args);
            const b: Book = { year: null, type: null, scope: null, genre: null, rating: null, ...args.book, id: String(books.length + 1) };
            books.push(b);
            return b;
          },
          updateBook: (_: unknown, args: Partial<Book> & { id: string }) => {
            seen.push(args);
            const b = books.find((x) => x.id === args.id);
            if (!b) return null;
            // what a server does with "left out" (keep) and null (erase)
            for (const k of ['title', 'year', 'genre'] as const) if (k in args) (b as Record<string, unknown>)[k] = args[k];
            return b;
          },
        },
      },
    }),
  });
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (body) sent.push(((JSON.parse(body) as { variables?: Record<string, unknown> }).variables ?? {}));
      // the body, read once to record it, goes to yoga through its fetch API
      void Promise.resolve(yoga.fetch(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, ...(body ? { body } : {}) })).then(async (r) => {
        // no keep-alive: a socket the server closes when idle while the next run reuses it is a reset
        res.writeHead(r.status, { ...Object.fromEntries(r.headers), connection: 'close' });
        res.end(await r.text());
      }, (e: Error) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(e.stack));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});
after(() => server.close());

function reset(): void {
  books = [{ id: '1', title: 'Persuasion', year: 1817, genre: 'NOVEL', rating: 4.5, type: 'novel', scope: [{ type: 'classic', label: 'Regency' }] }];
  sent.length = 0;
  seen.length = 0;
}

function run(name: string, body: string): Promise<{ result: RunResult; lines: string[] }> {
  return runAbsorbed(dir, name, `let shelf = use schema::graphql("shelf.graphql");\nlet gql = shelf.client("${base}");\n${body}`);
}

test('arguments left out are not sent, so the book keeps its year and genre; a null given erases', { timeout: 60_000 }, async () => {
  reset();
  const { result, lines } = await run('update.tn', `
let b = gql.updateBook(null, "1", "Persuasion (1818)");
if b != null { call("echo", b.title + " " + b.year + " " + b.genre); }
let c = gql.updateBook(null, "1", "Persuasion", null);
if c != null { call("echo", c.title + " " + c.year + " " + c.genre); }
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(sent, [{ id: '1', title: 'Persuasion (1818)' }, { id: '1', title: 'Persuasion', year: null }]);
  assert.deepEqual(lines, ['Persuasion (1818) 1817 NOVEL', 'Persuasion null NOVEL']);
});

test('Turn v1\'s call(f, map) names the arguments it gives: one before a given one may be left out', { timeout: 60_000 }, async () => {
  reset();
  const { result, lines } = await run('update-named.tn', `
let b = call(gql["updateBook"], {"auth": null, "id": "1", "genre": "SCIFI"});
call("echo", b["title"] + " " + b["year"] + " " + b["genre"]);
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(sent, [{ id: '1', genre: 'SCIFI' }]);
  assert.deepEqual(lines, ['Persuasion 1817 SCIFI']);
});

test('defaults apply when arguments are left out, a non-null one with a default included', { timeout: 60_000 }, async () => {
  reset();
  const { result, lines } = await run('books.tn', `
let all = gql.books(null);
call("echo", call("len", all));
let first = gql.books(null, 1);
call("echo", first[0].title);
let second = gql.books(null, 1, 2);
call("echo", call("len", second));
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(sent, [{}, { limit: 1 }, { limit: 1, page: 2 }]);
  assert.deepEqual(seen, [{ limit: 10, page: 1 }, { limit: 1, page: 1 }, { limit: 1, page: 2 }]);
  assert.deepEqual(lines, ['1', 'Persuasion', '0']);
});

test('input fields left out get their defaults; renamed fields go out as type and scope, nested in a list, and come back as type_ and scope_', { timeout: 60_000 }, async () => {
  reset();
  const { result, lines } = await run('add.tn', `
let added = gql.addBook(null, BookInput { title: "Emma", type_: "novel", scope_: [TagInput { type_: "classic" }, TagInput { type_: "comedy", label: "manners" }] });
call("echo", added.title + " " + added.rating + " " + added.genre + " " + added.type_);
let tags = added.scope_;
if tags != null { call("echo", tags[0].type_ + " " + tags[1].type_ + " " + tags[1].label); }
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(sent, [{ book: { title: 'Emma', type: 'novel', scope: [{ type: 'classic' }, { type: 'comedy', label: 'manners' }] } }]);
  assert.deepEqual(seen, [{ book: { title: 'Emma', genre: 'NOVEL', rating: 3.5, type: 'novel', scope: [{ type: 'classic' }, { type: 'comedy', label: 'manners' }] } }]);
  assert.deepEqual(lines, ['Emma 3.5 NOVEL novel', 'classic comedy manners']);
});

test('an input field written null is sent as null (overriding the default); one left out is not sent, also through a spread', { timeout: 60_000 }, async () => {
  reset();
  const { result, lines } = await run('add-null.tn', `
let draft = BookInput { title: "Sanditon", rating: null, type_: "fragment" };
let added = gql.addBook(null, draft);
call("echo", added.rating == null);
let again = gql.addBook(null, BookInput { title: "Sanditon II", genre: null, ..draft });
call("echo", again.rating == null);
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(sent, [
    { book: { title: 'Sanditon', rating: null, type: 'fragment' } },
    { book: { title: 'Sanditon II', genre: null, rating: null, type: 'fragment' } },
  ]);
  assert.equal((seen[0] as { book: Book }).book.rating, null, 'the explicit null overrides the default 3.5');
  assert.deepEqual(lines, ['true', 'true']);
});

test('union and interface members are read under Turn names; a nullable result binds null', { timeout: 60_000 }, async () => {
  reset();
  const { result, lines } = await run('search.tn', `
let found = gql.search(null, "austen");
let describe = turn(r: Book | Author) -> Str {
    if r.__typename == "Book" { return "book " + r.title + " " + r.type_; }
    if r.__typename == "Author" { return "author " + r.name + " " + r.type_; }
    return "neither";
};
call("echo", describe(found[0]));
call("echo", describe(found[1]));
let n = gql.node(null, "a1");
if n != null { call("echo", describe(n)); }
let none = gql.book(null, "404");
call("echo", none == null);
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['book Persuasion novel', 'author Jane Austen novelist', 'author Jane Austen novelist', 'true']);
});

test('hover text: a renamed field says its wire name, a defaulted one its default (the `///` lines of the generated struct)', async () => {
  const { absorbSchema } = await import('../../runtime/absorb/index.js');
  const { absorbedModuleSource } = await import('../../runtime/absorb/module.js');
  const r = await absorbSchema('graphql', 'shelf.graphql', dir, { cacheDir: path.join(dir, '.cache') });
  const module = absorbedModuleSource(r, 'graphql', 'shelf.graphql');
  const input = /struct BookInput \{[\s\S]*?\n\};/.exec(module)?.[0] ?? '';
  assert.match(input, /\/\/\/ Default \(applied by the server when left out\): NOVEL\.\n {4}genre: \("NOVEL" \| "POETRY" \| "SCIFI"\)\?/);
  assert.match(input, /\/\/\/ Default \(applied by the server when left out\): 3\.5\.\n {4}rating: Num\?/);
  assert.match(input, /\/\/\/ On the wire: `type`\.\n {4}type_: Str\?/);
  assert.match(input, /\/\/\/ On the wire: `scope`\.\n {4}scope_: List<TagInput>\?/);
});
