// GitHub's public GraphQL schema (`@octokit/graphql-schema`), absorbed whole, against a graphql-yoga
// server that serves that same schema: resolvers of ours for a slice of it (`search`,
// `createDeployment`), and for every other field a value made from its type. What is checked is the
// wire: the argument `type` (a Turn keyword, so `type_` in Turn) is sent as `type`; the arguments left
// out are not sent; the input field `task: String = "deploy"` left out gets the server's default and
// comes back as `task` (read `task_`); union members of the search are told apart by `__typename`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  buildASTSchema, isEnumType, isInterfaceType, isListType, isNonNullType, isObjectType, isScalarType, isUnionType, parse,
  type GraphQLFieldResolver, type GraphQLOutputType, type GraphQLSchema,
} from 'graphql';
import { createYoga } from 'graphql-yoga';
import type { RunResult } from '../../runtime/index.js';
import { runAbsorbed } from './run-absorbed.js';

const SDL_FILE = path.join(__dirname, '..', '..', 'node_modules', '@octokit', 'graphql-schema', 'schema.graphql');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-graphql-github-'));
fs.copyFileSync(SDL_FILE, path.join(dir, 'github.graphql'));

/** the `variables` of every request, as they came over the wire */
const sent: Record<string, unknown>[] = [];
/** the arguments our resolvers saw (after the server applied its defaults) */
const seen: Record<string, unknown>[] = [];
let server: http.Server;
let base = '';

/** A value of `t` for a field no resolver of ours gives: null where it may be, else the simplest one of its type. */
function made(t: GraphQLOutputType, schema: GraphQLSchema): unknown {
  if (!isNonNullType(t)) return null;
  const inner = t.ofType;
  if (isListType(inner)) return [];
  if (isEnumType(inner)) return inner.getValues()[0].value;
  if (isScalarType(inner)) {
    return ({ Int: 0, Float: 0, Boolean: false, DateTime: '2020-01-01T00:00:00Z', Date: '2020-01-01', URI: 'https://example.com', BigInt: '0' } as Record<string, unknown>)[inner.name] ?? 'x';
  }
  if (isInterfaceType(inner) || isUnionType(inner)) return { __typename: schema.getPossibleTypes(inner)[0].name };
  return {};
}

before(async () => {
  // GitHub's SDL defines two fields twice (absorption warns about it): built as the absorber builds it
  const schema = buildASTSchema(parse(fs.readFileSync(SDL_FILE, 'utf8')), { assumeValidSDL: true });
  const ours: Record<string, GraphQLFieldResolver<unknown, unknown>> = {
    'Query.search': (_, args) => {
      seen.push(args as Record<string, unknown>);
      return {
        repositoryCount: 1,
        issueCount: 0,
        nodes: [{ __typename: 'Repository', name: 'turn', nameWithOwner: 'turn-lang/turn', description: null }],
      };
    },
    'Mutation.createDeployment': (_, args) => {
      seen.push(args as Record<string, unknown>);
      const input = (args as { input: { task: string; description?: string } }).input;
      return { clientMutationId: null, autoMerged: false, deployment: { task: input.task, description: input.description ?? null } };
    },
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isInterfaceType(type) || isUnionType(type)) type.resolveType = (v) => (v as { __typename: string }).__typename;
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const own = ours[`${type.name}.${field.name}`];
      field.resolve =
        own ??
        ((parent) => {
          const p = parent as Record<string, unknown> | null;
          return p && Object.hasOwn(p, field.name) ? p[field.name] : made(field.type, schema);
        });
    }
  }
  const yoga = createYoga({ logging: false, maskedErrors: false, schema });
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (body) sent.push((JSON.parse(body) as { variables?: Record<string, unknown> }).variables ?? {});
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
after(() => server?.close());

function run(name: string, body: string): Promise<{ result: RunResult; lines: string[] }> {
  return runAbsorbed(dir, name, `let github = use schema::graphql("github.graphql");\nlet gh = github.client("${base}");\n${body}`);
}

test('search: the argument `type_` goes out as `type`, the ones left out are not sent; a union member binds by __typename', { timeout: 120_000 }, async () => {
  sent.length = 0;
  seen.length = 0;
  const { result, lines } = await run('search.tn', `
let found = gh.search(null, "turn language", "REPOSITORY");
call("echo", found.repositoryCount);
let nodes = found.nodes;
if nodes != null {
    let first = nodes[0];
    if first != null and first.__typename == "Repository" { call("echo", first.nameWithOwner + " " + (first.description == null)); }
}
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(sent, [{ query: 'turn language', type: 'REPOSITORY' }]);
  assert.deepEqual(seen, [{ query: 'turn language', type: 'REPOSITORY' }]);
  assert.deepEqual(lines, ['1', 'turn-lang/turn true']);
});

test('createDeployment: the input field task_ left out gets the default "deploy"; given, it goes out as task; read back as task_', { timeout: 120_000 }, async () => {
  sent.length = 0;
  seen.length = 0;
  const { result, lines } = await run('deploy.tn', `
let task_of = turn(p: CreateDeploymentPayload?) -> Str {
    if p != null {
        let d = p.deployment;
        if d != null {
            let t = d.task_;
            if t != null { return t; }
        }
    }
    return "none";
};
call("echo", task_of(gh.createDeployment(null, CreateDeploymentInput { refId: "R1", repositoryId: "P1" })));
call("echo", task_of(gh.createDeployment(null, CreateDeploymentInput { refId: "R1", repositoryId: "P1", task_: "migrate", description: null })));
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(sent, [{ input: { refId: 'R1', repositoryId: 'P1' } }, { input: { refId: 'R1', repositoryId: 'P1', task: 'migrate', description: null } }]);
  assert.equal((seen[0] as { input: { task: string } }).input.task, 'deploy', 'the server applied the default');
  assert.deepEqual(lines, ['deploy', 'migrate']);
});
