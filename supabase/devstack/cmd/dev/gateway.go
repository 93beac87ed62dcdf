package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"
)

// gatewayProcess is the gateway dev runs, once it answers /healthz.
type gatewayProcess struct {
	url    string
	cmd    *exec.Cmd
	exited chan error // receives the exit once; whoever takes it puts it back
}

// startAttempts bounds the retries when the chosen port is taken before the
// gateway binds it.
const startAttempts = 3

// startGateway starts bin on port (a free one if port is taken or 0) with
// the environment envFor builds for its URL, and waits until it is healthy.
// The port is chosen just before the start, yet another process may still
// bind it first (a listener of a parallel test, or an outgoing connection's
// local port, when the kernel picked it): the gateway then fails to listen,
// and a fresh port is tried.
func startGateway(ctx context.Context, bin string, port int, envFor func(url, listen string) []string) (*gatewayProcess, error) {
	for attempt := 1; ; attempt++ {
		p, err := freePort(port)
		if err != nil {
			return nil, err
		}
		listen := fmt.Sprintf("127.0.0.1:%d", p)
		g, taken, err := launchGateway(ctx, bin, "http://"+listen, envFor("http://"+listen, listen))
		if err == nil || !taken || attempt == startAttempts {
			return g, err
		}
		port = 0
	}
}

// launchGateway starts the gateway once. taken reports that it exited
// because its address was in use.
func launchGateway(ctx context.Context, bin, url string, env []string) (g *gatewayProcess, taken bool, err error) {
	watch := &bindWatch{w: os.Stderr}
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stdout = os.Stderr
	cmd.Stderr = watch
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("starting the gateway: %w", err)
	}
	g = &gatewayProcess{url: url, cmd: cmd, exited: make(chan error, 1)}
	go func() { g.exited <- cmd.Wait() }()
	if err := waitHealthy(ctx, url+"/healthz", g.exited); err != nil {
		g.stop()
		return nil, watch.inUse.Load(), err
	}
	return g, false, nil
}

// stop ends the gateway: SIGTERM, and SIGKILL after 30 s.
func (g *gatewayProcess) stop() {
	_ = g.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-g.exited:
		g.exited <- err
	case <-time.After(30 * time.Second):
		_ = g.cmd.Process.Kill()
		g.exited <- <-g.exited
	}
}

// bindWatch passes the gateway's log through and notes the start-up error
// of an address in use. The gateway's slog handler writes a line per Write.
type bindWatch struct {
	w     io.Writer
	inUse atomic.Bool
}

func (b *bindWatch) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("address already in use")) {
		b.inUse.Store(true)
	}
	return b.w.Write(p)
}

// freePort returns port when it can be bound on loopback, else a free one.
func freePort(port int) (int, error) {
	if p, err := bindablePort(port); err == nil {
		return p, nil
	}
	return bindablePort(0)
}

// portOrFree returns port when it can be bound on loopback now, else 0 (for
// a component that picks a free port itself while binding).
func portOrFree(port int) int {
	if _, err := bindablePort(port); err != nil {
		return 0
	}
	return port // 0 stays 0: the component picks while binding, with no gap
}

// bindablePort is the port a loopback listener asking for port gets (any
// free one for 0), released again.
func bindablePort(port int) (int, error) {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// healthProbe asks /healthz once; its timeout keeps a listener that
// accepts and never answers (another process on the port) from holding
// the start-up.
var healthProbe = &http.Client{Timeout: time.Second}

// waitHealthy polls url until it answers 200, the gateway exits or 60 s
// pass.
func waitHealthy(ctx context.Context, url string, exited chan error) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			exited <- err
			return fmt.Errorf("the gateway exited during start-up: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := healthProbe.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return errors.New("the gateway did not become healthy within 60 s")
}
