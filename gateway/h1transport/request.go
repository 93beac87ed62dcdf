package h1transport

import (
	"bufio"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// userAgent is the header net/http sends when a request sets none, kept so
// that upstream logs do not change with the transport.
const userAgent = "Go-http-client/1.1"

// head is a checked request head, ready to write. The request-target is
// kept in its two parts, written one after the other: joining them, as
// url.URL.RequestURI does, cost an allocation per upstream request.
type head struct {
	host     string
	path     string // escaped path, or the whole target of an opaque URL
	query    string
	hasQuery bool // "?" and query follow path
}

// requestTarget splits u's request-target as RequestURI builds it.
func requestTarget(u *url.URL) (path, query string, hasQuery bool) {
	if u.Opaque != "" {
		return u.RequestURI(), "", false // rare: RequestURI handles its forms
	}
	if path = u.EscapedPath(); path == "" {
		path = "/"
	}
	return path, u.RawQuery, u.ForceQuery || u.RawQuery != ""
}

// checkRequest checks req's head as net/http checks it before sending, so
// that a value with a line break can never start a second request; it runs
// before any connection is taken.
func checkRequest(req *http.Request) (head, error) {
	h := head{host: req.Host}
	h.path, h.query, h.hasQuery = requestTarget(req.URL)
	if h.host == "" {
		h.host = req.URL.Host
	}
	if !httpguts.ValidHostHeader(h.host) {
		return h, errors.New("h1transport: invalid Host header")
	}
	if strings.ContainsAny(h.path, " \r\n") || strings.ContainsAny(h.query, " \r\n") {
		return h, errors.New("h1transport: invalid request URI")
	}
	for name, values := range req.Header {
		if !httpguts.ValidHeaderFieldName(name) {
			return h, errors.New("h1transport: invalid header name")
		}
		for _, v := range values {
			if !httpguts.ValidHeaderFieldValue(v) {
				return h, errors.New("h1transport: invalid value for header " + name)
			}
		}
	}
	return h, nil
}

// writeRequest writes req's head (it has no body) and flushes it in one
// write.
func writeRequest(w *bufio.Writer, req *http.Request, h head) error {
	w.WriteString(req.Method)
	w.WriteByte(' ')
	w.WriteString(h.path)
	if h.hasQuery {
		w.WriteByte('?')
		w.WriteString(h.query)
	}
	w.WriteString(" HTTP/1.1\r\nHost: ")
	w.WriteString(h.host)
	w.WriteString("\r\n")
	if _, ok := req.Header["User-Agent"]; !ok {
		w.WriteString("User-Agent: " + userAgent + "\r\n")
	}
	for name, values := range req.Header {
		if name == "Host" {
			continue // written above, from req.Host, as net/http does
		}
		for _, v := range values {
			w.WriteString(name)
			w.WriteString(": ")
			w.WriteString(strings.TrimSpace(v))
			w.WriteString("\r\n")
		}
	}
	w.WriteString("\r\n")
	return w.Flush()
}
