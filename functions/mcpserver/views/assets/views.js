// The three views. Every value shown comes from a tool result the host
// delivered (ui/notifications/tool-result) or from a tools/call the view made
// through the host; text is only ever set with textContent, never parsed as
// HTML.
"use strict";

// ---- DOM helpers -----------------------------------------------------------

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

function isObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }

// ---- Submission review -----------------------------------------------------

// reviewState holds what is known about one submission.
function newReview(args) {
  return {
    args: args || {},
    submission: null, // get_submission's value
    tests: null,      // [{id, name, part, score, max_score, passed, output?, output_format?}]
    summary: null,
    files: null,      // [{name, contents?, size?}]
    expanded: new Set(),
    filter: "all",
    selectedFile: null,
    root: null,
  };
}

function absorbSubmission(st, s) {
  if (!isObject(s)) return;
  st.submission = s;
  if (st.args.submission_id === undefined) st.args.submission_id = s.id;
  var g = s.grader_result;
  if (isObject(g) && Array.isArray(g.tests) && g.tests.length > 0) {
    absorbTests(st, g.tests);
  }
  if (Array.isArray(s.files)) {
    st.files = s.files.map(function (f) { return { name: f.name, contents: f.contents, loaded: true }; });
  } else if (Array.isArray(s.file_names) && !st.files) {
    st.files = s.file_names.map(function (n) { return { name: n, loaded: false }; });
  }
}

function absorbTests(st, tests) {
  var byId = new Map();
  (st.tests || []).forEach(function (t) { byId.set(t.id, t); });
  st.tests = tests.map(function (t) {
    var old = byId.get(t.id) || {};
    var merged = Object.assign({}, old, t);
    merged.passed = passed(merged);
    return merged;
  });
}

function absorbTestOutput(st, value) {
  if (!isObject(value) || !isObject(value.test)) return null;
  var t = value.test;
  if (!st.tests) st.tests = [];
  var found = st.tests.find(function (x) { return x.id === t.id; });
  if (found) {
    found.output = t.output;
    found.output_format = t.output_format;
    found.outputLoaded = true;
  } else {
    st.tests.push(Object.assign({ score: null, max_score: null, passed: false, outputLoaded: true }, t));
  }
  st.expanded.add(t.id);
  return t.id;
}

function reviewHeader(st) {
  var s = st.submission;
  var g = s && s.grader_result;
  var tests = st.tests || [];
  var nPassed = tests.filter(function (t) { return t.passed; }).length;
  var nFailed = tests.length - nPassed;
  if (!tests.length && isObject(g) && typeof g.tests_passed === "number") {
    nPassed = g.tests_passed; nFailed = g.tests_failed;
  }
  var title = "Submission" + (st.args.submission_id !== undefined ? " #" + st.args.submission_id : "");
  var score = null;
  if (isObject(g)) score = fmtNumber(g.score) + " / " + fmtNumber(g.max_score);
  else if (st.summary) score = fmtNumber(st.summary.total_score) + " / " + fmtNumber(st.summary.max_score);
  var children = [el("h1", { id: "review-h", tabindex: "-1", text: title })];
  if (s) {
    children.push(el("p", { class: "muted", text: [
      s.student_name ? s.student_name : "Group submission",
      "attempt " + fmtNumber(s.ordinal),
      fmtDate(s.created_at),
    ].join(" · ") }));
  }
  children.push(facts([
    ["Score", el("span", { class: "score", text: score === null ? "Not graded" : score })],
    (tests.length || (isObject(g) && typeof g.tests_passed === "number")) &&
      ["Tests", el("span", null, [el("span", { class: "pass", text: nPassed + " passed" }), " · ",
        el("span", { class: nFailed ? "fail" : "", text: nFailed + " failed" })])],
    isObject(g) && ["Lint", badge(g.lint_passed === true, "passed", "failed")],
    s && ["Status", s.is_active ? "Active submission" : "Earlier submission"],
    s && s.sha && ["Commit", el("code", { text: String(s.sha).slice(0, 12) })],
  ]));
  if (s && !g) children.push(el("p", { class: "muted", text: "No grader result yet." }));
  return el("section", { class: "card", "aria-label": "Summary" }, children);
}

