package gatewaytest

import (
	"bufio"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
)

// DroppingServer is an upstream that answers the first request on every
// connection (200, body "ok") and then closes that connection when the
// next request arrives, without answering it — the way an upstream or a
// load balancer drops an idle keep-alive connection. It returns its URL and
// the count of requests it has read, answered or not.
func DroppingServer(t *testing.T) (url string, requests *atomic.Int32) {
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
				if _, err := http.ReadRequest(rd); err == nil {
					requests.Add(1)
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String(), requests
}
