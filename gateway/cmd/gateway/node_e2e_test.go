package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runNodeJSON runs `node script args…` in dir, for at most nodeBound,
// and decodes what it prints (one JSON value) into v. A failure carries
// both outputs. It may be called from goroutines other than the test's.
// nodeBound only stops a stuck script: a browser flow through mcp-remote
// that takes 20–30 s on a quiet machine passed two minutes on one loaded
// many times over its cores (TestOAuthStepUpKeepReadOnly), and every
// script waits on conditions with bounds of its own.
const nodeBound = 6 * time.Minute

func runNodeJSON(node, dir string, v any, script string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), nodeBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	name := script
	if len(args) > 0 {
		name += " " + args[0]
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("node %s: %v\nstdout:\n%s\nstderr:\n%s", name, err, stdout.String(), stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		return fmt.Errorf("node %s output: %v\n%s", name, err, stdout.String())
	}
	return nil
}

// portForChild returns a free loopback port for a child process to bind
// (mcp-remote's OAuth callback). It is taken below the kernel's ephemeral
// range, so that between this choice and the child's bind no listener on
// port 0 and no outgoing connection of the parallel test binaries is
// given the same port.
func portForChild(t *testing.T) int {
	t.Helper()
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				low = n
			}
		}
	}
	const span = 8000
	for range 100 {
		port := max(1024, low-span) + rand.IntN(span)
		if port >= low {
			continue
		}
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			ln.Close()
			return port
		}
	}
	t.Fatalf("no free loopback port below %d", low)
	return 0
}
