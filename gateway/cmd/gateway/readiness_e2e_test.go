package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

const (
	readyOK          = `{"status":"ok"}`
	readyDBTimeout   = `{"status":"unavailable","reason":"the database did not answer in time"}`
	readyDBFailed503 = `{"status":"unavailable","reason":"the database did not answer (PostgREST answered 503)"}`
)

// awaitProbe polls path on gw until it answers want, and fails the test
// if that takes longer than within; it returns how long it took.
func awaitProbe(t *testing.T, gw, path, want string, within time.Duration) time.Duration {
	t.Helper()
	hc := &http.Client{Timeout: 5 * time.Second}
	start := time.Now()
	var last string
	for time.Since(start) < within {
		if resp, err := hc.Get(gw + path); err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			last = string(b)
			if last == want {
				return time.Since(start)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not answer %s within %v; last answer %s", path, want, within, last)
	return 0
}

// TestReadinessFollowsTheDatabase: /readyz fails within a few seconds of
// PostgreSQL stopping (SIGSTOP: connections stay open and nothing
// answers, as with a hung host) and recovers once it continues; /healthz
// stays 200 throughout, so the replica is taken out of the balancer, not
// restarted.
func TestReadinessFollowsTheDatabase(t *testing.T) {
	stack := env.RequireLocal(t)
	gw := startGateway(t, nil)
	awaitProbe(t, gw, "/readyz", readyOK, 10*time.Second)

	if err := stack.PauseDatabase(); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			if err := stack.ResumeDatabase(); err != nil {
				t.Error(err)
			}
		}
	}
	defer resume()
	took := awaitProbe(t, gw, "/readyz", readyDBTimeout, 5*time.Second)
	t.Logf("/readyz failed %v after the database stopped", took.Round(10*time.Millisecond))
	awaitProbe(t, gw, "/healthz", readyOK, time.Second)

	resume()
	took = awaitProbe(t, gw, "/readyz", readyOK, 10*time.Second)
	t.Logf("/readyz recovered %v after the database continued", took.Round(10*time.Millisecond))
}

// TestReadinessFollowsTheRESTAPI: a REST API that holds its answers, or
// answers 5xx, fails /readyz; it recovers when the API answers again.
// /healthz never asks it.
func TestReadinessFollowsTheRESTAPI(t *testing.T) {
	proxy := gatewaytest.NewFaultProxy(t, env.URL)
	gw := startGateway(t, map[string]string{"SUPABASE_URL": proxy.URL})
	awaitProbe(t, gw, "/readyz", readyOK, 10*time.Second)
	probe := func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/rest/v1/api_tokens") }
	cases := []struct {
		name string
		rule gatewaytest.FaultRule
		want string
	}{
		{"hangs", gatewaytest.FaultRule{Match: probe, Fault: gatewaytest.DelayAnswer, Delay: 4 * time.Second, Times: 1000}, readyDBTimeout},
		{"answers 503", gatewaytest.FaultRule{Match: probe, Fault: gatewaytest.ServerError, Times: 1000}, readyDBFailed503},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			proxy.Add(tc.rule)
			t.Cleanup(proxy.Reset)
			awaitProbe(t, gw, "/readyz", tc.want, 5*time.Second)
			awaitProbe(t, gw, "/healthz", readyOK, time.Second)
			proxy.Reset()
			awaitProbe(t, gw, "/readyz", readyOK, 10*time.Second)
		})
	}
}
