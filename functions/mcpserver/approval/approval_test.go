package approval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

var stack gatewaytest.Lazy

func TestMain(m *testing.M) { gatewaytest.MainLazy(m, &stack) }

const secret = "an-approval-test-secret-of-32-bytes-or-more"

// harness is a Service over the test stack, served at
// <srv>/functions/v1/mcp-server, with a clock the test can move.
type harness struct {
	env    *gatewaytest.Env
	svc    *Service
	srv    *httptest.Server
	offset atomic.Int64 // added to time.Now, in nanoseconds
	audit  *auditBuffer
	// written is where the proposals' text lands: a help request message
	// (proposeReply) unless a test proposes another tool's write.
	written writtenText
}

// writtenText names the table and text column an approved write fills.
// writtenText is where an approved write's marker text lands: table and
// column, and rowID, the column holding the id the approval records for
// it ("" for the row's own id).
type writtenText struct{ table, column, rowID string }

var helpMessages = writtenText{table: "help_request_messages", column: "message"}

// harnessOptions change a harness: the REST API it reaches (a fault
// proxy), and the service's limits.
type harnessOptions struct {
	restURL      string
	ttl          time.Duration
	maxPending   int
	writeTimeout time.Duration
	// callbacksPerMinute, clientAddress and authClient set the Options
	// of the same names (authClient: HTTPClient).
	callbacksPerMinute int
	clientAddress      func(*http.Request) string
	authClient         *http.Client
}

func newHarness(t *testing.T) *harness { return newHarnessWith(t, harnessOptions{}) }

func newHarnessWith(t *testing.T, ho harnessOptions) *harness {
	t.Helper()
	env := stack.Env(t)
	env.RequireDatabase(t)
	h := &harness{env: env, audit: &auditBuffer{}, written: helpMessages}
	restURL := env.RestURL
	if ho.restURL != "" {
		restURL = ho.restURL
	}
	service, err := postgrest.New(postgrest.Options{BaseURL: restURL, APIKey: env.ServiceRoleKey})
	if err != nil {
		t.Fatal(err)
	}
	users := userclient.NewFactory(userclient.Options{RestURL: restURL, AnonKey: env.AnonKey, SigningJWK: env.SigningJWK})
	e := echo.New()
	g := e.Group("/functions/v1/mcp-server")
	h.srv = httptest.NewServer(e)
	t.Cleanup(h.srv.Close)
	h.svc, err = New(Options{
		BaseURL: h.srv.URL + "/functions/v1/mcp-server",
		Store:   NewPostgRESTStore(service.WithBearer(env.ServiceRoleKey)),
		Approver: func(ctx context.Context, userID, actionID string) (RPC, error) {
			return users.ForApproval(ctx, userID, actionID)
		},
		TTL:                ho.ttl,
		MaxPending:         ho.maxPending,
		WriteTimeout:       ho.writeTimeout,
		CallbacksPerMinute: ho.callbacksPerMinute,
		ClientAddress:      ho.clientAddress,
		HTTPClient:         ho.authClient,
		Secrets:            []string{secret},
		AuthURL:            env.AuthURL,
		AnonKey:            env.AnonKey,
		Providers:          []string{"github"},
		Now:                func() time.Time { return time.Now().Add(time.Duration(h.offset.Load())) },
		Audit:              newAuditLogger(h.audit),
	})
	if err != nil {
		t.Fatal(err)
	}
	h.svc.Register(g)
	return h
}

// studentText is the student's request in proposeReply's preview: it
// hides a right-to-left override, a zero width space, the Hangul fillers,
// a braille blank, a combining grapheme joiner, a Khmer inherent vowel and
// the line and paragraph separators, each of which the review page must
// show as a red marker.
const studentText = "help\u202eme\u200b \u115f\u3164\u2800\u034f\u17b4 now\u2028please\u2029"

