package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/config"
)

// TestSchemaProbeLogLevels: a present function's refusal of the probe's
// arguments is the expected answer, logged at debug only, so a healthy
// start logs nothing about it at info or above; a missing function is
// still one ERROR line.
func TestSchemaProbeLogLevels(t *testing.T) {
	const refusal = `{"code":"22007","message":"invalid input syntax for type timestamp with time zone: \"not-a-value\"","details":null,"hint":null}`
	cases := []struct {
		name       string
		status     int
		body       string
		wantDebug  []string // messages at debug
		wantLoud   []string // messages at info or above, as "LEVEL msg"
		wantResult bool     // check returns nil
	}{
		{
			name: "present function refusing the arguments", status: http.StatusBadRequest, body: refusal,
			wantDebug:  []string{"schema probe: the function refused the probe's arguments, as expected"},
			wantResult: true,
		},
		{
			name: "missing function", status: http.StatusNotFound, body: `{"code":"PGRST202"}`,
			wantDebug: []string{"schema probe"},
			wantLoud:  []string{"ERROR the database lacks the gateway's migrations; requests that need them fail until they are applied"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			var logs bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			s := newSchemaCheck(config.Config{PostgRESTURL: mustParse(t, srv.URL+"/rest/v1"), SupabaseServiceRoleKey: "service", UpstreamTimeout: time.Second}, log)
			s.objects = []schemaObject{{name: "mcp_oauth_use_code", args: []string{"p_code_hash", "p_now"}, file: migrationGrantFns, feature: featureOAuth}}

			if err := s.check(context.Background()); (err == nil) != tc.wantResult {
				t.Errorf("check = %v, want nil: %v", err, tc.wantResult)
			}
			var debug, loud []string
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				var m struct{ Level, Msg string }
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("log line %q: %v", line, err)
				}
				if m.Level == "DEBUG" {
					debug = append(debug, m.Msg)
				} else {
					loud = append(loud, m.Level+" "+m.Msg)
				}
			}
			if diff := cmp.Diff(tc.wantDebug, debug); diff != "" {
				t.Errorf("debug lines (-want +got):\n%s\nlog:\n%s", diff, logs.String())
			}
			if diff := cmp.Diff(tc.wantLoud, loud); diff != "" {
				t.Errorf("lines at info or above (-want +got):\n%s\nlog:\n%s", diff, logs.String())
			}
		})
	}
}
