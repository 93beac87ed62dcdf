// Connects real OAuth MCP clients to the wired gateway from scratch and
// drives the person's part (sign-in at the local stack's stand-in provider,
// Approve on the gateway's consent page) in headless Chromium through
// playwright-core. Used by oauth_clients_e2e_test.go.
//
//   node oauth.mjs sdk <endpoint> <persona-email> <access-ttl-ms>
//   node oauth.mjs mcp-remote <endpoint> <persona-email> <callback-port>
//   node oauth.mjs consent <authorization-url> <persona-email> [<screenshot.png>]
//   node oauth.mjs marks <authorization-url> <persona-email> [<screenshot-dir>]
//
// Every result is one JSON line on stdout; diagnostics go to stderr. In
// sdk mode the script waits, after its "connected" line, for a line
// "revoked" on stdin and then makes one more tool call.
import http from 'node:http';
import path from 'node:path';
import readline from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { launchBrowser, pickPersona, sleep, startMCPRemote } from './person.mjs';

const [mode, endpoint, persona, extra] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

// signIn is the person arriving at the consent page: open the
// authorization URL and pick the persona on the stand-in provider page.
async function signIn(ctx, url) {
  const page = await ctx.newPage();
  await page.goto(url);
  const consentResponse = page.waitForResponse((r) => r.url().endsWith('/oauth/consent') && r.request().method() === 'GET');
  await pickPersona(page, persona);
  const resp = await consentResponse.catch(async (e) => {
    log('no consent page; the browser is at', page.url(), '\n', await page.content());
    throw e;
  });
  await page.getByRole('button', { name: 'Approve' }).waitFor();
  return { page, resp };
}

// lookAtConsent is what the person sees on the consent page, for the test
// to check: in the phone-sized window nothing is wider than the screen,
// the return address's host is on one line with its registrable domain
// wholly in view, and Approve is thumb-sized.
async function lookAtConsent(page, resp) {
  const heading = await page.getByRole('heading', { level: 1 }).textContent();
  const account = await page.locator('dd').nth(1).textContent();
  const headers = resp.headers();
  const approveBox = await page.getByRole('button', { name: 'Approve' }).boundingBox();
  const layout = await page.evaluate(() => {
    const host = document.querySelector('.host');
    if (!host) return { hostLines: 0 };
    // The lines of the host's text: the tops of its text nodes' boxes.
    const tops = new Set();
    const walk = document.createTreeWalker(host, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const r = document.createRange();
      r.selectNodeContents(n);
      for (const x of r.getClientRects()) tops.add(Math.round(x.top));
    }
    const reg = host.querySelector('.reg').getBoundingClientRect();
    const sub = host.querySelector('.sub');
    const addr = document.querySelector('.addr');
    return {
      hostLines: tops.size,
      hostText: host.textContent,
      registrableLeft: Math.floor(reg.left), registrableRight: Math.ceil(reg.right),
      subdomainElided: sub ? sub.firstElementChild.getBoundingClientRect().width > sub.getBoundingClientRect().width : false,
      addressScrolls: addr.scrollWidth > addr.clientWidth,
      addressFontPx: parseFloat(getComputedStyle(addr).fontSize),
      viewportWidth: window.innerWidth,
    };
  });
  return {
    heading, account: account.trim(),
    scrollWidth: await page.evaluate(() => document.documentElement.scrollWidth),
    ...layout,
    approveHeight: Math.round(approveBox.height), approveWidth: Math.round(approveBox.width),
    csp: headers['content-security-policy'], cacheControl: headers['cache-control'], frameOptions: headers['x-frame-options'],
  };
}

// signInAndApprove is the person: sign in, read the consent page, Approve.
// It returns what it saw.
async function signInAndApprove(ctx, url, redirectPrefix) {
  const { page, resp } = await signIn(ctx, url);
  const seen = await lookAtConsent(page, resp);
  const consentURL = page.url();
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(redirectPrefix)),
    page.getByRole('button', { name: 'Approve' }).click(),
  ]);
  seen.returnedTo = page.url().split('?')[0];
  // A page that frames the consent page gets nothing: Chromium refuses
  // to render it (frame-ancestors 'none').
  const framer = await ctx.newPage();
  await framer.setContent(`<iframe src="${consentURL}" title="framed"></iframe>`, { waitUntil: 'load' });
  seen.framedURL = framer.frames()[1]?.url();
  seen.framedText = await framer.frames()[1]?.evaluate(() => document.body?.innerText ?? '').catch((e) => 'error: ' + e.message);
  await framer.close();
  await page.close();
  return seen;
}

function toolText(res) {
  return res.content?.[0]?.text;
}

