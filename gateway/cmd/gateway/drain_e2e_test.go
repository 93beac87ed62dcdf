package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// drainSetup is a gateway process (writes on, its Supabase behind a fault
// proxy) with a pending action Alice has signed in to approve.
type drainSetup struct {
	gw, link, id, csrf, message string
	child                       *exec.Cmd
	proxy                       *gatewaytest.FaultProxy
	browser                     *http.Client
	token                       string
}

func newDrainSetup(t *testing.T, shutdownTimeout string) *drainSetup {
	t.Helper()
	requireStandIn(t)
	d := &drainSetup{proxy: gatewaytest.NewFaultProxy(t, env.URL)}
	vars := writeVars()
	vars["SUPABASE_URL"] = d.proxy.URL
	vars["GATEWAY_SHUTDOWN_TIMEOUT"] = shutdownTimeout
	d.gw, d.child = startChildGateway(t, vars)
	d.token = createWriteToken(t, d.gw, env.SessionToken(t, gatewaytest.Alice))
	d.message = fmt.Sprintf("Approved while its gateway drained (%s, %d).", shutdownTimeout, time.Now().UnixNano())
	forgetMessage(t, d.message)
	d.link, d.id = proposeReply(t, d.gw+"/functions/v1/mcp-server", d.token, d.message)
	var page string
	d.browser, page = signInToApprove(t, d.link, gatewaytest.Alice)
	m := csrfInput.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no review page:\n%s", page)
	}
	d.csrf = m[1]
	return d
}

// approveSlowly posts the approval with the database's answer held for
// delay by the proxy, and returns once the approval has reached the
// database; the decision's answer (its page, or the error) arrives on the
// channel.
func (d *drainSetup) approveSlowly(t *testing.T, delay time.Duration) <-chan decision {
	t.Helper()
	d.proxy.Add(gatewaytest.FaultRule{Match: gatewaytest.RPCTo("mcp_pending_action_approve"), Fault: gatewaytest.DelayAnswer, Delay: delay})
	out := make(chan decision, 1)
	go func() {
		resp, err := d.browser.PostForm(d.link, url.Values{"csrf_token": {d.csrf}, "decision": {"approve"}})
		if err != nil {
			out <- decision{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		out <- decision{status: resp.StatusCode, heading: h1(string(body)), err: err}
	}()
	for d.proxy.Hits(gatewaytest.DelayAnswer) == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	return out
}

type decision struct {
	status  int
	heading string
	err     error
}

// openStream opens mcp-server's event stream (GET) on gw and returns the
// channel its end arrives on: nil for a clean end (the chunked body's
// last chunk), the read error otherwise.
func openStream(t *testing.T, gw, token string) <-chan error {
	t.Helper()
	// Closed at the end of the test, before the gateways the test started
	// (cleanups run last first), which wait for open requests.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, gw+"/functions/v1/mcp-server", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		t.Fatalf("event stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ended := make(chan error, 1)
	go func() {
		defer resp.Body.Close()
		_, err := io.Copy(io.Discard, bufio.NewReader(resp.Body))
		ended <- err
	}()
	return ended
}

// waitExit waits for the process and returns its exit code and how long
// after since it ended.
func waitExit(t *testing.T, child *exec.Cmd, since time.Time, within time.Duration) (int, time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	select {
	case err := <-done:
		took := time.Since(since)
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), took
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, took
	case <-time.After(within):
		t.Fatalf("the gateway did not exit within %v of SIGTERM", within)
		return 0, 0
	}
}

// awaitRefused waits until nothing accepts connections at gw's address.
func awaitRefused(t *testing.T, gw string, within time.Duration) time.Duration {
	t.Helper()
	addr := strings.TrimPrefix(gw, "http://")
	start := time.Now()
	for time.Since(start) < within {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			return time.Since(start)
		}
		c.Close()
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s still accepted connections %v after SIGTERM", addr, within)
	return 0
}

// TestDrainFinishesInFlight: SIGTERM while an approval's write is in
// flight and an event stream is open. The replica stops accepting
// connections at once, ends the stream cleanly (the client reads the end
// of the body and may reconnect elsewhere), answers the approval with its
// page once the database has, and exits 0 well inside its grace period.
func TestDrainFinishesInFlight(t *testing.T) {
	d := newDrainSetup(t, "10s")
	stream := openStream(t, d.gw, d.token)
	decided := d.approveSlowly(t, 2*time.Second)

	sent := time.Now()
	if err := d.child.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	refused := awaitRefused(t, d.gw, 2*time.Second)
	select {
	case err := <-stream:
		if err != nil {
			t.Errorf("the event stream ended with %v, want a clean end", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the event stream was still open 5 s after SIGTERM")
	}
	r := <-decided
	if r.err != nil || r.status != http.StatusOK || r.heading != "Approved and written" {
		t.Errorf("the approval in flight: %d %q %v, want 200 Approved and written", r.status, r.heading, r.err)
	}
	code, took := waitExit(t, d.child, sent, 10*time.Second)
	t.Logf("SIGTERM: connections refused after %v, exit %d after %v", refused.Round(time.Millisecond), code, took.Round(time.Millisecond))
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if state, rowID := storedAction(t, d.id); state != "approved" || rowID == "" || messagesWith(t, d.message) != 1 {
		t.Errorf("after the drain: action %s row %q, %d messages; want approved with the one message", state, rowID, messagesWith(t, d.message))
	}

	// The client reconnects to another replica.
	other := startGateway(t, writeVars())
	reopened := openStream(t, other, d.token)
	select {
	case err := <-reopened:
		t.Errorf("the stream on another replica ended at once: %v", err)
	default:
	}
}

// TestDrainGracePeriodBounds: a request still running when
// GATEWAY_SHUTDOWN_TIMEOUT ends is cut off and the process exits then,
// inside the orchestrator's grace period. The approval's decision, the
// write and its record are one statement in the database, so the cut-off
// leaves either all of them or none, never part.
func TestDrainGracePeriodBounds(t *testing.T) {
	d := newDrainSetup(t, "2s")
	decided := d.approveSlowly(t, 8*time.Second)

	sent := time.Now()
	if err := d.child.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code, took := waitExit(t, d.child, sent, 6*time.Second)
	t.Logf("exit %d after %v with a request still running at the 2 s bound", code, took.Round(time.Millisecond))
	if code != 0 || took < 2*time.Second || took > 4*time.Second {
		t.Errorf("exit %d after %v, want 0 after 2 s (the bound) and well before 4 s", code, took)
	}
	if r := <-decided; r.err == nil {
		t.Errorf("the cut-off approval was answered: %d %q", r.status, r.heading)
	}
	// The proxy forwarded the approval before holding its answer, and the
	// database carries on with a statement whose client left.
	state, rowID := storedAction(t, d.id)
	for deadline := time.Now().Add(3 * time.Second); state == "pending" && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		state, rowID = storedAction(t, d.id)
	}
	n := messagesWith(t, d.message)
	if !(state == "approved" && rowID != "" && n == 1) && !(state == "pending" && rowID == "" && n == 0) {
		t.Errorf("after the cut-off: action %s row %q, %d messages; want all or nothing", state, rowID, n)
	}
}
