package main

import (
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
)

// childEnv marks the test binary started as a gateway process.
const childEnv = "GATEWAY_E2E_CHILD"

// startChildGateway runs the gateway as a process of its own (this test
// binary, which TestMain turns into the gateway), configured by vars on
// top of the stack's settings, and returns its base URL and the process
// once it is ready: its start-up check has asked the database for every
// object (through the caller's fault proxy, if any), so no probe is left
// to meet a fault rule the test adds next.
func startChildGateway(t *testing.T, vars map[string]string) (string, *exec.Cmd) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr
	all := map[string]string{
		"SUPABASE_URL": env.URL, "SUPABASE_ANON_KEY": env.AnonKey, "SUPABASE_SERVICE_ROLE_KEY": env.ServiceRoleKey,
		"MCP_JWT_SECRET": e2eSecret, "JWT_SECRET": env.SigningJWK, "GATEWAY_PUBLIC_URL": base,
		"GATEWAY_LISTEN_ADDR": addr, "GATEWAY_LOG_LEVEL": "error", childEnv: "1",
	}
	for k, v := range env.GatewayVars() {
		all[k] = v
	}
	for k, v := range vars {
		all[k] = v
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range all {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base, cmd
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the gateway process did not start")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var (
	standInState = regexp.MustCompile(`name="state" value="([^"]+)"`)
	pageTitle    = regexp.MustCompile(`<h1>([^<]*)</h1>`)
)

// signInToApprove opens an approval link in a browser of cookies and signs
// in as userID at the stand-in provider; it returns the browser and the
// page it lands on.
func signInToApprove(t *testing.T, link, userID string) (*http.Client, string) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	page := fetch(t, b, http.MethodGet, link, nil)
	m := standInState.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no stand-in sign-in page:\n%s", page)
	}
	return b, fetch(t, b, http.MethodPost, env.AuthURL+"/callback", url.Values{"state": {m[1]}, "user_id": {userID}})
}

func fetch(t *testing.T, b *http.Client, method, u string, form url.Values) string {
	t.Helper()
	var resp *http.Response
	var err error
	if method == http.MethodPost {
		resp, err = b.PostForm(u, form)
	} else {
		resp, err = b.Get(u)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

func h1(page string) string {
	if m := pageTitle.FindStringSubmatch(page); m != nil {
		return html.UnescapeString(m[1])
	}
	return ""
}

// TestWritesGatewayKilledMidApproval: the gateway process is killed
// (SIGKILL) after its approval reached the database and before the answer
// came back. The decision, the write and the record committed together;
// another gateway then shows the link as approved with the one message,
// and approving again there writes nothing more.
func TestWritesGatewayKilledMidApproval(t *testing.T) {
	requireStandIn(t)
	proxy := gatewaytest.NewFaultProxy(t, env.URL)
	vars := writeVars()
	vars["SUPABASE_URL"] = proxy.URL
	gw, child := startChildGateway(t, vars)
	token := createWriteToken(t, gw, env.SessionToken(t, gatewaytest.Alice))
	message := fmt.Sprintf("Approved by a gateway that was then killed (%d).", time.Now().UnixNano())
	forgetMessage(t, message)
	link, id := proposeReply(t, gw+"/functions/v1/mcp-server", token, message)

	b, page := signInToApprove(t, link, gatewaytest.Alice)
	csrf := csrfInput.FindStringSubmatch(page)
	if csrf == nil {
		t.Fatalf("no review page:\n%s", page)
	}
	proxy.Add(gatewaytest.FaultRule{Match: gatewaytest.RPCTo("mcp_pending_action_approve"), Fault: gatewaytest.DelayAnswer, Delay: 3 * time.Second})
	decided := make(chan error, 1)
	go func() {
		resp, err := b.PostForm(link, url.Values{"csrf_token": {csrf[1]}, "decision": {"approve"}})
		if err == nil {
			resp.Body.Close()
		}
		decided <- err
	}()
	// The approval has committed, and its answer is held by the proxy.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if state, _ := storedAction(t, id); state == "approved" && proxy.Hits(gatewaytest.DelayAnswer) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the approval did not reach the database within 10 s")
		}
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := <-decided; err == nil {
		t.Fatal("the decision was answered by a killed gateway")
	}

	state, rowID := storedAction(t, id)
	if n := messagesWith(t, message); state != "approved" || rowID == "" || n != 1 {
		t.Fatalf("after the kill: action %s row %q, %d messages; want approved with the one message", state, rowID, n)
	}
	other := startGateway(t, writeVars())
	otherLink := strings.Replace(link, gw, other, 1)
	_, reopened := signInToApprove(t, otherLink, gatewaytest.Alice)
	if got := h1(reopened); got != "Already approved" {
		t.Errorf("the link on another gateway: %q, want Already approved", got)
	}
	if !strings.Contains(html.UnescapeString(reopened), "message #"+rowID) {
		t.Errorf("the page does not name message #%s:\n%s", rowID, reopened)
	}
	if n := messagesWith(t, message); n != 1 {
		t.Errorf("%d messages, want 1", n)
	}
}
