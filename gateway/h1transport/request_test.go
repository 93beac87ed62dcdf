package h1transport

import (
	"bufio"
	"bytes"
	"net/http"
	"net/url"
	"testing"
)

// TestRequestTargetIsRequestURI checks that the request line is the one
// net/http writes: the target's two parts, written one after the other,
// are url.URL.RequestURI for every form a URL can take.
func TestRequestTargetIsRequestURI(t *testing.T) {
	urls := []string{
		"http://h/rest/v1/user_roles?select=class_id,role&user_id=eq.u1",
		"http://h/rest/v1/assignments",
		"http://h",
		"http://h/",
		"http://h/?",         // ForceQuery
		"http://h?x=1",       // empty path with a query
		"http://h/a%2Fb?c=d", // RawPath kept
		"http://h/caf%C3%A9", // escaped by EscapedPath
		"http://h/a;b=c",
		"http:opaque?x=1", // Opaque
		"http://h//double/slash?q",
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		req := &http.Request{Method: http.MethodGet, URL: u, Host: "h", Header: http.Header{}}
		h, err := checkRequest(req)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		if err := writeRequest(w, req, h); err != nil {
			t.Fatal(err)
		}
		line, _, _ := bytes.Cut(buf.Bytes(), []byte("\r\n"))
		if want := "GET " + u.RequestURI() + " HTTP/1.1"; string(line) != want {
			t.Errorf("%s: request line %q, want %q", raw, line, want)
		}
	}
}

// TestRequestTargetLineBreaks checks that neither part of the target can
// carry a line break or a space into the request line.
func TestRequestTargetLineBreaks(t *testing.T) {
	tests := []struct {
		name string
		u    url.URL
	}{
		{"space in query", url.URL{Scheme: "http", Host: "h", Path: "/a", RawQuery: "x=1 HTTP/1.1"}},
		{"CR LF in query", url.URL{Scheme: "http", Host: "h", Path: "/a", RawQuery: "x=1\r\nX-Evil: 1"}},
		{"LF in raw path", url.URL{Scheme: "http", Host: "h", Opaque: "/a\nb"}},
	}
	for _, tt := range tests {
		_, err := checkRequest(&http.Request{Method: http.MethodGet, URL: &tt.u, Host: "h", Header: http.Header{}})
		if err == nil || err.Error() != "h1transport: invalid request URI" {
			t.Errorf("%s: error %v, want h1transport: invalid request URI", tt.name, err)
		}
	}
}
