// DOM and formatting helpers shared by the views. Text is only ever set
// with textContent, never parsed as HTML.
"use strict";

function el(tag, attrs, children) {
  var node = document.createElement(tag);
  if (attrs) {
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) return;
      if (k === "text") node.textContent = String(v);
      else if (k === "class") node.className = v;
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    });
  }
  (children || []).forEach(function (c) {
    if (c === null || c === undefined || c === false) return;
    node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  });
  return node;
}

var uid = 0;
function newId(prefix) { uid += 1; return prefix + "-" + uid; }

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

function statusLine(text, isError) {
  return el("p", { class: "status" + (isError ? " error" : ""), role: isError ? "alert" : "status", text: text });
}

function fmtNumber(n) {
  if (n === null || n === undefined || n === "") return "–";
  var x = Number(n);
  if (!isFinite(x)) return String(n);
  return String(Math.round(x * 100) / 100);
}

function fmtDate(s) {
  if (!s) return "–";
  var d = new Date(s);
  if (isNaN(d.getTime())) return String(s);
  var ctx = bridge.context();
  try {
    return d.toLocaleString(ctx.locale || undefined, {
      dateStyle: "medium", timeStyle: "short", timeZone: ctx.timeZone || undefined,
    });
  } catch (e) {
    return d.toISOString();
  }
}

function facts(pairs) {
  return el("dl", { class: "facts" }, pairs.filter(Boolean).map(function (p) {
    return el("div", null, [el("dt", { text: p[0] }), el("dd", null, [p[1] instanceof Node ? p[1] : String(p[1])])]);
  }));
}

function badge(ok, yes, no) {
  return el("span", { class: "badge " + (ok ? "pass" : "fail"), text: ok ? yes : no });
}

// passed is the tools' pass rule (docs/contract/tools.md §1.6): a score and
// a max score, and score >= max.
function passed(t) {
  if (typeof t.passed === "boolean") return t.passed;
  return t.score !== null && t.score !== undefined && t.max_score !== null && t.max_score !== undefined &&
    Number(t.score) >= Number(t.max_score);
}

// count is a tool's count, 0 when it is missing or not a number.
function count(n) { return typeof n === "number" && isFinite(n) ? n : 0; }

function isObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }

// watchScrollRegions keeps a cue on every table region (.scroll) under
// root that is narrower than its table: a line before it saying it scrolls
// sideways, and an edge shadow (class "overflowing"), so a column past the
// frame's edge is never silently cut off. It follows re-renders and
// resizes.
function watchScrollRegions(root) {
  var pending = false;
  function update() {
    pending = false;
    Array.prototype.forEach.call(root.querySelectorAll(".scroll"), function (region) {
      var over = region.scrollWidth - region.clientWidth > 1;
      var hint = region.previousElementSibling;
      var hasHint = hint !== null && hint.classList.contains("scroll-hint");
      if (over) region.classList.add("overflowing"); else region.classList.remove("overflowing");
      if (over && !hasHint) {
        region.parentNode.insertBefore(el("p", { class: "muted scroll-hint", text: "Scroll the table sideways for more columns." }), region);
      } else if (!over && hasHint) {
        hint.parentNode.removeChild(hint);
      }
    });
  }
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(update);
  }
  new MutationObserver(schedule).observe(root, { childList: true, subtree: true });
  new ResizeObserver(schedule).observe(document.documentElement);
}

// youBadge marks the caller's own row ("you"), as is_caller and
// assignee_is_caller say.
function youBadge() { return el("span", { class: "badge you", text: "you" }); }

// isPast reports whether a timestamp lies before now.
function isPast(s) {
  var t = s ? Date.parse(s) : NaN;
  return !isNaN(t) && t < Date.now();
}
