// The step-up consent with a real client (stepup_e2e_test.go): mcp-remote,
// connected with the URL alone as Claude Desktop runs it, holds a read
// grant; a write tool is refused with insufficient_scope, mcp-remote asks
// for mcp:write and opens the consent page again, and the person, in
// headless Chromium, chooses the step-up page's second button.
//
//   node stepup.mjs <endpoint> <persona-email> <callback-port> <message> <choice> [<screenshot-dir>]
//
// It approves the first consent (reading), reads the step-up page (its
// heading, buttons and text, and its width at 375 and 1280 pixels, with
// screenshots consent-stepup-<width>.png when a directory is given),
// clicks <choice> there, and records where the browser was sent. Then it
// reports the write call's outcome, a read call made after it, and every
// authorization URL mcp-remote opened. One JSON line on stdout.
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { launchBrowser, pickPersona, sleep, startMCPRemote } from './person.mjs';

const [endpoint, persona, port, message, choice, shotDir] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

// seeConsent reads the consent page the browser shows.
async function seeConsent(page) {
  return {
    heading: (await page.locator('h1').first().textContent()) || '',
    buttons: await page.locator('form button').allTextContents(),
    text: await page.evaluate(() => document.body.innerText),
  };
}

// shoot measures the page at each width and, with a directory, saves it.
async function shoot(page) {
  const widths = {};
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    widths[width] = await page.evaluate(() => document.documentElement.scrollWidth);
    if (shotDir) await page.screenshot({ path: path.join(shotDir, `consent-stepup-${width}.png`), fullPage: true });
  }
  return widths;
}

// answer is the person at the n-th authorization mcp-remote opened: sign
// in, then Approve the first, and on the second (the step-up) press
// choice. It returns what was seen and where the browser went.
async function answer(ctx, url, n, callback) {
  const page = await ctx.newPage();
  try {
    await page.goto(url);
    await pickPersona(page, persona);
    await page.locator('form button').first().waitFor();
    const seen = await seeConsent(page);
    const button = n === 0 ? 'Approve' : choice;
    if (n > 0) seen.widths = await shoot(page);
    // Wait until the callback's page has loaded, not only answered:
    // closing a page while a navigation commits can hang Chromium's
    // close for ever (crbug.com/536385539, Playwright issue 41900).
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(callback)),
      page.getByRole('button', { name: button, exact: true }).click(),
    ]);
    seen.returnedTo = page.url();
    return seen;
  } finally {
    await page.close();
  }
}

async function main() {
  const remote = startMCPRemote(endpoint, port);
  const browser = await launchBrowser();
  const callback = `http://127.0.0.1:${port}/oauth/callback`;
  const consents = [];
  let stop = false;
  let personFailed = null;
  // The person answers the first two authorizations, in order; a third
  // would only be counted. A failure stops the person and the script.
  const answering = (async () => {
    while (!stop) {
      const urls = remote.openedURLs();
      if (urls.length > consents.length && consents.length < 2) {
        const u = new URL(urls[consents.length]);
        const seen = await answer(browser.ctx, u.href, consents.length, callback);
        consents.push({ scope: u.searchParams.get('scope'), clientId: u.searchParams.get('client_id'), ...seen });
        continue;
      }
      await sleep(100);
    }
  })().catch((e) => { personFailed = e; });
  try {
    const client = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
    await client.connect(remote.transport);
    const read = await client.callTool({ name: 'get_assignment', arguments: { assignment_id: 1, class_id: 1 } });
    let write;
    try {
      const res = await client.callTool({ name: 'reply_to_help_request', arguments: { class_id: 1, help_request_id: 1, message } });
      write = { isError: !!res.isError, text: res.content?.[0]?.text ?? '' };
    } catch (e) {
      write = { thrown: String(e.message || e) };
    }
    // The person's answer is recorded once its page has closed, which may
    // be just after mcp-remote has heard it.
    for (const deadline = Date.now() + 60_000; consents.length < 2 && remote.openedURLs().length >= 2;) {
      if (personFailed) throw personFailed;
      if (Date.now() > deadline) throw new Error(`the person answered ${consents.length} of 2 consent pages within 60 s`);
      await sleep(50);
    }
    const after = await client.callTool({ name: 'get_assignment', arguments: { assignment_id: 1, class_id: 1 } });
    const tools = (await client.listTools()).tools.length;
    out({
      consents, opened: remote.openedURLs().length, tools,
      read: { isError: !!read.isError, text: read.content?.[0]?.text },
      write,
      after: { isError: !!after.isError, text: after.content?.[0]?.text },
    });
    await client.close();
  } finally {
    stop = true;
    await answering;
    if (personFailed) log('the person:', personFailed.stack || String(personFailed));
    await browser.close();
    remote.cleanup();
  }
}

main().then(() => process.exit(0), (e) => { log(e.stack || String(e)); out({ step: 'failed', error: String(e.message || e) }); process.exit(1); });
