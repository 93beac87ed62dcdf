// The write tools with real parts (writes_e2e_test.go): the official
// TypeScript SDK client proposes, and headless Chromium, driven by
// playwright-core, is the person who opens the approval link, signs in at
// the local stack's stand-in provider and approves or rejects.
//
//   node writes.mjs person <approval-url> <persona-email> <approve|reject|none> [<screenshot-dir> [<screenshot-name>]]
//   node writes.mjs sdk-reply <endpoint> <mcp-token> <persona-email> <message>
//   node writes.mjs sdk-call <endpoint> <mcp-token> <tool> <arguments-json>
//   node writes.mjs mcp-remote <endpoint> <persona-email> <callback-port> <message>
//   node writes.mjs tabs <approval-url-a> <approval-url-b> <persona-email>
//
// person prints what the browser saw (the page after sign-in, and the
// page after the decision); with a screenshot directory it also saves the
// review page at 1280 and 375 pixels wide (<name>-<width>.png, the name
// "approval" unless given). sdk-reply proposes a reply to
// help request 1 of class 1, has the person approve it, then asks for the
// action's state and reads the request back with get_help_request.
// sdk-call makes one tool call. mcp-remote connects through mcp-remote
// with nothing but the URL, as Claude Desktop runs it: the person signs in
// and approves each authorization mcp-remote opens (the first for reading,
// the step-up one for mcp:write when the write tool is refused with
// insufficient_scope), then approves the proposed reply. tabs is one
// browser with two links: both tabs go to the sign-in page before either
// signs in, the later tab signs in first, each lands on a review page;
// then a third tab opens the first page's link and both approve it, the
// second after the first. Each prints one
// JSON line on stdout; diagnostics go to stderr.
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { launchBrowser, pickPersona, sleep, startMCPRemote } from './person.mjs';

const [mode, ...rest] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

// seePage is what a page shows: its status, security headers, heading,
// text, whether it offers the decision, and its width.
async function seePage(page, resp) {
  const h = resp ? resp.headers() : {};
  return {
    status: resp ? resp.status() : 0,
    csp: h['content-security-policy'] || '', cacheControl: h['cache-control'] || '', frameOptions: h['x-frame-options'] || '',
    heading: (await page.locator('h1').first().textContent().catch(() => '')) || '',
    text: await page.evaluate(() => document.body.innerText),
    approveButton: await page.getByRole('button', { name: 'Approve and write' }).count(),
    markers: await page.locator('.text .mark').allTextContents(),
    scrollWidth: await page.evaluate(() => document.documentElement.scrollWidth),
  };
}

// person opens url, signs in as persona, reads the page and, when it
// offers the decision, clicks it.
async function person(url, persona, decision, shotDir, shotName = 'approval') {
  const browser = await launchBrowser({ width: shotDir ? 1280 : 375 });
  try {
    const page = await browser.ctx.newPage();
    await page.goto(url);
    const landed = page.waitForResponse((r) => r.url().split('?')[0] === url && r.request().method() === 'GET');
    await pickPersona(page, persona);
    const resp = await landed;
    await page.waitForLoadState('load');
    const seen = { review: await seePage(page, resp) };
    if (shotDir) {
      seen.shots = {};
      for (const width of [1280, 375]) {
        await page.setViewportSize({ width, height: 900 });
        const file = path.join(shotDir, `${shotName}-${width}.png`);
        await page.screenshot({ path: file, fullPage: true });
        seen.shots[width] = await page.evaluate(() => document.documentElement.scrollWidth);
      }
    }
    if (decision !== 'none' && seen.review.approveButton > 0) {
      const name = decision === 'approve' ? 'Approve and write' : 'Reject';
      const decided = page.waitForResponse((r) => r.url() === url && r.request().method() === 'POST');
      await page.getByRole('button', { name }).click();
      const r2 = await decided;
      await page.waitForLoadState('load');
      seen.decided = await seePage(page, r2);
    }
    return seen;
  } finally {
    await browser.close();
  }
}

