package mcpauth

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

const testServiceKey = "service-role-key-for-tests"

// fakeRest is a PostgREST stand-in for the service-role calls. Each table
// answers with a configured status and body; every request is recorded.
type fakeRest struct {
	t *testing.T

	mu       sync.Mutex
	requests []recorded
	answers  map[string]answer // "POST rpc/mcp_auth_lookup" → answer
	// hook, when set, runs before answering (e.g. to block).
	hook func(method, table string)
}

type recorded struct {
	Method, Path, Query, APIKey, Authorization, Prefer, Body string
}

type answer struct {
	status int
	body   string
}

func newFakeRest(t *testing.T) (*fakeRest, *httptest.Server) {
	f := &fakeRest{t: t, answers: map[string]answer{
		"POST rpc/mcp_auth_lookup": {200, `{"revoked": false, "staff": true}`},
		"GET user_roles":           {200, `[{"class_id":1,"role":"instructor"}]`},
		"PATCH api_tokens":         {204, ``},
		"POST revoked_token_ids":   {201, ``},
	}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeRest) set(key string, status int, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[key] = answer{status, body}
}

func (f *fakeRest) recorded() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

func (f *fakeRest) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	table := r.URL.Path[len("/rest/v1/"):]
	f.mu.Lock()
	f.requests = append(f.requests, recorded{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		APIKey: r.Header.Get("apikey"), Authorization: r.Header.Get("Authorization"),
		Prefer: r.Header.Get("Prefer"), Body: string(body),
	})
	a, ok := f.answers[r.Method+" "+table]
	hook := f.hook
	f.mu.Unlock()
	if hook != nil {
		hook(r.Method, table)
	}
	if !ok {
		a = answer{404, `{"code":"PGRST205","message":"Could not find the table"}`}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}
