package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// FuzzServePOST feeds arbitrary bodies and Accept headers through the POST
// path and checks that every answer is well formed: an empty 202, a JSON
// body that parses, or SSE message events whose data parse.
func FuzzServePOST(f *testing.F) {
	seeds := []string{
		``, `null`, `[]`, `[[]]`, `{}`, `"x"`, `1e999`, "\ufeff{}", "{\"id\":\"\xff\"}",
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_assignment","arguments":{"assignment_id":1,"class_id":2}}}`,
		`{"id":{"a":[1,{"b":null}]},"method":["x",[null]]}`,
		`[{"id":1,"method":"ping"},5,null,[],{"id":2,"method":"notifications/initialized"}]`,
		`[{"id":"\u2028","method":"tools/call","params":{"name":"nope"}}]`,
		strings.Repeat("[", 520) + strings.Repeat("]", 520),
	}
	for i, s := range seeds {
		accept := []string{"", "application/json", "text/event-stream", "*/*"}[i%4]
		f.Add([]byte(s), accept)
	}
	env := newTestEnv(f, func(o *Options) { o.MaxBodyBytes = 1 << 16 })
	f.Fuzz(func(t *testing.T, body []byte, accept string) {
		if strings.ContainsAny(accept, "\r\n\x00") {
			return // not a valid header value
		}
		req := httptest.NewRequest(http.MethodPost, "/functions/v1/mcp-server", bytes.NewReader(body))
		req.Header.Set("Authorization", authGood)
		req.Header.Set("Accept", accept)
		rec := httptest.NewRecorder()
		env.e.ServeHTTP(rec, req)
		checkWellFormed(t, rec)
	})
}

func checkWellFormed(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	ct := rec.Header().Get("Content-Type")
	out := rec.Body.Bytes()
	switch {
	case rec.Code == http.StatusAccepted:
		if len(out) != 0 || ct != "" {
			t.Fatalf("202 with Content-Type %q and body %q", ct, out)
		}
	case ct == "application/json":
		if !json.Valid(out) {
			t.Fatalf("%d: invalid JSON %q", rec.Code, out)
		}
		if rec.Code != 200 && rec.Code != 400 && rec.Code != 413 {
			t.Fatalf("unexpected status %d: %s", rec.Code, out)
		}
	case ct == "text/event-stream" && rec.Code == 200:
		n := 0
		for len(out) > 0 {
			ev, rest, ok := bytes.Cut(out, []byte("\n\n"))
			if !ok {
				t.Fatalf("unterminated event %q", out)
			}
			n++
			lines := strings.Split(string(ev), "\n")
			if len(lines) != 3 || lines[0] != "id: "+strconv.Itoa(n) || lines[1] != "event: message" ||
				!strings.HasPrefix(lines[2], "data: ") || !json.Valid([]byte(lines[2][len("data: "):])) {
				t.Fatalf("malformed event %q", ev)
			}
			out = rest
		}
	default:
		t.Fatalf("status %d with Content-Type %q", rec.Code, ct)
	}
}

// BenchmarkToolsListPOST measures a tools/list request through the router,
// authentication fakes included: the hot path of every client start.
func BenchmarkToolsListPOST(b *testing.B) {
	env := newTestEnv(b, nil)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/functions/v1/mcp-server", bytes.NewReader(body))
		req.Header.Set("Authorization", authGood)
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		env.e.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}

// BenchmarkBatchPOST measures a ten-element batch answered as SSE.
func BenchmarkBatchPOST(b *testing.B) {
	env := newTestEnv(b, nil)
	var sb strings.Builder
	sb.WriteByte('[')
	for i := 0; i < 10; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}`)
	}
	sb.WriteByte(']')
	body := []byte(sb.String())
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/functions/v1/mcp-server", bytes.NewReader(body))
		req.Header.Set("Authorization", authGood)
		req.Header.Set("Accept", "text/event-stream")
		rec := httptest.NewRecorder()
		env.e.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}
