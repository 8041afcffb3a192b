// Shopify's public Storefront API and Customer Account API (the introspection JSON that
// @shopify/hydrogen-react ships, provisioned into .e2e/schemas/ by scripts/provision-schemas.sh),
// each absorbed whole, and each served by a graphql-yoga server built from that schema's SDL, with
// resolvers of ours for a slice of it and, for every other field, a value made from its type. What
// is checked is the wire, as the server saw it: arguments left out are not sent and the server
// applies their defaults, a written `null` is sent as null, names Turn renames (`type`, `return`)
// go out and come back in the schema's spelling, nullable results are `T?` (reading one without a
// test is a check error), union and interface members bind by `__typename`. Without the schema
// files the tests are skipped saying why, except under TURN_E2E=1 (CI), where they fail.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  GraphQLError, buildASTSchema, buildClientSchema, isEnumType, isInputObjectType, isInterfaceType, isListType, isNonNullType, isObjectType,
  isScalarType, isUnionType, parse, printSchema,
  type GraphQLFieldResolver, type GraphQLOutputType, type GraphQLSchema, type IntrospectionQuery,
} from 'graphql';
import { createYoga } from 'graphql-yoga';
import type { RunResult } from '../../runtime/index.js';
import { absorbGraphQL } from '../../runtime/absorb/graphql.js';
import type { SpecDiagnostic } from '../../runtime/absorb/types.js';
import { ROOT, turn } from '../cli/run-cli.js';
import { runAbsorbed } from './run-absorbed.js';

const SCHEMAS = path.join(ROOT, '.e2e', 'schemas');
const FILES = { storefront: 'storefront.schema.json', customer: 'customer-account.schema.json' } as const;
type Api = keyof typeof FILES;

function missing(): string | undefined {
  for (const f of Object.values(FILES)) {
    if (!fs.existsSync(path.join(SCHEMAS, f))) return `${path.relative(ROOT, path.join(SCHEMAS, f))} is absent: run scripts/provision-schemas.sh (npm pack @shopify/hydrogen-react)`;
  }
  return undefined;
}
const absent = missing();
if (absent && process.env.TURN_E2E === '1') {
  test('the Shopify schemas are provisioned', () => assert.fail(absent));
}
const skip = absent && process.env.TURN_E2E !== '1' ? absent : false;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-graphql-shopify-'));
/** each API's SDL, printed from its introspection JSON (what a program absorbs and the server serves) */
const sdl = {} as Record<Api, string>;

interface Served {
  base: string;
  /** the `variables` of every request, as they came over the wire */
  sent: Record<string, unknown>[];
  /** the arguments our resolvers saw (after the server applied its defaults) */
  seen: Record<string, unknown>[];
  server: http.Server;
  /** when set, what the server answers is yoga's reply changed by it (a hostile or broken server) */
  tamper?: (reply: { data: Record<string, Record<string, unknown>> }) => void;
}
const served = {} as Record<Api, Served>;

/** A value of `t` for a field no resolver of ours gives: null where it may be, else the simplest one of its type. */
function made(t: GraphQLOutputType, schema: GraphQLSchema): unknown {
  if (!isNonNullType(t)) return null;
  const inner = t.ofType;
  if (isListType(inner)) return [];
  if (isEnumType(inner)) return inner.getValues()[0].value;
  if (isScalarType(inner)) return ({ Int: 0, Float: 0, Boolean: false } as Record<string, unknown>)[inner.name] ?? 'x';
  if (isInterfaceType(inner) || isUnionType(inner)) return { __typename: schema.getPossibleTypes(inner)[0].name };
  return {};
}

