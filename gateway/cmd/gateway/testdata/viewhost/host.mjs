// Hosts the gateway's MCP Apps views the way a host does, and prints what it
// saw as one JSON object for views_e2e_test.go.
//
// 1. The MCP TypeScript SDK client (1.32.2) connects to the gateway
//    declaring the io.modelcontextprotocol/ui extension, lists the tools
//    (each view tool's _meta.ui.resourceUri) and the resources, and reads
//    every view.
// 2. Headless Chromium (playwright-core) opens host.html from a loopback
//    server; the page puts each view into a sandboxed iframe and connects the
//    official @modelcontextprotocol/ext-apps AppBridge to it. The tool input
//    and result fed to the view come from a real tools/call through the
//    gateway; tools/call requests from the view go back through the bridge
//    to this script, which forwards them to the gateway with the same SDK
//    client and records them.
// 3. Every browser request that is not to the loopback server is refused
//    and recorded. Screenshots go to the output directory.
// 4. Before the views are hosted, a page runs the TypeScript SDK v2 client at
//    revision 2026-07-28 in the browser against the gateway (section 3).
//
// Usage: node host.mjs <endpoint URL> <bearer token> <output dir> <chromium path> [<grader's bearer token>]
//
// The views are hosted as the first token's user (an instructor); the
// grader's token, when given, hosts the views that mark the caller's own
// rows as that grader too. Every page's clock stands at FIXED_NOW, so what
// is overdue does not depend on the day the test runs.
//
// To try the views by hand instead, `node host.mjs serve <endpoint URL>
// <bearer token> [port]` serves the test host page with a form (pick a tool,
// give its arguments, render) on http://127.0.0.1:<port>/host.html?try and
// waits; open it in a browser. It calls the gateway with the given token
// for anyone who can reach that loopback port.
import http from "node:http";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const serveMode = process.argv[2] === "serve";
const [endpoint, token, outDir, chromiumPath, graderToken] = process.argv.slice(serveMode ? 3 : 2);
// FIXED_NOW is months after the seed's due dates (SEED.md: January and
// February 2026) and long before its 2099 ones.
const FIXED_NOW = "2026-06-01T12:00:00Z";
const servePort = serveMode ? Number(outDir ?? 8787) : 0;
const here = path.dirname(fileURLToPath(import.meta.url));
const UI = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";
const out = { toolCalls: [], refusedCalls: [], blocked: [], requests: [], consoleErrors: [], scenarios: {} };

// ---- 1. The SDK client ------------------------------------------------------
// sdkClient connects an SDK client declaring the extension, as bearer.
async function sdkClient(bearer) {
  const t = new StreamableHTTPClientTransport(new URL(endpoint), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  });
  const c = new Client({ name: "pawtograder-viewhost", version: "1.0.0" },
    { capabilities: { extensions: { [UI]: { mimeTypes: [MIME] } } } });
  await c.connect(t);
  return { transport: t, client: c };
}
const { transport, client } = await sdkClient(token);
const graderClient = graderToken ? (await sdkClient(graderToken)).client : null;
out.negotiatedProtocol = transport.protocolVersion ?? null;
out.serverCapabilities = client.getServerCapabilities();

const { tools } = await client.listTools();
const toolByName = new Map(tools.map((t) => [t.name, t]));
out.toolUI = Object.fromEntries(tools.filter((t) => t._meta?.ui).map((t) => [t.name, t._meta.ui]));
const { resources } = await client.listResources();
out.resources = resources.map((r) => ({ uri: r.uri, name: r.name, mimeType: r.mimeType, _meta: r._meta }));
const views = {};
out.reads = {};
for (const r of resources) {
  const read = await client.readResource({ uri: r.uri });
  const c = read.contents[0];
  views[r.uri] = c;
  out.reads[r.uri] = { count: read.contents.length, uri: c.uri, mimeType: c.mimeType, bytes: c.text?.length ?? 0, _meta: c._meta };
}
try {
  await client.readResource({ uri: "ui://pawtograder/nope" });
  out.readUnknown = "no error";
} catch (e) {
  out.readUnknown = { code: e.code ?? null, message: e.message };
}

// callLog receives every tools/call; the layout pass (section 5) keeps its
// calls out of out.toolCalls.
let callLog = out.toolCalls;
async function callGateway(params, as = client) {
  callLog.push({ name: params.name, arguments: params.arguments ?? {} });
  return as.callTool({ name: params.name, arguments: params.arguments ?? {} });
}