// proposeReply proposes Alice's message marker in help request 1. The
// message, if approved, is deleted after the test: on the real-schema
// route every package shares one database, and other packages' goldens
// read request 1.
func (h *harness) proposeReply(t *testing.T, marker, tokenID string) *ActionState {
	t.Helper()
	t.Cleanup(func() {
		if _, err := h.env.DB(t).Exec(context.Background(), `DELETE FROM public.help_request_messages WHERE message = $1`, marker); err != nil {
			t.Errorf("removing the test's message: %v", err)
		}
	})
	st, err := h.svc.Propose(context.Background(), Proposal{
		UserID: gatewaytest.Alice, TokenID: tokenID,
		ClassID: 1, Tool: "reply_to_help_request",
		Arguments: []byte(`{"class_id":1}`), Digest: digestOf(marker),
		Preview: Preview{Action: "Post a message", As: "Alice", Where: "Help request #1", Visibility: "class",
			Fields:  []PreviewField{{Label: "The student's request", Text: studentText, StudentAuthored: true}, {Label: "Your message", Text: marker}},
			Written: "message",
			Write: WritePlan{Values: map[string]any{
				"help_request_id": 1, "class_id": 1, "author": "20000001-0000-4000-8000-000000000001",
				"message": marker, "instructors_only": false, "reply_to_message_id": nil}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// messages counts the rows holding text in h.written (help request
// messages unless the test proposes another write).
func (h *harness) messages(t *testing.T, text string) int {
	t.Helper()
	var n int
	q := fmt.Sprintf(`SELECT count(*) FROM public.%s WHERE %s = $1`, h.written.table, h.written.column)
	if err := h.env.DB(t).QueryRow(context.Background(), q, text).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// browser is an HTTP client with cookies that follows redirects, as a
// person's browser would.
func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 20 * time.Second}
}

func get(t *testing.T, b *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := b.Get(u)
	return read(t, resp, err)
}

func post(t *testing.T, b *http.Client, u string, form url.Values) (int, string) {
	t.Helper()
	resp, err := b.PostForm(u, form)
	return read(t, resp, err)
}

func read(t *testing.T, resp *http.Response, err error) (int, string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var stateParam = regexp.MustCompile(`name="state" value="([^"]+)"`)

// signIn opens link and signs in as userID on the stand-in provider's
// page, returning the page the browser lands on.
func signIn(t *testing.T, b *http.Client, env *gatewaytest.Env, link, userID string) (int, string) {
	t.Helper()
	_, page := get(t, b, link)
	m := stateParam.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no stand-in sign-in page; got:\n%s", page)
	}
	return post(t, b, env.AuthURL+"/callback", url.Values{"state": {m[1]}, "user_id": {userID}})
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func decide(t *testing.T, b *http.Client, link, page, decision string) (int, string) {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no approval form; got:\n%s", page)
	}
	return post(t, b, link, url.Values{"csrf_token": {m[1]}, "decision": {decision}})
}

func title(page string) string {
	m := regexp.MustCompile(`<h1>([^<]*)</h1>`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

func TestApproveWritesOnce(t *testing.T) {
	h := newHarness(t)
	marker := fmt.Sprintf("approved reply %d", time.Now().UnixNano())
	st := h.proposeReply(t, marker, "")
	b := browser(t)
	status, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
	if status != http.StatusOK || title(page) != "Review a change proposed by your assistant" {
		t.Fatalf("review page: %d %q", status, title(page))
	}
	if !strings.Contains(page, `>U+202E</span>`) {
		t.Errorf("the invisible U+202E in the student's text has no marker")
	}
	student := regexp.MustCompile(`<div class="text student">(.*?)</div>`).FindStringSubmatch(page)
	if student == nil {
		t.Fatalf("no student-authored field on the page:\n%s", page)
	}
	marks := map[string]bool{}
	for _, m := range regexp.MustCompile(`<span class="mark"[^>]*>([^<]*)</span>`).FindAllStringSubmatch(student[1], -1) {
		marks[html.UnescapeString(m[1])] = true
	}
	for _, mark := range []string{"U+202E", "U+200B", "U+115F", "U+3164", "U+2800", "U+034F", "U+17B4", "U+2028", "U+2029"} {
		if !marks[mark] {
			t.Errorf("the hidden %s in the student's text has no red marker: %s", mark, student[1])
		}
	}
	if !strings.Contains(page, "This preview contains 9 invisible") {
		t.Errorf("the warning does not count the 9 hidden characters")
	}
	status, done := decide(t, b, st.ApprovalURL, page, "approve")
	if got, want := fmt.Sprint(status, " ", title(done)), "200 Approved and written"; got != want {
		t.Fatalf("approve: got %q, want %q", got, want)
	}
	if n := h.messages(t, marker); n != 1 {
		t.Fatalf("%d messages written, want 1", n)
	}
	// The same form posted again, and the link opened again: nothing more.
	_, again := decide(t, b, st.ApprovalURL, page, "approve")
	if got := title(again); got != "Already approved" {
		t.Errorf("second post: %q, want Already approved", got)
	}
	_, reopened := signIn(t, browser(t), h.env, st.ApprovalURL, gatewaytest.Alice)
	if got := title(reopened); got != "Already approved" {
		t.Errorf("reopened link: %q, want Already approved", got)
	}
	if n := h.messages(t, marker); n != 1 {
		t.Fatalf("%d messages after the replays, want 1", n)
	}
	got, err := h.svc.State(context.Background(), gatewaytest.Alice, st.ActionID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != StateApproved || got.RowID == "" {
		t.Errorf("state after approval: %+v", got)
	}
	if want := ": done (message #" + got.RowID + ")."; !containsText(done, want) {
		t.Errorf("the approved page does not say %q:\n%s", want, done)
	}
	for _, ev := range []string{`"event":"proposed"`, `"event":"approved"`, `"event":"written"`} {
		if !strings.Contains(h.audit.String(), ev) {
			t.Errorf("audit log lacks %s:\n%s", ev, h.audit.String())
		}
	}
	if strings.Contains(h.audit.String(), marker) {
		t.Errorf("the audit log holds the message text")
	}
}

func TestNothingWrittenWithoutTheOwnersApproval(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name      string
		as        string // who signs in
		expire    bool   // move the clock past the expiry first
		decision  string // "" when the page has no form
		wantTitle string
		wantState string
	}{
		{name: "another staff member", as: gatewaytest.Gary, wantTitle: "This approval is not yours", wantState: StatePending},
		{name: "a student", as: gatewaytest.Sam, wantTitle: "This approval is not yours", wantState: StatePending},
		{name: "staff of another class", as: gatewaytest.Bea, wantTitle: "This approval is not yours", wantState: StatePending},
		{name: "after expiry", as: gatewaytest.Alice, expire: true, wantTitle: "This link has expired", wantState: StateExpired},
		{name: "reject", as: gatewaytest.Alice, decision: "reject", wantTitle: "Rejected", wantState: StateRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.offset.Store(0)
			marker := fmt.Sprintf("unapproved %s %d", tt.name, time.Now().UnixNano())
			st := h.proposeReply(t, marker, "")
			if tt.expire {
				h.offset.Store(int64(DefaultTTL + time.Minute))
			}
			b := browser(t)
			_, page := signIn(t, b, h.env, st.ApprovalURL, tt.as)
			if tt.decision != "" {
				_, page = decide(t, b, st.ApprovalURL, page, tt.decision)
			}
			if got := title(page); got != tt.wantTitle {
				t.Errorf("page %q, want %q", got, tt.wantTitle)
			}
			if n := h.messages(t, marker); n != 0 {
				t.Errorf("%d messages written, want 0", n)
			}
			got, err := h.svc.State(context.Background(), gatewaytest.Alice, st.ActionID)
			if err != nil {
				t.Fatal(err)
			}
			if got.State != tt.wantState {
				t.Errorf("state %q, want %q", got.State, tt.wantState)
			}
		})
	}
}

func TestForgedDecisionRefused(t *testing.T) {
	h := newHarness(t)
	marker := fmt.Sprintf("forged %d", time.Now().UnixNano())
	st := h.proposeReply(t, marker, "")
	b := browser(t)
	_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
	forged := csrfField.ReplaceAllString(page, `name="csrf_token" value="`+h.svc.csrfToken(st.ActionID, gatewaytest.Gary)+`"`)
	status, out := decide(t, b, st.ApprovalURL, forged, "approve")
	if got, want := fmt.Sprint(status, " ", title(out)), "403 This request was not sent from the approval page"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	status, out = post(t, browser(t), st.ApprovalURL, url.Values{"decision": {"approve"}})
	if got, want := fmt.Sprint(status, " ", title(out)), "403 Sign in first"; got != want {
		t.Errorf("without a session: got %q, want %q", got, want)
	}
	if n := h.messages(t, marker); n != 0 {
		t.Errorf("%d messages written, want 0", n)
	}
}

func TestRevokedTokenFailsTheApproval(t *testing.T) {
	h := newHarness(t)
	tokenID := fmt.Sprintf("approval-test-%d", time.Now().UnixNano())
	if _, err := h.env.DB(t).Exec(context.Background(), `INSERT INTO public.revoked_token_ids (token_id) VALUES ($1)`, tokenID); err != nil {
		t.Fatal(err)
	}
	marker := fmt.Sprintf("revoked %d", time.Now().UnixNano())
	st := h.proposeReply(t, marker, tokenID)
	b := browser(t)
	_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
	status, out := decide(t, b, st.ApprovalURL, page, "approve")
	if got, want := fmt.Sprint(status, " ", title(out)), "403 The assistant's access was revoked"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got, err := h.svc.State(context.Background(), gatewaytest.Alice, st.ActionID)
	if err != nil {
		t.Fatal(err)
	}
	if want := "The assistant's access was revoked after it proposed this, so nothing was written."; got.State != StateFailed || got.Failure != want {
		t.Errorf("state %q failure %q; want failed, %q", got.State, got.Failure, want)
	}
	if n := h.messages(t, marker); n != 0 {
		t.Errorf("%d messages written, want 0", n)
	}
}

func TestPageHeaders(t *testing.T) {
	h := newHarness(t)
	st := h.proposeReply(t, "headers", "")
	b := browser(t)
	resp, err := b.Get(st.ApprovalURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, page := signIn(t, b, h.env, st.ApprovalURL, gatewaytest.Alice)
	if title(page) == "" {
		t.Fatal("no page")
	}
	resp, err = b.Get(st.ApprovalURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := map[string]string{}
	for _, k := range []string{"Cache-Control", "X-Frame-Options", "Referrer-Policy", "X-Content-Type-Options"} {
		got[k] = resp.Header.Get(k)
	}
	want := map[string]string{"Cache-Control": "no-store", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
}

func TestResume(t *testing.T) {
	h := newHarness(t)
	st := h.proposeReply(t, "resume", "")
	tests := []struct {
		name, user, tool, state string
		want                    string // state, or "refused"
	}{
		{"own", gatewaytest.Alice, "reply_to_help_request", st.RequestState, StatePending},
		{"another user", gatewaytest.Gary, "reply_to_help_request", st.RequestState, "refused"},
		{"another tool", gatewaytest.Alice, "set_help_request_status", st.RequestState, "refused"},
		{"tampered", gatewaytest.Alice, "reply_to_help_request", st.RequestState[:len(st.RequestState)-2] + "AA", "refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := h.svc.Resume(context.Background(), tt.user, tt.tool, tt.state)
			switch {
			case tt.want == "refused" && err != ErrNoAction:
				t.Errorf("got %+v, %v; want ErrNoAction", got, err)
			case tt.want != "refused" && (err != nil || got.State != tt.want):
				t.Errorf("got %+v, %v; want state %s", got, err, tt.want)
			}
		})
	}
}

// digestOf stands for the argument digest of a call whose text is marker:
// one digest per call, as the tools compute it, without the text itself.
func digestOf(marker string) string {
	sum := sha256.Sum256([]byte(marker))
	return hex.EncodeToString(sum[:])
}
