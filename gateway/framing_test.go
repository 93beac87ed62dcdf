package gateway

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"
)

// framingServer serves, on a real listener, a gateway whose one function
// counts the requests it sees, reads each body whole and answers "seen
// <query> <body length>", and returns its address.
func framingServer(t *testing.T, opts Options) (addr string, handled *atomic.Int32) {
	t.Helper()
	handled = new(atomic.Int32)
	fn := Function{Slug: "f", Register: func(g *echo.Group) {
		g.Any("", func(c echo.Context) error {
			handled.Add(1)
			n, err := io.Copy(io.Discard, c.Request().Body)
			if err != nil {
				return err
			}
			return c.String(http.StatusOK, "seen "+c.Request().URL.RawQuery+" "+strconv.FormatInt(n, 10))
		})
	}}
	opts.Functions = []Function{fn}
	s, _ := newTestServer(t, opts)
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

// answer is what a test asserts of one response.
type answer struct {
	Status int
	Close  bool // the response says Connection: close
	Body   string
}

// exchange holds a conversation on a new connection: it writes each part
// but the last and reads one response to it (the connection kept alive),
// then writes the last part, from a goroutine so a server that stops
// reading cannot block the test, and reads until the server closes the
// connection. It fails the test unless the connection ends with a clean
// close (FIN, io.EOF) within 5 s: a reset (ECONNRESET), as a client whose
// request was refused early would see it, or a connection left open fails.
// It returns every response read, in order.
func exchange(t *testing.T, addr string, parts ...string) []answer {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	rd := bufio.NewReader(conn)
	var out []answer
	for _, p := range parts[:len(parts)-1] {
		if _, err := io.WriteString(conn, p); err != nil {
			t.Fatal(err)
		}
		a, err := readAnswer(rd)
		if err != nil {
			t.Fatalf("response %d: %v", len(out)+1, err)
		}
		out = append(out, a)
	}
	go func() {
		// The server may stop reading and close: the error is expected.
		_, _ = io.WriteString(conn, parts[len(parts)-1])
	}()
	rest, err := io.ReadAll(rd)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("connection still open after 5 s; read %q", rest)
		}
		t.Fatalf("connection ended with %v, want a clean close (io.EOF); read %q", err, rest)
	}
	rd = bufio.NewReader(bytes.NewReader(rest))
	for {
		if _, err := rd.Peek(1); err == io.EOF {
			return out
		}
		a, err := readAnswer(rd)
		if err != nil {
			t.Fatalf("response %d: %v; read %q", len(out)+1, err, rest)
		}
		out = append(out, a)
	}
}

// readAnswer reads one response.
func readAnswer(rd *bufio.Reader) (answer, error) {
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		return answer{}, err
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	return answer{resp.StatusCode, resp.Close, string(body)}, nil
}

// smuggled is a request hidden in another request's body; it must never be
// answered.
const smuggled = "GET /functions/v1/f?smuggled HTTP/1.1\r\nHost: x\r\n\r\n"

// chunkedBody is an empty chunked body followed by the smuggled request.
const chunkedBody = "0\r\n\r\n" + smuggled

// goRefusal is how net/http itself answers a request it refuses before any
// handler runs.
func goRefusal(status int, body string) []answer {
	return []answer{{status, true, body}}
}

