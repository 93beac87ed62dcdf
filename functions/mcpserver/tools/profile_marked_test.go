package tools

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/approval"
	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/userclient"
)

// TestStudentsOwnNameMarkedOnTheApprovalPage: a student renames their own
// profiles, as Pawtograder's policy lets them, to hide a right-to-left
// override and a zero width space; a grader's proposal shows the name in
// the conversation's headings, and the approval page marks both there and
// counts them in its warning with every other hidden character.
func TestStudentsOwnNameMarkedOnTheApprovalPage(t *testing.T) {
	env := testEnv(t)
	env.RequireDatabase(t)
	ctx := context.Background()
	const renamed = "Sam\u202eevil\u200b"
	db := env.DB(t)
	var names [2]string
	for i, id := range []string{privID(1, 3), pubID(1, 3)} {
		if err := db.QueryRow(ctx, `SELECT name FROM public.profiles WHERE id = $1`, id).Scan(&names[i]); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if _, err := db.Exec(context.Background(), `UPDATE public.profiles SET name = $2 WHERE id = $1`, id, names[i]); err != nil {
				t.Errorf("restoring the seed: %v", err)
			}
		})
		sam := env.UserClient(t, userSam)
		raw, err := sam.From("profiles").Eq("id", id).Update(ctx, map[string]any{"name": renamed}, postgrest.ReturnRows)
		if err != nil || !strings.Contains(string(raw), id) {
			t.Fatalf("the student renaming their profile %s: %s %v", id, raw, err)
		}
	}
	srv, svc := approvalPages(t)
	v, err := callWrite(t, New(Options{Approvals: svc}), userAlice, "comment_on_regrade_request",
		`{"class_id":1,"regrade_request_id":1,"message":"Looking at it."}`)
	if err != nil {
		t.Fatal(err)
	}
	p := v.(*Proposed)
	link, _ := p.Value.String("approval_url")
	id, _ := p.Value.String("action_id")
	var preview approval.Preview
	if err := db.QueryRow(ctx, `SELECT preview FROM public.mcp_pending_actions WHERE id = $1`, id).Scan(&preview); err != nil {
		t.Fatal(err)
	}
	want, headings := 0, 0
	for _, s := range []string{preview.Action, preview.As, preview.Where, preview.Visibility} {
		want += hiddentext.Count(s)
	}
	for _, f := range preview.Fields {
		want += hiddentext.Count(f.Label) + hiddentext.Count(f.Text)
		if strings.HasPrefix(f.Label, renamed) {
			headings++
		}
	}
	if headings == 0 {
		t.Fatalf("no heading names the renamed student: %+v", preview.Fields)
	}
	page := signInAndOpen(t, srv, env.AuthURL, link, userAlice)
	marked := regexp.MustCompile(`<h2>Sam<span class="mark"[^>]*>U&#43;202E</span>evil<span class="mark"[^>]*>U&#43;200B</span> \(student\)`)
	if got := len(marked.FindAllString(page, -1)); got != headings {
		t.Errorf("%d headings show the name with both markers, want %d:\n%s", got, headings, page)
	}
	m := regexp.MustCompile(`This preview contains (\d+) invisible`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no warning on the page:\n%s", page)
	}
	if got, _ := strconv.Atoi(m[1]); got != want {
		t.Errorf("the warning counts %d hidden characters, the page's texts hold %d", got, want)
	}
	if n := strings.Count(page, `<span class="mark"`); n != want+1 { // and the warning's own example
		t.Errorf("%d markers on the page, want %d", n, want+1)
	}
}

// approvalPages serves the approval pages of a service over the test
// database, as the gateway mounts them.
func approvalPages(t *testing.T) (*httptest.Server, *approval.Service) {
	env := testEnv(t)
	e := echo.New()
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	users := userclient.NewFactory(userclient.Options{RestURL: env.RestURL, AnonKey: env.AnonKey, SigningJWK: env.SigningJWK})
	svc, err := approval.New(approval.Options{BaseURL: srv.URL + "/functions/v1/mcp-server",
		Store: approval.NewPostgRESTStore(env.ServiceREST(t)),
		Approver: func(ctx context.Context, userID, actionID string) (approval.RPC, error) {
			return users.ForApproval(ctx, userID, actionID)
		},
		Secrets: []string{"a-tools-test-secret-of-32-bytes-or-more"}, AuthURL: env.AuthURL, AnonKey: env.AnonKey})
	if err != nil {
		t.Fatal(err)
	}
	svc.Register(e.Group("/functions/v1/mcp-server"))
	return srv, svc
}

var signInState = regexp.MustCompile(`name="state" value="([^"]+)"`)

// signInAndOpen opens link in a new browser, signs in as userID on the
// stand-in provider's page and returns the page it lands on.
func signInAndOpen(t *testing.T, _ *httptest.Server, authURL, link, userID string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &http.Client{Jar: jar}
	body := func(resp *http.Response, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return string(raw)
	}
	m := signInState.FindStringSubmatch(body(b.Get(link)))
	if m == nil {
		t.Fatal("no stand-in sign-in page")
	}
	return body(b.PostForm(authURL+"/callback", url.Values{"state": {m[1]}, "user_id": {userID}}))
}
