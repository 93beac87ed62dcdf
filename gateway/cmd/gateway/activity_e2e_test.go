package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http/httptest"
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