async function connect(endpoint, token) {
  const client = new Client({ name: 'writes-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, protocol: transport.protocolVersion };
}

// Before 2026-07-28 structuredContent is {"result": <the tool's value>}.
const result = (res) => ({ isError: !!res.isError, text: res.content?.[0]?.text, value: res.structuredContent?.result });

async function sdkReply(endpoint, token, persona, message) {
  const { client, protocol } = await connect(endpoint, token);
  const listed = await client.listTools();
  const reply = listed.tools.find((t) => t.name === 'reply_to_help_request');
  const proposed = await client.callTool({ name: 'reply_to_help_request', arguments: { class_id: 1, help_request_id: 1, message } });
  const url = proposed.structuredContent?.result?.approval_url;
  if (!url) throw new Error('no approval_url in ' + JSON.stringify(proposed));
  const before = await client.callTool({ name: 'get_help_request', arguments: { class_id: 1, help_request_id: 1 } });
  const seen = await person(url, persona, 'approve');
  const state = await client.callTool({ name: 'reply_to_help_request', arguments: { action_id: proposed.structuredContent.result.action_id } });
  const after = await client.callTool({ name: 'get_help_request', arguments: { class_id: 1, help_request_id: 1 } });
  out({
    protocol, tools: listed.tools.map((t) => t.name), replyTool: reply && { title: reply.title, annotations: reply.annotations },
    proposed: result(proposed), seen, state: result(state), before: result(before), after: result(after),
  });
  await client.close();
}

async function sdkCall(endpoint, token, name, args) {
  const { client, protocol } = await connect(endpoint, token);
  const listed = await client.listTools();
  let res;
  try {
    res = result(await client.callTool({ name, arguments: JSON.parse(args) }));
  } catch (e) {
    res = { error: String(e.message || e) };
  }
  out({ protocol, tools: listed.tools.map((t) => t.name), result: res });
  await client.close();
}

// authorizeInBrowser is the person at an OAuth authorization URL: sign in
// at the stand-in provider, then grant what is asked on the consent page
// (its first button: Approve, or on a step-up page Add write access). It
// returns the consent page's text.
async function authorizeInBrowser(ctx, url, persona, redirectPrefix) {
  const page = await ctx.newPage();
  try {
    await page.goto(url);
    await pickPersona(page, persona);
    const grant = page.getByRole('button', { name: /^(Approve|Add write access)$/ });
    await grant.waitFor();
    const text = await page.evaluate(() => document.body.innerText);
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(redirectPrefix)),
      grant.click(),
    ]);
    return { readOnlyOffered: await page.getByRole('button', { name: 'Approve read only' }).count().catch(() => 0), text };
  } finally {
    await page.close();
  }
}

async function mcpRemote(endpoint, persona, port, message) {
  const remote = startMCPRemote(endpoint, port);
  const browser = await launchBrowser();
  // The person answers every authorization mcp-remote opens, in order.
  const consents = [];
  let stop = false;
  const answering = (async () => {
    while (!stop) {
      const urls = remote.openedURLs();
      if (urls.length > consents.length) {
        const u = new URL(urls[consents.length]);
        const seen = await authorizeInBrowser(browser.ctx, u.href, persona, `http://127.0.0.1:${port}/oauth/callback`);
        consents.push({ scope: u.searchParams.get('scope'), consentText: seen.text });
        continue;
      }
      await sleep(100);
    }
  })();
  try {
    const client = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
    await client.connect(remote.transport);
    const read = await client.callTool({ name: 'get_assignment', arguments: { assignment_id: 1, class_id: 1 } });
    const proposed = await client.callTool({ name: 'reply_to_help_request', arguments: { class_id: 1, help_request_id: 1, message } });
    const value = proposed.structuredContent?.result ?? proposed.structuredContent;
    if (!value?.approval_url) throw new Error('no approval_url in ' + JSON.stringify(proposed));
    const seen = await person(value.approval_url, persona, 'approve');
    const state = await client.callTool({ name: 'reply_to_help_request', arguments: { action_id: value.action_id } });
    out({ consents, read: result(read), proposed: result(proposed), seen, state: result(state) });
    await client.close();
  } finally {
    stop = true;
    await answering.catch(() => {});
    await browser.close();
    remote.cleanup();
  }
}

// tabs opens two approval links side by side in one browser (see above).
async function tabs(urlA, urlB, persona) {
  const browser = await launchBrowser({ width: 1280 });
  try {
    const [a, b] = [await browser.ctx.newPage(), await browser.ctx.newPage()];
    await a.goto(urlA);
    await b.goto(urlB);
    const signIns = [];
    for (const page of [b, a]) { // the later tab comes back first
      const landed = page.waitForResponse((r) => [urlA, urlB].includes(r.url().split('?')[0]) && r.request().method() === 'GET');
      await pickPersona(page, persona);
      const resp = await landed;
      await page.waitForLoadState('load');
      signIns.push({ url: resp.url(), ...(await seePage(page, resp)) });
    }
    // Two tabs of the first link's review page; each approves.
    const link = signIns[0].url;
    const first = b; // the tab that signed in first shows signIns[0]
    const second = await browser.ctx.newPage();
    const opened = await second.goto(link);
    const again = await seePage(second, opened);
    const decisions = [];
    for (const page of [first, second]) {
      const decided = page.waitForResponse((r) => r.url() === link && r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Approve and write' }).click();
      const r = await decided;
      await page.waitForLoadState('load');
      decisions.push(await seePage(page, r));
    }
    return { signIns, secondTab: again, decisions, link };
  } finally {
    await browser.close();
  }
}

const modes = {
  tabs: () => tabs(rest[0], rest[1], rest[2]).then(out),
  person: () => person(rest[0], rest[1], rest[2], rest[3], rest[4]).then(out),
  'sdk-reply': () => sdkReply(...rest),
  'sdk-call': () => sdkCall(...rest),
  'mcp-remote': () => mcpRemote(...rest),
};
(modes[mode] || (() => Promise.reject(new Error('unknown mode ' + mode))))()
  .then(() => process.exit(0), (e) => { log(e.stack || String(e)); out({ step: 'failed', error: String(e.message || e) }); process.exit(1); });
