// The part of json-schema-faker (installed with Prism) the corpus tier's value maker uses; its own
// typings are not found through its package.json's exports.
declare module 'json-schema-faker' {
  export const JSONSchemaFaker: {
    option(options: { random?: () => number }): void;
    generate(schema: Record<string, unknown>): unknown;
  };
}
