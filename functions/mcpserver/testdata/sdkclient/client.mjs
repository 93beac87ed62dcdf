// Drives the Go mcp-server with the official MCP TypeScript SDK client and
// prints what it saw as one JSON object, which e2e_test.go compares.
//
// Usage: node client.mjs <endpoint URL> <bearer token>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

const [url, token] = process.argv.slice(2);

function connectClient(bearer) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } }
  });
  const client = new Client({ name: "mcpserver-e2e", version: "1.0.0" });
  return { client, transport };
}

// errorOf keeps the parts of an SDK error that the server decides.
function errorOf(e) {
  return { code: e.code ?? null, message: e.message };
}

const out = { sdkLatestProtocol: LATEST_PROTOCOL_VERSION };

const { client, transport } = connectClient(token);
await client.connect(transport);
out.negotiatedProtocol = transport.protocolVersion ?? null;
out.serverVersion = client.getServerVersion();
out.serverCapabilities = client.getServerCapabilities();

const listed = await client.listTools();
out.tools = listed.tools.map((t) => t.name);
out.firstToolSchema = listed.tools[0]?.inputSchema ?? null;
// From 2025-06-18 every tool declares an outputSchema, and the SDK then
// validates each call's structuredContent against it (callTool throws when
// it is missing or does not match).
out.toolsWithOutputSchema = listed.tools.filter((t) => t.outputSchema !== undefined).length;
out.firstToolOutputSchemaKeys = listed.tools[0]?.outputSchema ? Object.keys(listed.tools[0].outputSchema) : null;

out.ping = await client.ping();

out.call = await client.callTool({ name: "get_assignment", arguments: { assignment_id: 1, class_id: 1 } });
// A tool whose value is an array, wrapped as {"result": [...]}.
out.callArray = await client.callTool({ name: "search_help_requests", arguments: { class_id: 1 } });

for (const [key, params] of [
  ["callMissingArgument", { name: "get_assignment", arguments: { assignment_id: 1 } }],
  ["callUnknownTool", { name: "no_such_tool", arguments: {} }]
]) {
  try {
    out[key] = { result: await client.callTool(params) };
  } catch (e) {
    out[key] = { error: errorOf(e) };
  }
}

await client.close();

// A refused token: the SDK surfaces the HTTP status and the body.
const bad = connectClient("mcp_invalid");
try {
  await bad.client.connect(bad.transport);
  out.badToken = { connected: true };
} catch (e) {
  out.badToken = { error: errorOf(e) };
}
await bad.client.close().catch(() => {});

process.stdout.write(JSON.stringify(out, null, 2) + "\n");
