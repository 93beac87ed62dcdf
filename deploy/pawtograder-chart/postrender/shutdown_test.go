package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stopping is what the rendered gateway pod says about how it stops.
type stopping struct {
	PreStop  any    // the container's lifecycle.preStop
	Grace    string // terminationGracePeriodSeconds
	Shutdown string // GATEWAY_SHUTDOWN_TIMEOUT
}

func renderedStopping(t *testing.T, s Settings) stopping {
	t.Helper()
	out, err := Render(readFile(t, "testdata/chart.yaml"), s)
	if err != nil {
		t.Fatal(err)
	}
	d := objects(t, out)["Deployment/demo-pawtograder-mcp-gateway"]
	pod := get(d, "spec", "template", "spec")
	c := items(get(pod, "containers"))[0]
	got := stopping{PreStop: decode(t, get(c, "lifecycle", "preStop")), Grace: text(pod, "terminationGracePeriodSeconds")}
	for _, e := range items(get(c, "env")) {
		if text(e, "name") == "GATEWAY_SHUTDOWN_TIMEOUT" {
			got.Shutdown = text(e, "value")
		}
	}
	return got
}

// TestRenderShutdown: the gateway container sleeps 10 s in its preStop
// hook (the sleep action: the distroless image has no shell), and the
// pod's grace period holds that sleep, the drain the gateway is given
// (GATEWAY_SHUTDOWN_TIMEOUT, rounded up to whole seconds) and a 5 s
// margin, also when env sets the drain.
func TestRenderShutdown(t *testing.T) {
	sleep := map[string]any{"sleep": map[string]any{"seconds": 10}}
	for _, tc := range []struct {
		name, env string // "": env does not set it
		want      stopping
	}{
		{"the post-renderer's drain", "", stopping{sleep, "35", "20s"}},
		{"a longer drain", "40s", stopping{sleep, "55", "40s"}},
		{"minutes", "1m30s", stopping{sleep, "105", "1m30s"}},
		{"part of a second rounds up", "2500ms", stopping{sleep, "18", "2500ms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := shippedSettings(t)
			if tc.env != "" {
				s.Env["GATEWAY_SHUTDOWN_TIMEOUT"] = tc.env
			}
			if diff := cmp.Diff(tc.want, renderedStopping(t, s)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestShutdownTimeoutRefused: a drain the gateway would refuse at start-up
// is refused before anything is rendered, since the grace period is
// computed from it.
func TestShutdownTimeoutRefused(t *testing.T) {
	base := string(readFile(t, "../mcp-gateway.yaml"))
	for _, v := range []string{"soon", "0s", "-5s", "20"} {
		t.Run(v, func(t *testing.T) {
			settings := strings.Replace(base, "  GATEWAY_WRITE_TOOLS: \"off\"\n", "  GATEWAY_WRITE_TOOLS: \"off\"\n  GATEWAY_SHUTDOWN_TIMEOUT: \""+v+"\"\n", 1)
			_, err := LoadSettings([]byte(settings))
			want := `settings: env GATEWAY_SHUTDOWN_TIMEOUT must be a positive duration such as 20s (got "` + v + `")`
			if err == nil || err.Error() != want {
				t.Errorf("LoadSettings error = %v, want %q", err, want)
			}
		})
	}
}
