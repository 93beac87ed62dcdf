package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest"
	"github.com/pawtograder/mcp-gateway/gateway/h1transport"
)

// TestUpstreamTransportReplaysOnlyReads pins the standard library's rule
// on the transport the gateway builds for its upstreams
// (newUpstreamTransport): a GET that meets a dead keep-alive connection is
// replayed once on a new one, and a POST is never sent twice. The gateway
// adds no retry layer of its own; the rule is net/http's, so this test
// guards the choice, and would catch a transport setting or wrapper that
// changed it, rather than gateway code that implements it.
func TestUpstreamTransportReplaysOnlyReads(t *testing.T) {
	url, requests := gatewaytest.DroppingServer(t)
	c := &http.Client{Transport: newUpstreamTransport()}
	get := func() error {
		resp, err := c.Get(url + "/rest/v1/assignments")
		if err == nil {
			// Read to the end, as the PostgREST client does, so the
			// connection goes back to the pool.
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return err
	}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	if err := get(); err != nil {
		t.Fatalf("GET on a dropped keep-alive connection was not replayed: %v", err)
	}
	if got := requests.Load(); got != 3 {
		t.Fatalf("server saw %d requests, want 3 (first, the dropped one, the replay)", got)
	}

	url, requests = gatewaytest.DroppingServer(t)
	c = &http.Client{Transport: newUpstreamTransport()}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Post(url+"/rest/v1/api_tokens", "application/json", strings.NewReader(`{"name":"x"}`))
	if err == nil {
		resp.Body.Close()
		t.Fatal("POST on a dropped connection succeeded; it must fail rather than be replayed")
	}
	if got := requests.Load(); got != 2 {
		t.Fatalf("server saw %d requests, want 2 (the POST sent once)", got)
	}
}

// TestRestTransport checks which transport the wiring gives PostgREST:
// h1transport (over the pooled transport) for a plain-http URL with no
// proxy, the pooled transport itself for https or when a proxy applies;
// and that through h1transport a GET on a dropped keep-alive connection is
// still replayed once.
func TestRestTransport(t *testing.T) {
	parse := func(s string) *url.URL {
		u, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	base := newUpstreamTransport()
	viaProxy := newUpstreamTransport()
	viaProxy.Proxy = func(*http.Request) (*url.URL, error) { return parse("http://proxy.internal:3128"), nil }
	for _, tc := range []struct {
		name    string
		rest    string
		base    *http.Transport
		wantH1  bool
		wantErr bool
	}{
		{"plain http", "http://kong:8000/rest/v1", base, true, false},
		{"https", "https://abc.supabase.co/rest/v1", base, false, false},
		{"a proxy applies", "http://kong:8000/rest/v1", viaProxy, false, false},
	} {
		got := restTransport(parse(tc.rest), tc.base)
		h1, isH1 := got.(*h1transport.Transport)
		if isH1 != tc.wantH1 {
			t.Errorf("%s: transport %T, want h1transport: %v", tc.name, got, tc.wantH1)
		}
		if isH1 && (h1.Fallback != tc.base || h1.MaxIdlePerHost != tc.base.MaxIdleConnsPerHost || h1.IdleTimeout != tc.base.IdleConnTimeout) {
			t.Errorf("%s: h1transport %+v does not carry the pooled transport's fallback and limits", tc.name, h1)
		}
		if !isH1 && got != http.RoundTripper(tc.base) {
			t.Errorf("%s: got %T, want the pooled transport itself", tc.name, got)
		}
	}

	srv, requests := gatewaytest.DroppingServer(t)
	c := &http.Client{Transport: restTransport(parse(srv+"/rest/v1"), newUpstreamTransport())}
	for i := range 2 {
		resp, err := c.Get(srv + "/rest/v1/revoked_token_ids")
		if err != nil {
			t.Fatalf("GET %d: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if got := requests.Load(); got != 3 {
		t.Fatalf("server saw %d requests, want 3 (first, the dropped one, the replay)", got)
	}
}