// TestTransferEncodingClosesConnection: every request that carries
// Transfer-Encoding (RFC 9112 §6.1), and every HTTP/1.0 request kept alive
// (net/http drops Transfer-Encoding from those before a handler can see
// it), is answered with Connection: close and nothing after it on the
// connection is answered, whatever the spelling of the framing headers.
// net/http frames a request that has both by Transfer-Encoding and removes
// Content-Length, so the function answers it; the framings net/http
// refuses itself end the connection without reaching the function.
func TestTransferEncodingClosesConnection(t *testing.T) {
	addr, handled := framingServer(t, Options{})
	post := func(headers string) string {
		return "POST /functions/v1/f?first HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n" + chunkedBody
	}
	cl := "Content-Length: " + strconv.Itoa(len(chunkedBody)) + "\r\n"
	served := []answer{{200, true, "seen first 0"}}
	tests := []struct {
		name      string
		raw       string
		want      []answer
		wantCalls int32
	}{
		{"chunked alone", post("Transfer-Encoding: chunked\r\n"), served, 1},
		{"TE then CL", post("Transfer-Encoding: chunked\r\n" + cl), served, 1},
		{"CL then TE", post(cl + "Transfer-Encoding: chunked\r\n"), served, 1},
		{"short CL", post("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"), served, 1},
		{"lower-case names, upper-case value", post("transfer-encoding: CHUNKED\r\ncontent-length: 5\r\n"), served, 1},
		{"no space after the colon", post("Transfer-Encoding:chunked\r\nContent-Length:5\r\n"), served, 1},
		{"spaces and tabs around the value", post("Transfer-Encoding: \t chunked \t\r\nContent-Length: 5\r\n"), served, 1},
		{"the same CL twice", post("Content-Length: 5\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n"), served, 1},
		{"bare LF line ends", "POST /functions/v1/f?first HTTP/1.1\nHost: x\nTransfer-Encoding: chunked\nContent-Length: 5\n\n" + chunkedBody, served, 1},
		{"obs-fold of the TE value", post("Transfer-Encoding:\r\n chunked\r\nContent-Length: 5\r\n"), served, 1},
		{"on a GET", "GET /functions/v1/f?first HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody, served, 1},
		{"on an unknown path", "POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody,
			[]answer{{404, true, notFoundBody}}, 0},
		// HTTP/1.0 has no Transfer-Encoding: net/http ignores it and frames
		// by Content-Length, and the gateway closes every HTTP/1.0
		// connection after one answer.
		{"TE and CL on HTTP/1.0", "POST /functions/v1/f?first HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody,
			[]answer{{200, true, "seen first 5"}}, 1},
		{"TE alone on HTTP/1.0", "POST /functions/v1/f?first HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody,
			[]answer{{200, true, "seen first 0"}}, 1},
		// Refused by net/http before any handler runs.
		{"two TE lines", post("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n"),
			goRefusal(501, "Unsupported transfer encoding"), 0},
		{"identity, chunked", post("Transfer-Encoding: identity, chunked\r\nContent-Length: 5\r\n"),
			goRefusal(501, "Unsupported transfer encoding"), 0},
		{"chunked, identity", post("Transfer-Encoding: chunked, identity\r\n"),
			goRefusal(501, "Unsupported transfer encoding"), 0},
		{"gzip, chunked", post("Transfer-Encoding: gzip, chunked\r\n"),
			goRefusal(501, "Unsupported transfer encoding"), 0},
		{"identity with CL", post("Transfer-Encoding: identity\r\nContent-Length: 5\r\n"),
			goRefusal(501, "Unsupported transfer encoding"), 0},
		{"TE with two different CL", post("Transfer-Encoding: chunked\r\nContent-Length: 3\r\nContent-Length: 4\r\n"),
			goRefusal(400, "400 Bad Request"), 0},
		{"two different CL", "POST /functions/v1/f HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd" + smuggled,
			goRefusal(400, "400 Bad Request"), 0},
		{"space before the colon", post("Transfer-Encoding : chunked\r\nContent-Length: 5\r\n"),
			goRefusal(400, "400 Bad Request: invalid header name"), 0},
		{"obs-fold as the first header line", "POST /functions/v1/f HTTP/1.1\r\n Transfer-Encoding: chunked\r\nHost: x\r\nContent-Length: 5\r\n\r\n" + chunkedBody,
			goRefusal(400, "400 Bad Request"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := handled.Load()
			got := exchange(t, addr, tt.raw)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("responses until the connection closed (-want +got):\n%s", diff)
			}
			if calls := handled.Load() - before; calls != tt.wantCalls {
				t.Errorf("function ran %d times, want %d", calls, tt.wantCalls)
			}
		})
	}
}

// TestBlankLineBeforeChunkedRequest: net/http skips up to four CR or LF
// bytes after a POST. On a kept-alive connection, after a POST framed by
// Content-Length has been answered, such a blank line and then a chunked
// request (with a Content-Length as well) is answered exactly as that
// chunked request alone on a new connection, with Connection: close, and
// nothing after it is answered — neither a request after its body nor one
// its chunk swallows as data.
func TestBlankLineBeforeChunkedRequest(t *testing.T) {
	addr, handled := framingServer(t, Options{})
	chunked := "POST /functions/v1/f?second HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n"
	// A chunk longer than the Content-Length: it takes in the request
	// after it as data.
	long := "GET /functions/v1/f?swallowed HTTP/1.1\r\nHost: x\r\n\r\n"
	bodies := []struct {
		name, body string
		length     int // of the chunked body's data
	}{
		{"request after the body", chunkedBody, 0},
		{"chunk longer than CL", strconv.FormatInt(int64(len(long)), 16) + "\r\n" + long + "\r\n0\r\n\r\n" + smuggled, len(long)},
	}
	for _, b := range bodies {
		alone := exchange(t, addr, chunked+b.body)
		want := []answer{{200, true, "seen second " + strconv.Itoa(b.length)}}
		if diff := cmp.Diff(want, alone); diff != "" {
			t.Errorf("%s, alone on a connection (-want +got):\n%s", b.name, diff)
		}
		for _, blank := range []string{"\r\n", "\n", "\r\r\n"} {
			t.Run(b.name+"/"+strconv.Quote(blank), func(t *testing.T) {
				before := handled.Load()
				first := "POST /functions/v1/f?first HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
				got := exchange(t, addr, first, blank+chunked+b.body)
				want := append([]answer{{200, false, "seen first 3"}}, alone...)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("responses until the connection closed (-want +got):\n%s", diff)
				}
				if calls := handled.Load() - before; calls != 2 {
					t.Errorf("function ran %d times, want 2", calls)
				}
			})
		}
	}
}

