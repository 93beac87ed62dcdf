package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// allowList is GoTrue's GOTRUE_URI_ALLOW_LIST in rendered output.
func allowList(t *testing.T, out []byte) string {
	t.Helper()
	d := objects(t, out)["Deployment/demo-pawtograder-auth"]
	for _, c := range items(get(d, "spec", "template", "spec", "containers")) {
		for _, e := range items(get(c, "env")) {
			if text(e, "name") == "GOTRUE_URI_ALLOW_LIST" {
				return text(e, "value")
			}
		}
	}
	return ""
}

// TestRenderWriteTools: with GATEWAY_WRITE_TOOLS on, GoTrue also lets the
// approval page's sign-in return (docs/writes.md), the gateway gets the
// setting as a string Kubernetes reads as one, and a second pass changes
// nothing.
func TestRenderWriteTools(t *testing.T) {
	const api = "https://api.courses.example.edu/functions/v1/mcp-server"
	for _, tc := range []struct{ writes, want string }{
		{"off", "https://courses.example.edu/*," + api + "/oauth/callback"},
		{"on", "https://courses.example.edu/*," + api + "/oauth/callback," + api + "/approve/callback"},
		{"ON", "https://courses.example.edu/*," + api + "/oauth/callback," + api + "/approve/callback"},
	} {
		t.Run(tc.writes, func(t *testing.T) {
			s := shippedSettings(t)
			s.Env["GATEWAY_WRITE_TOOLS"] = tc.writes
			once, err := Render(readFile(t, "testdata/chart.yaml"), s)
			if err != nil {
				t.Fatal(err)
			}
			if got := allowList(t, once); got != tc.want {
				t.Errorf("GOTRUE_URI_ALLOW_LIST = %q, want %q", got, tc.want)
			}
			if want := "- name: GATEWAY_WRITE_TOOLS\n              value: \"" + tc.writes + "\"\n"; !strings.Contains(string(once), want) {
				t.Errorf("output lacks %q (YAML 1.1 reads an unquoted on or off as a boolean)", want)
			}
			twice, err := Render(once, s)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(once), string(twice)); diff != "" {
				t.Errorf("second pass changed the output:\n%s", diff)
			}
		})
	}
}

// TestRenderWarnsOfProviders: a sign-in provider the chart's GoTrue does
// not enable, or GATEWAY_OAUTH_PROVIDERS left to the gateway's default, is
// named on stderr and above the gateway's Deployment; the shipped settings
// with a chart that enables azure get no warning.
func TestRenderWarnsOfProviders(t *testing.T) {
	notGitHub := "GATEWAY_OAUTH_PROVIDERS names github, which the chart's GoTrue does not enable (GOTRUE_EXTERNAL_GITHUB_ENABLED; values auth.external.github.enabled): signing in with it fails"
	for _, tc := range []struct {
		name      string
		providers *string
		want      []string
	}{
		{"enabled", ptr("azure"), nil},
		{"not enabled", ptr("azure, github"), []string{notGitHub}},
		{"default", nil, []string{
			"env GATEWAY_OAUTH_PROVIDERS is not set, so the gateway offers its default, github; set it to the providers people sign in with",
			notGitHub,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settings := string(readFile(t, filepath.Join("..", "mcp-gateway.yaml")))
			if tc.providers == nil {
				settings = strings.Replace(settings, "  GATEWAY_OAUTH_PROVIDERS: azure\n", "", 1)
			} else {
				settings = strings.Replace(settings, "GATEWAY_OAUTH_PROVIDERS: azure", "GATEWAY_OAUTH_PROVIDERS: "+*tc.providers, 1)
			}
			file := filepath.Join(t.TempDir(), "settings.yaml")
			if err := os.WriteFile(file, []byte(settings), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, warn bytes.Buffer
			if err := run(bytes.NewReader(readFile(t, "testdata/chart.yaml")), &out, &warn, file); err != nil {
				t.Fatal(err)
			}
			var want string
			for _, w := range tc.want {
				want += "mcp-gateway post-renderer: warning: " + w + "\n"
				if !strings.Contains(out.String(), "# WARNING: "+w+"\n") {
					t.Errorf("output does not carry %q above the gateway's Deployment", w)
				}
			}
			if diff := cmp.Diff(want, warn.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr(s string) *string { return &s }
