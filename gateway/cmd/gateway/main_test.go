package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/clientconfig"
	"github.com/pawtograder/mcp-gateway/gateway/config"
)

func TestCLI(t *testing.T) {
	tests := []struct {
		name        string
		args        []string
		code        int
		out, errOut string
	}{
		{"version", []string{"version"}, 0, "dev\n", ""},
		{"help", []string{"--help"}, 0, usage, ""},
		{"unknown command", []string{"serv"}, 2, "", "gateway: unknown command \"serv\"\n" + usage},
		{"extra arguments", []string{"version", "x"}, 2, "", usage},
		{"client-config without url", []string{"client-config"}, 2, "", "gateway client-config: clientconfig: --url must be the absolute http(s) URL of the MCP endpoint\n"},
		{"client-config with url", []string{"client-config", "--url", "https://x.example/functions/v1/mcp-server", "--name", "pg"},
			0, mustRender(t, "https://x.example/functions/v1/mcp-server", "pg"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := cli(tt.args, &out, &errOut)
			if code != tt.code || out.String() != tt.out || errOut.String() != tt.errOut {
				t.Errorf("cli(%q) = %d, stdout %q, stderr %q; want %d, %q, %q",
					tt.args, code, out.String(), errOut.String(), tt.code, tt.out, tt.errOut)
			}
		})
	}
}

func mustRender(t *testing.T, url, name string) string {
	t.Helper()
	text, err := clientconfig.Render(clientconfig.Options{URL: url, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, `"pg": {`) {
		t.Fatalf("name not used:\n%s", text)
	}
	return text
}

func TestHealthURL(t *testing.T) {
	tests := []struct{ addr, want string }{
		{":9000", "http://127.0.0.1:9000/healthz"},
		{"0.0.0.0:8080", "http://127.0.0.1:8080/healthz"},
		{"[::]:8080", "http://127.0.0.1:8080/healthz"},
		{"127.0.0.2:9000", "http://127.0.0.2:9000/healthz"},
		{"[::1]:9000", "http://[::1]:9000/healthz"},
		{"localhost:9001", "http://localhost:9001/healthz"},
	}
	for _, tt := range tests {
		if got := healthURL(tt.addr); got != tt.want {
			t.Errorf("healthURL(%q) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

func TestHealthcheck(t *testing.T) {
	slow := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
		case "/slow":
			<-slow
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	defer close(slow) // runs first: release the slow handler so Close can finish
	tests := []struct {
		path    string
		wantErr string
	}{
		{"/ok", ""},
		{"/down", "GET " + srv.URL + "/down answered 503"},
		{"/slow", "context deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			err := healthcheck(context.Background(), srv.URL+tt.path, 200*time.Millisecond)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("healthcheck(%s) = %v, want %q", tt.path, err, tt.wantErr)
			}
		})
	}
}

// TestHealthcheckNeedsOnlyItsSetting: `gateway healthcheck` reads
// GATEWAY_LISTEN_ADDR alone, so it runs with every other setting unset,
// and a bad listen address is named.
func TestHealthcheckNeedsOnlyItsSetting(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	for _, name := range []string{"SUPABASE_URL", "SUPABASE_ANON_KEY", "SUPABASE_SERVICE_ROLE_KEY", "MCP_JWT_SECRET", "JWT_SECRET", "EDGE_FUNCTIONS_URL"} {
		t.Setenv(name, "")
	}
	for _, tt := range []struct {
		addr    string
		code    int
		errText string
	}{
		{strings.TrimPrefix(srv.URL, "http://"), exitOK, ""},
		{"9000", exitError, "GATEWAY_LISTEN_ADDR must be host:port or :port"},
	} {
		t.Setenv("GATEWAY_LISTEN_ADDR", tt.addr)
		var out, errOut bytes.Buffer
		if code := cli([]string{"healthcheck"}, &out, &errOut); code != tt.code || !strings.Contains(errOut.String(), tt.errText) {
			t.Errorf("healthcheck with GATEWAY_LISTEN_ADDR=%s: %d, stderr %q; want %d, %q", tt.addr, code, errOut.String(), tt.code, tt.errText)
		}
	}
}

func TestPostgRESTReady(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/rest/v1/":
			if r.Header.Get("apikey") != "anon" {
				w.WriteHeader(http.StatusTeapot + 100) // 518: the probe did not send the anon key
				return
			}
			w.WriteHeader(http.StatusUnauthorized) // answering at all is ready
		case "/broken/":
			w.WriteHeader(http.StatusBadGateway)
		case "/slow/":
			time.Sleep(300 * time.Millisecond)
		}
	}))
	defer up.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()

	u := func(s string) *url.URL { v, _ := url.Parse(s); return v }
	tests := []struct {
		name    string
		cfg     config.Config
		timeout time.Duration
		want    string
	}{
		{"answers", config.Config{PostgRESTURL: u(up.URL + "/rest/v1"), SupabaseAnonKey: "anon"}, time.Second, ""},
		{"server error", config.Config{PostgRESTURL: u(up.URL + "/broken")}, time.Second, "PostgREST answered 502"},
		{"too slow", config.Config{PostgRESTURL: u(up.URL + "/slow")}, 50 * time.Millisecond, "PostgREST did not answer in time"},
		{"unreachable", config.Config{PostgRESTURL: u(deadURL)}, time.Second, "PostgREST is unreachable"},
		{"not configured", config.Config{}, time.Second, "PostgREST is not configured (set SUPABASE_URL or GATEWAY_POSTGREST_URL)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			err := postgrestReady(tt.cfg)(ctx)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("ready = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWarnMissingFunctionSettings(t *testing.T) {
	all := config.Config{
		SupabaseURLRaw:         "http://kong:8000",
		SupabaseAnonKey:        "anon",
		SupabaseServiceRoleKey: "service",
	}
	tests := []struct {
		name   string
		modify func(c *config.Config)
		want   []string
	}{
		{"everything set", func(*config.Config) {}, nil},
		{"nothing set", func(c *config.Config) { *c = config.Config{} },
			[]string{"SUPABASE_URL", "SUPABASE_ANON_KEY", "SUPABASE_SERVICE_ROLE_KEY"}},
		{"service key unset", func(c *config.Config) { c.SupabaseServiceRoleKey = "" }, []string{"SUPABASE_SERVICE_ROLE_KEY"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := all
			tt.modify(&cfg)
			var buf bytes.Buffer
			warnMissingFunctionSettings(slog.New(slog.NewJSONHandler(&buf, nil)), cfg)
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				if line == "" {
					continue
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatal(err)
				}
				got = append(got, m["variable"].(string))
				if strings.Contains(line, "anon") || strings.Contains(line, "service") {
					t.Errorf("warning leaks a value: %s", line)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("warned variables (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNewAuditLog: the audit log writes the logger's attributes after
// msg, in the configured format.
func TestNewAuditLog(t *testing.T) {
	for _, tc := range []struct {
		format config.LogFormat
		want   string
	}{
		{config.LogFormatJSON, `"msg":"tool call","log":"audit","version":"` + version + `"`},
		{config.LogFormatText, `msg="tool call" log=audit version=` + version},
	} {
		var out strings.Builder
		newAuditLog(config.Config{LogFormat: tc.format}, &out).Info("tool call")
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: line %q does not contain %q", tc.format, out.String(), tc.want)
		}
	}
}
