// Loads the gateway's skills as a host does, with the TypeScript SDK v2
// client pinned to protocol revision 2026-07-28 and its SkillsClient (the
// Skills extension, SEP-2640): the client declares the extension, lists
// the skills, gets each by URI and reads each SKILL.md, which SkillsClient
// verifies against the entry (listed, size, SHA-256 digest, frontmatter
// equal to the entry's). Prints one JSON summary on stdout.
//
// Usage: node skills.mjs <endpoint> <bearer token>
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SKILLS_EXTENSION_ID, SkillsClient } from '@modelcontextprotocol/client/ext/skills';

const [endpoint, token] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client(
  { name: 'gateway-skills-e2e', version: '1.0.0' },
  {
    capabilities: { extensions: { [SKILLS_EXTENSION_ID]: {} } },
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  },
);
await client.connect(transport);
const skills = new SkillsClient(client);
const summary = {
  negotiatedProtocol: client.getNegotiatedProtocolVersion() ?? null,
  supported: skills.supported,
  instructions: client.getInstructions?.() ?? client.getDiscoverResult()?.instructions ?? null,
  skills: [],
};
const listing = await skills.list();
summary.cacheScope = listing.cacheScope ?? null;
summary.ttlMs = listing.ttlMs ?? null;
for (const entry of listing.skills) {
  const got = await skills.get(entry.uri);
  const file = await skills.read(got.skill);
  summary.skills.push({
    uri: entry.uri,
    name: entry.frontmatter.name,
    scope: entry.frontmatter.metadata?.scope ?? null,
    getCacheScope: got.cacheScope ?? null,
    verified: file.verified,
    mimeType: file.mimeType ?? null,
    text: file.text,
  });
}
await client.close();
process.stdout.write(JSON.stringify(summary));