// ---- 2. The browser host ----------------------------------------------------
const bundle = await build({
  stdin: {
    contents: 'export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";',
    resolveDir: here,
  },
  bundle: true, format: "esm", platform: "browser", write: false, logLevel: "warning",
});
const files = {
  "/host.html": ["text/html; charset=utf-8", await fs.readFile(path.join(here, "host.html"))],
  "/bridge.js": ["text/javascript; charset=utf-8", Buffer.from(bundle.outputFiles[0].text)],
};
// readJSON reads a small JSON request body (serve mode).
function readJSON(req) {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c) => { body += c; if (body.length > 1 << 20) req.destroy(); });
    req.on("end", () => { try { resolve(JSON.parse(body)); } catch (e) { reject(e); } });
    req.on("error", reject);
  });
}

// serveTry answers the try page's two calls: /try renders a tool call's
// result in its view, /call forwards a view's tools/call.
async function serveTry(req, res, pathname) {
  try {
    const body = await readJSON(req);
    let answer;
    if (pathname === "/call") {
      answer = await callGateway(body);
    } else {
      const tool = toolByName.get(body.tool);
      const uri = tool?._meta?.ui?.resourceUri;
      if (!uri) throw new Error(`${body.tool} has no view`);
      const result = await callGateway({ name: body.tool, arguments: body.arguments });
      answer = { html: views[uri].text, csp: views[uri]._meta?.ui?.csp, tool, result };
    }
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(answer));
  } catch (e) {
    res.writeHead(400, { "Content-Type": "application/json" }).end(JSON.stringify({ error: String(e.message ?? e) }));
  }
}

const server = http.createServer((req, res) => {
  const { pathname } = new URL(req.url, "http://x");
  if (serveMode && req.method === "POST" && (pathname === "/call" || pathname === "/try")) {
    serveTry(req, res, pathname);
    return;
  }
  const f = files[pathname];
  if (!f) { res.writeHead(404).end(); return; }
  res.writeHead(200, { "Content-Type": f[0] }).end(f[1]);
});
await new Promise((resolve) => server.listen(servePort, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
if (serveMode) {
  process.stderr.write(`Test host: ${origin}/host.html?try (Ctrl-C to stop)\n`);
  await new Promise(() => {}); // until interrupted
}

const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

// ---- 3. A browser client at revision 2026-07-28 ---------------------------
// The TypeScript SDK v2 client (@modelcontextprotocol/client), pinned to
// 2026-07-28 and declaring the extension, runs inside the page and calls the
// gateway cross-origin: Chromium preflights its Mcp-Method / Mcp-Name
// headers, so this also proves the gateway's CORS answer allows them. It
// discovers the server, lists tools and views, reads them and calls a tool.
async function modernInBrowser() {
  const modernBundle = await build({
    stdin: {
      contents: `import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
window.modernHost = async (endpoint, token, ui, mime) => {
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
    requestInit: { headers: { Authorization: "Bearer " + token } },
  });
  const client = new Client({ name: "pawtograder-viewhost-2026", version: "1.0.0" },
    { capabilities: { extensions: { [ui]: { mimeTypes: [mime] } } }, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(transport);
  const s = { negotiatedProtocol: client.getNegotiatedProtocolVersion() ?? null, serverCapabilities: client.getServerCapabilities() ?? null };
  const { tools } = await client.listTools();
  s.toolUI = Object.fromEntries(tools.filter((t) => t._meta?.ui).map((t) => [t.name, t._meta.ui]));
  const { resources } = await client.listResources();
  s.resources = resources.map((r) => r.uri);
  s.reads = {};
  for (const r of resources) {
    const read = await client.readResource({ uri: r.uri });
    s.reads[r.uri] = { count: read.contents.length, mimeType: read.contents[0].mimeType, text: read.contents[0].text };
  }
  try {
    await client.readResource({ uri: "ui://pawtograder/nope" });
    s.readUnknown = "no error";
  } catch (e) {
    s.readUnknown = { code: e.code ?? null };
  }
  const call = await client.callTool({ name: "get_assignment", arguments: { assignment_id: 1, class_id: 1 } });
  s.callTitle = call.structuredContent?.title ?? null;
  await client.close();
  return s;
};`,
      resolveDir: here,
    },
    bundle: true, format: "esm", platform: "browser", write: false, logLevel: "warning",
  });
  files["/modern.js"] = ["text/javascript; charset=utf-8", Buffer.from(modernBundle.outputFiles[0].text)];
  files["/modern.html"] = ["text/html; charset=utf-8", Buffer.from(
    '<!doctype html><html lang="en"><title>2026-07-28 host</title><script type="module" src="/modern.js"></script></html>')];
  const gatewayOrigin = new URL(endpoint).origin;
  const context = await browser.newContext();
  const sent = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin + "/") || url.startsWith(gatewayOrigin + "/")) return route.continue();
    out.blocked.push(url);
    return route.abort("blockedbyclient");
  });
  const page = await context.newPage();
  page.on("request", (r) => {
    if (r.url().startsWith(gatewayOrigin + "/")) {
      const h = r.headers();
      sent.push({ method: h["mcp-method"] ?? null, protocolVersion: h["mcp-protocol-version"] ?? null });
    }
  });
  // Chromium logs every 4xx answer: the unknown view's 400 is expected.
  const consoleErrors = [];
  page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => out.consoleErrors.push(`modern: ${e.message}`));
  await page.goto(origin + "/modern.html");
  await page.waitForFunction(() => typeof window.modernHost === "function");
  const s = await page.evaluate(([e, t, u, m]) => window.modernHost(e, t, u, m), [endpoint, token, UI, MIME]);
  // The same documents as at 2025-11-25, which the views below render.
  s.sameViews = Object.fromEntries(Object.entries(s.reads).map(([uri, r]) => [uri, r.text === views[uri]?.text]));
  for (const r of Object.values(s.reads)) delete r.text;
  s.sent = sent;
  s.consoleErrors = consoleErrors;
  await context.close();
  return s;
}

