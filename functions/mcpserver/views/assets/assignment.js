// The assignment at a glance view (get_assignment,
// get_submissions_for_student).
"use strict";

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
      ["Due", isPast(a.due_date) ? el("span", null, [fmtDate(a.due_date), " ", el("span", { class: "badge overdue", text: "past due" })]) : fmtDate(a.due_date)],
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
    // Below 480 px the status moves under the attempt, as the other
    // views' narrow columns do, so the table fits a phone's frame.
    return el("tr", { "data-submission-id": s.id }, [
      el("td", { class: "num" }, ["#" + fmtNumber(s.ordinal),
        s.is_active ? el("span", { class: "inline-narrow muted", text: "Active" }) : null]),
      el("td", { text: fmtDate(s.created_at) }),
      el("td", { class: "num", text: isObject(g) ? fmtNumber(g.score) + " / " + fmtNumber(g.max_score) : "Not graded" }),
      el("td", { class: "num", text: testsText }),
      el("td", { class: "col-wide", text: s.is_active ? "Active" : "" }),
    ]);
  });
  section.appendChild(el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Submissions table" }, [
    el("table", null, [
      el("caption", { class: "visually-hidden", text: "Submissions, newest first" }),
      el("thead", null, [el("tr", null, [
        el("th", { scope: "col", class: "num", text: "Attempt" }), el("th", { scope: "col", text: "Submitted" }),
        el("th", { scope: "col", class: "num", text: "Score" }), el("th", { scope: "col", class: "num wrap", text: "Tests passed" }),
        el("th", { scope: "col", class: "col-wide", text: "Status" }),
      ])]),
      el("tbody", null, rows),
    ]),
  ]));
  root.appendChild(section);
}