function testsSection(st, ctx) {
  var section = el("section", { "aria-labelledby": "tests-h" });
  section.appendChild(el("h2", { id: "tests-h", text: "Tests" }));
  if (!st.tests) {
    section.appendChild(statusLine(ctx.testsStatus || "Tests not loaded."));
    return section;
  }
  if (!st.tests.length) {
    section.appendChild(statusLine("No tests were recorded."));
    return section;
  }
  var filterId = "test-filter";
  var select = el("select", { id: filterId, onchange: function (e) { st.filter = e.target.value; ctx.rerender("filter"); } },
    [["all", "All tests"], ["failed", "Failed only"], ["passed", "Passed only"]].map(function (o) {
      return el("option", { value: o[0], selected: st.filter === o[0], text: o[1] });
    }));
  section.appendChild(el("div", { class: "toolbar" }, [el("label", { for: filterId, text: "Show" }), select]));

  var sorted = st.tests.slice().sort(function (a, b) {
    if (a.passed !== b.passed) return a.passed ? 1 : -1; // failed first
    return (a.id || 0) - (b.id || 0);
  }).filter(function (t) {
    return st.filter === "all" || (st.filter === "failed" ? !t.passed : t.passed);
  });

  var tbody = el("tbody");
  sorted.forEach(function (t) {
    var outId = "out-" + t.id;
    var part = t.part === null || t.part === undefined ? "–" : String(t.part);
    var open = st.expanded.has(t.id);
    var toggle = el("button", {
      class: "link", "aria-expanded": open ? "true" : "false", "aria-controls": outId,
      "data-test-id": t.id,
      onclick: function () { ctx.toggleOutput(t); },
    }, [(open ? "▾ " : "▸ "), el("span", { class: "test-name", text: t.name })]);
    tbody.appendChild(el("tr", { class: t.passed ? "passed" : "failed", "data-test-id": t.id }, [
      el("td", { class: "test" }, [toggle, part === "–" ? null : el("span", { class: "part-inline muted", text: part })]),
      el("td", { class: "col-part", text: part }),
      el("td", { class: "num", text: fmtNumber(t.score) + " / " + fmtNumber(t.max_score) }),
      el("td", null, [badge(t.passed, "Passed", "Failed")]),
    ]));
    if (open) {
      var body;
      if (t.loading) body = statusLine("Loading output…");
      else if (t.error) body = statusLine(t.error, true);
      else if (t.output === null || t.output === undefined || t.output === "") body = el("p", { class: "muted", text: "No output." });
      else body = el("pre", { class: "output", tabindex: "0", "aria-label": "Output of " + t.name, text: t.output });
      tbody.appendChild(el("tr", { class: "output-row", id: outId }, [el("td", { colspan: "4" }, [body])]));
    }
  });
  var table = el("table", null, [
    el("caption", { class: "visually-hidden", text: "Tests, failed first" }),
    el("thead", null, [el("tr", null, [
      el("th", { scope: "col", text: "Test" }), el("th", { scope: "col", class: "col-part", text: "Part" }),
      el("th", { scope: "col", class: "num", text: "Score" }), el("th", { scope: "col", text: "Result" }),
    ])]),
    tbody,
  ]);
  section.appendChild(el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Tests table" }, [table]));
  if (!sorted.length) section.appendChild(statusLine("No test matches the filter."));
  return section;
}

// fileTree nests paths into {dirs: Map, files: []}.
function fileTree(files) {
  var root = { dirs: new Map(), files: [] };
  files.forEach(function (f) {
    var parts = String(f.name).split("/");
    var node = root;
    for (var i = 0; i < parts.length - 1; i++) {
      if (!node.dirs.has(parts[i])) node.dirs.set(parts[i], { dirs: new Map(), files: [] });
      node = node.dirs.get(parts[i]);
    }
    node.files.push({ base: parts[parts.length - 1], file: f });
  });
  return root;
}

function treeList(node, st, ctx) {
  var ul = el("ul", { class: "tree" });
  Array.from(node.dirs.keys()).sort().forEach(function (name) {
    ul.appendChild(el("li", null, [el("details", { open: true }, [
      el("summary", { text: name + "/" }), treeList(node.dirs.get(name), st, ctx)])]));
  });
  node.files.forEach(function (entry) {
    ul.appendChild(el("li", null, [el("button", {
      class: "link", "aria-current": st.selectedFile === entry.file.name ? "true" : false,
      "data-file": entry.file.name,
      onclick: function () { ctx.openFile(entry.file); },
    }, [entry.base])]));
  });
  return ul;
}

function fileViewer(st) {
  var f = (st.files || []).find(function (x) { return x.name === st.selectedFile; });
  if (!f) return el("p", { class: "muted", text: "Choose a file to view it." });
  var head = el("h3", { id: "viewer-h", tabindex: "-1", text: f.name });
  if (f.loading) return el("div", null, [head, statusLine("Loading file…")]);
  if (f.error) return el("div", null, [head, statusLine(f.error, true)]);
  if (f.contents === null || f.contents === undefined) {
    return el("div", null, [head, el("p", { class: "muted", text: "Binary file (contents not shown)." })]);
  }
  if (f.contents === "") return el("div", null, [head, el("p", { class: "muted", text: "Empty file." })]);
  if (f.contents.indexOf("\u0000") >= 0) {
    return el("div", null, [head, el("p", { class: "muted", text: "Binary file (contents not shown)." })]);
  }
  var lines = f.contents.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  var code = el("div", { class: "code", tabindex: "0", role: "region", "aria-label": f.name + ", " + lines.length + " lines" },
    lines.map(function (line) { return el("span", { class: "ln", text: line }); }));
  return el("div", null, [head, code]);
}

function filesSection(st, ctx) {
  var section = el("section", { "aria-labelledby": "files-h" });
  section.appendChild(el("h2", { id: "files-h", text: "Files" }));
  if (!st.files) {
    section.appendChild(statusLine(ctx.filesStatus || "Files not loaded."));
    return section;
  }
  if (!st.files.length) {
    section.appendChild(statusLine("No files were submitted."));
    return section;
  }
  section.appendChild(el("div", { class: "files" }, [
    el("nav", { "aria-label": "Submitted files" }, [treeList(fileTree(st.files), st, ctx)]),
    el("div", { class: "viewer" }, [fileViewer(st)]),
  ]));
  return section;
}

// focusKeyOf returns a selector finding node again after a re-render of
// root, or null.
function focusKeyOf(node, root) {
  if (!node || node === document.body || !root.contains(node)) return null;
  if (node.id) return "#" + node.id;
  if (node.hasAttribute("data-test-id")) return 'button[data-test-id="' + node.getAttribute("data-test-id") + '"]';
  if (node.hasAttribute("data-file")) return '[data-file="' + CSS.escape(node.getAttribute("data-file")) + '"]';
  if (node.tagName === "SELECT") return "select";
  return null;
}

// globEscape escapes the glob metacharacters of a file name so that
// get_submission_files matches exactly that file.
function globEscape(name) {
  return String(name).replace(/[\\*?[\]{}()!+@]/g, "\\$&");
}

// mountReview renders a submission review into root and returns handlers to
// feed it.
function mountReview(root, args) {
  var st = newReview(args);
  var ctx = {};
  var classId = function () { return st.args.class_id; };

  function render(focusKey) {
    // Re-rendering replaces the nodes: keep the keyboard focus where it was.
    if (!focusKey) focusKey = focusKeyOf(document.activeElement, root);
    clear(root);
    root.appendChild(reviewHeader(st));
    root.appendChild(testsSection(st, ctx));
    root.appendChild(filesSection(st, ctx));
    if (focusKey) {
      var target = root.querySelector(focusKey);
      if (target) target.focus();
    }
  }
  ctx.rerender = function (what) { render(what === "filter" ? "select" : null); };

  ctx.toggleOutput = function (t) {
    var key = 'button[data-test-id="' + t.id + '"]';
    if (st.expanded.has(t.id)) {
      st.expanded.delete(t.id);
      render(key);
      return;
    }
    st.expanded.add(t.id);
    var hasOutput = t.outputLoaded || Object.prototype.hasOwnProperty.call(t, "output");
    if (hasOutput || st.args.submission_id === undefined || classId() === undefined) {
      render(key);
      return;
    }
    t.loading = true;
    render(key);
    var callArgs = { submission_id: st.args.submission_id, class_id: classId() };
    if (t.id) callArgs.test_id = t.id; else callArgs.test_name = t.name;
    bridge.callTool("get_test_output", callArgs).then(function (v) {
      t.loading = false;
      if (!isObject(v) || !isObject(v.test)) { t.error = "No output was found for this test."; }
      else { t.output = v.test.output; t.output_format = v.test.output_format; t.outputLoaded = true; t.error = null; }
      render(key);
    }, function (e) {
      t.loading = false; t.error = "Could not load the output: " + e.message;
      render(key);
    });
  };

  ctx.openFile = function (f) {
    st.selectedFile = f.name;
    if (f.loaded || st.args.submission_id === undefined || classId() === undefined) {
      render("#viewer-h");
      return;
    }
    f.loading = true;
    render("#viewer-h");
    bridge.callTool("get_submission_files", {
      submission_id: st.args.submission_id, class_id: classId(), glob_pattern: globEscape(f.name),
    }).then(function (v) {
      f.loading = false;
      var match = isObject(v) && Array.isArray(v.files) && v.files.find(function (x) { return x.name === f.name; });
      if (match) { f.contents = match.contents; f.loaded = true; f.error = null; }
      else f.error = "The file could not be read.";
      render("#viewer-h");
    }, function (e) {
      f.loading = false; f.error = "Could not load the file: " + e.message;
      render("#viewer-h");
    });
  };

  // fillIn fetches, through the host, what the first result did not carry.
  function fillIn() {
    var sid = st.args.submission_id, cid = classId();
    if (sid === undefined || cid === undefined) {
      if (st.focusTest) absorbTestOutput(st, { test: st.focusTest });
      render();
      return;
    }
    var calls = [];
    if (!st.submission) {
      calls.push(bridge.callTool("get_submission", { submission_id: sid, class_id: cid }).then(function (v) {
        if (isObject(v)) { var keep = st.tests; absorbSubmission(st, v); if (keep) st.tests = keep; }
        else ctx.filesStatus = "The submission was not found.";
      }, function (e) { ctx.filesStatus = "Could not load the submission: " + e.message; }));
    }
    if (!st.tests) {
      ctx.testsStatus = "Loading tests…";
      calls.push(bridge.callTool("list_submission_tests", { submission_id: sid, class_id: cid }).then(function (v) {
        if (isObject(v) && Array.isArray(v.tests)) { absorbTests(st, v.tests); st.summary = v.summary; }
      }, function (e) { ctx.testsStatus = "Could not load the tests: " + e.message; }).then(function () {
        if (st.focusTest) absorbTestOutput(st, { test: st.focusTest });
      }));
    }
    render();
    if (calls.length) Promise.all(calls).then(function () { render(); });
  }

  return {
    state: st,
    fromSubmission: function (v) {
      if (!isObject(v)) { clear(root); root.appendChild(statusLine("The submission was not found.")); return; }
      absorbSubmission(st, v);
      fillIn();
    },
    fromTests: function (v) {
      if (isObject(v) && Array.isArray(v.tests)) { absorbTests(st, v.tests); st.summary = v.summary; }
      fillIn();
    },
    fromTestOutput: function (v) {
      // get_test_output carries one test: show it expanded within the full
      // list, which list_submission_tests brings.
      if (isObject(v) && isObject(v.test)) st.focusTest = v.test;
      fillIn();
    },
  };
}

// ---- Help request ----------------------------------------------------------

function testSummaryOf(s) {
  var g = s && s.grader_result;
  if (!isObject(g)) return el("p", { class: "muted", text: "No grader result for the linked submission." });
  var tests = Array.isArray(g.tests) ? g.tests : [];
  var failed = tests.filter(function (t) { return !passed(t); });
  var nPassed = tests.length - failed.length;
  if (!tests.length && typeof g.tests_passed === "number") nPassed = g.tests_passed;
  var nFailed = tests.length ? failed.length : (g.tests_failed || 0);
  var out = [facts([
    ["Score", fmtNumber(g.score) + " / " + fmtNumber(g.max_score)],
    ["Tests", nPassed + " passed · " + nFailed + " failed"],
    ["Lint", badge(g.lint_passed === true, "passed", "failed")],
  ])];
  if (failed.length) {
    out.push(el("p", { class: "muted", text: "Failing:" }));
    out.push(el("ul", { class: "failing" }, failed.map(function (t) {
      return el("li", null, [el("span", { class: "test-name", text: t.name }), " ",
        el("span", { class: "muted", text: fmtNumber(t.score) + " / " + fmtNumber(t.max_score) })]);
    })));
  }
  return el("div", null, out);
}

function renderHelp(root, v, args) {
  clear(root);
  if (!isObject(v)) { root.appendChild(statusLine("The help request was not found.")); return; }
  var title = "Help request #" + v.id;
  root.appendChild(el("section", { class: "card", "aria-label": "Request" }, [
    el("h1", { text: title }),
    el("p", { class: "muted", text: [v.help_queue_name, v.assignment && v.assignment.title, fmtDate(v.created_at)].filter(Boolean).join(" · ") }),
    facts([["Status", v.status], ["Student", v.student_name || "–"]]),
    el("h2", { text: "Question" }),
    el("p", { class: "message question", text: v.request || "" }),
  ]));

  var msgs = Array.isArray(v.messages) ? v.messages : [];
  var thread = el("section", { "aria-labelledby": "thread-h" }, [el("h2", { id: "thread-h", text: "Thread (" + msgs.length + ")" })]);
  if (!msgs.length) thread.appendChild(el("p", { class: "muted", text: "No messages yet." }));
  else {
    thread.appendChild(el("ol", { class: "thread" }, msgs.map(function (m) {
      return el("li", { class: "card" }, [
        el("article", { "aria-label": "Message from " + (m.author_name || "unknown author") }, [
          el("p", null, [el("strong", { class: "author", text: m.author_name || "Unknown author" }), " ",
            m.is_staff ? el("span", { class: "badge staff", text: "Staff" }) : null, " ",
            el("span", { class: "muted", text: fmtDate(m.created_at) })]),
          el("p", { class: "message", text: m.content === null || m.content === undefined ? "" : m.content }),
        ]),
      ]);
    })));
  }
  root.appendChild(thread);

  var sub = v.submission;
  var subSection = el("section", { "aria-labelledby": "sub-h" }, [el("h2", { id: "sub-h", text: "Linked submission" })]);
  if (!isObject(sub)) subSection.appendChild(el("p", { class: "muted", text: "No submission is linked to this request." }));
  else {
    subSection.appendChild(el("p", { class: "muted", text: "Submission #" + sub.id + " · attempt " + fmtNumber(sub.ordinal) + " · " + fmtDate(sub.created_at) }));
    subSection.appendChild(testSummaryOf(sub));
    if (isObject(v.latest_submission)) {
      var lg = v.latest_submission.grader_result;
      subSection.appendChild(el("p", { class: "muted", text: "Newer submission #" + v.latest_submission.id +
        (isObject(lg) ? " scored " + fmtNumber(lg.score) + " / " + fmtNumber(lg.max_score) : "") + "." }));
    }
    var reviewRoot = el("div", { class: "review", id: "review" });
    var button = el("button", {
      type: "button", id: "open-review", "aria-controls": "review",
      onclick: function () {
        button.disabled = true;
        clear(reviewRoot);
        reviewRoot.appendChild(statusLine("Loading the submission review…"));
        // The class comes from the call's arguments; the assignment record
        // carries it too, for hosts that send no tool input.
        var classId = args.class_id !== undefined ? args.class_id : (isObject(v.assignment) ? v.assignment.class_id : undefined);
        var review = mountReview(reviewRoot, { submission_id: sub.id, class_id: classId });
        bridge.callTool("get_submission", {
          submission_id: sub.id, class_id: classId, include_test_output: true, include_files: true,
        }).then(function (value) {
          button.disabled = false;
          review.fromSubmission(value);
          var h = reviewRoot.querySelector("h1");
          if (h) h.focus();
        }, function (e) {
          button.disabled = false;
          clear(reviewRoot);
          reviewRoot.appendChild(statusLine("Could not open the submission review: " + e.message, true));
        });
      },
    }, ["Open submission review"]);
    subSection.appendChild(el("div", { class: "toolbar" }, [button]));
    subSection.appendChild(reviewRoot);
  }
  root.appendChild(subSection);
}

// ---- Assignment at a glance ------------------------------------------------

function scoreChart(subs) {
  var NS = "http://www.w3.org/2000/svg";
  var points = subs.slice().reverse(); // oldest first
  var W = 320, H = 140, pad = 26, gap = 6;
  var svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  var label = "Scores over time: " + points.map(function (s) {
    var g = s.grader_result;
    return "attempt " + fmtNumber(s.ordinal) + " " + (isObject(g) ? fmtNumber(g.score) + " of " + fmtNumber(g.max_score) : "not graded");
  }).join(", ");
  svg.setAttribute("aria-label", label);
  function add(tag, attrs, text) {
    var n = document.createElementNS(NS, tag);
    Object.keys(attrs).forEach(function (k) { n.setAttribute(k, attrs[k]); });
    if (text !== undefined) n.textContent = text;
    svg.appendChild(n);
    return n;
  }
  add("line", { x1: pad, y1: H - pad, x2: W - 4, y2: H - pad, class: "axis" });
  var n = Math.max(points.length, 1);
  var bw = Math.max(8, Math.min(48, (W - pad - 8) / n - gap));
  points.forEach(function (s, i) {
    var g = s.grader_result;
    var frac = 0;
    if (isObject(g) && Number(g.max_score) > 0) frac = Math.max(0, Math.min(1, Number(g.score) / Number(g.max_score)));
    var h = frac * (H - pad - 16);
    var x = pad + 4 + i * (bw + gap);
    add("rect", { x: x, y: H - pad - h, width: bw, height: Math.max(h, 1), class: "bar", rx: 2 });
    add("text", { x: x + bw / 2, y: H - pad - h - 3, "text-anchor": "middle" }, isObject(g) ? fmtNumber(g.score) : "–");
    add("text", { x: x + bw / 2, y: H - pad + 14, "text-anchor": "middle" }, "#" + fmtNumber(s.ordinal));
  });
  return svg;
}

function renderAssignment(root, state) {
  clear(root);
  var a = state.assignment;
  var card = el("section", { class: "card", "aria-label": "Assignment" });
  if (isObject(a)) {
    card.appendChild(el("h1", { text: a.title || "Assignment" }));
    card.appendChild(el("p", { class: "muted", text: [a.slug, a.has_autograder ? "autograded" : "not autograded"].filter(Boolean).join(" · ") }));
    if (a.description) card.appendChild(el("p", { class: "description", text: a.description }));
    card.appendChild(facts([
      ["Released", fmtDate(a.release_date)],
      ["Due", fmtDate(a.due_date)],
      ["Points", a.total_points === null || a.total_points === undefined ? "–" : fmtNumber(a.total_points)],
      a.handout_url && ["Handout", el("code", { text: a.handout_url })],
    ]));
  } else {
    card.appendChild(el("h1", { text: "Assignment" }));
    card.appendChild(statusLine(state.assignmentStatus || "The assignment was not found."));
  }
  root.appendChild(card);

  if (!state.subs) return;
  var subs = state.subs.filter(isObject);
  var who = subs.length && subs[0].student_name ? subs[0].student_name : null;
  var section = el("section", { "aria-labelledby": "subs-h" }, [
    el("h2", { id: "subs-h", text: "Submissions" + (who ? " by " + who : "") + " (" + subs.length + ")" })]);
  if (!subs.length) {
    section.appendChild(el("p", { class: "muted", text: "No submissions." }));
    root.appendChild(section);
    return;
  }
  section.appendChild(scoreChart(subs));
  var rows = subs.map(function (s) {
    var g = s.grader_result;
    var tests = isObject(g) && Array.isArray(g.tests) ? g.tests : [];
    var p = tests.filter(passed).length;
    var testsText = tests.length ? p + " / " + tests.length : (isObject(g) && typeof g.tests_passed === "number" ? g.tests_passed + " / " + g.test_count : "–");
    return el("tr", { "data-submission-id": s.id }, [
      el("td", { class: "num", text: "#" + fmtNumber(s.ordinal) }),
      el("td", { text: fmtDate(s.created_at) }),
      el("td", { class: "num", text: isObject(g) ? fmtNumber(g.score) + " / " + fmtNumber(g.max_score) : "Not graded" }),
      el("td", { class: "num", text: testsText }),
      el("td", { text: s.is_active ? "Active" : "" }),
    ]);
  });
  section.appendChild(el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Submissions table" }, [
    el("table", null, [
      el("caption", { class: "visually-hidden", text: "Submissions, newest first" }),
      el("thead", null, [el("tr", null, [
        el("th", { scope: "col", class: "num", text: "Attempt" }), el("th", { scope: "col", text: "Submitted" }),
        el("th", { scope: "col", class: "num", text: "Score" }), el("th", { scope: "col", class: "num", text: "Tests passed" }),
        el("th", { scope: "col", text: "Status" }),
      ])]),
      el("tbody", null, rows),
    ]),
  ]));
  root.appendChild(section);
}

