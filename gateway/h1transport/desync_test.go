package h1transport

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// secondAnswer is what the server answers every request after the first;
// evilAnswer is a well-formed answer nobody asked for.
const (
	secondAnswer = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond"
	evilAnswer   = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil"
)

// scriptedServer answers the first request it reads (on any connection)
// with first, written in two writes cut at split with gap between them,
// then closes that connection if closeAfter is set; every later request
// gets secondAnswer. written is closed once the first answer's bytes are
// all written.
func scriptedServer(t testing.TB, first []byte, split int, gap time.Duration, closeAfter bool) (url string, written chan struct{}, conns *atomic.Int32) {
	t.Helper()
	written = make(chan struct{})
	var answeredFirst atomic.Bool
	url, conns = rawServer(t, func(conn net.Conn, rd *bufio.Reader) {
		for {
			if _, err := http.ReadRequest(rd); err != nil {
				return
			}
			if answeredFirst.CompareAndSwap(false, true) {
				split := min(split, len(first))
				_, _ = conn.Write(first[:split])
				time.Sleep(gap)
				_, _ = conn.Write(first[split:])
				close(written)
				if closeAfter {
					return
				}
				continue
			}
			if _, err := io.WriteString(conn, secondAnswer); err != nil {
				return
			}
		}
	})
	return url, written, conns
}

// twoGets sends a GET, reads its answer whatever it is (bounded by a short
// deadline), waits until the server has written all of its first answer,
// then sends a second GET and returns that one's body.
func twoGets(t testing.TB, tr *Transport, url string, written chan struct{}) (string, error) {
	t.Helper()
	c := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/one", nil)
	if resp, err := c.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	cancel()
	select {
	case <-written:
	case <-time.After(5 * time.Second):
		t.Fatal("the server never wrote its first answer")
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	req, _ = http.NewRequestWithContext(ctx2, http.MethodGet, url+"/two", nil)
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// TestUnsolicitedBytesAreNotAnAnswer: bytes an upstream sends beyond an
// answer — in the same write, in a later one, or the end of the connection
// — never become the next request's answer.
func TestUnsolicitedBytesAreNotAnAnswer(t *testing.T) {
	okFirst := "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"
	tests := []struct {
		name       string
		first      string
		split      int
		gap        time.Duration
		closeAfter bool
		wantConns  int32
	}{
		{"clean answer: the connection is reused", okFirst, 10, 0, false, 1},
		{"extra answer in the same write", okFirst + secondAnswer + "X", 1000, 0, false, 2},
		{"extra answer right behind", okFirst + evilAnswer, len(okFirst), 0, false, 2},
		// The extra bytes arrive after the first answer was read and its
		// connection went back to the pool: only the peek at reuse sees them.
		{"extra answer after the first was read", okFirst + evilAnswer, len(okFirst), 50 * time.Millisecond, false, 2},
		{"body longer than its Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nfirst", 1000, 0, false, 2},
		{"server closed the idle connection", okFirst, 1000, 0, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, written, conns := scriptedServer(t, []byte(tt.first), tt.split, tt.gap, tt.closeAfter)
			got, err := twoGets(t, &Transport{Fallback: &recorder{}}, url, written)
			if err != nil || got != "second" {
				t.Fatalf("second GET: %q, %v; want the server's second answer", got, err)
			}
			if n := conns.Load(); n != tt.wantConns {
				t.Fatalf("%d connections, want %d", n, tt.wantConns)
			}
		})
	}
}

// TestNoAnswerLeaksIntoTheNext sends tricky first answers, each cut in two
// writes at every possible place, and requires the next request to get
// exactly the server's answer to it, never bytes left from the first.
func TestNoAnswerLeaksIntoTheNext(t *testing.T) {
	answers := []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n0\r\n\r\n" + evilAnswer,
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n" + evilAnswer,
		"HTTP/1.1 304 Not Modified\r\nContent-Length: 4\r\n\r\n" + evilAnswer,
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 5\r\n\r\nfirst" + evilAnswer,
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nfirst" + evilAnswer,
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nfirst!",
	}
	for i, a := range answers {
		for split := 0; split <= len(a); split++ {
			url, written, _ := scriptedServer(t, []byte(a), split, 0, false)
			tr := &Transport{Fallback: &recorder{}}
			got, err := twoGets(t, tr, url, written)
			tr.CloseIdleConnections()
			if err != nil || got != "second" {
				t.Fatalf("answer %d cut at %d: second GET got %q, %v; want the server's second answer", i, split, got, err)
			}
		}
	}
}
