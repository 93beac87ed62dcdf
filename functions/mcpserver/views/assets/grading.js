// The grading progress view (get_grading_progress): the numbers of the
// grading dashboard and the review assignments per grader. The assignment's
// title is fetched with get_assignment through the host.
"use strict";

// meter is a bar of done out of total, labelled for assistive technology.
function meter(done, total, label) {
  var frac = total > 0 ? Math.max(0, Math.min(1, done / total)) : 0;
  var fill = el("div", { class: "meter-fill" });
  fill.style.width = Math.round(frac * 100) + "%"; // CSSOM, not a style attribute a host's CSP may refuse
  return el("div", { class: "meter", role: "img", "aria-label": label + ": " + done + " of " + total }, [fill]);
}

function gradingCard(title, pairs, bar) {
  return el("section", { class: "card", "aria-label": title }, [el("h2", { text: title }), bar, facts(pairs)]);
}

function renderGrading(root, state) {
  clear(root);
  var v = state.progress;
  var a = state.assignment;
  var name = isObject(a) && a.title ? a.title : (state.assignmentId !== undefined ? "Assignment #" + state.assignmentId : "Assignment");
  root.appendChild(el("h1", { text: "Grading progress: " + name }));
  if (state.assignmentStatus) root.appendChild(el("p", { class: "muted", text: state.assignmentStatus }));
  if (!isObject(v)) {
    root.appendChild(statusLine("No grading progress: the assignment is not visible, or you are not an instructor or grader of this class."));
    return;
  }
  var s = isObject(v.submissions) ? v.submissions : {};
  var ra = isObject(v.review_assignments) ? v.review_assignments : {};
  var rr = isObject(v.regrade_requests) ? v.regrade_requests : {};
  var grid = el("div", { class: "cards" }, [
    gradingCard("Submissions", [
      ["Active", String(count(s.active))], ["Graded", String(count(s.graded))],
      ["To grade", String(count(s.ungraded))], ["Released", String(count(s.released))],
    ], meter(count(s.graded), count(s.active), "Submissions graded")),
    gradingCard("Review assignments", [
      ["Assigned", String(count(ra.total))], ["Completed", String(count(ra.completed))], ["Pending", String(count(ra.pending))],
    ], meter(count(ra.completed), count(ra.total), "Review assignments completed")),
    gradingCard("Regrade requests", [
      ["Open", String(count(rr.open))], ["Opened", String(count(rr.opened))], ["Escalated", String(count(rr.escalated))],
      ["Resolved", String(count(rr.resolved))], ["Closed", String(count(rr.closed))],
    ], null),
  ]);
  root.appendChild(grid);
  if (v.truncated) root.appendChild(el("p", { class: "muted", text: "More rows exist than one answer holds: the numbers cover those read." }));

  var graders = Array.isArray(v.graders) ? v.graders.filter(isObject) : [];
  var section = el("section", { "aria-labelledby": "graders-h" }, [el("h2", { id: "graders-h", text: "Graders (" + graders.length + ")" })]);
  if (!graders.length) {
    section.appendChild(el("p", { class: "muted", text: "No graders and no review assignments." }));
    root.appendChild(section);
    return;
  }
  var rows = graders.map(function (g) {
    var due = g.earliest_pending_due_date ? fmtDate(g.earliest_pending_due_date) : "–";
    // Pending work whose earliest due date has passed is overdue.
    var overdue = count(g.pending) > 0 && isPast(g.earliest_pending_due_date);
    var overdueBadge = function () { return overdue ? el("span", { class: "badge overdue", text: "overdue" }) : null; };
    return el("tr", { class: count(g.pending) > 0 ? "pending" : null, "data-caller": g.is_caller === true ? "true" : null }, [
      el("td", { class: "grader" }, [el("span", { class: "grader-name", text: g.name || "Unnamed grader" }),
        g.is_caller === true ? " " : null, g.is_caller === true ? youBadge() : null,
        due === "–" ? null : el("span", { class: "inline-narrow muted" }, ["Next due " + due, overdue ? " " : null, overdueBadge()])]),
      el("td", { class: "num", text: String(count(g.assigned)) }),
      el("td", { class: "num", text: String(count(g.completed)) }),
      el("td", { class: "num", text: String(count(g.pending)) }),
      el("td", { class: "col-wide" }, [due, overdue ? " " : null, overdueBadge()]),
    ]);
  });
  section.appendChild(el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": "Graders table" }, [
    el("table", { class: "dash" }, [
      el("caption", { class: "visually-hidden", text: "Review assignments per grader" }),
      el("thead", null, [el("tr", null, [
        el("th", { scope: "col", text: "Grader" }), el("th", { scope: "col", class: "num", text: "Assigned" }),
        el("th", { scope: "col", class: "num", text: "Completed" }), el("th", { scope: "col", class: "num", text: "Pending" }),
        el("th", { scope: "col", class: "col-wide", text: "Earliest pending due" }),
      ])]),
      el("tbody", null, rows),
    ]),
  ]));
  section.appendChild(el("p", { class: "muted", text: "A grader sees only their own review assignments." }));
  root.appendChild(section);
}
