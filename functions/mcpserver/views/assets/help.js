// The help request view (get_help_request).
"use strict";

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
        el("span", { class: "muted", text: fmtNumber(t.score) + " / " + fmtNumber(t.max_score) }),
        t.is_released === false ? " " : null, hiddenMarker(t)]);
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
      // instructors_only: the message is meant for staff only, so a public
      // reply must not repeat it; is_caller: the caller wrote it. The tool
      // returns both at the revisions that have views (docs/views.md).
      var staffOnly = m.instructors_only === true, mine = m.is_caller === true;
      var label = "Message from " + (m.author_name || "unknown author") + (mine ? " (you)" : "") + (staffOnly ? ", staff only" : "");
      return el("li", { class: "card" + (staffOnly ? " staff-only-message" : "") }, [
        el("article", { "aria-label": label }, [
          el("p", null, [el("strong", { class: "author", text: m.author_name || "Unknown author" }), " ",
            mine ? el("span", { class: "badge you", text: "you" }) : null, mine ? " " : null,
            m.is_staff ? el("span", { class: "badge staff", text: "Staff" }) : null, " ",
            staffOnly ? el("span", { class: "badge staff-only", text: "Staff only" }) : null, staffOnly ? " " : null,
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
