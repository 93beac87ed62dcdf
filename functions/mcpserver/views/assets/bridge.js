// The app side of the MCP Apps postMessage dialect (SEP-1865, specification
// 2026-01-26), written here rather than vendored: the view needs five
// messages, and the official App class would add ~500 KB of bundled
// dependencies to every view. JSON-RPC 2.0 messages go to window.parent
// only, and only messages whose source is window.parent are read.
"use strict";

var bridge = (function () {
  var PROTOCOL_VERSION = "2026-01-26";
  var REQUEST_TIMEOUT_MS = 120000;
  var nextId = 1;
  var pending = new Map();
  var handlers = new Map();
  var hostContext = {};

  function post(message) {
    window.parent.postMessage(message, "*");
  }

  function request(method, params) {
    var id = nextId++;
    return new Promise(function (resolve, reject) {
      var timer = setTimeout(function () {
        pending.delete(id);
        reject(new Error("The host did not answer " + method + "."));
      }, REQUEST_TIMEOUT_MS);
      pending.set(id, {
        resolve: function (v) { clearTimeout(timer); resolve(v); },
        reject: function (e) { clearTimeout(timer); reject(e); },
      });
      post({ jsonrpc: "2.0", id: id, method: method, params: params || {} });
    });
  }

  function notify(method, params) {
    post({ jsonrpc: "2.0", method: method, params: params || {} });
  }

  function on(method, handler) {
    handlers.set(method, handler);
  }

  // Requests the host may send; anything else gets Method not found.
  var hostRequests = {
    "ping": function () { return {}; },
    "ui/resource-teardown": function () { return {}; },
  };

  window.addEventListener("message", function (event) {
    if (event.source !== window.parent) return;
    var m = event.data;
    if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") return;
    if (typeof m.method !== "string") {
      var p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.error) p.reject(new Error(String(m.error.message || "The host refused the request.")));
      else p.resolve(m.result);
      return;
    }
    if (m.id !== undefined && m.id !== null) {
      var h = hostRequests[m.method];
      if (h) post({ jsonrpc: "2.0", id: m.id, result: h(m.params) });
      else post({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
      return;
    }
    if (m.method === "ui/notifications/host-context-changed") {
      applyHostContext(m.params || {});
    }
    var handler = handlers.get(m.method);
    if (handler) handler(m.params || {});
  });

  // applyHostContext merges a (partial) host context and applies its theme
  // and standard style variables to the document.
  function applyHostContext(ctx) {
    Object.assign(hostContext, ctx);
    var root = document.documentElement;
    if (ctx.theme === "light" || ctx.theme === "dark") {
      root.style.colorScheme = ctx.theme;
      root.dataset.theme = ctx.theme;
    }
    var vars = ctx.styles && ctx.styles.variables;
    if (vars && typeof vars === "object") {
      Object.keys(vars).forEach(function (k) {
        if (/^--[a-z0-9-]+$/.test(k) && typeof vars[k] === "string") root.style.setProperty(k, vars[k]);
      });
    }
    var dims = ctx.containerDimensions;
    if (dims && typeof dims.maxHeight === "number") root.style.maxHeight = dims.maxHeight + "px";
  }

  // Report the document's size so hosts with flexible containers can fit
  // the frame (ui/notifications/size-changed), once per animation frame.
  function watchSize() {
    var last = "";
    var scheduled = false;
    function send() {
      scheduled = false;
      var el = document.documentElement;
      var width = Math.ceil(el.scrollWidth);
      var height = Math.ceil(el.scrollHeight);
      var key = width + "x" + height;
      if (key === last) return;
      last = key;
      notify("ui/notifications/size-changed", { width: width, height: height });
    }
    new ResizeObserver(function () {
      if (!scheduled) { scheduled = true; requestAnimationFrame(send); }
    }).observe(document.body);
  }

  // connect performs the ui/initialize handshake.
  function connect(appName) {
    return request("ui/initialize", {
      appInfo: { name: appName, version: "1.0.0" },
      appCapabilities: { availableDisplayModes: ["inline"] },
      protocolVersion: PROTOCOL_VERSION,
    }).then(function (result) {
      applyHostContext((result && result.hostContext) || {});
      notify("ui/notifications/initialized", {});
      watchSize();
      return result;
    });
  }

  // callTool asks the host to call one of this server's tools (tools/call);
  // the host forwards it with the user's own credentials.
  function callTool(name, args) {
    return request("tools/call", { name: name, arguments: args || {} }).then(toolValue);
  }

  return {
    connect: connect,
    on: on,
    callTool: callTool,
    context: function () { return hostContext; },
  };
})();

// toolValue returns the value a tools/call result carries: the
// structuredContent {"result": value} this server adds from 2025-06-18, else
// the JSON text of its only text block. A result flagged isError, or text
// that is not JSON, is an Error with the text as its message.
function toolValue(result) {
  if (!result || typeof result !== "object") throw new Error("The host sent an empty tool result.");
  var text = "";
  if (Array.isArray(result.content)) {
    result.content.forEach(function (c) {
      if (c && c.type === "text" && typeof c.text === "string") text += c.text;
    });
  }
  if (result.isError) throw new Error(text || "The tool failed.");
  var sc = result.structuredContent;
  if (sc && typeof sc === "object" && Object.prototype.hasOwnProperty.call(sc, "result")) return sc.result;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(text || "The tool result is not JSON.");
  }
}
