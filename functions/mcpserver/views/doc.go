// Package views holds the MCP Apps views (the io.modelcontextprotocol/ui
// extension, SEP-1865, specification 2026-01-26) of the mcp-server function:
// six static HTML documents that hosts supporting the extension render in
// a sandboxed frame beside a tool's answer.
//
//   - ui://pawtograder/submission-review, for get_submission,
//     list_submission_tests and get_test_output: score and status, the tests
//     (failed first, filterable, each output expandable and fetched with
//     get_test_output when missing) and the submitted files as a tree with a
//     line-numbered viewer (get_submission_files when contents are missing);
//     the counts are the whole submission's even for an only_failed list,
//     and tests with is_released false are marked hidden from the student;
//   - ui://pawtograder/help-request, for get_help_request: the question and
//     the thread with the pseudonymous names the tool returns (staff-only
//     messages and the caller's own marked when a result carries
//     instructors_only and is_caller), the linked
//     submission's test summary and a button that opens its review
//     (get_submission through the host);
//   - ui://pawtograder/assignment, for get_assignment and
//     get_submissions_for_student: dates, points and a student's submissions
//     over time with their scores;
//   - ui://pawtograder/help-queues, for get_help_queue_overview: per queue
//     its counts and its open and in-progress requests, oldest first, with
//     their age, assignee ("you" when it is the caller), assignment and
//     students;
//   - ui://pawtograder/grading-progress, for get_grading_progress: the
//     grading dashboard's numbers (submissions to grade, review assignments,
//     regrade requests by status) and the review assignments per grader
//     (the caller's row marked "you", pending work past its due date
//     "overdue"), under the assignment's title (get_assignment through the
//     host);
//   - ui://pawtograder/regrade-request, for get_regrade_request: the
//     disputed check and its points, the score as graded and decided, the
//     review's total and the conversation, each student-written comment
//     marked and its hidden characters drawn as badges.
//
// The documents are assembled once from the embedded assets (one shell, one
// style sheet, and the scripts bridge.js, dom.js, review.js, help.js,
// assignment.js, queues.js, grading.js, regrade.js and boot.js inlined in
// order) and carry no data: everything shown arrives from
// the host as tool results, or from tools/call requests the view sends to
// the host, which forwards them with the user's own token, scopes and row
// level security. They load nothing from outside (no external scripts,
// fonts or images), so the resources declare a CSP without origins.
//
// The app side of the postMessage dialect (ui/initialize, the tool-input
// and tool-result notifications, tools/call, size-changed) is implemented in
// assets/bridge.js instead of bundling the official @modelcontextprotocol/ext-apps
// App class: the views need a handful of messages, a bundle would add
// several hundred kilobytes of generated code to every view, and the tests
// drive the views with the official host-side AppBridge, which checks the
// dialect.
package views
