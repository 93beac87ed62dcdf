// The submission review (get_submission, list_submission_tests,
// get_test_output); mountReview is also used by the help request view.
"use strict";

// reviewState holds what is known about one submission.
function newReview(args) {
  return {
    args: args || {},
    submission: null, // get_submission's value
    tests: null,      // [{id, name, part, score, max_score, passed, output?, output_format?, is_released?}]
    summary: null,    // list_submission_tests' summary, which covers the listed tests only
    listed: false,    // st.tests came from list_submission_tests
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

// failedOnly says whether st.tests lists the failed tests only: the call
// asked for only_failed or, for hosts that send no tool input, the list is
// shorter than the submission's tests and holds no passed test.
function failedOnly(st) {
  if (!st.listed) return false;
  if (st.args.only_failed === true) return true;
  var g = st.submission && st.submission.grader_result;
  var tests = st.tests || [];
  return isObject(g) && typeof g.test_count === "number" && tests.length < g.test_count &&
    tests.every(function (t) { return !t.passed; });
}

// testTotals returns the submission's {passed, failed} test counts, passed
// null when unknown (failed tests listed and no totals), or null when
// nothing is known. get_submission's totals describe the whole submission
// and win; a list of failed tests only says how many failed.
function testTotals(st) {
  var g = st.submission && st.submission.grader_result;
  if (isObject(g) && typeof g.tests_passed === "number" && typeof g.tests_failed === "number") {
    return { passed: g.tests_passed, failed: g.tests_failed };
  }
  if (!st.tests) return null;
  var nFailed = st.tests.filter(function (t) { return !t.passed; }).length;
  if (failedOnly(st)) return { passed: null, failed: nFailed };
  if (!st.tests.length) return null;
  return { passed: st.tests.length - nFailed, failed: nFailed };
}

// hiddenMarker marks a test the student does not see (is_released false).
function hiddenMarker(t) {
  return t.is_released === false ? el("span", { class: "badge hidden-test", text: "hidden from the student" }) : null;
}

function reviewHeader(st) {
  var s = st.submission;
  var g = s && s.grader_result;
  var totals = testTotals(st);
  var title = "Submission" + (st.args.submission_id !== undefined ? " #" + st.args.submission_id : "");
  var score = null;
  if (isObject(g)) score = fmtNumber(g.score) + " / " + fmtNumber(g.max_score);
  // The summary of a list of failed tests only is not the submission's score.
  else if (st.summary && !failedOnly(st)) score = fmtNumber(st.summary.total_score) + " / " + fmtNumber(st.summary.max_score);
  var testsFact = null;
  if (totals && totals.passed === null) {
    testsFact = el("span", { class: totals.failed ? "fail" : "", text: totals.failed + " failed" });
  } else if (totals) {
    testsFact = el("span", null, [el("span", { class: "pass", text: totals.passed + " passed" }), " · ",
      el("span", { class: totals.failed ? "fail" : "", text: totals.failed + " failed" })]);
  }
  var children = [el("h1", { id: "review-h", tabindex: "-1", text: title })];
  if (s) {
    children.push(el("p", { class: "muted", text: [
      s.student_name ? s.student_name : "Group submission",
      "attempt " + fmtNumber(s.ordinal),
      fmtDate(s.created_at),
    ].join(" · ") }));
  }
  children.push(facts([
    // With failed tests only and no grader result, the score is not known.
    !(score === null && failedOnly(st)) && ["Score", el("span", { class: "score", text: score === null ? "Not graded" : score })],
    testsFact && ["Tests", testsFact],
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
  var onlyFailed = failedOnly(st);
  if (onlyFailed) {
    // The tool was asked for the failed tests only: say so, and how many
    // passed tests the list leaves out when the submission's totals are known.
    var totals = testTotals(st);
    var left = totals && totals.passed ? "; " + totals.passed + (totals.passed === 1 ? " passed test is" : " passed tests are") + " not listed." : ".";
    section.appendChild(el("p", { class: "muted tests-scope", text: "Showing failed tests only" + left }));
  }
  if (!st.tests.length) {
    section.appendChild(statusLine(onlyFailed ? "No test failed." : "No tests were recorded."));
    return section;
  }
  if (!onlyFailed) {
    var filterId = "test-filter";
    var select = el("select", { id: filterId, onchange: function (e) { st.filter = e.target.value; ctx.rerender("filter"); } },
      [["all", "All tests"], ["failed", "Failed only"], ["passed", "Passed only"]].map(function (o) {
        return el("option", { value: o[0], selected: st.filter === o[0], text: o[1] });
      }));
    section.appendChild(el("div", { class: "toolbar" }, [el("label", { for: filterId, text: "Show" }), select]));
  }

  var sorted = st.tests.slice().sort(function (a, b) {
    if (a.passed !== b.passed) return a.passed ? 1 : -1; // failed first
    return (a.id || 0) - (b.id || 0);
  }).filter(function (t) {
    return onlyFailed || st.filter === "all" || (st.filter === "failed" ? !t.passed : t.passed);
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
      el("td", { class: "test" }, [toggle, part === "–" ? null : el("span", { class: "part-inline muted", text: part }), hiddenMarker(t)]),
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
        if (isObject(v) && Array.isArray(v.tests)) { absorbTests(st, v.tests); st.summary = v.summary; st.listed = true; }
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
      if (isObject(v) && Array.isArray(v.tests)) { absorbTests(st, v.tests); st.summary = v.summary; st.listed = true; }
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
