// Drives the wired gateway, backed by the seeded Supabase stack, with the
// official MCP TypeScript SDK client: connect, list the tools, call each
// given tool once, and print a compact JSON summary that sdk_e2e_test.go
// asserts on.
//
// Usage: node client.mjs <endpoint URL> <bearer token> <mode> <calls JSON>
//
// mode is "negotiated" (the SDK's newest revision, 2025-11-25) or
// "2024-11-05" (the client asks for that revision in initialize; the SDK
// accepts it and sends it as MCP-Protocol-Version from then on). calls is
// a JSON array of {"name", "arguments"}.
//
// Negotiated, every tool declares an outputSchema and the SDK validates
// each call's structuredContent against it: callTool throws when it is
// missing or does not match, and the thrown message lands in the call's
// "error", which the Go test refuses.
import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

const [url, token, mode, callsJSON] = process.argv.slice(2);
if (!callsJSON || (mode !== "negotiated" && mode !== "2024-11-05")) {
  process.stderr.write("usage: node client.mjs <endpoint URL> <bearer token> negotiated|2024-11-05 <calls JSON>\n");
  process.exit(2);
}
const calls = JSON.parse(callsJSON);

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } }
});
if (mode !== "negotiated") {
  // Client 1.32 has no option for the requested revision: rewrite the
  // initialize request on its way out. Everything after it (the
  // MCP-Protocol-Version header, tool metadata) follows the server's answer.
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message.method === "initialize") {
      message = { ...message, params: { ...message.params, protocolVersion: mode } };
    }
    return send(message, options);
  };
}
const client = new Client({ name: "gateway-sdk-e2e", version: "1.0.0" });

const out = { sdkLatestProtocol: LATEST_PROTOCOL_VERSION, mode };
await client.connect(transport);
out.negotiatedProtocol = transport.protocolVersion ?? null;

const listed = await client.listTools();
out.tools = listed.tools.map((t) => t.name);
out.toolsWithOutputSchema = listed.tools.filter((t) => t.outputSchema !== undefined).length;

out.calls = {};
for (const { name, arguments: args } of calls) {
  // The SDK validates structuredContent only for tools whose outputSchema
  // it cached from tools/list; say whether it did for this one.
  const summary = { error: null, validated: client.getToolOutputValidator(name) !== undefined };
  try {
    const res = await client.callTool({ name, arguments: args });
    const texts = (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text);
    const text = texts.length === 1 ? texts[0] : null;
    summary.isError = res.isError === true;
    summary.structured = res.structuredContent !== undefined;
    summary.contentItems = (res.content ?? []).length;
    summary.text80 = text === null ? null : text.slice(0, 80);
    summary.textSHA256 = text === null ? null : createHash("sha256").update(text, "utf8").digest("hex");
    if (summary.structured) {
      // structuredContent is {"result": <the value the text serialises>}.
      let parsed;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = Symbol("unparsable");
      }
      summary.structuredMatchesText = isDeepStrictEqual(res.structuredContent, { result: parsed });
    }
  } catch (e) {
    summary.error = `${e.name}: ${e.message}`;
  }
  out.calls[name] = summary;
}

await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
