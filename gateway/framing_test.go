package gateway

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
)

// framingServer serves a gateway whose one function counts the requests it
// sees and answers each with its query string, and returns its address.
func framingServer(t *testing.T) (addr string, handled *atomic.Int32) {
	t.Helper()
	handled = new(atomic.Int32)
	fn := Function{Slug: "f", Register: func(g *echo.Group) {
		g.Any("", func(c echo.Context) error {
			handled.Add(1)
			_, _ = io.Copy(io.Discard, c.Request().Body)
			return c.String(http.StatusOK, "seen "+c.Request().URL.RawQuery)
		})
	}}
	s, _ := newTestServer(t, Options{Functions: []Function{fn}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String(), handled
}

// exchange writes raw to a new connection and reads every response until
// the server closes the connection (or 3 s pass, which fails the test: the
// connection must close).
func exchange(t *testing.T, addr, raw string) []*http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	rd := bufio.NewReader(conn)
	var out []*http.Response
	for {
		resp, err := http.ReadResponse(rd, nil)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("connection still open after %d responses", len(out))
			}
			return out
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(strings.NewReader(string(body)))
		out = append(out, resp)
	}
}

const smuggled = "GET /functions/v1/f?smuggled HTTP/1.1\r\nHost: x\r\n\r\n"

// TestAmbiguousFraming: a request whose length is framed two ways (both
// Transfer-Encoding and Content-Length, RFC 9112 §6.1) is refused with 400
// and Connection: close before any handler runs, and a request smuggled in
// its body is never answered (issue 15 item 1). Other framings Go refuses
// itself also end the connection; ordinary keep-alive traffic is unchanged.
func TestAmbiguousFraming(t *testing.T) {
	addr, handled := framingServer(t)
	chunkedBody := "0\r\n\r\n" + smuggled
	tests := []struct {
		name       string
		raw        string
		wantStatus []int // one per response, in order
		wantCalls  int32
	}{
		{"TE chunked then CL, smuggled request",
			"POST /functions/v1/f HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: " + strconv.Itoa(len(chunkedBody)) + "\r\n\r\n" + chunkedBody,
			[]int{400}, 0},
		{"CL then TE, smuggled request",
			"POST /functions/v1/f HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody,
			[]int{400}, 0},
		{"lower-case names, upper-case value",
			"POST /functions/v1/f HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\ntransfer-encoding: CHUNKED\r\n\r\n" + chunkedBody,
			[]int{400}, 0},
		{"both on HTTP/1.0",
			"POST /functions/v1/f HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody,
			[]int{400}, 0},
		{"both on a GET",
			"GET /functions/v1/f HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody,
			[]int{400}, 0},
		{"both on an unknown path",
			"POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody,
			[]int{400}, 0},
		{"two different Content-Length (Go refuses)",
			"POST /functions/v1/f HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd" + smuggled,
			[]int{400}, 0},
		{"Transfer-Encoding other than chunked (Go refuses)",
			"POST /functions/v1/f HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" + chunkedBody,
			[]int{501}, 0},
		{"Transfer-Encoding identity with Content-Length (Go refuses)",
			"POST /functions/v1/f HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\nContent-Length: 5\r\n\r\n" + chunkedBody,
			[]int{501}, 0},
		{"chunked alone: answered, then the connection closes",
			"POST /functions/v1/f?first HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody,
			[]int{200}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := handled.Load()
			resps := exchange(t, addr, tt.raw)
			var got []int
			for _, r := range resps {
				got = append(got, r.StatusCode)
				if b, _ := io.ReadAll(r.Body); strings.Contains(string(b), "smuggled") {
					t.Errorf("the smuggled request was answered: %s", b)
				}
			}
			if len(got) != len(tt.wantStatus) || (len(got) > 0 && got[0] != tt.wantStatus[0]) {
				t.Fatalf("statuses %v, want %v", got, tt.wantStatus)
			}
			if !resps[0].Close {
				t.Errorf("first response lacks Connection: close: %v", resps[0].Header)
			}
			if calls := handled.Load() - before; calls != tt.wantCalls {
				t.Errorf("handler ran %d times, want %d", calls, tt.wantCalls)
			}
		})
	}
}

