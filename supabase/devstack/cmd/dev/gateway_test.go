package main

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gatewayEnv is an environment for the real gateway over the shared seeded
// stack, listening where envFor is told.
func gatewayEnv(t *testing.T) func(url, listen string) []string {
	t.Helper()
	env := readEnv(t, seededDev(t).envFile)
	return func(url, listen string) []string {
		vars := []string{"PATH=" + os.Getenv("PATH"), "GATEWAY_PUBLIC_URL=" + url, "GATEWAY_LISTEN_ADDR=" + listen, "EDGE_FUNCTIONS_URL=" + url}
		for _, k := range []string{"SUPABASE_URL", "SUPABASE_ANON_KEY", "SUPABASE_SERVICE_ROLE_KEY", "MCP_JWT_SECRET", "JWT_SECRET"} {
			vars = append(vars, k+"="+env[k])
		}
		return vars
	}
}

// TestLaunchNoticesATakenPort: the real gateway, started on a port another
// listener holds, exits during start-up and dev tells that apart from a
// gateway that exits for another reason.
func TestLaunchNoticesATakenPort(t *testing.T) {
	bin := gatewayBinary(t)
	envFor := gatewayEnv(t)
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	url := "http://" + held.Addr().String()

	g, taken, err := launchGateway(context.Background(), bin, url, envFor(url, held.Addr().String()))
	if err == nil {
		g.stop()
		t.Fatal("the gateway started on a port another listener holds")
	}
	if !taken {
		t.Errorf("a gateway that could not bind its port: taken = false (%v)", err)
	}

	broken := append(envFor(url, "127.0.0.1:0"), "MCP_JWT_SECRET=")
	if _, taken, err := launchGateway(context.Background(), bin, url, broken); err == nil || taken {
		t.Errorf("a gateway without MCP_JWT_SECRET: err %v, taken %v; want an error, not taken", err, taken)
	}
}

// fakeBind is a stand-in for the gateway binary: its first failing runs
// print the gateway's error for an address in use and exit, later runs are
// the real gateway. It counts its runs in a file.
func fakeBind(t *testing.T, failures int) (bin, runs string) {
	t.Helper()
	dir := t.TempDir()
	runs = filepath.Join(dir, "runs")
	bin = filepath.Join(dir, "gateway")
	script := `#!/bin/sh
echo run >> '` + runs + `'
if [ "$(wc -l < '` + runs + `')" -le ` + strconv.Itoa(failures) + ` ]; then
	echo 'level=ERROR msg="gateway failed" error="gateway: listen on 127.0.0.1:1: listen tcp 127.0.0.1:1: bind: address already in use"' >&2
	exit 1
fi
exec '` + gatewayBinary(t) + `'
`
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, runs
}

func countRuns(t *testing.T, runs string) int {
	t.Helper()
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestStartGatewayRetriesATakenPort: when the port is taken between its
// choice and the gateway's bind, dev starts the gateway again on another,
// at most startAttempts times.
func TestStartGatewayRetriesATakenPort(t *testing.T) {
	envFor := gatewayEnv(t)
	bin, runs := fakeBind(t, startAttempts-1)
	g, err := startGateway(context.Background(), bin, 0, envFor)
	if err != nil {
		t.Fatalf("after %d taken ports: %v", startAttempts-1, err)
	}
	g.stop()
	if n := countRuns(t, runs); n != startAttempts {
		t.Errorf("the gateway was started %d times, want %d", n, startAttempts)
	}

	bin, runs = fakeBind(t, startAttempts)
	if g, err := startGateway(context.Background(), bin, 0, envFor); err == nil {
		g.stop()
		t.Errorf("started after %d taken ports, want an error", startAttempts)
	} else if !strings.Contains(err.Error(), "the gateway exited during start-up") {
		t.Errorf("error %q, want the start-up exit", err)
	}
	if n := countRuns(t, runs); n != startAttempts {
		t.Errorf("the gateway was started %d times, want %d (then give up)", n, startAttempts)
	}
}

// TestWaitHealthyOutlastsASilentListener: when another process holds the
// gateway's port and accepts without answering, the start-up still notices
// the gateway's exit instead of waiting on that listener for ever.
func TestWaitHealthyOutlastsASilentListener(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	exited := make(chan error, 1)
	time.AfterFunc(300*time.Millisecond, func() { exited <- errors.New("exit status 1") })
	done := make(chan error, 1)
	go func() { done <- waitHealthy(context.Background(), "http://"+silent.Addr().String()+"/healthz", exited) }()
	select {
	case err := <-done:
		if want := "the gateway exited during start-up: exit status 1"; err == nil || err.Error() != want {
			t.Errorf("waitHealthy: %v, want %q", err, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waitHealthy still waits on a listener that never answers, 5 s after the gateway exited")
	}
}
