// Boots the view named by <body data-view>. Every value shown comes from a
// tool result the host delivered (ui/notifications/tool-result) or from a
// tools/call the view made through the host.
"use strict";

(function boot() {
  var view = document.body.getAttribute("data-view");
  var root = document.getElementById("app");
  var args = {};
  var received = false;

  clear(root);
  root.appendChild(statusLine("Waiting for the tool result…"));
  watchScrollRegions(root);

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
    } else if (view === "queues") {
      renderQueues(root, value);
    } else if (view === "grading") {
      var progress = { progress: value, assignment: null };
      var ids = isObject(value) ? value : args;
      progress.assignmentId = ids.assignment_id;
      renderGrading(root, progress);
      if (ids.assignment_id !== undefined && ids.class_id !== undefined) {
        bridge.callTool("get_assignment", { assignment_id: ids.assignment_id, class_id: ids.class_id }).then(function (a) {
          progress.assignment = a; renderGrading(root, progress);
        }, function (e) { progress.assignmentStatus = "Could not load the assignment: " + e.message; renderGrading(root, progress); });
      }
    } else if (view === "regrade") {
      renderRegrade(root, value);
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
