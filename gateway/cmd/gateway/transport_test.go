package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// flakyServer answers the first request on every connection and then
// closes that connection without answering the next one, the way an
// upstream or load balancer drops an idle keep-alive connection.
func flakyServer(t *testing.T) (url string, requests *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	requests = new(atomic.Int32)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				rd := bufio.NewReader(conn)
				req, err := http.ReadRequest(rd)
				if err != nil {
					return
				}
				requests.Add(1)
				_ = req.Body.Close()
				_, _ = conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
				// Wait for the next request on this connection, then drop it.
				if _, err := http.ReadRequest(rd); err == nil {
					requests.Add(1)
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String(), requests
}

// TestUpstreamTransportReplaysOnlyReads pins the standard library's rule
// on the transport the gateway builds for its upstreams
// (newUpstreamTransport): a GET that meets a dead keep-alive connection is
// replayed once on a new one, and a POST is never sent twice. The gateway
// adds no retry layer of its own; the rule is net/http's, so this test
// guards the choice, and would catch a transport setting or wrapper that
// changed it, rather than gateway code that implements it.
func TestUpstreamTransportReplaysOnlyReads(t *testing.T) {
	url, requests := flakyServer(t)
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

	url, requests = flakyServer(t)
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