// hostView opens a fresh page at width × 800, its clock at FIXED_NOW, and
// renders the view for one real tool call, whose result it also returns;
// the tools the view calls that are named in refuse fail at the host
// (recorded in out.refusedCalls, not sent). asGrader makes the calls with
// the grader's token.
async function hostView(name, { uri, tool, args, theme = "light", width = 760, refuse = [], asGrader = false }) {
  const as = asGrader ? graderClient : client;
  if (!as) throw new Error(`${name}: no grader's token`);
  const context = await browser.newContext({ viewport: { width, height: 800 }, colorScheme: theme });
  await context.clock.setFixedTime(new Date(FIXED_NOW));
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(origin + "/")) return route.continue();
    out.blocked.push(url);
    return route.abort("blockedbyclient");
  });
  const page = await context.newPage();
  page.on("request", (r) => out.requests.push(r.url()));
  page.on("console", (m) => { if (m.type() === "error") out.consoleErrors.push(`${name}: ${m.text()}`); });
  page.on("pageerror", (e) => out.consoleErrors.push(`${name}: ${e.message}`));
  await page.exposeFunction("hostCallTool", async (params) => {
    if (refuse.includes(params.name)) {
      out.refusedCalls.push({ name: params.name, arguments: params.arguments ?? {} });
      throw new Error("refused by the test host");
    }
    return callGateway(params, as);
  });
  await page.goto(origin + "/host.html");
  const result = await callGateway({ name: tool, arguments: args }, as);
  const view = views[uri];
  await page.evaluate((spec) => window.hostView(spec), {
    html: view.text, csp: view._meta?.ui?.csp, theme, width, title: name,
    tool: toolByName.get(tool), arguments: args, result,
  });
  const frame = page.frameLocator("#view");
  return { context, page, frame, result };
}

async function shot(page, file) {
  await page.waitForTimeout(100); // let the host apply the last size-changed
  // Clicks scroll inside the frame while it is shorter than its content:
  // show the whole document from the top.
  const h = await page.frameLocator("#view").locator("html").evaluate((e) => { e.scrollTop = 0; return e.scrollHeight; });
  await page.evaluate((h) => { document.getElementById("view").style.height = h + 2 + "px"; }, h);
  const height = await page.evaluate(() => { window.scrollTo(0, 0); return document.documentElement.scrollHeight; });
  await page.setViewportSize({ width: page.viewportSize().width, height });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(100);
  const box = await (await page.$("#view")).boundingBox();
  await page.screenshot({ path: path.join(outDir, file), clip: box });
}

// audit runs axe-core's WCAG 2.1 A and AA rules on the view's document as
// it is now, and records the violations under name.
const axeSource = await fs.readFile(path.join(here, "node_modules", "axe-core", "axe.min.js"), "utf8");
out.a11y = {};
out.a11yRulesPassed = {};
async function audit(page, name) {
  const frame = await (await page.$("#view")).contentFrame();
  await frame.evaluate(axeSource); // a string: evaluated by the debugger, not subject to the view's CSP
  const result = await frame.evaluate(() => window.axe.run(document, {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
  }));
  out.a11yRulesPassed[name] = result.passes.map((r) => r.id);
  out.a11y[name] = result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(" ")) }));
}