async function serve(text: string, ours: Record<string, GraphQLFieldResolver<unknown, unknown>>): Promise<Served> {
  const schema = buildASTSchema(parse(text));
  const out: Served = { base: '', sent: [], seen: [], server: undefined as unknown as http.Server };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isInterfaceType(type) || isUnionType(type)) type.resolveType = (v) => (v as { __typename: string }).__typename;
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const own = ours[`${type.name}.${field.name}`];
      // as Shopify's servers do: a connection given neither `first` nor `last` is refused
      const paginated = ['first', 'last'].every((a) => field.args.some((x) => x.name === a));
      field.resolve = own
        ? (parent, args, ctx, info) => {
            out.seen.push(args as Record<string, unknown>);
            if (paginated && args.first == null && args.last == null) throw new GraphQLError('you must provide one of first or last');
            return own(parent, args, ctx, info);
          }
        : (parent, args) => {
            if (paginated && args.first == null && args.last == null) throw new GraphQLError(`${type.name}.${field.name}: you must provide one of first or last`);
            const p = parent as Record<string, unknown> | null;
            return p && Object.hasOwn(p, field.name) ? p[field.name] : made(field.type, schema);
          };
    }
  }
  const yoga = createYoga({ logging: false, maskedErrors: false, schema });
  out.server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (body) out.sent.push((JSON.parse(body) as { variables?: Record<string, unknown> }).variables ?? {});
      void Promise.resolve(yoga.fetch(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, ...(body ? { body } : {}) })).then(async (r) => {
        let text = await r.text();
        if (out.tamper) {
          const reply = JSON.parse(text) as { data: Record<string, Record<string, unknown>> };
          try {
            out.tamper(reply);
            text = JSON.stringify(reply);
          } catch {
            // a reply without the data to change (an error reply) goes out as it is
          }
        }
        // no keep-alive: a socket the server closes when idle while the next run reuses it is a reset
        res.writeHead(r.status, { ...Object.fromEntries(r.headers), 'content-length': String(Buffer.byteLength(text)), connection: 'close' });
        res.end(text);
      }, (e: Error) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(e.stack));
      });
    });
  });
  await new Promise<void>((r) => out.server.listen(0, '127.0.0.1', r));
  out.base = `http://127.0.0.1:${(out.server.address() as AddressInfo).port}/graphql`;
  return out;
}

/** Storefront: a product catalogue of two, a cart; every resolver answers from its arguments. */
const storefront: Record<string, GraphQLFieldResolver<unknown, unknown>> = {
  'QueryRoot.product': (_, args) => {
    const { handle, id } = args as { handle?: string | null; id?: string | null };
    if (handle === 'red-shirt' || id === 'gid://shopify/Product/1') return { id: 'gid://shopify/Product/1', handle: 'red-shirt', title: 'Red shirt' };
    return null;
  },
  'QueryRoot.products': (_, args) => {
    const { first, sortKey, reverse } = args as { first: number; sortKey: string; reverse: boolean };
    const all = [{ title: 'Blue shirt' }, { title: 'Red shirt' }].slice(0, first);
    return { nodes: (reverse ? all.reverse() : all).map((p) => ({ ...p, productType: sortKey })) };
  },
  'QueryRoot.metaobjects': (_, args) => ({ nodes: [{ handle: 'ada', type: (args as { type: string }).type }] }),
  'QueryRoot.search': () => ({
    totalCount: 2,
    nodes: [
      { __typename: 'Page', title: 'Shipping', bodySummary: 'We ship.' },
      { __typename: 'Product', title: 'Red shirt', vendor: 'Turn Apparel' },
    ],
  }),
  'Mutation.cartCreate': (_, args) => {
    const input = (args as { input: { lines: { quantity: number }[]; note?: string | null } }).input;
    const discountAllocations = [
      { __typename: 'CartCodeDiscountAllocation', code: 'WELCOME' },
      { __typename: 'CartAutomaticDiscountAllocation', title: 'Spring sale' },
    ];
    return { cart: { id: 'gid://shopify/Cart/1', note: input.note ?? null, totalQuantity: input.lines.reduce((n, l) => n + l.quantity, 0), discountAllocations }, userErrors: [], warnings: [] };
  },
  'Mutation.cartLinesAdd': (_, args) => {
    const { cartId, lines } = args as { cartId: string; lines: { quantity: number }[] };
    return { cart: { id: cartId, totalQuantity: lines.reduce((n, l) => n + l.quantity, 0) }, userErrors: [], warnings: [] };
  },
  'Mutation.cartMetafieldsSet': (_, args) => ({
    metafields: (args as { metafields: { key: string; type: string; value: string }[] }).metafields.map((m) => ({ key: m.key, type: m.type, value: m.value, namespace: 'custom' })),
    userErrors: [],
  }),
};

