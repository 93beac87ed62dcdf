package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pawtograder/mcp-gateway/gateway/config"
	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
)

// runningGateway is a gateway the test stops itself, as a restart does:
// the listener closes once in-flight requests end, then the gateway's
// cleanup runs (which writes out the activity record's queue).
type runningGateway struct {
	base string
	stop func()
}

func serveGateway(t *testing.T, vars map[string]string) *runningGateway {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	all := map[string]string{
		"SUPABASE_URL": env.URL, "SUPABASE_ANON_KEY": env.AnonKey, "SUPABASE_SERVICE_ROLE_KEY": env.ServiceRoleKey,
		"MCP_JWT_SECRET": e2eSecret, "JWT_SECRET": env.SigningJWK, "GATEWAY_PUBLIC_URL": base, "EDGE_FUNCTIONS_URL": base,
	}
	for k, v := range env.GatewayVars() {
		all[k] = v
	}
	for k, v := range vars {
		all[k] = v
	}
	cfg, err := config.Load(func(k string) string { return all[k] })
	if err != nil {
		t.Fatal(err)
	}
	srv, _, cleanup, err := newServer(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Listener.Close()
	hs.Listener = ln
	hs.Start()
	var once sync.Once
	g := &runningGateway{base: base, stop: func() { once.Do(func() { hs.Close(); cleanup() }) }}
	t.Cleanup(g.stop)
	return g
}

// staffToken mints an mcp_ token (a connection) for user.
func staffToken(t *testing.T, user string) (bearer, tokenID string) {
	t.Helper()
	tokenID = uuid.NewString()
	tok, err := mcpauth.MintAPIToken(e2eSecret, user, []string{"mcp:read"}, tokenID, 1, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return "Bearer " + tok, tokenID
}

const searchHelp = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_help_requests","arguments":{"class_id":1}}}`

// recordedRows counts the record's rows of the given connections and how
// many of them name a student (in SQL: the REST API caps a read's rows).
func recordedRows(t *testing.T, tokenIDs []string) (rows, withStudents int) {
	t.Helper()
	err := env.DB(t).QueryRow(t.Context(), `SELECT count(*), count(*) FILTER (WHERE cardinality(student_profile_ids) > 0)
		FROM public.mcp_activity WHERE token_id = ANY($1)`, tokenIDs).Scan(&rows, &withStudents)
	if err != nil {
		t.Fatal(err)
	}
	return rows, withStudents
}

// TestActivityRecordLosesNothing: 50 connections call tools at once; every
// call is answered, and after the gateway stops every call is a row, with
// the students the answers held. A new gateway finds the rows and adds
// its own.
func TestActivityRecordLosesNothing(t *testing.T) {
	vars := oauthVars(map[string]string{"GATEWAY_ACTIVITY_RECORD": "on"})
	const conns, perConn = 50, 20
	bearers := make([]string, conns)
	ids := make([]string, conns)
	for i := range conns {
		bearers[i], ids[i] = staffToken(t, gatewaytest.Gary)
	}
	gw := serveGateway(t, vars)
	var wg sync.WaitGroup
	errs := make(chan string, conns*perConn)
	for i := range conns {
		wg.Go(func() {
			for range perConn {
				if r := call(t, "POST", gw.base+"/functions/v1/mcp-server", bearers[i], searchHelp); r.status != 200 || !strings.Contains(r.body, `"result"`) {
					errs <- fmt.Sprintf("%d %.200s", r.status, r.body)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatalf("a call failed: %s", e)
	}
	gw.stop()
	rows, withStudents := recordedRows(t, ids)
	if rows != conns*perConn {
		t.Fatalf("recorded %d rows for %d calls", rows, conns*perConn)
	}
	if withStudents != rows {
		t.Errorf("%d of %d rows name the students of class 1's help requests", withStudents, rows)
	}

	again := serveGateway(t, vars)
	for i := range 5 {
		if r := call(t, "POST", again.base+"/functions/v1/mcp-server", bearers[i], searchHelp); r.status != 200 {
			t.Fatalf("after the restart: %d %s", r.status, r.body)
		}
	}
	again.stop()
	if rows, _ := recordedRows(t, ids); rows != conns*perConn+5 {
		t.Fatalf("after the restart: %d rows, want %d", rows, conns*perConn+5)
	}
}

// createNamedToken creates an mcp_ token named name for session's user,
// as the web app does through mcp-tokens.
func createNamedToken(t *testing.T, gw, session, name string) string {
	t.Helper()
	r := call(t, "POST", gw+"/functions/v1/mcp-tokens", session, `{"name":"`+name+`","scopes":["mcp:read"]}`)
	var created struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(r.body), &created); r.status != http.StatusOK || err != nil {
		t.Fatalf("create token: %d %v %s", r.status, err, r.body)
	}
	return "Bearer " + created.Token
}

// callAt is call at a stated protocol revision.
func callAt(t *testing.T, url, auth, version, body string) answer {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", version)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

// waitForRows waits until the record holds at least n rows of user's
// connection named client.
func waitForRows(t *testing.T, user, client string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var got int
		if err := env.DB(t).QueryRow(t.Context(), `SELECT count(*) FROM public.mcp_activity WHERE user_id = $1 AND client_name = $2`, user, client).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the record holds %d rows of %q, want %d", got, client, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type activitySeen struct {
	Status            int
	CSP, CacheControl string
	Heading, Text     string
	ScrollWidth       int
}

// TestActivityAcceptance is issue 54 as a TA and an instructor try it: the
// TA's runaway loop is stopped with a readable message while her other
// connection works; she sees both on her Connections page and revokes the
// loop's, which is refused from then on; her instructor sees the calls on
// the class page, lists a student's reads and exports CSV; the TA and a
// student are refused the class page. Screenshots of both pages, light
// and dark, at 1280 and 375 pixels (-update-screenshots writes them to
// docs/images), none wider than the window.
func TestActivityAcceptance(t *testing.T) {
	requireStandIn(t)
	gw := startGateway(t, oauthVars(map[string]string{"GATEWAY_ACTIVITY_RECORD": "on", "GATEWAY_TOOL_CALLS_PER_MINUTE": "30"}))
	mcp := gw + "/functions/v1/mcp-server"
	session := "Bearer " + env.SessionToken(t, gatewaytest.Gary)
	suffix := uuid.NewString()[:8]
	loopName, deskName := "Agent loop "+suffix, "Claude Desktop "+suffix
	loop, desk := createNamedToken(t, gw, session, loopName), createNamedToken(t, gw, session, deskName)

	refused := runawayLoop(t, mcp, loop)
	const words = "Too many tool calls from this connection: at most 30 a minute. Nothing was run. Try again in "
	if !strings.Contains(refused.body, `"isError":true`) || !strings.Contains(refused.body, words) || refused.header.Get("Retry-After") == "" {
		t.Fatalf("the loop's refusal: %s Retry-After %q", refused.body, refused.header.Get("Retry-After"))
	}
	if r := call(t, "POST", mcp, loop, searchHelp); !strings.Contains(r.body, `"code":-32000,"message":"`+words) {
		t.Errorf("drop-in refusal: %s", r.body)
	}
	if r := callAt(t, mcp, desk, "2025-11-25", searchHelp); r.status != 200 || strings.Contains(r.body, "isError") {
		t.Fatalf("her other connection: %d %.300s", r.status, r.body)
	}
	waitForRows(t, gatewaytest.Gary, loopName, 31) // 30 calls and one refusal
	waitForRows(t, gatewaytest.Gary, deskName, 1)

	dir := screenshotDir(t)
	var ta struct {
		Seen, Revoked, After activitySeen
		Shots                map[string]int
	}
	activityNode(t, &ta, "connections", mcp+"/connections", "gary.grader@example.edu", loopName, dir)
	for _, want := range []string{loopName, deskName, "search_help_requests: 31", "Signed in as gary.grader@example.edu"} {
		if !strings.Contains(ta.Seen.Text, want) {
			t.Errorf("the Connections page does not show %q:\n%s", want, ta.Seen.Text)
		}
	}
	if ta.Revoked.Heading != "Connection revoked" || strings.Contains(ta.After.Text, loopName) || !strings.Contains(ta.After.Text, deskName) {
		t.Errorf("revoking: %+v\nafter:\n%s", ta.Revoked, ta.After.Text)
	}
	if r := call(t, "POST", mcp, loop, searchHelp); r.status != 401 || !strings.Contains(r.body, "API token has been revoked") {
		t.Errorf("the revoked connection: %d %s", r.status, r.body)
	}
	checkWidths(t, ta.Shots)
	instructorSees(t, mcp, dir, loopName)
	for _, who := range []string{"gary.grader@example.edu", "sam.student@example.edu"} {
		var r struct{ Seen activitySeen }
		activityNode(t, &r, "look", mcp+"/activity?class_id=1", who)
		if r.Seen.Status != 403 || r.Seen.Heading != "Only the class's instructors see this page" {
			t.Errorf("%s on the class page: %d %q", who, r.Seen.Status, r.Seen.Heading)
		}
	}
}

// runawayLoop calls a tool through auth until it is refused, at most 100
// times, and returns the refusal.
func runawayLoop(t *testing.T, mcp, auth string) answer {
	t.Helper()
	for range 100 {
		r := callAt(t, mcp, auth, "2025-11-25", searchHelp)
		if r.status != 200 {
			t.Fatalf("a call of the loop: %d %s", r.status, r.body)
		}
		if strings.Contains(r.body, `"isError":true`) {
			return r
		}
	}
	t.Fatal("100 calls in a row were not refused")
	return answer{}
}

// instructorSees is the instructor on the class page.
func instructorSees(t *testing.T, mcp, dir, loopName string) {
	t.Helper()
	var in struct {
		Seen, Student activitySeen
		Shots         map[string]int
		CSV           struct {
			Status     int
			Type, Body string
		}
	}
	activityNode(t, &in, "class", mcp+"/activity?class_id=1", "alice.instructor@example.edu", dir)
	for _, want := range []string{"Gary Grader", "search_help_requests", "Students whose records were read"} {
		if !strings.Contains(in.Seen.Text, want) {
			t.Errorf("the class page does not show %q:\n%s", want, in.Seen.Text)
		}
	}
	if in.CSV.Status != 200 || in.CSV.Type != "text/csv; charset=utf-8" || !strings.HasPrefix(in.CSV.Body, "time_utc,staff_user_id,staff_name,client,tool,outcome,students_read,student_profile_ids,student_names\n") ||
		!strings.Contains(in.CSV.Body, gatewaytest.Gary+",Gary Grader,"+loopName+",search_help_requests,rate_limited,0,,") {
		t.Errorf("CSV: %d %s\n%.600s", in.CSV.Status, in.CSV.Type, in.CSV.Body)
	}
	if !strings.HasPrefix(in.Student.Heading, "Reads of a student's records: ") || !strings.Contains(in.Student.Text, loopName) {
		t.Errorf("a student's reads: %q\n%s", in.Student.Heading, in.Student.Text)
	}
	checkWidths(t, in.Shots)
}

func checkWidths(t *testing.T, shots map[string]int) {
	t.Helper()
	for _, k := range []string{"1280", "375", "1280-dark", "375-dark"} {
		w, _ := strconv.Atoi(strings.TrimSuffix(k, "-dark"))
		if got := shots[k]; got == 0 || got > w {
			t.Errorf("at %s px the page is %d px wide", k, got)
		}
	}
}

// screenshotDir is where pictures go: docs/images with -update-screenshots.
func screenshotDir(t *testing.T) string {
	if !*updateScreenshots {
		return t.TempDir()
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "docs", "images"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// activityNode runs testdata/oauthclient/activity.mjs.
func activityNode(t *testing.T, v any, args ...string) {
	t.Helper()
	if err := runNodeJSON(oauthNode(t), oauthClientDir, v, "activity.mjs", args...); err != nil {
		t.Fatal(err)
	}
}

// TestStudentTools: the tools whose answers name students, from their
// output schemas; a file's contents are never read for students.
func TestStudentTools(t *testing.T) {
	got := studentTools()
	for _, name := range []string{"get_submission", "get_help_request", "search_help_requests", "get_submissions_for_student", "get_student_overview", "get_regrade_request"} {
		if !got[name] {
			t.Errorf("%s is not read for students", name)
		}
	}
	for _, name := range []string{"get_submission_files", "get_assignment", "get_handout_files", "list_handout_files"} {
		if got[name] {
			t.Errorf("%s is read for students", name)
		}
	}
}
