package tools

// What the regrade request write tools read of their request: the request
// as the caller sees it, where it is, its score and its conversation, each
// comment marked as a student's or staff's.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// maxRegradeComments bounds the conversation a preview shows: its newest
// comments.
const maxRegradeComments = 10

// regradeTargetColumns is what a proposal reads of the request.
const regradeTargetColumns = "id, status, submission_id, initial_points, resolved_points, closed_points," +
	" rubric_checks!submission_regrade_requests_rubric_check_id_fkey(name, points)," +
	" assignments!submission_regrade_requests_assignment_id_fkey(title)," +
	" profiles!submission_regrade_requests_submitted_by_fkey(name)"

// regradeTarget reads the regrade request's columns as the caller.
func regradeTarget(ctx context.Context, c *Call, columns string, classID, requestID int64) (*jsjson.Object, error) {
	return classRow(ctx, c, "submission_regrade_requests", columns, "Regrade request", classID, requestID)
}

// regradeWhere names a regrade request as a grader knows it: the student,
// the assignment, the rubric check with its points, its status and the
// score as it stands.
func regradeWhere(rr *jsjson.Object, requestID int64, course string) string {
	who := "a student"
	if n, ok := embeddedName(rr).(string); ok && n != "" {
		who = n
	}
	assignment := "an assignment"
	if a, _ := rr.Object("assignments"); a != nil {
		if t, ok := a.String("title"); ok && t != "" {
			assignment = fmt.Sprintf("%q", t)
		}
	}
	check := "no rubric check"
	if rc, _ := rr.Object("rubric_checks"); rc != nil {
		name, _ := rc.String("name")
		check = fmt.Sprintf("rubric check %q (%s points)", name, jsjson.String(rc.Value("points")))
	}
	status, _ := rr.String("status")
	return fmt.Sprintf("Regrade request #%d from %s on %s (submission #%s), about %s, in %s; it is %s, score %s",
		requestID, who, assignment, jsjson.String(rr.Value("submission_id")), check, course, status, regradeScore(rr))
}

// regradeScore is the disputed check's points as the request records them:
// as graded, and as resolved and closed where it was.
func regradeScore(rr *jsjson.Object) string {
	parts := []string{pointsText(rr.Value("initial_points")) + " as graded"}
	if v := rr.Value("resolved_points"); v != nil {
		parts = append(parts, pointsText(v)+" as resolved")
	}
	if v := rr.Value("closed_points"); v != nil {
		parts = append(parts, pointsText(v)+" as closed")
	}
	return strings.Join(parts, ", ")
}

func pointsText(v any) string {
	if v == nil {
		return "no points"
	}
	return jsjson.String(v) + " points"
}

// regradeConversation is the request's newest comments, oldest first,
// each one whose author is not staff of the class marked as written by a
// student (an author the caller cannot place is marked too).
func regradeConversation(ctx context.Context, c *Call, classID, requestID int64) ([]approval.PreviewField, error) {
	raw, err := c.DB.From("submission_regrade_request_comments").
		Select("id, created_at, author, comment, profiles!submission_regrade_request_comments_author_fkey(name)").
		Eq("submission_regrade_request_id", writeIDString(requestID)).
		Eq("class_id", writeIDString(classID)).
		Order("created_at", false).Order("id", false).
		Limit(maxRegradeComments).
		Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok {
		return nil, errReadFailed
	}
	staff, err := staffProfiles(ctx, c, classID, rows)
	if err != nil {
		return nil, err
	}
	fields := make([]approval.PreviewField, 0, len(rows)+1)
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		author, _ := r.String("author")
		name, _ := embeddedName(r).(string)
		if name == "" {
			name = "someone"
		}
		role := "student"
		if staff[author] {
			role = "staff"
		}
		when := ""
		if s, ok := r.String("created_at"); ok {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				when = ", " + t.UTC().Format("2 Jan 2006 15:04 UTC")
			}
		}
		text, _ := r.String("comment")
		fields = append(fields, approval.PreviewField{Label: fmt.Sprintf("%s (%s)%s", name, role, when), Text: excerpt(text, 1000), StudentAuthored: !staff[author]})
	}
	if len(fields) == 0 {
		fields = append(fields, approval.PreviewField{Label: "The conversation", Text: "No comments yet."})
	}
	return fields, nil
}

// staffProfiles is the set of the comment authors that are instructors'
// or graders' profiles (private or public) in the class.
func staffProfiles(ctx context.Context, c *Call, classID int64, comments []*jsjson.Object) (map[string]bool, error) {
	var authors []string
	for _, r := range comments {
		if a, ok := r.String("author"); ok && !contains(authors, a) {
			authors = append(authors, a)
		}
	}
	staff := map[string]bool{}
	if len(authors) == 0 {
		return staff, nil
	}
	list := strings.Join(authors, ",")
	raw, err := c.DB.From("user_roles").
		Select("private_profile_id, public_profile_id").
		Eq("class_id", writeIDString(classID)).
		In("role", []string{"instructor", "grader"}).
		Or("private_profile_id.in.(" + list + "),public_profile_id.in.(" + list + ")").
		Rows(ctx)
	rows, ok := c.pgRows(ctx, raw, err)
	if !ok {
		return nil, errReadFailed
	}
	for _, r := range rows {
		for _, col := range []string{"private_profile_id", "public_profile_id"} {
			if id, ok := r.String(col); ok {
				staff[id] = true
			}
		}
	}
	return staff, nil
}