/** Customer Account: one customer whose names a customerUpdate changes (null clears one, left out keeps it). */
const customerState: { firstName: string | null; lastName: string | null } = { firstName: 'Grace', lastName: 'Hopper' };
const customer: Record<string, GraphQLFieldResolver<unknown, unknown>> = {
  'QueryRoot.customer': () => ({
    id: 'gid://shopify/Customer/1',
    displayName: 'Grace Hopper',
    ...customerState,
    availableWalletPaymentConfigs: [{ __typename: 'GooglePayWalletConfig', merchantName: 'Turn Shop' }, { __typename: 'ApplePayWalletConfig', supportedNetworks: ['visa'] }],
  }),
  'Mutation.customerUpdate': (_, args) => {
    const input = (args as { input: { firstName?: string | null; lastName?: string | null } }).input;
    if ('firstName' in input) customerState.firstName = input.firstName ?? null;
    if ('lastName' in input) customerState.lastName = input.lastName ?? null;
    return { customer: { id: 'gid://shopify/Customer/1', ...customerState }, userErrors: [] };
  },
  'QueryRoot.return': (_, args) => ({ id: (args as { id: string }).id, name: '#1001-R1', status: 'OPEN' }),
  'Mutation.customerAddressCreate': (_, args) => ({
    customerAddress: { id: 'gid://shopify/CustomerAddress/1', city: (args as { address: { city?: string } }).address.city ?? null },
    userErrors: [],
  }),
  'Mutation.metafieldsSet': (_, args) => ({
    metafields: (args as { metafields: { key: string; type?: string; value: string }[] }).metafields.map((m) => ({ key: m.key, type: m.type ?? 'single_line_text_field', value: m.value, namespace: 'custom' })),
    userErrors: [],
  }),
};

const FILE_OF: Record<Api, string> = { storefront: 'storefront.graphql', customer: 'customer-account.graphql' };

before(async () => {
  if (skip) return;
  for (const api of Object.keys(FILES) as Api[]) {
    const json = JSON.parse(fs.readFileSync(path.join(SCHEMAS, FILES[api]), 'utf8')) as { data?: IntrospectionQuery } & IntrospectionQuery;
    sdl[api] = printSchema(buildClientSchema(json.data ?? json));
    fs.writeFileSync(path.join(dir, FILE_OF[api]), sdl[api]);
  }
  served.storefront = await serve(sdl.storefront, storefront);
  served.customer = await serve(sdl.customer, customer);
});
after(() => {
  for (const s of Object.values(served)) s.server.close();
});

function program(api: Api, body: string): string {
  const name = api === 'storefront' ? 'sf' : 'ca';
  return `let ${name}_api = use schema::graphql("${FILE_OF[api]}");\nlet ${name} = ${name}_api.client("${served[api]?.base ?? 'http://127.0.0.1:1/graphql'}");\n${body}`;
}

async function run(api: Api, name: string, body: string): Promise<{ result: RunResult; lines: string[] }> {
  served[api].sent.length = 0;
  served[api].seen.length = 0;
  return runAbsorbed(dir, name, program(api, body));
}

/** `turn check` of a program of `api` (the CLI, as a user runs it). */
function check(api: Api, name: string, body: string) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, program(api, body));
  return turn(['check', file], { cwd: dir, env: { TURN_SCHEMA_DIR: path.join(dir, '.schemas') } });
}

/** The names absorption gave that differ from the schema's (`Type.field`, `Root.op(arg)`, `op Root.op`). */
function renamed(r: ReturnType<typeof absorbGraphQL>): string[] {
  const out: string[] = [];
  for (const s of r.structs) {
    if (s.name !== s.origin) out.push(`type ${s.origin} -> ${s.name}`);
    for (const f of s.fields) if (f.name !== f.wireName) out.push(`${s.origin}.${f.wireName} -> ${f.name}`);
  }
  for (const o of r.operations) {
    if (o.name !== o.graphql?.field) out.push(`op ${o.origin} -> ${o.name}`);
    for (const p of o.params) if (p.name !== p.wireName) out.push(`${o.origin}(${p.wireName}) -> ${p.name}`);
  }
  return out;
}

