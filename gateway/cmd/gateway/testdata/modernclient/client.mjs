// Drives the gateway with the TypeScript SDK v2 client pinned to protocol
// revision 2026-07-28 (server/discover, then per-request _meta), lists the
// tools and calls each of the given calls, printing one JSON summary on
// stdout. The client itself validates every structuredContent against the
// tool's outputSchema and throws when it does not match.
//
// Usage: node client.mjs <endpoint> <bearer token> <calls JSON>
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [endpoint, token, callsJSON] = process.argv.slice(2);
const calls = JSON.parse(callsJSON);

// Every request the client sends, as the gateway received it.
const sent = [];
const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
  fetch: async (url, init) => {
    const headers = new Headers(init?.headers);
    let method;
    try {
      method = JSON.parse(init?.body ?? 'null')?.method;
    } catch {}
    const res = await fetch(url, init);
    sent.push({
      method: method ?? null,
      httpMethod: init?.method ?? 'GET',
      protocolVersion: headers.get('mcp-protocol-version'),
      mcpMethod: headers.get('mcp-method'),
      mcpName: headers.get('mcp-name'),
      status: res.status,
    });
    return res;
  },
});
const client = new Client(
  { name: 'gateway-ts-sdk-v2-e2e', version: '1.0.0' },
  { versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
await client.connect(transport);

const summary = {
  era: client.getProtocolEra() ?? null,
  negotiatedProtocol: client.getNegotiatedProtocolVersion() ?? null,
  serverInfo: client.getServerVersion() ?? null,
  supportedVersions: client.getDiscoverResult()?.supportedVersions ?? null,
  tools: [],
  calls: {},
  sent,
};
const listed = await client.listTools();
summary.tools = listed.tools.map((t) => t.name);
summary.toolsWithOutputSchema = listed.tools.filter((t) => t.outputSchema).length;
for (const c of calls) {
  try {
    const res = await client.callTool({ name: c.name, arguments: c.arguments });
    summary.calls[c.name] = {
      isError: res.isError ?? false,
      text: res.content?.length === 1 && res.content[0].type === 'text' ? res.content[0].text : null,
      structuredContent: res.structuredContent === undefined ? '<absent>' : res.structuredContent,
    };
  } catch (err) {
    summary.calls[c.name] = { error: String(err?.message ?? err) };
  }
}
await client.close();
process.stdout.write(JSON.stringify(summary));
