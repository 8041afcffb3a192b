// What a traced run talks to, all on 127.0.0.1: a model (the OpenAI-compatible fake of the
// streaming tests, whose replies echo the run's secret as a compromised model would), an HTTP API
// that wants a bearer secret and records the trace context it receives, and an MCP server (the
// official SDK's Streamable HTTP transport) that records each tools/call's `_meta`. The program is
// multi-actor: main spawns a scout process that asks the model, then calls the API and the MCP
// tool and asks the model again. Used by the in-memory unit test and the Phoenix tier.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { slowServer, type SlowServer } from '../providers/slow-server.js';

/** The vault secret (TURN_SECRET_API): sent as the API's bearer token, echoed by the model, never exported. */
export const SECRET = 'sk-otel-never-exported-5150';

export interface World {
  dir: string;
  file: string;
  model: SlowServer;
  /** the model spec of the fake */
  modelSpec: string;
  /** headers the API received */
  api: { url: string; seen: http.IncomingHttpHeaders[] };
  /** `_meta` of each tools/call the MCP server received */
  mcp: { url: string; metas: unknown[] };
  env: Record<string, string>;
  close(): Promise<void>;
}

const listen = async (server: http.Server): Promise<string> => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

export async function startWorld(): Promise<World> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-otel-'));
  // a compromised model: each reply carries the secret it should never have seen
  const model = await slowServer(() => ({ stream: JSON.stringify({ value: { city: `Lyon ${SECRET}`, days: 3 }, confidence: 0.75 }), piece: 4096, everyMs: 0, usage: [120, 30] }));
  const seen: http.IncomingHttpHeaders[] = [];
  const apiServer = http.createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ forecast: 'sunny' }));
  });
  const metas: unknown[] = [];
  const mcpServer = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as unknown) : undefined;
      const server = new Server({ name: 'guide', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'lookup', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }] }));
      server.setRequestHandler(CallToolRequestSchema, (request) => {
        metas.push(request.params._meta ?? null);
        return { content: [{ type: 'text', text: 'museums: 3' }] };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })();
  });
  const apiUrl = await listen(apiServer);
  const mcpUrl = `${await listen(mcpServer)}/mcp`;
  const file = path.join(dir, 'trip.tn');
  fs.writeFileSync(
    file,
    `struct Plan { city: Str, days: Num };
let net = use "std/net";

let scout = turn(topic: Str) -> Any {
    return turn() {
        context.system("You scout trips.");
        let p = infer Plan with { max_tokens: 200, temperature: 0.2 } { "Suggest a trip about " + topic; };
        return {"plan": p, "confidence": confidence p};
    };
};

spawn_link call(scout, "rivers");
let found = receive["result"];
let weather = net.get_json(grant identity::bearer("api"), "${apiUrl}/weather?city=lyon");
let sights = call("mcp_call", null, "${mcpUrl}", "lookup", {"q": "lyon"}, {});
let final = infer Plan { "Plan the trip: " + weather["forecast"] + ", " + sights["text"]; };
call("echo", "days: " + final.days);
return final.days;
`,
  );
  return {
    dir,
    file,
    model,
    modelSpec: `openai:slow?base_url=${model.url}/v1&logprobs=0`,
    api: { url: apiUrl, seen },
    mcp: { url: mcpUrl, metas },
    env: { TURN_SECRET_API: SECRET },
    close: async () => {
      await model.close();
      apiServer.closeAllConnections();
      mcpServer.closeAllConnections();
      await new Promise((r) => apiServer.close(r));
      await new Promise((r) => mcpServer.close(r));
    },
  };
}
