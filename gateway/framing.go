package gateway

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
)

// Request smuggling guard (RFC 9112 §6.1, RFC 9112 §11.2).
//
// A request that carries both Transfer-Encoding and Content-Length is framed
// one way by net/http (by Transfer-Encoding) and possibly the other way by a
// proxy in front (by Content-Length), so a client could hide a second
// request in the first one's body and have it answered on a connection the
// proxy attributes to someone else. net/http accepts such a request and
// deletes the Content-Length header before any handler can see it, so the
// guard watches the bytes of each connection instead: framingConn follows
// the request boundaries (header block, then a Content-Length body) and
// notes when a header block names both. guardFraming's handler then answers
// 400 with Connection: close before any route runs.
//
// To stay simple the tracker does not follow chunked bodies: once a header
// block has Transfer-Encoding, it stops, and the request is answered with
// Connection: close, so nothing after its body is ever read as a request.
// Chunked requests (rare; some proxies send them) thus cost a new
// connection, never a wrong answer. Other ambiguous framings are refused by
// net/http itself before any handler runs: differing Content-Length values
// (400) and a Transfer-Encoding other than exactly "chunked" (501), both
// with the connection closed.

// maxTrackedHeader bounds the header block the tracker buffers: net/http's
// default MaxHeaderBytes plus its 4 KiB slack. Beyond it net/http answers
// 431 and closes the connection, so tracking can stop.
const maxTrackedHeader = http.DefaultMaxHeaderBytes + 4096

// framingConn is a server connection that follows request framing as the
// server reads it.
type framingConn struct {
	net.Conn

	mu        sync.Mutex
	header    []byte // the header block read so far
	skip      int64  // Content-Length body bytes still to pass over
	stopped   bool   // a Transfer-Encoding or unparsable block was seen
	ambiguous bool   // a block had both Transfer-Encoding and Content-Length
}

func (c *framingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.observe(p[:n])
		c.mu.Unlock()
	}
	return n, err
}

// observe advances the tracker over b. Called with c.mu held.
func (c *framingConn) observe(b []byte) {
	for len(b) > 0 && !c.stopped {
		if c.skip > 0 {
			k := int64(len(b))
			if k > c.skip {
				k = c.skip
			}
			c.skip -= k
			b = b[k:]
			continue
		}
		// A header block ends at the first empty line; net/http accepts
		// bare LF line endings, so "\n\n" ends it as well as "\n\r\n".
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

// endOfHeader reads the framing headers of the completed block the way
// net/http does (textproto) and sets up the body to skip.
func (c *framingConn) endOfHeader() {
	block := c.header
	c.header = c.header[:0]
	_, rest, ok := bytes.Cut(block, []byte("\n")) // the request line
	if !ok {
		c.stopped = true
		return
	}
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(rest))).ReadMIMEHeader()
	if err != nil && err != io.EOF {
		c.stopped = true // net/http refuses the request and closes
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
			c.stopped = true // net/http refuses it
			return
		}
		c.skip = n
	}
}

// state reports whether the connection carried an ambiguous request, and
// whether the tracker stopped (so the connection must close after this
// answer).
func (c *framingConn) state() (ambiguous, stopped bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ambiguous, c.stopped
}

type framingListener struct{ net.Listener }

func (l framingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &framingConn{Conn: c}, nil
}

type framingConnKey struct{}

// guardFraming installs the request-smuggling guard on srv, whose listener
// is ln, and returns the listener to serve on: connections are tracked,
// and srv's handler refuses ambiguous requests before its own handler runs.
func guardFraming(srv *http.Server, ln net.Listener, log *slog.Logger) net.Listener {
	prevConnContext := srv.ConnContext
	srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if prevConnContext != nil {
			ctx = prevConnContext(ctx, c)
		}
		if fc, ok := c.(*framingConn); ok {
			ctx = context.WithValue(ctx, framingConnKey{}, fc)
		}
		return ctx
	}
	next := srv.Handler
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fc, _ := r.Context().Value(framingConnKey{}).(*framingConn)
		if fc == nil {
			next.ServeHTTP(w, r)
			return
		}
		ambiguous, stopped := fc.state()
		if ambiguous {
			log.LogAttrs(r.Context(), slog.LevelWarn, "refused a request framed by both Transfer-Encoding and Content-Length",
				slog.String("remote_addr", r.RemoteAddr), slog.String("method", r.Method))
			// The same shape as net/http's own 400 answers.
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, "400 Bad Request: message framed by both Transfer-Encoding and Content-Length")
			return
		}
		if stopped || len(r.TransferEncoding) > 0 {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
	return framingListener{ln}
}