for (const api of Object.keys(FILES) as Api[]) {
  test(`${api}: absorbed whole — a struct for every object, input and interface type, a callable for every query and mutation`, { skip, timeout: 120_000 }, (t) => {
    const diags: SpecDiagnostic[] = [];
    const started = performance.now();
    const r = absorbGraphQL(sdl[api], FILE_OF[api], diags);
    const ms = Math.round(performance.now() - started);
    assert.deepEqual(diags, []);
    const schema = buildASTSchema(parse(sdl[api]));
    const roots = [schema.getQueryType(), schema.getMutationType()].filter((x) => x != null);
    const composite = Object.values(schema.getTypeMap()).filter((x) => !x.name.startsWith('__') && !roots.includes(x as never) && (isObjectType(x) || isInputObjectType(x) || isInterfaceType(x)));
    assert.deepEqual(r.structs.map((s) => s.origin).sort(), composite.map((x) => x.name).sort());
    const fields = roots.flatMap((root) => Object.keys(root.getFields()).map((f) => `${root.name}.${f}`));
    assert.deepEqual(r.operations.map((o) => o.origin).sort(), fields.sort());
    const names = renamed(r);
    t.diagnostic(`${FILE_OF[api]}: ${Object.keys(schema.getTypeMap()).filter((n) => !n.startsWith('__')).length} types (${r.structs.length} structs), ${r.operations.length} operations, ${names.length} renamed names, absorbed in ${ms} ms`);
    t.diagnostic(`renamed: ${names.join('; ')}`);
    if (api === 'storefront') {
      for (const n of ['QueryRoot.metaobjects(type) -> type_', 'Metaobject.type -> type_', 'CartMetafieldsSetInput.type -> type_', 'Metafield.type -> type_']) assert.ok(names.includes(n), n);
    } else {
      // (no generated query selects `Customer.return`: it needs an argument; so Customer has no such field)
      for (const n of ['op QueryRoot.return -> return_', 'ReturnAgreement.return -> return_', 'MetafieldsSetInput.type -> type_', 'Metafield.type -> type_']) assert.ok(names.includes(n), n);
      assert.ok(!names.includes('Customer.return -> return_'));
    }
  });
}

test('storefront: `turn check` of a program using it is clean; reading a field of a nullable result without a test is reported', { skip, timeout: 120_000 }, () => {
  const clean = check('storefront', 'sf-check.tn', `
let p = sf.product(null, "red-shirt");
if p != null { call("echo", p.title); }
let m = sf.metaobjects(null, "designer");
call("echo", m.nodes[0].type_);
`);
  assert.deepEqual([clean.code, clean.stdout + clean.stderr], [0, '']);
  const unchecked = check('storefront', 'sf-unchecked.tn', 'let p = sf.product(null, "red-shirt");\ncall("echo", p.title);\n');
  assert.equal(unchecked.code, 2);
  assert.match(unchecked.stdout + unchecked.stderr, /sf-unchecked\.tn:4:16: `p` may be null \(Product\?\): test it first/);
});