async function sdkMode() {
  const ttl = Number(extra);
  // The client's redirect URI: a loopback server that takes the code.
  let gotCode;
  const codePromise = new Promise((r) => { gotCode = r; });
  const srv = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://127.0.0.1');
    if (u.pathname === '/callback') {
      gotCode(u.searchParams);
      res.end('Connected; you can close this window.');
    } else { res.statusCode = 404; res.end(); }
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const redirectUrl = `http://127.0.0.1:${srv.address().port}/callback`;

  const browser = await launchBrowser({ height: 740 });
  let seen;
  let allowRedirect = true;
  const state = { refreshes: 0, tokenSaves: 0 };
  const provider = {
    get redirectUrl() { return redirectUrl; },
    get clientMetadata() {
      return { client_name: 'SDK E2E Client', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'], token_endpoint_auth_method: 'none' };
    },
    state: () => 'sdk-state-1',
    clientInformation: () => state.client,
    saveClientInformation: (c) => { state.client = c; },
    tokens: () => state.tokens,
    saveTokens: (t) => { state.tokenSaves++; state.tokens = t; },
    saveCodeVerifier: (v) => { state.verifier = v; },
    codeVerifier: () => state.verifier,
    invalidateCredentials: (scope) => { log('invalidateCredentials', scope); if (scope === 'all' || scope === 'tokens') state.tokens = undefined; },
    redirectToAuthorization: async (url) => {
      if (!allowRedirect) throw new Error('authorization required again');
      state.authorizationURL = url.href;
      seen = await signInAndApprove(browser.ctx, url.href, redirectUrl);
    },
  };

  const connect = async () => {
    const client = new Client({ name: 'oauth-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider });
    try {
      await client.connect(transport);
    } catch (e) {
      if (!(e instanceof UnauthorizedError)) throw e;
      const params = await codePromise;
      state.callback = Object.fromEntries(params);
      await transport.finishAuth(params.get('code'));
      const t2 = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider });
      const c2 = new Client({ name: 'oauth-e2e', version: '1.0.0' });
      await c2.connect(t2);
      return c2;
    }
    return client;
  };
  const client = await connect();
  const first = await client.callTool({ name: 'get_assignment', arguments: { assignment_id: 1, class_id: 1 } });
  const accessBefore = state.tokens.access_token;
  // Let the access token expire; the next call is refused with 401 and
  // the SDK refreshes (rotating the refresh token) and retries.
  await sleep(ttl + 1500);
  const second = await client.callTool({ name: 'get_assignment', arguments: { assignment_id: 1, class_id: 1 } });
  const u = new URL(state.authorizationURL);
  out({
    step: 'connected', seen, callback: state.callback, client: { name: state.client.client_name, idPrefix: state.client.client_id.slice(0, 5) },
    authorizationParams: Object.fromEntries([...u.searchParams].filter(([k]) => !['code_challenge', 'client_id', 'state', 'redirect_uri'].includes(k))),
    first: toolText(first), second: toolText(second), refreshed: state.tokens.access_token !== accessBefore,
    tokenSaves: state.tokenSaves, accessPrefix: state.tokens.access_token.slice(0, 4), scope: state.tokens.scope,
  });
  await browser.close();

  // The test revokes the grant through mcp-tokens, then says so.
  allowRedirect = false;
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (line.trim() === 'revoked') break;
  }
  try {
    await client.callTool({ name: 'get_assignment', arguments: { assignment_id: 1, class_id: 1 } });
    out({ step: 'after-revoke', error: null });
  } catch (e) {
    out({ step: 'after-revoke', error: String(e.message || e) });
  }
  srv.close();
  await client.close().catch(() => {});
}

async function mcpRemoteMode() {
  const port = extra;
  const remote = startMCPRemote(endpoint, port);
  const browser = await launchBrowser({ height: 740 });
  // The person: wait for mcp-remote to "open the browser", then sign in.
  const person = (async () => {
    for (;;) {
      const urls = remote.openedURLs();
      if (urls.length) return signInAndApprove(browser.ctx, urls[0], `http://127.0.0.1:${port}/oauth/callback`);
      await sleep(100);
    }
  })();
  const client = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
  await client.connect(remote.transport);
  const tools = await client.listTools();
  const res = await client.callTool({ name: 'get_assignment', arguments: { assignment_id: 1, class_id: 1 } });
  const seen = await person;
  out({ step: 'connected', seen, tools: tools.tools.length, first: toolText(res), opened: remote.openedURLs().length });
  await client.close();
  await browser.close();
  remote.cleanup();
}

// consentMode only looks: sign in at <authorization-url> (its client's
// redirect URI need not exist), report the consent page, and with a path
// save a screenshot of it.
async function consentMode() {
  const browser = await launchBrowser({ height: 740 });
  const { page, resp } = await signIn(browser.ctx, endpoint);
  const seen = await lookAtConsent(page, resp);
  if (extra) await page.screenshot({ path: extra, fullPage: true });
  out({ step: 'consent', seen });
  await browser.close();
}

// marksMode only looks, at 1280 and 375 pixels: the consent page's
// heading as drawn, the markers in its heading and its application entry
// (with each marker's drawn size), the warning, whether any hidden
// character is left in the page's text, and the page's width; with a
// directory, screenshots consent-marked-<width>.png.
async function marksMode() {
  const browser = await launchBrowser({ height: 740 });
  const { page } = await signIn(browser.ctx, endpoint);
  const widths = {};
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    widths[width] = await page.evaluate(() => {
      const marks = (sel) => [...document.querySelectorAll(sel + ' .mark')].map((m) => {
        const r = m.getBoundingClientRect();
        return { text: m.textContent, label: m.getAttribute('aria-label'), width: Math.round(r.width), height: Math.round(r.height) };
      });
      const text = document.body.innerText;
      return {
        heading: document.querySelector('h1').innerText,
        headingMarks: marks('h1'),
        applicationMarks: marks('dd:first-of-type'),
        warning: document.querySelector('.warn')?.innerText ?? '',
        hiddenLeft: [...text].filter((c) => /[\u202e\u200b\ufffc]/.test(c)).length,
        scrollWidth: document.documentElement.scrollWidth,
      };
    });
    if (extra) await page.screenshot({ path: path.join(extra, `consent-marked-${width}.png`), fullPage: true });
  }
  out({ step: 'marks', widths });
  await browser.close();
}

const main = { sdk: sdkMode, 'mcp-remote': mcpRemoteMode, consent: consentMode, marks: marksMode }[mode];
main().then(() => process.exit(0), (e) => { log(e.stack || String(e)); out({ step: 'failed', error: String(e.message || e) }); process.exit(1); });
