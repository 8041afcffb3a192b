// An absorbed GraphQL API against a real server built on graphql-yoga, on 127.0.0.1: nullable input
// fields may be left out of a struct literal (`NewBook { title: "Emma" }`), nullable arguments are
// passed as null, a union result binds as the member it is (discriminated by `__typename`), and a
// reply that does not match what the query selects is a ReplyError, nothing bound.
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
"A book."
type Book {
  id: ID!
  title: String!
  authorName: String
  year: Int
}

type Author {
  name: String!
}

union SearchResult = Book | Author

input NewBook {
  title: String!
  authorName: String
  year: Int
}

type Query {
  books(author: String, limit: Int): [Book!]!
  search(text: String!): [SearchResult!]!
  broken: Book
}

type Mutation {
  addBook(book: NewBook!): Book!
}
`;

// The server runs a newer schema than the one the program absorbed: its `broken` returns a type
// whose `year` became a String. The query document is valid against both, the reply is not the
// absorbed Book.
const SERVER_SDL = SDL.replace('broken: Book', 'broken: BrokenBook') + `
type BrokenBook {
  id: ID!
  title: String!
  authorName: String
  year: String
}
`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-graphql-yoga-'));
fs.writeFileSync(path.join(dir, 'library.graphql'), SDL);
const books: { id: string; title: string; authorName: string | null; year: number | null }[] = [{ id: '1', title: 'Persuasion', authorName: 'Jane Austen', year: 1817 }];
/** the variables of every request the server resolved */
const variables: unknown[] = [];
let server: http.Server;
let base = '';

before(async () => {
  const yoga = createYoga({
    logging: false,
    maskedErrors: false,
    schema: createSchema({
      typeDefs: SERVER_SDL,
      resolvers: {
        SearchResult: { __resolveType: (v: { title?: string }) => (v.title !== undefined ? 'Book' : 'Author') },
        Query: {
          books: (_: unknown, args: { author?: string | null; limit?: number | null }) => {
            variables.push(args);
            return books.filter((b) => !args.author || b.authorName === args.author).slice(0, args.limit ?? undefined);
          },
          search: () => [books[0], { name: 'Jane Austen' }],
          broken: () => ({ id: '9', title: 'x', authorName: null, year: 'not a year' }),
        },
        Mutation: {
          addBook: (_: unknown, args: { book: { title: string; authorName?: string | null; year?: number | null } }) => {
            variables.push(args);
            const b = { id: String(books.length + 1), title: args.book.title, authorName: args.book.authorName ?? null, year: args.book.year ?? null };
            books.push(b);
            return b;
          },
        },
      },
    }),
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
after(() => server.close());

function run(name: string, body: string): Promise<{ result: RunResult; lines: string[] }> {
  return runAbsorbed(dir, name, `let lib = use schema::graphql("library.graphql");\nlet gql = lib.client("${base}");\n${body}`);
}

test('NewBook { title: "Emma" } is accepted: the nullable authorName and year are left out', { timeout: 60_000 }, async () => {
  const { result, lines } = await run('add.tn', `
let added = gql.addBook(null, NewBook { title: "Emma" });
call("echo", added.title);
call("echo", added.year == null);
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['Emma', 'true']);
  assert.deepEqual(variables.at(-1), { book: { title: 'Emma' } }, 'the fields left out are not sent: the server applies its defaults');
});

test('nullable arguments passed as null reach the server as null; the list reply is validated and binds', { timeout: 60_000 }, async () => {
  const { result, lines } = await run('books.tn', `
let all = gql.books(null, null, null);
call("echo", call("len", all) > 0);
let austen = gql.books(null, "Jane Austen", 1);
call("echo", austen[0].title);
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['true', 'Persuasion']);
});

test('a union result binds as the member it is, told apart by __typename', { timeout: 60_000 }, async () => {
  const { result, lines } = await run('search.tn', `
let found = gql.search(null, "austen");
for_each(found);
`.replace('for_each(found);', `
let describe = turn(r: Book | Author) -> Str {
    if r.__typename == "Book" { return "book " + r.title; }
    if r.__typename == "Author" { return "author " + r.name; }
    return "neither";
};
call("echo", describe(found[0]));
call("echo", describe(found[1]));
`));
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['book Persuasion', 'author Jane Austen']);
});

test('a reply that does not match what the query selects is a ReplyError at its pointer; nothing binds', { timeout: 60_000 }, async () => {
  const { result, lines } = await run('broken.tn', `
try {
    let b = gql.broken(null);
    call("echo", "bound");
} catch (e) {
    call("echo", e["type"] + " " + e["operation"] + " " + e["pointer"]);
    call("echo", map(e["issues"], turn(i: Map) -> Str { return i["pointer"] + " " + i["message"]; }));
}
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.equal(lines.length, 2, lines.join('\n'));
  assert.equal(lines[0], 'ReplyError broken /__typename', 'Book is discriminated by its __typename, which the server names BrokenBook');
  assert.match(lines[1], /"\/year must be an integer"/, 'and the year is not an Int');
});