const texts = (loc) => loc.evaluateAll((els) => els.map((e) => e.textContent.trim()));
// hiddenMarkers is each row's "hidden from the student" marker, or null.
const hiddenMarkers = (loc) => loc.evaluateAll((els) => els.map((e) => e.querySelector(".hidden-test")?.textContent ?? null));

// layoutReport runs in a view's document: its colour scheme, how far it
// scrolls sideways, the elements that reach past its width outside any box
// that scrolls or clips, and the words broken across lines.
function layoutReport(html) {
  const width = html.clientWidth;
  const name = (e) => e.tagName.toLowerCase() + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "") +
    ` "${(e.textContent || "").trim().slice(0, 30)}"`;
  const clipped = (e) => {
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== "visible") return true;
    }
    return false;
  };
  const outside = [];
  for (const e of document.body.querySelectorAll("*")) {
    if (e.closest(".visually-hidden")) continue;
    const r = e.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    if ((r.left < -0.5 || r.right > width + 0.5) && !clipped(e)) outside.push(name(e));
  }
  // Words are split at white space and dashes, after which a browser may
  // wrap; a word drawn on more than one line was broken inside.
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest("pre, code, .code, svg, select, .visually-hidden, .request-text")) continue;
    for (const m of n.data.matchAll(/[^\s\-\u2010-\u2014]+/g)) {
      const range = document.createRange();
      range.setStart(n, m.index);
      range.setEnd(n, m.index + m[0].length);
      const lines = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.bottom)));
      if (lines.size > 1) broken.push(m[0]);
    }
  }
  // A table region narrower than its table must say so: a column header
  // past the region's visible edge with no scroll cue before the region
  // (.scroll-hint) is cut off silently.
  const uncued = [];
  for (const region of document.querySelectorAll(".scroll")) {
    const box = region.getBoundingClientRect();
    const cued = region.previousElementSibling?.classList.contains("scroll-hint") ?? false;
    for (const th of region.querySelectorAll("th")) {
      const r = th.getBoundingClientRect();
      if (r.width && (r.right > box.right + 0.5 || r.left < box.left - 0.5) && !cued) uncued.push(th.textContent.trim());
    }
  }
  // The table regions that scroll sideways at this width.
  const scrolling = Array.from(document.querySelectorAll(".scroll"))
    .filter((r) => r.scrollWidth - r.clientWidth > 1).map((r) => r.getAttribute("aria-label"));
  return {
    colorScheme: getComputedStyle(html).colorScheme,
    overflowX: html.scrollWidth - html.clientWidth,
    outside, broken, uncued, scrolling,
  };
}

