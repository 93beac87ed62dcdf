// What oauth.mjs and writes.mjs share: headless Debian Chromium (driven by
// playwright-core) as the person, signing in at the local stack's
// stand-in provider, and mcp-remote started as Claude Desktop runs it,
// with a "browser" that records each URL it opens for the person to visit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// launchBrowser starts Chromium with the guide's flags and a fresh
// profile, in a window of width × height (a phone's by default: every page
// must work there).
export async function launchBrowser({ width = 375, height = 900 } = {}) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'oauthclient-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width, height },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  return { ctx, close: async () => { await ctx.close(); fs.rmSync(profile, { recursive: true, force: true }); } };
}

// pickPersona is the person on the stand-in provider's page, which page
// has been sent to: wait for it, then sign in as persona (an email).
export async function pickPersona(page, persona) {
  await page.getByRole('heading', { name: /Sign in with github/ }).waitFor();
  await page.getByRole('button', { name: new RegExp('^' + persona.replaceAll('.', '\\.')) }).click();
}

// startMCPRemote is mcp-remote for endpoint with its OAuth callback on
// port, its configuration in a directory of its own. openedURLs lists what
// it has asked the browser to open, in order; cleanup removes the
// directory.
export function startMCPRemote(endpoint, port) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oauthclient-mcp-remote-'));
  const urlFile = path.join(dir, 'opened-urls');
  fs.writeFileSync(urlFile, '');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(here, 'node_modules/mcp-remote/dist/proxy.js'), endpoint, port, '--host', '127.0.0.1'],
    env: { ...process.env, BROWSER: path.join(here, 'open-url.sh'), OAUTH_URL_FILE: urlFile, MCP_REMOTE_CONFIG_DIR: path.join(dir, 'config'), DISPLAY: '', WAYLAND_DISPLAY: '' },
    stderr: 'inherit',
  });
  return {
    transport,
    openedURLs: () => fs.readFileSync(urlFile, 'utf8').split('\n').filter(Boolean),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
