package mcpserver

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/views"
)

// TestViewsIndependentOfRequest reads every view (all six, pinned below)
// through resources/read for two users with different tokens, request ids,
// JSON-RPC ids and revisions, and at 2026-07-28: the contents are the same
// bytes each time, and no identifier of the caller or the request, no UUID,
// no seeded person's name and no seeded course text the view tools return
// (queue names, assignment titles, a help request's question) is in a view.
func TestViewsIndependentOfRequest(t *testing.T) {
	env := newTestEnv(t, nil)
	// contents returns the resources/read result's contents, as sent.
	contents := func(t *testing.T, h map[string]string, body string) string {
		t.Helper()
		rec := env.do(http.MethodPost, "", h, body)
		var read struct {
			Result struct {
				Contents json.RawMessage `json:"contents"`
			} `json:"result"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &read); err != nil || rec.Code != http.StatusOK || len(read.Result.Contents) == 0 {
			t.Fatalf("resources/read: %d %s (%v)", rec.Code, rec.Body, err)
		}
		return string(read.Result.Contents)
	}
	requestValues := []string{"user-a", "user-b", "token-a", "token-e", "req-view-1", "req-view-2", "req-view-3", "view-b"}
	uuid := regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// The seeded personas (supabase/fixtures/SEED.md) and their pseudonyms.
	names := regexp.MustCompile(`\b(Alice|Gary|Sam|Sofia|Dale|Bea|Ben|Tara|Nora|Purple Penguin|Green Gecko|Sleepy Sloth|Busy Beaver|Wise Owl)\b`)
	// What get_help_queue_overview and get_grading_progress (and the
	// get_assignment call the grading view makes) return for the seed.
	courseText := regexp.MustCompile(`office-hours|exam-review|Hello World|Linked Lists|NullPointerException|tutors`)
	var covered []string
	for _, v := range views.All() {
		covered = append(covered, v.URI)
		t.Run(v.Name, func(t *testing.T) {
			params := `"uri":"` + v.URI + `"`
			a := contents(t, hdr("Authorization", authGood, "X-Request-Id", "req-view-1", headerProtocolVersion, "2025-06-18"),
				`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{`+params+`}}`)
			b := contents(t, hdr("Authorization", authUserB, "X-Request-Id", "req-view-2", headerProtocolVersion, "2025-11-25"),
				`{"jsonrpc":"2.0","id":"view-b","method":"resources/read","params":{`+params+`}}`)
			modern := strings.Replace(modernReq("9", methodResourcesRead, ","+params), `clientCapabilities":{}`, `clientCapabilities":`+capsApps, 1)
			c := contents(t, modernHdr(methodResourcesRead, "Authorization", authUserB, "X-Request-Id", "req-view-3", "Mcp-Name", v.URI), modern)
			if a != b || a != c {
				t.Errorf("contents differ between requests:\n user a, 2025-06-18: %.200s…\n user b, 2025-11-25: %.200s…\n user b, 2026-07-28: %.200s…", a, b, c)
			}
			var got []struct{ Text string }
			if err := json.Unmarshal([]byte(a), &got); err != nil || len(got) != 1 || got[0].Text != v.HTML {
				t.Fatalf("contents are not the view's document (%v)", err)
			}
			for _, s := range requestValues {
				if strings.Contains(a, s) {
					t.Errorf("contents hold the request's %q", s)
				}
			}
			if m := uuid.FindString(a); m != "" {
				t.Errorf("contents hold the UUID %s", m)
			}
			if m := names.FindString(a); m != "" {
				t.Errorf("contents hold the seeded name %q", m)
			}
			if m := courseText.FindString(a); m != "" {
				t.Errorf("contents hold the seeded course text %q", m)
			}
		})
	}
	want := []string{
		"ui://pawtograder/submission-review", "ui://pawtograder/help-request", "ui://pawtograder/assignment",
		"ui://pawtograder/help-queues", "ui://pawtograder/grading-progress", "ui://pawtograder/regrade-request",
	}
	if diff := cmp.Diff(want, covered); diff != "" {
		t.Errorf("views read (-want +got):\n%s", diff)
	}
}
