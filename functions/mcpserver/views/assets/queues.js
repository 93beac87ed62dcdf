// The help queues at a glance view (get_help_queue_overview): per queue its
// counts and its open and in-progress requests, oldest first.
"use strict";

// fmtAge is a wait as the largest two units ("3 d 4 h", "2 h 5 min"); the
// tool computes age_seconds when it answers.
function fmtAge(seconds) {
  if (typeof seconds !== "number" || !isFinite(seconds) || seconds < 0) return "–";
  var m = Math.floor(seconds / 60), h = Math.floor(m / 60), d = Math.floor(h / 24);
  if (d > 0) return d + " d" + (h % 24 ? " " + (h % 24) + " h" : "");
  if (h > 0) return h + " h" + (m % 60 ? " " + (m % 60) + " min" : "");
  if (m > 0) return m + " min";
  return "under a minute";
}

var requestStatus = { open: "Open", in_progress: "In progress" };

function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

function queueRequestRow(r) {
  var status = requestStatus[r.status] || String(r.status);
  var assignment = isObject(r.assignment) ? r.assignment.title : "–";
  var students = plural(count(r.students), "student", "students");
  var assignee = r.assignee_name || (r.assignee_profile_id ? "Unnamed" : null);
  var mine = r.assignee_is_caller === true;
  return el("tr", { "data-request-id": r.id, class: r.status === "open" ? "waiting" : null }, [
    el("td", { class: "request" }, [
      el("span", { class: "request-id", text: "#" + r.id }), " ",
      r.is_private ? el("span", { class: "badge", text: "Private" }) : null,
      el("span", { class: "clamp request-text", text: r.request === null || r.request === undefined ? "" : r.request }),
      el("span", { class: "inline-narrow muted", text: [status, assignee ? "assigned to " + assignee + (mine ? " (you)" : "") : "unassigned",
        assignment === "–" ? null : assignment, students].filter(Boolean).join(" · ") }),
    ]),
    el("td", { class: "col-wide", text: status }),
    el("td", { class: "num", text: fmtAge(r.age_seconds), title: fmtDate(r.created_at) }),
    el("td", { class: "col-wide assignee" }, [assignee || "Unassigned", mine ? " " : null, mine ? youBadge() : null]),
    el("td", { class: "col-wide", text: assignment }),
    el("td", { class: "num col-wide", text: String(count(r.students)) }),
  ]);
}

function queueSection(q, i) {
  var reqs = Array.isArray(q.requests) ? q.requests.filter(isObject) : [];
  var headingId = "queue-h-" + i;
  var total = count(q.open) + count(q.in_progress);
  var section = el("section", { class: "card queue", "aria-labelledby": headingId, "data-queue-id": q.id }, [
    el("h2", { id: headingId }, [q.name || "Queue #" + q.id, " ",
      el("span", { class: "badge " + (q.available ? "pass" : "muted"), text: q.available ? "Available" : "Not available" })]),
    el("p", { class: "muted", text: [q.queue_type, q.description].filter(Boolean).join(" · ") }),
    facts([
      ["Open", String(count(q.open))],
      ["In progress", String(count(q.in_progress))],
      ["Students waiting", String(count(q.students_waiting))],
    ]),
  ]);
  if (!reqs.length) {
    section.appendChild(el("p", { class: "muted", text: "No open or in-progress requests." }));
    return section;
  }
  if (reqs.length < total) section.appendChild(el("p", { class: "muted", text: "The oldest " + reqs.length + " of " + total + " requests." }));
  section.appendChild(el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": (q.name || "Queue") + " requests" }, [
    el("table", { class: "dash" }, [
      el("caption", { class: "visually-hidden", text: (q.name || "Queue") + ": open and in-progress requests, oldest first" }),
      el("thead", null, [el("tr", null, [
        el("th", { scope: "col", text: "Request" }), el("th", { scope: "col", class: "col-wide", text: "Status" }),
        el("th", { scope: "col", class: "num", text: "Age" }), el("th", { scope: "col", class: "col-wide", text: "Assignee" }),
        el("th", { scope: "col", class: "col-wide", text: "Assignment" }), el("th", { scope: "col", class: "num col-wide", text: "Students" }),
      ])]),
      el("tbody", null, reqs.map(queueRequestRow)),
    ]),
  ]));
  return section;
}

function renderQueues(root, v) {
  clear(root);
  if (!isObject(v) || !Array.isArray(v.queues)) { root.appendChild(statusLine("The help queues were not found.")); return; }
  var queues = v.queues.filter(isObject);
  var open = 0, inProgress = 0;
  queues.forEach(function (q) { open += count(q.open); inProgress += count(q.in_progress); });
  root.appendChild(el("section", { class: "card", "aria-label": "Help queues" }, [
    el("h1", { text: "Help queues" }),
    facts([
      ["Queues", String(queues.length)],
      ["Open requests", String(open)],
      ["In progress", String(inProgress)],
    ]),
    v.truncated ? el("p", { class: "muted", text: "The class has more requests than one answer holds: the counts cover the oldest ones read." }) : null,
  ]));
  if (!queues.length) { root.appendChild(el("p", { class: "muted", text: "No help queues you can see in this class." })); return; }
  queues.forEach(function (q, i) { root.appendChild(queueSection(q, i)); });
}