// TestContentLengthKeepsConnection: requests framed by Content-Length
// alone, or with no body, keep the connection open, whatever their bodies
// look like.
func TestContentLengthKeepsConnection(t *testing.T) {
	addr, handled := framingServer(t, Options{})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	rd := bufio.NewReader(conn)
	roundTrip := func(raw string) answer {
		t.Helper()
		if _, err := io.WriteString(conn, raw); err != nil {
			t.Fatal(err)
		}
		a, err := readAnswer(rd)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	body := "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" // looks like headers, is a body
	var got []answer
	for _, q := range []string{"a", "b", "c"} {
		got = append(got, roundTrip("POST /functions/v1/f?"+q+" HTTP/1.1\r\nHost: x\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body))
	}
	got = append(got, roundTrip("GET /functions/v1/f?d HTTP/1.1\r\nHost: x\r\n\r\n"))
	n := strconv.Itoa(len(body))
	want := []answer{{200, false, "seen a " + n}, {200, false, "seen b " + n}, {200, false, "seen c " + n}, {200, false, "seen d 0"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("responses (-want +got):\n%s", diff)
	}
	if n := handled.Load(); n != 4 {
		t.Errorf("function ran %d times, want 4", n)
	}
}

// TestEarlyAnswersEndWithFIN: the answers net/http and the gateway give
// before reading a whole request (a malformed request line, a header block
// over the limit, a body over the limit) end with the server's clean close,
// so the client reads the answer and then io.EOF — never a reset, which can
// also destroy the answer before the client reads it.
func TestEarlyAnswersEndWithFIN(t *testing.T) {
	const limit = 1 << 10
	addr, handled := framingServer(t, Options{BodyLimit: limit})
	big := strings.Repeat("a", http.DefaultMaxHeaderBytes+64<<10)
	over := strings.Repeat("b", 4<<20)
	var chunks strings.Builder
	for range 64 {
		chunks.WriteString("10000\r\n" + strings.Repeat("c", 1<<16) + "\r\n")
	}
	tooLarge := `{"error":"Request body too large"}`
	tests := []struct {
		name string
		raw  string
		want []answer
	}{
		{"malformed request line", "NOT A REQUEST\r\n\r\n", goRefusal(400, "400 Bad Request")},
		{"header block over the limit", "GET /functions/v1/f HTTP/1.1\r\nHost: x\r\nX-Big: " + big + "\r\n\r\n",
			goRefusal(431, "431 Request Header Fields Too Large")},
		{"declared body over the limit", "POST /functions/v1/f HTTP/1.1\r\nHost: x\r\nContent-Length: " + strconv.Itoa(len(over)) + "\r\n\r\n" + over,
			[]answer{{413, true, tooLarge}}},
		{"chunked body over the limit", "POST /functions/v1/f HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks.String() + "0\r\n\r\n",
			[]answer{{413, true, tooLarge}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := exchange(t, addr, tt.raw)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("responses (-want +got):\n%s", diff)
			}
		})
	}
	if n := handled.Load(); n != 1 {
		t.Errorf("function ran %d times, want 1 (the chunked request)", n)
	}
}

// TestFramingRefusesVisibleTEAndCL: when a request reaches the gateway with
// both Transfer-Encoding and Content-Length visible (net/http's server
// removes Content-Length first, so only a handler embedding the gateway
// elsewhere can see both), it is refused before any route runs.
func TestFramingRefusesVisibleTEAndCL(t *testing.T) {
	s, _ := newTestServer(t, Options{Functions: []Function{echoFunction("f")}})
	tests := []struct {
		name  string
		setup func(r *http.Request)
		want  response
	}{
		{"TE field and CL header", func(r *http.Request) {
			r.TransferEncoding = []string{"chunked"}
			r.ContentLength = -1
			r.Header.Set("Content-Length", "5")
		}, response{400, "text/plain; charset=utf-8", framingRefusal, map[string]string{"Connection": "close"}}},
		{"TE header and a length", func(r *http.Request) {
			r.Header.Set("Transfer-Encoding", "chunked")
			r.ContentLength = 5
		}, response{400, "text/plain; charset=utf-8", framingRefusal, map[string]string{"Connection": "close"}}},
		{"TE alone", func(r *http.Request) {
			r.TransferEncoding = []string{"chunked"}
			r.ContentLength = -1
		}, response{200, "text/plain; charset=UTF-8", "f POST /functions/v1/f", map[string]string{"Connection": "close"}}},
		{"neither", func(r *http.Request) {}, response{200, "text/plain; charset=UTF-8", "f POST /functions/v1/f", map[string]string{"Connection": ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/functions/v1/f", strings.NewReader("0\r\n\r\n"))
			tt.setup(req)
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			got := response{Status: rec.Code, ContentType: rec.Header().Get("Content-Type"), Body: rec.Body.String(),
				Header: map[string]string{"Connection": rec.Header().Get("Connection")}}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
