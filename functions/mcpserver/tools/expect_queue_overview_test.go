package tools

import (
	"fmt"
	"strings"
	"testing"
)

// sqlQueueOverview is get_help_queue_overview's answer for class $2 at
// time $1 as the superuser: queues by ordinal then id; their open and
// in-progress requests oldest first, with the assignee as a public profile
// (docs/contract/tools.md §1.2) and the linked submission's assignment.
const sqlQueueOverview = `SELECT json_build_object('class_id', $2::bigint, 'truncated', false, 'queues', coalesce((
  SELECT json_agg(json_build_object('id', q.id, 'name', q.name, 'description', q.description, 'queue_type', q.queue_type, 'available', q.available,
    'open', (SELECT count(*) FROM public.help_requests r WHERE r.help_queue = q.id AND r.status = 'open'),
    'in_progress', (SELECT count(*) FROM public.help_requests r WHERE r.help_queue = q.id AND r.status = 'in_progress'),
    'students_waiting', (SELECT count(DISTINCT s.profile_id) FROM public.help_requests r JOIN public.help_request_students s ON s.help_request_id = r.id
                          WHERE r.help_queue = q.id AND r.status = 'open'),
    'requests', coalesce((SELECT json_agg(json_build_object('id', r.id, 'status', r.status, 'request', r.request, 'is_private', r.is_private,
        'created_at', r.created_at, 'age_seconds', floor(extract(epoch FROM $1::timestamptz - r.created_at)),
        'assignee_profile_id', ASSIGNEEID, 'assignee_name', ASSIGNEENAME,
        'assignee_is_caller', EXISTS (SELECT 1 FROM public.user_roles me WHERE me.class_id = r.class_id AND me.user_id = $3
                                      AND r.assignee IN (me.private_profile_id, me.public_profile_id)),
        'assignment', (SELECT json_build_object('id', a.id, 'title', a.title) FROM public.submissions s JOIN public.assignments a ON a.id = s.assignment_id
                        WHERE s.id = r.referenced_submission_id),
        'students', (SELECT count(*) FROM public.help_request_students s WHERE s.help_request_id = r.id))
      ORDER BY r.created_at, r.id) FROM public.help_requests r WHERE r.help_queue = q.id AND r.status IN ('open', 'in_progress')), '[]'))
    ORDER BY q.ordinal, q.id)
  FROM public.help_queues q WHERE q.class_id = $2), '[]'))`

func TestExpectGetHelpQueueOverview(t *testing.T) {
	q := strings.NewReplacer("ASSIGNEEID", publicID("r.assignee", "r.class_id"), "ASSIGNEENAME", publicName("r.assignee", "r.class_id")).Replace(sqlQueueOverview)
	t.Run("staff view as SQL builds it", func(t *testing.T) {
		for _, c := range []struct {
			user  string
			class int
		}{{userAlice, 1}, {userGary, 1}, {userBea, 2}} {
			want := seedJSON(t, q, gradingNow, c.class, c.user)
			got := toolJSON(t, gradingRegistry(), c.user, "get_help_queue_overview", fmt.Sprintf(`{"class_id":%d}`, c.class))
			expectEqual(t, fmt.Sprintf("class %d as %s", c.class, c.user), want, got)
		}
	})
	// SEED.md: queue 1 holds open requests 1 (Sam) and 5 (Tara and Sam,
	// private) and 2 in progress (Sofia, assignee Gary); queue 2 has only
	// a resolved request.
	queueOf := func(v any, id float64) any {
		for _, q := range field(v, "queues").([]any) {
			if field(q, "id") == id {
				return q
			}
		}
		return nil
	}
	t.Run("queue 1 by hand", func(t *testing.T) {
		got := queueOf(toolJSON(t, gradingRegistry(), userAlice, "get_help_queue_overview", `{"class_id":1}`), 1)
		expectEqual(t, "counts", map[string]any{"open": 2.0, "in_progress": 1.0, "students_waiting": 2.0}, pick(got, "open", "in_progress", "students_waiting"))
		expectEqual(t, "request ids", nums(1, 2, 5), pluck(field(got, "requests"), "id"))
		expectEqual(t, "assignees", []any{nil, "Busy Beaver", nil}, pluck(field(got, "requests"), "assignee_name"))
		expectEqual(t, "Alice is no assignee", []any{false, false, false}, pluck(field(got, "requests"), "assignee_is_caller"))
		gary := queueOf(toolJSON(t, gradingRegistry(), userGary, "get_help_queue_overview", `{"class_id":1}`), 1)
		expectEqual(t, "Gary is request 2's assignee", []any{false, true, false}, pluck(field(gary, "requests"), "assignee_is_caller"))
		expectEqual(t, "students", nums(1, 1, 2), pluck(field(got, "requests"), "students"))
		expectEqual(t, "age of request 1", float64(gradingNow.Unix()-1768564800), field(field(got, "requests").([]any)[0], "age_seconds"))
	})
	t.Run("one queue and the limit", func(t *testing.T) {
		got := toolJSON(t, gradingRegistry(), userAlice, "get_help_queue_overview", `{"class_id":1,"help_queue_id":1,"limit":1}`)
		expectEqual(t, "queues", nums(1), pluck(field(got, "queues"), "id"))
		q := field(got, "queues").([]any)[0]
		expectEqual(t, "listed", nums(1), pluck(field(q, "requests"), "id"))
		expectEqual(t, "counts cover every request", 2.0, field(q, "open"))
	})
	t.Run("what a student sees", func(t *testing.T) {
		// Sofia sees requests 1 and 2 of the open ones, not Tara's private 5.
		got := queueOf(toolJSON(t, gradingRegistry(), userSofia, "get_help_queue_overview", `{"class_id":1}`), 1)
		expectEqual(t, "request ids", nums(1, 2), pluck(field(got, "requests"), "id"))
	})
	t.Run("nothing of another class", func(t *testing.T) {
		for _, c := range []struct{ user, args string }{
			{userGary, `{"class_id":2}`},
			{userAlice, `{"class_id":2}`},
			{userAlice, `{"class_id":1,"help_queue_id":3}`}, // class B's queue under class A's id
			{userNora, `{"class_id":1}`},
		} {
			got := toolJSON(t, gradingRegistry(), c.user, "get_help_queue_overview", c.args)
			expectEqual(t, c.args+" as "+c.user, []any{}, field(got, "queues"))
		}
	})
}
