package gatewaytest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fault is what FaultProxy does to one chosen exchange.
type Fault int

// The faults, each at one point of an exchange.
const (
	// DropRequest closes the client's connection without forwarding the
	// request: the upstream never sees it.
	DropRequest Fault = iota + 1
	// DropAnswer forwards the request, waits for the whole answer, then
	// closes the client's connection without a byte of it: the upstream
	// did the work, the client cannot know.
	DropAnswer
	// TruncateAnswer forwards the request and sends the answer's head and
	// half its body, then closes the connection.
	TruncateAnswer
	// DelayAnswer forwards the request and holds the answer for the
	// rule's Delay before sending it (the client may have given up).
	DelayAnswer
	// ServerError answers 503 with a PostgREST-shaped error without
	// forwarding the request.
	ServerError
)

// FaultRule applies Fault to the next Times requests Match accepts,
// after letting the first Skip of them pass. OnMatch, when set, runs as a
// request matches, before it is forwarded (to stop a server just then);
// a rule without a Fault then forwards the exchange unchanged.
type FaultRule struct {
	Match   func(*http.Request) bool
	Fault   Fault
	Delay   time.Duration
	Times   int
	Skip    int
	OnMatch func()
}

// FaultProxy is a loopback HTTP proxy to one upstream that injects faults
// into chosen exchanges, for the tests of what a client reports when an
// answer is lost, cut or late. Requests no rule matches pass unchanged.
// The upstream request is never cancelled by the client's going away, as
// a real server carries on with a request whose client left.
type FaultProxy struct {
	URL      string
	upstream string
	client   *http.Client

	mu    sync.Mutex
	rules []*FaultRule
	hits  map[Fault]int
	paths []string // distinct request paths, in the order first seen
}

// NewFaultProxy starts a proxy to upstream (a base URL) for the test.
func NewFaultProxy(t testing.TB, upstream string) *FaultProxy {
	t.Helper()
	p := &FaultProxy{upstream: upstream, client: &http.Client{}, hits: map[Fault]int{}}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Add arms r (Times 0 means once).
func (p *FaultProxy) Add(r FaultRule) {
	if r.Times == 0 {
		r.Times = 1
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, &r)
}

// Reset disarms every rule and forgets the paths seen.
func (p *FaultProxy) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules, p.paths = nil, nil
}

// Paths are the distinct request paths the proxy has seen since it
// started or was Reset, in the order first seen.
func (p *FaultProxy) Paths() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.paths...)
}

// Hits is how many exchanges got fault f.
func (p *FaultProxy) Hits(f Fault) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hits[f]
}

// take returns the first armed rule r matches, using one of its times.
func (p *FaultProxy) take(r *http.Request) *FaultRule {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.paths, r.URL.Path) {
		p.paths = append(p.paths, r.URL.Path)
	}
	for _, rule := range p.rules {
		if rule.Times > 0 && rule.Match(r) {
			if rule.Skip > 0 {
				rule.Skip--
				continue
			}
			rule.Times--
			p.hits[rule.Fault]++
			return rule
		}
	}
	return nil
}

// ServeHTTP forwards r, applying the fault of the rule it matches.
func (p *FaultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rule := p.take(r)
	if rule != nil && rule.OnMatch != nil {
		rule.OnMatch()
	}
	if rule != nil && rule.Fault == DropRequest {
		hangUp(w)
		return
	}
	if rule != nil && rule.Fault == ServerError {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"code":"PGRST000","details":null,"hint":null,"message":"Could not connect with the database"}`))
		return
	}
	body, _ := io.ReadAll(r.Body)
	out, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), r.Method, p.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	resp, err := p.client.Do(out)
	if err != nil {
		http.Error(w, "upstream unreachable", http.StatusBadGateway)
		return
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if rule != nil {
		switch rule.Fault {
		case DropAnswer:
			hangUp(w)
			return
		case DelayAnswer:
			select {
			case <-time.After(rule.Delay):
			case <-r.Context().Done():
				return
			}
		case TruncateAnswer:
			copyHead(w, resp)
			w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
			w.WriteHeader(resp.StatusCode)
			_, _ = w.Write(answer[:len(answer)/2])
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			hangUp(w)
			return
		}
	}
	copyHead(w, resp)
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}

func copyHead(w http.ResponseWriter, resp *http.Response) {
	for k, vs := range resp.Header {
		if k == "Content-Length" {
			continue
		}
		w.Header()[k] = vs
	}
}

// hangUp closes the client's connection at once.
func hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

// RPCTo matches a POST to the SQL function fn through PostgREST.
func RPCTo(fn string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/rpc/"+fn)
	}
}
