package tools

import (
	"errors"
	"strings"
	"sync"

	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// ReadFailedError is the answer of a tool offered only on negotiated
// revisions when a read its answer needs failed (an upstream fault, a
// timeout, a refused query): a tool error that names what could not be
// read, never empty or partial data presented as complete. The original's
// sixteen tools keep the original's rule (a failed read reads as no rows).
type ReadFailedError struct {
	// What names what could not be read, in words ("the help requests").
	What string
}

func (e *ReadFailedError) Error() string {
	return "Pawtograder could not read " + e.What + " just now, so no answer is given: nothing was inferred from what could be read. Try again in a moment."
}

// readFailures records the first failed read of a call; the reads of one
// call run concurrently.
type readFailures struct {
	mu    sync.Mutex
	table string
	any   bool
}

// note records err's read as failed, unless it is an argument that matches
// nothing: a value PostgreSQL cannot take for the column (a malformed id,
// class 22) is no rows, as the tool's description promises.
func (f *readFailures) note(err error) {
	var pe *postgrest.Error
	isPG := errors.As(err, &pe)
	if isPG && !pe.Unreachable() && strings.HasPrefix(pe.Code, "22") {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.any {
		return
	}
	f.any = true
	if isPG {
		f.table = pe.Table
	}
}

// failure is the call's ReadFailedError, or nil when every read succeeded.
func (f *readFailures) failure() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.any {
		return nil
	}
	return &ReadFailedError{What: readWhat(f.table)}
}

// tableWords name the tables the staff tools read, as a person would.
var tableWords = map[string]string{
	"assignments":                    "the assignments",
	"assignment_groups_members":      "the student's groups",
	"discussion_threads":             "the discussion posts",
	"grader_results":                 "the autograder results",
	"help_queues":                    "the help queues",
	"help_requests":                  "the help requests",
	"help_request_students":          "the help requests",
	"profiles":                       "the people's profiles",
	"review_assignments":             "the grading assignments",
	"rubrics":                        "the rubric",
	"rubric_parts":                   "the rubric",
	"rubric_criteria":                "the rubric",
	"rubric_checks":                  "the rubric",
	"submission_regrade_requests":    "the regrade requests",
	"submission_reviews":             "the reviews",
	"submissions":                    "the submissions",
	"submission_files":               "the submissions' files",
	"user_roles":                     "the class's members",
	"assignment_due_date_exceptions": "the due date exceptions",
	"rpc/mcp_student_overview":       "the student's activity",
	"rpc/mcp_rubric":                 "the rubric",
	"rpc/mcp_list_regrade_requests":  "the regrade requests",
	"rpc/mcp_help_queue_overview":    "the help queues",
	"rpc/mcp_grading_progress":       "the grading progress",
	"rpc/mcp_search_submissions":     "the submissions",
	"rpc/mcp_regrade_request":        "the regrade request",
}

func readWhat(table string) string {
	if w, ok := tableWords[table]; ok {
		return w
	}
	return "part of the course's data"
}
