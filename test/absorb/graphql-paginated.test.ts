// A paginated (Relay) connection inside a selection: Shopify's and GitHub's servers refuse one given
// neither `first` nor `last` ("you must provide one of first or last"), though their schemas mark
// both nullable, so a generated query leaves such a field out of every nested selection; at the top
// the program gives them as the operation's parameters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { absorbGraphQL } from '../../runtime/absorb/graphql.js';
import type { SpecDiagnostic } from '../../runtime/absorb/types.js';

const SDL = `
type Query {
  shop: Shop!
  products(first: Int, last: Int, after: String, query: String): ProductConnection!
}
type Shop {
  name: String!
  products(first: Int, last: Int, after: String): ProductConnection!
  firstProducts(first: Int): [Product!]!
  pagedWithDefault(first: Int = 10, last: Int): ProductConnection!
}
type ProductConnection { nodes: [Product!]! pageInfo: PageInfo! }
type PageInfo { hasNextPage: Boolean! endCursor: String }
type Product { title: String! variants(first: Int, last: Int): VariantConnection! }
type VariantConnection { totalCount: Int! nodes: [Variant!]! }
type Variant { sku: String }
`;

function documentOf(op: string): { document: string; reply: Record<string, unknown> } {
  const diags: SpecDiagnostic[] = [];
  const r = absorbGraphQL(SDL, 'shop.graphql', diags);
  assert.deepEqual(diags, []);
  const o = r.operations.find((x) => x.name === op);
  assert.ok(o?.graphql);
  return { document: o.graphql.document, reply: o.replySchema as Record<string, unknown> };
}

test('a connection taking `first` and `last` is not selected inside another selection', () => {
  const { document, reply } = documentOf('shop');
  assert.equal(document, 'query Shop { shop { name firstProducts { title } pagedWithDefault { nodes { title } pageInfo { hasNextPage endCursor } } } }');
  assert.deepEqual(Object.keys((reply.properties as Record<string, unknown>)), ['name', 'firstProducts', 'pagedWithDefault']);
});

test('at the top, the operation takes `first` and `last` as parameters; its nodes leave out their own connections', () => {
  const { document } = documentOf('products');
  assert.equal(
    document,
    'query Products($first: Int, $last: Int, $after: String, $query: String) { products(first: $first, last: $last, after: $after, query: $query) { nodes { title } pageInfo { hasNextPage endCursor } } }',
  );
});
