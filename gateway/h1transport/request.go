package h1transport

import (
	"bufio"
	"errors"
	"net/http"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// userAgent is the header net/http sends when a request sets none, kept so
// that upstream logs do not change with the transport.
const userAgent = "Go-http-client/1.1"

// head is a checked request head, ready to write.
type head struct {
	host, uri string
}

// checkRequest checks req's head as net/http checks it before sending, so
// that a value with a line break can never start a second request; it runs
// before any connection is taken.
func checkRequest(req *http.Request) (head, error) {
	h := head{host: req.Host, uri: req.URL.RequestURI()}
	if h.host == "" {
		h.host = req.URL.Host
	}
	if !httpguts.ValidHostHeader(h.host) {
		return h, errors.New("h1transport: invalid Host header")
	}
	if strings.ContainsAny(h.uri, " \r\n") {
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
	w.WriteString(h.uri)
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