try {
  out.modern = await modernInBrowser();
  // Submission review from list_submission_tests: failed first; the first
  // failed test's output comes from get_test_output through the bridge.
  {
    const { context, page, frame } = await hostView("review-tests", {
      uri: "ui://pawtograder/submission-review", tool: "list_submission_tests",
      args: { submission_id: 2, class_id: 1 },
    });
    await frame.locator("tbody tr[data-test-id]").first().waitFor();
    await frame.locator("h1", { hasText: "Submission #2" }).waitFor();
    await frame.locator("[data-file]").first().waitFor(); // get_submission filled the files in
    const s = {};
    s.heading = await frame.locator("h1").first().textContent();
    s.rows = await texts(frame.locator("tbody tr[data-test-id] td:first-child .test-name"));
    s.results = await texts(frame.locator("tbody tr[data-test-id] td:last-child"));
    // is_released as list_submission_tests returns it (S31): test 6 is
    // hidden from the student.
    s.hidden = await hiddenMarkers(frame.locator("tbody tr[data-test-id]"));
    // The host sized the frame from the view's size-changed notifications.
    s.sizedByView = await page.evaluate(() => parseFloat(document.getElementById("view").style.height) > 200);
    // Keyboard only: focus the failed test's toggle and press Enter.
    await frame.locator('button[data-test-id="4"]').focus();
    await page.keyboard.press("Enter");
    await frame.locator("#out-4 pre").waitFor();
    s.expandedOutput = await frame.locator("#out-4 pre").textContent();
    s.expandedAria = await frame.locator('button[data-test-id="4"]').getAttribute("aria-expanded");
    s.focusedTest = await frame.locator(":focus").getAttribute("data-test-id");
    await frame.locator("select").selectOption("passed");
    s.passedOnly = await texts(frame.locator("tbody tr[data-test-id] .test-name"));
    await frame.locator("select").selectOption("all");
    await frame.locator('[data-file="README.md"]').focus();
    await page.keyboard.press("Enter");
    await frame.locator(".code .ln").first().waitFor();
    s.readmeLines = await texts(frame.locator(".code .ln"));
    s.scriptElements = await frame.locator("script").count();
    s.summary = await frame.locator("section.card").first().innerText();
    await audit(page, "review-light");
    await shot(page, "submission-review.png");
    out.scenarios.reviewTests = s;
    await context.close();
  }

  // Submission review from get_submission with files: the tree, a text file
  // with line numbers, a binary and an empty file; dark theme at 360 px.
  {
    const { context, page, frame } = await hostView("review-files", {
      uri: "ui://pawtograder/submission-review", tool: "get_submission",
      args: { submission_id: 3, class_id: 1, include_test_output: true, include_files: true },
      theme: "dark", width: 360,
    });
    await frame.locator("tbody tr[data-test-id]").first().waitFor();
    const s = {};
    s.rows = await texts(frame.locator("tbody tr[data-test-id] .test-name"));
    s.files = await frame.locator("[data-file]").evaluateAll((els) => els.map((e) => e.getAttribute("data-file")));
    await frame.locator('[data-file="lib/data.bin"]').click();
    s.binary = await frame.locator(".viewer").innerText();
    await frame.locator('[data-file="src/Empty.java"]').click();
    s.empty = await frame.locator(".viewer").innerText();
    await frame.locator('[data-file="src/Main.java"]').click();
    s.mainLines = await frame.locator(".code .ln").count();
    s.colorScheme = await frame.locator("html").evaluate((e) => getComputedStyle(e).colorScheme);
    s.background = await frame.locator("body").evaluate((e) => getComputedStyle(e).backgroundColor);
    s.overflowX = await frame.locator("html").evaluate((e) => e.scrollWidth - e.clientWidth);
    await audit(page, "review-dark-360");
    await shot(page, "submission-review-dark-360.png");
    out.scenarios.reviewFiles = s;
    await context.close();
  }

  // Submission review from list_submission_tests with only_failed (the call
  // Pawtograder's AI Help suggests): its summary counts only the returned,
  // failed tests. The counts shown are the whole submission's, from the
  // get_submission the view makes; when that call fails, the view says how
  // many failed and that only failed tests are listed, never "0 passed".
  {
    const s = {};
    for (const [key, refuse] of [["withSubmission", []], ["alone", ["get_submission"]]]) {
      const { context, page, frame } = await hostView("review-only-failed-" + key, {
        uri: "ui://pawtograder/submission-review", tool: "list_submission_tests",
        args: { submission_id: 2, class_id: 1, only_failed: true }, refuse,
      });
      await frame.locator("tbody tr[data-test-id]").first().waitFor();
      await (refuse.length ? frame.locator("#files-h + .status", { hasText: "Could not load" }) : frame.locator("[data-file]").first()).waitFor();
      s[key] = {
        summary: await frame.locator("section.card").first().innerText(),
        rows: await texts(frame.locator("tbody tr[data-test-id] .test-name")),
        hidden: await hiddenMarkers(frame.locator("tbody tr[data-test-id]")),
        scope: await frame.locator("#tests-h ~ .tests-scope").innerText().catch(() => null),
      };
      if (!refuse.length) await audit(page, "review-only-failed");
      await context.close();
    }
    out.scenarios.reviewOnlyFailed = s;
  }

  // Help request: the thread with pseudonymous names; the button opens the
  // review through the host (get_submission).
  {
    const { context, page, frame } = await hostView("help", {
      uri: "ui://pawtograder/help-request", tool: "get_help_request",
      args: { help_request_id: 1, class_id: 1 },
    });
    await frame.locator(".thread li").first().waitFor();
    const s = {};
    s.heading = await frame.locator("h1").first().textContent();
    s.question = await frame.locator(".question").textContent();
    s.authors = await texts(frame.locator(".thread .author"));
    s.messages = await texts(frame.locator(".thread .message"));
    s.staff = await frame.locator(".thread li").evaluateAll((els) => els.map((e) => !!e.querySelector(".staff")));
    s.failing = await texts(frame.locator(".failing .test-name"));
    // Tests hidden from the student (is_released false) are marked.
    s.failingHidden = await frame.locator(".failing li").evaluateAll((els) => els.map((e) => e.querySelector(".hidden-test")?.textContent ?? null));
    await shot(page, "help-request.png");
    await frame.locator("#open-review").focus();
    await page.keyboard.press("Enter");
    await frame.locator("#review tbody tr[data-test-id]").first().waitFor();
    s.reviewHeading = await frame.locator("#review h1").textContent();
    s.reviewRows = await texts(frame.locator("#review tbody tr[data-test-id] .test-name"));
    s.reviewHidden = await frame.locator("#review tbody tr[data-test-id]").evaluateAll((els) => els.map((e) => e.querySelector(".hidden-test")?.textContent ?? null));
    s.focused = await frame.locator(":focus").textContent();
    await audit(page, "help-light");
    await shot(page, "help-request-review.png");
    out.scenarios.help = s;
    await context.close();
  }

  // Help request with the message fields get_help_request returns at this
  // revision (S31), straight from the seed: message 4 is Alice's and
  // instructors_only, and Alice calls. Dark theme at 375 px.
  {
    const { context, page, frame, result } = await hostView("help-fields", {
      uri: "ui://pawtograder/help-request", tool: "get_help_request",
      args: { help_request_id: 1, class_id: 1 }, theme: "dark", width: 375,
    });
    await frame.locator(".thread li").first().waitFor();
    out.scenarios.helpFields = {
      // The tool result the view was given, as the gateway answered it.
      fields: result.structuredContent.result.messages.map((m) => ({ id: m.id, instructors_only: m.instructors_only, is_caller: m.is_caller })),
      staffOnly: await frame.locator(".thread li").evaluateAll((els) => els.map((e) => e.querySelector(".staff-only")?.textContent ?? null)),
      you: await frame.locator(".thread li").evaluateAll((els) => els.map((e) => e.querySelector(".you")?.textContent ?? null)),
      labels: await frame.locator(".thread article").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label"))),
    };
    await audit(page, "help-fields-dark-375");
    await shot(page, "help-fields-dark-375.png");
    await context.close();
  }

  // Assignment at a glance from get_submissions_for_student; the view
  // fetches the assignment (get_assignment) through the host.
  {
    const { context, page, frame } = await hostView("assignment", {
      uri: "ui://pawtograder/assignment", tool: "get_submissions_for_student",
      args: { student_profile_id: "30000001-0000-4000-8000-000000000003", assignment_id: 1, class_id: 1 },
    });
    await frame.locator("h1", { hasText: "Hello World" }).waitFor();
    const s = {};
    s.heading = await frame.locator("h1").textContent();
    s.subsHeading = await frame.locator("#subs-h").textContent();
    s.rows = await frame.locator("tbody tr").evaluateAll((els) => els.map((r) => Array.from(r.cells).map((c) => c.textContent)));
    s.chartLabel = await frame.locator("svg.chart").getAttribute("aria-label");
    s.facts = await frame.locator("section.card dl").innerText();
    await audit(page, "assignment-light");
    await shot(page, "assignment.png");
    out.scenarios.assignment = s;
    await context.close();
  }
  // Help queues at a glance from get_help_queue_overview: per queue its
  // counts and its open and in-progress requests, oldest first.
  {
    const { context, page, frame } = await hostView("queues", {
      uri: "ui://pawtograder/help-queues", tool: "get_help_queue_overview", args: { class_id: 1 },
    });
    await frame.locator("section.queue").first().waitFor();
    const s = {};
    s.heading = await frame.locator("h1").textContent();
    s.totals = await frame.locator("section.card").first().locator("dl").innerText();
    s.queues = await frame.locator("section.queue").evaluateAll((els) => els.map((q) => ({
      heading: q.querySelector("h2").textContent,
      facts: q.querySelector("dl").innerText,
      empty: q.querySelector("p.muted:last-child")?.textContent ?? null,
      rows: Array.from(q.querySelectorAll("tbody tr")).map((r) => ({
        id: r.getAttribute("data-request-id"),
        cells: Array.from(r.cells).map((c) => c.querySelector(".request-text")?.textContent ?? c.textContent),
        private: !!r.querySelector(".badge"),
      })),
    })));
    s.scriptElements = await frame.locator("script").count();
    await audit(page, "queues-light");
    await shot(page, "help-queues.png");
    out.scenarios.queues = s;
    await context.close();
  }

  // Grading progress from get_grading_progress; the view fetches the
  // assignment's title (get_assignment) through the host.
  {
    const { context, page, frame } = await hostView("grading", {
      uri: "ui://pawtograder/grading-progress", tool: "get_grading_progress", args: { assignment_id: 1, class_id: 1 },
    });
    await frame.locator("h1", { hasText: "Hello World" }).waitFor();
    const s = {};
    s.heading = await frame.locator("h1").textContent();
    s.cards = await frame.locator(".cards section.card").evaluateAll((els) => els.map((c) => c.innerText));
    s.meters = await frame.locator(".meter").evaluateAll((els) => els.map((m) => m.getAttribute("aria-label")));
    s.graders = await frame.locator("tbody tr").evaluateAll((els) => els.map((r) => Array.from(r.cells).map((c) => c.textContent)));
    await audit(page, "grading-light");
    await shot(page, "grading-progress.png");
    out.scenarios.grading = s;
    await context.close();
  }

  // Regrade request from get_regrade_request: request 1's argument hides
  // U+202E and U+200B (SEED.md), shown as badges and counted; request 2 is
  // Sam's comment, student-written, then Gary's, staff.
  {
    const s = {};
    for (const id of [1, 2]) {
      const { context, page, frame } = await hostView("regrade-" + id, {
        uri: "ui://pawtograder/regrade-request", tool: "get_regrade_request", args: { regrade_request_id: id, class_id: 1 },
      });
      await frame.locator(".thread li").first().waitFor();
      s[id] = {
        heading: await frame.locator("h1").textContent(),
        facts: await frame.locator("section.card dl").innerText(),
        authors: await texts(frame.locator(".thread .author")),
        kinds: await frame.locator(".thread li").evaluateAll((els) => els.map((e) => e.querySelector(".student, .staff")?.textContent ?? null)),
        hiddenBadges: await texts(frame.locator(".thread .hidden-char")),
        hiddenNotes: await texts(frame.locator(".thread .hidden-note")),
        labels: await frame.locator(".thread article").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label"))),
      };
      if (id === 1) {
        await audit(page, "regrade-light");
        await shot(page, "regrade-request.png");
      }
      await context.close();
    }
    out.scenarios.regrade = s;
  }

  // The caller's own rows and overdue work, at FIXED_NOW. Grading progress
  // as Alice (Wise Owl): her row says "you"; Busy Beaver's (Gary) pending
  // review was due 2026-01-25, so it is overdue, and Sleepy Sloth's (Dale),
  // due in 2099, is not. The help queues as Gary: request 2 is assigned to
  // him, marked in the Assignee column and, at 375 px, in the line under
  // the request.
  {
    const s = {};
    {
      const { context, frame } = await hostView("grading-you", {
        uri: "ui://pawtograder/grading-progress", tool: "get_grading_progress", args: { assignment_id: 1, class_id: 1 },
      });
      await frame.locator("h1", { hasText: "Hello World" }).waitFor();
      s.gradingYou = await frame.locator("tbody tr").evaluateAll((rows) => rows.filter((r) => r.querySelector(".you")).map((r) => r.querySelector(".grader-name").textContent));
      s.gradingOverdue = await frame.locator("tbody tr").evaluateAll((rows) => rows.filter((r) => r.querySelector("td.col-wide .overdue")).map((r) => r.querySelector(".grader-name").textContent));
      await context.close();
    }
    for (const width of [760, 375]) {
      const { context, page, frame } = await hostView("queues-you-" + width, {
        uri: "ui://pawtograder/help-queues", tool: "get_help_queue_overview", args: { class_id: 1 }, asGrader: true, width, theme: width === 375 ? "dark" : "light",
      });
      await frame.locator("section.queue tbody tr").first().waitFor();
      s["queuesYou" + width] = await frame.locator("section.queue tbody tr").evaluateAll((rows) => rows.filter((r) => {
        const inline = r.querySelector(".inline-narrow");
        // What a person sees at this width: the Assignee column, or the
        // line under the request where the column is hidden.
        return inline && getComputedStyle(inline).display !== "none" ? inline.textContent.includes("(you)") : !!r.querySelector("td.assignee .you");
      }).map((r) => r.getAttribute("data-request-id")));
      if (width === 375) {
        await audit(page, "queues-you-dark-375");
        await shot(page, "queues-you-dark-375.png");
      }
      await context.close();
    }
    out.scenarios.callerAndOverdue = s;
  }

  // The other views in the dark theme at 360 px (375 px, a phone's width,
  // for the two staff dashboards): nothing wider than the frame, and the
  // same audit.
  out.scenarios.narrowDark = {};
  for (const [name, spec, ready, width] of [
    ["help-dark-360", { uri: "ui://pawtograder/help-request", tool: "get_help_request", args: { help_request_id: 1, class_id: 1 } }, ".thread li", 360],
    ["assignment-dark-360", { uri: "ui://pawtograder/assignment", tool: "get_assignment", args: { assignment_id: 1, class_id: 1 } }, "dl.facts", 360],
    ["queues-dark-375", { uri: "ui://pawtograder/help-queues", tool: "get_help_queue_overview", args: { class_id: 1 } }, "section.queue tbody tr", 375],
    ["grading-dark-375", { uri: "ui://pawtograder/grading-progress", tool: "get_grading_progress", args: { assignment_id: 1, class_id: 1 } }, "h1:has-text('Hello World')", 375],
    ["regrade-dark-375", { uri: "ui://pawtograder/regrade-request", tool: "get_regrade_request", args: { regrade_request_id: 1, class_id: 1 } }, ".thread li", 375],
  ]) {
    const { context, page, frame } = await hostView(name, { ...spec, theme: "dark", width });
    await frame.locator(ready).first().waitFor();
    out.scenarios.narrowDark[name] = {
      overflowX: await frame.locator("html").evaluate((e) => e.scrollWidth - e.clientWidth),
      // Nor does any table scroll sideways inside its region.
      tableOverflowX: await frame.locator(".scroll").evaluateAll((els) => Math.max(0, ...els.map((e) => e.scrollWidth - e.clientWidth))),
      colorScheme: await frame.locator("html").evaluate((e) => getComputedStyle(e).colorScheme),
    };
    await audit(page, name);
    await shot(page, name + ".png");
    await context.close();
  }

  // ---- 5. Layout at a phone's and a desktop's width ------------------------
  // Each view, filled as above, at 375 and 1280 px in the light and the dark
  // scheme: no element reaches past the frame's width unless a box that
  // scrolls (or clips) holds it, and no word is broken inside (every word
  // outside code and the student-written request text of the queue table
  // lies on one line). Screenshots at 375 px: layout-<view>-<theme>-375.png.
  callLog = [];
  out.scenarios.layout = {};
  const layoutViews = [
    ["review", { uri: "ui://pawtograder/submission-review", tool: "get_submission",
      args: { submission_id: 2, class_id: 1, include_test_output: true, include_files: true } }, "tbody tr[data-test-id]"],
    ["help", { uri: "ui://pawtograder/help-request", tool: "get_help_request", args: { help_request_id: 1, class_id: 1 } }, ".thread li"],
    ["assignment", { uri: "ui://pawtograder/assignment", tool: "get_submissions_for_student",
      args: { student_profile_id: "30000001-0000-4000-8000-000000000003", assignment_id: 1, class_id: 1 } }, "h1:has-text('Hello World')"],
    ["queues", { uri: "ui://pawtograder/help-queues", tool: "get_help_queue_overview", args: { class_id: 1 } }, "section.queue tbody tr"],
    ["grading", { uri: "ui://pawtograder/grading-progress", tool: "get_grading_progress", args: { assignment_id: 1, class_id: 1 } }, "h1:has-text('Hello World')"],
    ["regrade", { uri: "ui://pawtograder/regrade-request", tool: "get_regrade_request", args: { regrade_request_id: 2, class_id: 1 } }, ".thread li"],
  ];
  // The views run side by side, each in its own pages.
  await Promise.all(layoutViews.map(async ([view, spec, ready]) => {
    for (const width of [375, 1280]) {
      for (const theme of ["light", "dark"]) {
        const { context, page, frame } = await hostView(`layout-${view}-${theme}-${width}`, { ...spec, theme, width });
        await frame.locator(ready).first().waitFor();
        if (view === "help") {
          // With the linked submission's review open below the thread.
          await frame.locator("#open-review").click();
          await frame.locator("#review tbody tr[data-test-id]").first().waitFor();
        }
        out.scenarios.layout[`${view}-${theme}-${width}`] = await frame.locator("html").evaluate(layoutReport);
        if (width === 375) await shot(page, `layout-${view}-${theme}-375.png`);
        await context.close();
      }
    }
  }));
} finally {
  await browser.close();
  server.close();
  await client.close();
  await graderClient?.close();
}

process.stdout.write(JSON.stringify(out));
