package mcpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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
		return writeLargeResult(c, http.StatusOK, []byte(`{"result":`), []byte(`"`+strings.Repeat("b", 20000)+`"`))
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
		{"/large", int64(len(`{"result":`)) + 20002 + 1},
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