test('storefront queries: left-out arguments not sent and defaulted by the server, an explicit null sent, `type_` as `type`, a union member bound by __typename', { skip, timeout: 120_000 }, async () => {
  const sent = served.storefront.sent;
  const seen = served.storefront.seen;
  const { result, lines } = await run('storefront', 'sf-queries.tn', `
let p = sf.product(null, "red-shirt");
if p != null { call("echo", p.title + " " + p.handle); }
let by_id = sf.product(null, null, "gid://shopify/Product/1");
if by_id != null { call("echo", by_id.handle); }
call("echo", sf.product(null, "no-such-thing") == null);
let page = call(sf["products"], {"auth": null, "first": 1, "query": "shirt"});
call("echo", page.nodes[0].title + " sorted by " + page.nodes[0].productType);
let m = call(sf["metaobjects"], {"auth": null, "type_": "designer", "first": 1});
call("echo", m.nodes[0].handle + " is a " + m.nodes[0].type_);
let hits = call(sf["search"], {"auth": null, "query": "shirt", "first": 2}).nodes;
let describe = turn(h: Article | Page | Product) -> Str {
    if h.__typename == "Product" { return "product by " + h.vendor; }
    if h.__typename == "Page" { return "page: " + h.bodySummary; }
    return "article";
};
call("echo", describe(hits[0]));
call("echo", describe(hits[1]));
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['Red shirt red-shirt', 'red-shirt', 'true', 'Blue shirt sorted by ID', 'ada is a designer', 'page: We ship.', 'product by Turn Apparel']);
  assert.deepEqual(sent, [
    { handle: 'red-shirt' },
    { handle: null, id: 'gid://shopify/Product/1' },
    { handle: 'no-such-thing' },
    { first: 1, query: 'shirt' },
    { type: 'designer', first: 1 },
    { query: 'shirt', first: 2 },
  ]);
  // the server applied the defaults of what was left out: reverse = false, sortKey = ID / RELEVANCE
  assert.deepEqual(seen[3], { first: 1, query: 'shirt', reverse: false, sortKey: 'ID' });
  assert.deepEqual(seen[4], { type: 'designer', first: 1, reverse: false });
  assert.deepEqual(seen[5], { query: 'shirt', first: 2, reverse: false, sortKey: 'RELEVANCE' });
});

test('storefront mutations: an input field left out gets its default (quantity 1), a written null is sent, `type_` goes out as `type` and reads back; interface members bind by __typename', { skip, timeout: 120_000 }, async () => {
  const sent = served.storefront.sent;
  const { result, lines } = await run('storefront', 'sf-cart.tn', `
let allocation = turn(a: CartAutomaticDiscountAllocation | CartCodeDiscountAllocation | CartCustomDiscountAllocation) -> Str {
    if a.__typename == "CartCodeDiscountAllocation" { return "code " + a.code; }
    if a.__typename == "CartAutomaticDiscountAllocation" { return "automatic " + a.title; }
    return "custom";
};
let created = sf.cartCreate(null, CartInput { lines: [CartLineInput { merchandiseId: "gid://shopify/ProductVariant/7" }], note: null });
if created != null {
    let cart = created.cart;
    if cart != null {
        call("echo", cart.id);
        call("echo", cart.totalQuantity);
        call("echo", cart.note == null);
        call("echo", allocation(cart.discountAllocations[0]) + ", " + allocation(cart.discountAllocations[1]));
    }
}
let added = sf.cartLinesAdd(null, "gid://shopify/Cart/1", [CartLineInput { merchandiseId: "gid://shopify/ProductVariant/8", quantity: 3, sellingPlanId: null }]);
if added != null {
    let cart = added.cart;
    if cart != null { call("echo", cart.totalQuantity); }
}
let set = sf.cartMetafieldsSet(null, [CartMetafieldsSetInput { key: "gift", ownerId: "gid://shopify/Cart/1", type_: "boolean", value: "true" }]);
if set != null {
    let fields = set.metafields;
    if fields != null { call("echo", fields[0].key + " " + fields[0].type_ + " " + fields[0].value); }
}
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(sent, [
    { input: { lines: [{ merchandiseId: 'gid://shopify/ProductVariant/7' }], note: null } },
    { cartId: 'gid://shopify/Cart/1', lines: [{ merchandiseId: 'gid://shopify/ProductVariant/8', quantity: 3, sellingPlanId: null }] },
    { metafields: [{ key: 'gift', ownerId: 'gid://shopify/Cart/1', type: 'boolean', value: 'true' }] },
  ]);
  assert.deepEqual(lines, ['gid://shopify/Cart/1', '1', 'true', 'code WELCOME, automatic Spring sale', '3', 'gift boolean true']);
});

test('customer account: `turn check` of a program using it is clean; a nullable field read without a test is reported', { skip, timeout: 120_000 }, () => {
  const clean = check('customer', 'ca-check.tn', `
let me = ca.customer(null);
call("echo", me.displayName);
let r = ca.return_(null, "gid://shopify/Return/1");
if r != null { call("echo", r.name); }
`);
  assert.deepEqual([clean.code, clean.stdout + clean.stderr], [0, '']);
  const unchecked = check('customer', 'ca-unchecked.tn', 'let r = ca.return_(null, "gid://shopify/Return/1");\ncall("echo", r.name);\n');
  assert.equal(unchecked.code, 2);
  assert.match(unchecked.stdout + unchecked.stderr, /ca-unchecked\.tn:4:16: `r` may be null \(Return\?\): test it first/);
});

test('customer account: null clears a name, left out keeps it; a defaulted argument left out is defaulted; `return_` and `type_` round-trip; wallet configs bind by __typename', { skip, timeout: 120_000 }, async () => {
  const sent = served.customer.sent;
  const seen = served.customer.seen;
  const { result, lines } = await run('customer', 'ca-flow.tn', `
let or_dash = turn(s: Str?) -> Str {
    if s != null { return s; }
    return "-";
};
let show = turn(p: CustomerUpdatePayload?) -> Str {
    if p != null {
        let c = p.customer;
        if c != null { return or_dash(c.firstName) + " " + or_dash(c.lastName); }
    }
    return "none";
};
call("echo", show(ca.customerUpdate(null, CustomerUpdateInput { firstName: "Ada" })));
call("echo", show(ca.customerUpdate(null, CustomerUpdateInput { lastName: null })));
let me = ca.customer(null);
let wallet = turn(w: ApplePayWalletConfig | GooglePayWalletConfig) -> Str {
    if w.__typename == "GooglePayWalletConfig" { return "google pay for " + w.merchantName; }
    if w.__typename == "ApplePayWalletConfig" { return "apple pay on " + w.supportedNetworks[0]; }
    return "?";
};
let wallets = me.availableWalletPaymentConfigs;
call("echo", wallet(wallets[0]));
call("echo", wallet(wallets[1]));
let r = ca.return_(null, "gid://shopify/Return/9");
if r != null { call("echo", r.name + " " + r.status); }
ca.customerAddressCreate(null, CustomerAddressInput { city: "Ottawa" });
let set = ca.metafieldsSet(null, [MetafieldsSetInput { key: "nick", namespace: "custom", ownerId: "gid://shopify/Customer/1", value: "ada" }, MetafieldsSetInput { key: "vip", namespace: "custom", ownerId: "gid://shopify/Customer/1", type_: "boolean", value: "true" }]);
if set != null {
    let fields = set.metafields;
    if fields != null { call("echo", fields[0].type_ + " " + fields[1].type_); }
}
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['Ada Hopper', 'Ada -', 'google pay for Turn Shop', 'apple pay on visa', '#1001-R1 OPEN', 'single_line_text_field boolean']);
  assert.deepEqual(sent, [
    { input: { firstName: 'Ada' } },
    { input: { lastName: null } },
    {},
    { id: 'gid://shopify/Return/9' },
    { address: { city: 'Ottawa' } },
    {
      metafields: [
        { key: 'nick', namespace: 'custom', ownerId: 'gid://shopify/Customer/1', value: 'ada' },
        { key: 'vip', namespace: 'custom', ownerId: 'gid://shopify/Customer/1', type: 'boolean', value: 'true' },
      ],
    },
  ]);
  // customerAddressCreate's `defaultAddress: Boolean = false`, left out, was applied by the server
  assert.deepEqual(seen.find((s) => 'address' in s), { address: { city: 'Ottawa' }, defaultAddress: false });
});

test('storefront, a hostile server: a reply that breaks the schema (a number for `title`, `type_` for `type`) is a located Turn error, not a value', { skip, timeout: 120_000 }, async () => {
  const forge = async (tamper: NonNullable<Served['tamper']>, name: string, body: string) => {
    served.storefront.tamper = tamper;
    try {
      return await run('storefront', name, body);
    } finally {
      delete served.storefront.tamper;
    }
  };
  const product = await forge((r) => (r.data.product.title = 5), 'sf-forged-product.tn', `
let p = sf.product(null, "red-shirt");
if p != null { call("echo", p.title); }
`);
  assert.equal(product.result.kind, 'failed');
  assert.deepEqual(product.lines, []);
  const e1 = (product.result as { error: { message: string; line: number; path: string } }).error;
  assert.equal(e1.line, 4);
  assert.match(e1.path, /sf-forged-product\.tn$/);
  assert.match(e1.message, /product: the reply does not conform to Product\?: at \/title it must be a string/);
  assert.doesNotMatch(e1.message, /\n\s+at /);
  const meta = await forge((r) => {
    const node = (r.data.metaobjects.nodes as Record<string, unknown>[])[0];
    node.type_ = node.type;
    delete node.type;
  }, 'sf-forged-meta.tn', `
let m = call(sf["metaobjects"], {"auth": null, "type_": "designer", "first": 1});
call("echo", m.nodes[0].type_);
`);
  assert.equal(meta.result.kind, 'failed');
  assert.deepEqual(meta.lines, []);
  const e2 = (meta.result as { error: { message: string; line: number } }).error;
  assert.equal(e2.line, 4);
  assert.match(e2.message, /metaobjects: the reply does not conform to MetaobjectConnection: at \/nodes\/0 it must have the property \\"type\\"/);
});
