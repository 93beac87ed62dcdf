package approval

import (
	"fmt"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// TestSecondTabSaysWhatWasDecided: one browser, two tabs of the same
// signed-in approval page. Whatever the second tab sends after the first
// decided, its page says what was decided, and nothing more is written.
func TestSecondTabSaysWhatWasDecided(t *testing.T) {
	tests := []struct {
		first, second, want string
		written             int
	}{
		{"approve", "approve", "Already approved", 1},
		{"approve", "reject", "Already approved", 1},
		{"reject", "approve", "Rejected", 0},
		{"reject", "reject", "Rejected", 0},
	}
	for _, tt := range tests {
		t.Run(tt.first+" then "+tt.second, func(t *testing.T) {
			h := newHarness(t)
			marker := fmt.Sprintf("two tabs %s %s %d", tt.first, tt.second, time.Now().UnixNano())
			st := h.proposeReply(t, marker, "")
			b := browser(t)
			_, tab1 := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
			_, tab2 := get(t, b, st.ApprovalURL)
			if title(tab2) != "Review a change proposed by your assistant" {
				t.Fatalf("second tab: %q", title(tab2))
			}
			decide(t, b, st.ApprovalURL, tab1, tt.first)
			status, out := decide(t, b, st.ApprovalURL, tab2, tt.second)
			if got := title(out); status != 200 || got != tt.want {
				t.Errorf("second tab's %s: %d %q, want 200 %q:\n%s", tt.second, status, got, tt.want, out)
			}
			if n := h.messages(t, marker); n != tt.written {
				t.Errorf("%d messages, want %d", n, tt.written)
			}
		})
	}
}

var formAction = regexp.MustCompile(`<form method="post" action="([^"]+)"`)

// TestSignInsSideBySide: one browser opens two approval links, and both
// tabs go to the provider before either comes back. Each sign-in
// finishes on a review page, the two pages are the two actions, and each
// tab decides its own.
func TestSignInsSideBySide(t *testing.T) {
	h := newHarness(t)
	markers := []string{fmt.Sprintf("side by side A %d", time.Now().UnixNano()), fmt.Sprintf("side by side B %d", time.Now().UnixNano())}
	links := map[string]string{}
	b := browser(t)
	var states []string
	for _, m := range markers {
		st := h.proposeReply(t, m, "")
		links[st.ApprovalURL] = m
		_, page := get(t, b, st.ApprovalURL)
		s := stateParam.FindStringSubmatch(page)
		if s == nil {
			t.Fatalf("no sign-in page for %s", st.ApprovalURL)
		}
		states = append(states, s[1])
	}
	reviewed := map[string]string{}
	for i := len(states) - 1; i >= 0; i-- { // the later tab comes back first
		status, page := post(t, b, h.env.AuthURL+"/callback", url.Values{"state": {states[i]}, "user_id": {gatewaytest.Alice}})
		if status != 200 || title(page) != "Review a change proposed by your assistant" {
			t.Fatalf("sign-in %d: %d %q", i, status, title(page))
		}
		reviewed[formAction.FindStringSubmatch(page)[1]] = page
	}
	if len(reviewed) != 2 {
		t.Fatalf("the two sign-ins reviewed %d actions, want 2", len(reviewed))
	}
	for link, page := range reviewed {
		if _, out := decide(t, b, link, page, "approve"); title(out) != "Approved and written" {
			t.Errorf("approving %s: %q", link, title(out))
		}
		if n := h.messages(t, links[link]); n != 1 {
			t.Errorf("%d messages for %s, want 1", n, link)
		}
	}
}