// ---- Boot ------------------------------------------------------------------

(function boot() {
  var view = document.body.getAttribute("data-view");
  var root = document.getElementById("app");
  var args = {};
  var received = false;

  clear(root);
  root.appendChild(statusLine("Waiting for the tool result…"));

  bridge.on("ui/notifications/tool-input", function (p) {
    if (isObject(p.arguments)) args = Object.assign({}, p.arguments);
  });
  bridge.on("ui/notifications/tool-cancelled", function () {
    if (!received) { clear(root); root.appendChild(statusLine("The tool call was cancelled.")); }
  });
  bridge.on("ui/notifications/tool-result", function (result) {
    received = true;
    var value;
    try {
      value = toolValue(result);
    } catch (e) {
      clear(root);
      root.appendChild(statusLine(e.message, true));
      return;
    }
    var toolInfo = bridge.context().toolInfo;
    var toolName = toolInfo && toolInfo.tool && toolInfo.tool.name;
    if (view === "review") {
      var review = mountReview(root, args);
      if (toolName === "list_submission_tests" || (isObject(value) && Array.isArray(value.tests) && isObject(value.summary))) review.fromTests(value);
      else if (toolName === "get_test_output" || (isObject(value) && Object.prototype.hasOwnProperty.call(value, "test"))) review.fromTestOutput(value);
      else review.fromSubmission(value);
    } else if (view === "help") {
      renderHelp(root, value, args);
    } else if (view === "assignment") {
      var state = { assignment: null, subs: null };
      if (Array.isArray(value)) {
        state.subs = value;
        state.assignmentStatus = "Loading the assignment…";
        renderAssignment(root, state);
        if (args.assignment_id !== undefined && args.class_id !== undefined) {
          bridge.callTool("get_assignment", { assignment_id: args.assignment_id, class_id: args.class_id }).then(function (a) {
            state.assignment = a; state.assignmentStatus = null; renderAssignment(root, state);
          }, function (e) { state.assignmentStatus = "Could not load the assignment: " + e.message; renderAssignment(root, state); });
        }
      } else {
        state.assignment = value;
        renderAssignment(root, state);
      }
    }
  });

  bridge.connect("pawtograder-" + view).catch(function (e) {
    clear(root);
    root.appendChild(statusLine("Could not connect to the host: " + e.message, true));
  });
})();
