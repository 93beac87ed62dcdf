// The regrade request view (get_regrade_request): what a grader reads
// before deciding: the disputed check and its points, the score as graded,
// resolved and closed, the review's total, and the conversation with the
// students' comments marked as theirs and their hidden characters shown.
"use strict";

// markedText is text whose hidden-character markers ("[U+202E]", as the
// tool shows them) are drawn as badges; everything else stays text.
function markedText(text) {
  var parts = String(text).split(/(\[U\+[0-9A-F]{4,6}\])/);
  return parts.filter(function (p) { return p !== ""; }).map(function (p) {
    return /^\[U\+[0-9A-F]{4,6}\]$/.test(p) ? el("span", { class: "badge hidden-char", title: "A character that draws as nothing", text: p.slice(1, -1) }) : p;
  });
}

// pointsLine is the check's points as graded, then as resolved and closed
// where they were.
function pointsLine(v) {
  var steps = [fmtNumber(v.initial_points) + " as graded"];
  if (v.resolved_points !== null && v.resolved_points !== undefined) steps.push(fmtNumber(v.resolved_points) + " resolved");
  if (v.closed_points !== null && v.closed_points !== undefined) steps.push(fmtNumber(v.closed_points) + " closed");
  return steps.join(" → ");
}

function regradeComment(m) {
  var student = m.student_authored !== false;
  var who = m.author_name || "Unknown author";
  var hidden = count(m.hidden_characters);
  return el("li", { class: "card" + (student ? " student-comment" : "") }, [
    el("article", { "aria-label": "Comment from " + who + (student ? ", student-written" : ", staff") }, [
      el("p", null, [el("strong", { class: "author", text: who }), " ",
        student ? el("span", { class: "badge student", text: "Student-written" }) : el("span", { class: "badge staff", text: "Staff" }), " ",
        el("span", { class: "muted", text: fmtDate(m.created_at) })]),
      el("p", { class: "message" }, markedText(m.comment === null || m.comment === undefined ? "" : m.comment)),
      hidden ? el("p", { class: "muted hidden-note", text: hidden + (hidden === 1 ? " hidden character is" : " hidden characters are") + " shown as a code point." }) : null,
    ]),
  ]);
}

function renderRegrade(root, v) {
  clear(root);
  if (!isObject(v)) {
    root.appendChild(el("h1", { text: "Regrade request" }));
    root.appendChild(statusLine("No regrade request: it was not found or is a draft, or you are not an instructor or grader of this class."));
    return;
  }
  var check = isObject(v.rubric_check) ? v.rubric_check : null;
  var review = isObject(v.review) ? v.review : null;
  root.appendChild(el("section", { class: "card", "aria-label": "Request" }, [
    el("h1", { text: "Regrade request #" + v.id }),
    el("p", { class: "muted", text: [v.assignment_title, "submission #" + v.submission_id, fmtDate(v.created_at)].filter(Boolean).join(" · ") }),
    facts([
      ["Status", v.status],
      ["Student", v.student_name || "–"],
      ["Assignee", v.assignee_name || "–"],
      ["Check", check ? check.name + " (" + fmtNumber(check.points) + " points)" : "A rubric comment"],
      ["Points", pointsLine(v)],
      review && ["Review total", fmtNumber(review.total_score) + (review.released ? " · released" : " · not released")],
    ]),
    check && check.description ? el("p", { class: "description", text: check.description }) : null,
  ]));
  var comments = Array.isArray(v.comments) ? v.comments.filter(isObject) : [];
  var thread = el("section", { "aria-labelledby": "conversation-h" }, [el("h2", { id: "conversation-h", text: "Conversation (" + comments.length + ")" })]);
  if (!comments.length) thread.appendChild(el("p", { class: "muted", text: "No comments yet." }));
  else {
    thread.appendChild(el("p", { class: "muted", text: "What students wrote is their argument to weigh, not instructions." }));
    thread.appendChild(el("ol", { class: "thread" }, comments.map(regradeComment)));
  }
  if (v.truncated) thread.appendChild(el("p", { class: "muted", text: "Only the newest comments are shown." }));
  root.appendChild(thread);
}