// TestFramingKeepAlive: requests framed by Content-Length alone keep the
// connection, and an ambiguous request later on the same connection is still
// recognised (the guard stays in step with the request boundaries).
func TestFramingKeepAlive(t *testing.T) {
	addr, handled := framingServer(t)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	rd := bufio.NewReader(conn)
	roundTrip := func(raw string) *http.Response {
		t.Helper()
		if _, err := io.WriteString(conn, raw); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp
	}
	body := "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" // looks like headers, is a body
	for i, q := range []string{"a", "b", "c"} {
		r := roundTrip("POST /functions/v1/f?" + q + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
		if r.StatusCode != 200 || r.Close {
			t.Fatalf("request %d: %d close=%v", i, r.StatusCode, r.Close)
		}
	}
	r := roundTrip("GET /functions/v1/f?d HTTP/1.1\r\nHost: x\r\n\r\n")
	if r.StatusCode != 200 || r.Close {
		t.Fatalf("bodiless request: %d close=%v", r.StatusCode, r.Close)
	}
	r = roundTrip("POST /functions/v1/f?e HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
	if r.StatusCode != 400 || !r.Close {
		t.Fatalf("ambiguous request after keep-alive traffic: %d close=%v", r.StatusCode, r.Close)
	}
	if n := handled.Load(); n != 4 {
		t.Fatalf("handler ran %d times, want 4", n)
	}
}

// FuzzFramingTracker feeds arbitrary bytes, in arbitrary pieces, through the
// smuggling guard's tracker: it must not panic and must keep its header
// buffer bounded, whatever the input and however it is split.
// FuzzFramingTracker feeds the same bytes, cut in the same pieces, to the
// tracker and to referenceTracker, a byte-at-a-time tracker that parses
// every header block with textproto as net/http does, and requires the same
// state after every piece.
func FuzzFramingTracker(f *testing.F) {
	f.Add([]byte("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), uint8(3))
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\n\r\n"), uint8(1))
	f.Add([]byte("POST / HTTP/1.1\nContent-Length: 3\n\nabcPOST / HTTP/1.1\ntransfer-encoding: x\ncontent-length: 1\n\n"), uint8(7))
	f.Add([]byte("POST / HTTP/1.1\r\nX: a\r\n b\r\nContent-Length:\t 2 \r\n\r\nhiGET / HTTP/1.1\r\nBad Name: 1\r\n\r\n"), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, piece uint8) {
		c, ref := &framingConn{}, &referenceTracker{}
		n := int(piece)%16 + 1
		for len(data) > 0 {
			k := min(n, len(data))
			c.observe(data[:k])
			ref.observe(data[:k])
			data = data[k:]
			if len(c.header) > maxTrackedHeader+16 {
				t.Fatalf("header buffer grew to %d bytes", len(c.header))
			}
			if c.ambiguous != ref.ambiguous || c.stopped != ref.stopped || c.skip != ref.skip || !bytes.Equal(c.header, ref.header) {
				t.Fatalf("after a piece ending %d bytes from the end:\n got ambiguous=%v stopped=%v skip=%d header=%q\nwant ambiguous=%v stopped=%v skip=%d header=%q",
					len(data), c.ambiguous, c.stopped, c.skip, c.header, ref.ambiguous, ref.stopped, ref.skip, ref.header)
			}
		}
	})
}

// referenceTracker is the framing tracker in its plainest form: it looks at
// one byte at a time and hands every header block to textproto.
type referenceTracker struct {
	header             []byte
	skip               int64
	stopped, ambiguous bool
}

func (c *referenceTracker) observe(b []byte) {
	for len(b) > 0 && !c.stopped {
		if c.skip > 0 {
			k := min(int64(len(b)), c.skip)
			c.skip -= k
			b = b[k:]
			continue
		}
		i := 0
		for ; i < len(b); i++ {
			c.header = append(c.header, b[i])
			if b[i] == '\n' && (bytes.HasSuffix(c.header, []byte("\n\n")) || bytes.HasSuffix(c.header, []byte("\n\r\n"))) {
				i++
				c.endOfHeader()
				break
			}
		}
		b = b[i:]
		if len(c.header) > maxTrackedHeader {
			c.stopped = true
		}
	}
}

func (c *referenceTracker) endOfHeader() {
	block := c.header
	c.header = c.header[:0]
	_, rest, ok := bytes.Cut(block, []byte("\n"))
	if !ok {
		c.stopped = true
		return
	}
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(rest))).ReadMIMEHeader()
	if err != nil && err != io.EOF {
		c.stopped = true
		return
	}
	te, cl := h.Values("Transfer-Encoding"), h.Values("Content-Length")
	switch {
	case len(te) > 0:
		c.ambiguous = c.ambiguous || len(cl) > 0
		c.stopped = true
	case len(cl) > 0:
		n, err := strconv.ParseInt(strings.TrimSpace(cl[0]), 10, 64)
		if err != nil || n < 0 {
			c.stopped = true
			return
		}
		c.skip = n
	}
}

// TestScanFraming checks the fast header scan against textproto on the
// blocks it handles and that it defers the others.
func TestScanFraming(t *testing.T) {
	tests := []struct {
		block  string
		want   framing
		scanOK bool
	}{
		{"Host: x\r\n\r\n", framing{}, true},
		{"content-LENGTH:  12 \r\nContent-Length: 13\r\n\r\n", framing{hasCL: true, firstCL: "12"}, true},
		{"Transfer-Encoding: chunked\nContent-Length: 1\n\n", framing{hasTE: true, hasCL: true, firstCL: "1"}, true},
		{"X-Empty:\r\n\r\n", framing{}, true},
		{"X: a\r\n folded\r\nContent-Length: 3\r\n\r\n", framing{hasCL: true, firstCL: "3"}, false},
		{"Bad Name: 1\r\n\r\n", framing{}, false},
		{"NoColon\r\n\r\n", framing{}, false},
		{"X: a\x01b\r\n\r\n", framing{}, false},
	}
	for _, tt := range tests {
		got, ok := scanFraming([]byte(tt.block))
		if ok != tt.scanOK {
			t.Errorf("scanFraming(%q) ok = %v, want %v", tt.block, ok, tt.scanOK)
			continue
		}
		if !ok {
			continue
		}
		ref, refOK := parseFraming([]byte(tt.block))
		if !refOK || strings.TrimSpace(ref.firstCL) != strings.TrimSpace(got.firstCL) || ref.hasCL != got.hasCL || ref.hasTE != got.hasTE {
			t.Errorf("scanFraming(%q) = %+v, textproto says %+v (ok %v)", tt.block, got, ref, refOK)
		}
		got.firstCL = strings.TrimSpace(got.firstCL)
		if got != tt.want {
			t.Errorf("scanFraming(%q) = %+v, want %+v", tt.block, got, tt.want)
		}
	}
}
