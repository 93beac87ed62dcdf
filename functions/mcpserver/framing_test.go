package mcpserver

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestAnswersDeclareTheirLength checks, through a real net/http server,
// that JSON answers of every size go out with Content-Length, as the
// original's runtime sends a string body, rather than chunked.
func TestAnswersDeclareTheirLength(t *testing.T) {
	e := echo.New()
	e.POST("/json/:n", func(c echo.Context) error {
		n := len(c.Param("n")) * 1000
		return writeJSON(c, http.StatusOK, []byte(`"`+strings.Repeat("a", n)+`"`))
	})
	e.POST("/large", func(c echo.Context) error {
		return (&Server{}).writeResponse(c, http.StatusOK, resultResponse(float64(1), []byte(`"`+strings.Repeat("b", 20000)+`"`)), nil)
	})
	srv := httptest.NewServer(e)
	defer srv.Close()
	for _, tc := range []struct {
		path string
		size int64
	}{
		{"/json/x", 1002},
		{"/json/xx", 2002},
		{"/json/xxxxx", 5002},
		{"/large", int64(len(`{"jsonrpc":"2.0","id":1,"result":`)) + 20002 + 1},
	} {
		resp, err := http.Post(srv.URL+tc.path, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.ContentLength != tc.size || int64(len(body)) != tc.size || len(resp.TransferEncoding) != 0 {
			t.Errorf("%s: Content-Length %d, body %d bytes, Transfer-Encoding %q; want %d declared, not chunked",
				tc.path, resp.ContentLength, len(body), resp.TransferEncoding, tc.size)
		}
	}
}

// countingListener counts the Write calls on the connections it accepts.
type countingListener struct {
	net.Listener
	writes *atomic.Int32
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	return countingConn{c, l.writes}, err
}

type countingConn struct {
	net.Conn
	writes *atomic.Int32
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// TestLargeAnswerWrites counts the writes to the connection (each one a
// system call) for a large answer: net/http fills its 4 KiB buffer with the
// header, the envelope's head and the start of the result, writes the rest
// of the result at once, then the closing brace when the handler returns —
// three in all, whatever the size, because the result is written as it is,
// never copied into a buffer of its size (for a cached tools/list that copy
// cost about a third of the request's CPU).
func TestLargeAnswerWrites(t *testing.T) {
	e := echo.New()
	e.POST("/large/:n", func(c echo.Context) error {
		n, _ := strconv.Atoi(c.Param("n"))
		return (&Server{}).writeResponse(c, http.StatusOK, resultResponse(float64(1), []byte(`"`+strings.Repeat("b", n)+`"`)), nil)
	})
	writes := new(atomic.Int32)
	srv := httptest.NewUnstartedServer(e)
	srv.Listener = countingListener{srv.Listener, writes}
	srv.Start()
	defer srv.Close()
	for _, size := range []int{20000, 100 << 10, 2 << 20} {
		writes.Store(0)
		resp, err := http.Post(srv.URL+"/large/"+strconv.Itoa(size), "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := `{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("b", size) + `"}`
		if string(body) != want {
			t.Fatalf("%d: body of %d bytes differs from the answer", size, len(body))
		}
		if n := int(writes.Load()); n != 3 {
			t.Errorf("%d-byte result: %d writes, want 3", size, n)
		}
	}
}
