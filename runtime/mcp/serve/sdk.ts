// The parts of the MCP SDK (and of Node) that serving uses, loaded when serving starts: the runtime
// is one bundle with the CLI, and loading them at every start of `turn run` cost about a third of
// its start-up (the SDK's HTTP server installs Node's fetch globals, which loads undici).
export async function loadServerSdk() {
  const [server, streamable, types, http, crypto] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('node:http'),
    import('node:crypto'),
  ]);
  return {
    Server: server.Server,
    StreamableHTTPServerTransport: streamable.StreamableHTTPServerTransport,
    types,
    createServer: http.createServer,
    randomUUID: crypto.randomUUID,
  };
}
export type ServerSdk = Awaited<ReturnType<typeof loadServerSdk>>;
export type Server = InstanceType<ServerSdk['Server']>;
