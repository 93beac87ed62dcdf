// activity.mjs is a person at the activity record's pages
// (docs/activity.md) in headless Chromium: signing in at the local
// stack's stand-in provider, reading the page, photographing it light and
// dark at 1280 and 375 pixels, and acting on it. It prints one JSON line.
//
//   node activity.mjs connections <url> <persona-email> <connection-to-revoke> <screenshot-dir>
//   node activity.mjs class <url> <persona-email> <screenshot-dir>
//   node activity.mjs look <url> <persona-email>
import path from 'node:path';
import { launchBrowser, pickPersona } from './person.mjs';

const [mode, ...rest] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

// see is what a page shows.
async function see(page, resp) {
  const h = resp ? resp.headers() : {};
  return {
    status: resp ? resp.status() : 0,
    csp: h['content-security-policy'] || '', cacheControl: h['cache-control'] || '',
    heading: (await page.locator('h1').first().textContent().catch(() => '')) || '',
    text: await page.evaluate(() => document.body.innerText),
    scrollWidth: await page.evaluate(() => document.documentElement.scrollWidth),
  };
}

// signIn opens url, signs in as persona and returns the page it lands on.
async function signIn(browser, url, persona) {
  const page = await browser.ctx.newPage();
  await page.goto(url);
  const landed = page.waitForResponse((r) => r.url() === url && r.request().method() === 'GET');
  await pickPersona(page, persona);
  const resp = await landed;
  await page.waitForLoadState('load');
  return { page, seen: await see(page, resp) };
}

// photograph takes name-<width>.png and name-<width>-dark.png; it returns
// each picture's page width.
async function photograph(page, dir, name) {
  const widths = {};
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      const suffix = scheme === 'dark' ? '-dark' : '';
      await page.screenshot({ path: path.join(dir, `${name}-${width}${suffix}.png`), fullPage: true });
      widths[`${width}${suffix}`] = await page.evaluate(() => document.documentElement.scrollWidth);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return widths;
}

async function connections(url, persona, revoke, dir) {
  const browser = await launchBrowser({ width: 1280 });
  try {
    const { page, seen } = await signIn(browser, url, persona);
    const shots = await photograph(page, dir, 'connections');
    const posted = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: `Revoke ${revoke}` }).click();
    const resp = await posted;
    await page.waitForLoadState('load');
    const revoked = await see(page, resp);
    await page.goto(url);
    const after = await see(page, null);
    out({ seen, shots, revoked, after });
  } finally {
    await browser.close();
  }
}

async function classPage(url, persona, dir) {
  const browser = await launchBrowser({ width: 1280 });
  try {
    const { page, seen } = await signIn(browser, url, persona);
    const shots = await photograph(page, dir, 'activity');
    const csvURL = await page.getByRole('link', { name: 'Export as CSV' }).getAttribute('href');
    const csv = await page.request.get(csvURL);
    const link = page.locator('table').nth(1).getByRole('link').first();
    const resp = page.waitForResponse((r) => r.request().method() === 'GET' && r.url().includes('student='));
    await link.click();
    const student = await see(page, await resp);
    out({ seen, shots, csv: { status: csv.status(), type: csv.headers()['content-type'], body: await csv.text() }, student });
  } finally {
    await browser.close();
  }
}

async function look(url, persona) {
  const browser = await launchBrowser({ width: 375 });
  try {
    const { seen } = await signIn(browser, url, persona);
    out({ seen });
  } finally {
    await browser.close();
  }
}

const modes = {
  connections: () => connections(...rest),
  class: () => classPage(...rest),
  look: () => look(...rest),
};
(modes[mode] || (() => Promise.reject(new Error('unknown mode ' + mode))))()
  .then(() => process.exit(0), (e) => { log(e.stack || String(e)); out({ step: 'failed', error: String(e.message || e) }); process.exit(1); });
