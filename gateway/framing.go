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
//
// It runs on every read of every connection, so it looks at each byte
// once: a header block is found with IndexByte and copied in one append,
// and a body is passed over by its length.
func (c *framingConn) observe(b []byte) {
	for len(b) > 0 && !c.stopped {
		if c.skip > 0 {
			k := min(int64(len(b)), c.skip)
			c.skip -= k
			b = b[k:]
			continue
		}
		end := c.headerEnd(b)
		if end < 0 {
			c.header = append(c.header, b...)
			if len(c.header) > maxTrackedHeader {
				c.stopped = true
			}
			return
		}
		c.header = append(c.header, b[:end]...)
		b = b[end:]
		c.endOfHeader()
	}
}

// headerEnd returns the length of the prefix of b that completes the header
// block begun in c.header, or -1 when b does not complete it. A block ends
// at the first empty line; net/http accepts bare LF line endings, so "\n\n"
// ends it as well as "\n\r\n", and either may straddle two reads.
func (c *framingConn) headerEnd(b []byte) int {
	// before returns the byte k places before b[i] in c.header+b, or 0.
	before := func(i, k int) byte {
		if j := i - k; j >= 0 {
			return b[j]
		} else if j += len(c.header); j >= 0 {
			return c.header[j]
		}
		return 0
	}
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		i += j
		if p := before(i, 1); p == '\n' || (p == '\r' && before(i, 2) == '\n') {
			return i + 1
		}
		i++
	}
	return -1
}

// endOfHeader reads the framing headers of the completed block the way
// net/http does and sets up the body to skip.
func (c *framingConn) endOfHeader() {
	block := c.header
	c.header = c.header[:0]
	_, rest, ok := bytes.Cut(block, []byte("\n")) // the request line
	if !ok {
		c.stopped = true
		return
	}
	f, ok := scanFraming(rest)
	if !ok {
		f, ok = parseFraming(rest)
		if !ok {
			c.stopped = true // net/http refuses the request and closes
			return
		}
	}
	switch {
	case f.hasTE:
		c.ambiguous = c.ambiguous || f.hasCL
		c.stopped = true
	case f.hasCL:
		n, err := strconv.ParseInt(strings.TrimSpace(f.firstCL), 10, 64)
		if err != nil || n < 0 {
			c.stopped = true // net/http refuses it
			return
		}
		c.skip = n
	}
}

var (
	contentLengthName    = []byte("Content-Length")
	transferEncodingName = []byte("Transfer-Encoding")
)

// framing is what the tracker needs of a header block.
type framing struct {
	hasTE, hasCL bool
	firstCL      string // the first Content-Length value
}

// scanFraming reads the framing of a header block (after the request line)
// without building a header map. It handles the blocks clients send; for
// anything textproto treats specially (continuation lines, a line without
// a colon, a byte not allowed in a name or value) it reports ok false and
// parseFraming decides, so both agree on every input (FuzzFramingTracker
// compares them).
func scanFraming(block []byte) (f framing, ok bool) {
	for len(block) > 0 {
		line, rest, _ := bytes.Cut(block, []byte("\n"))
		block = rest
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			return f, true
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return f, false
		}
		name, value := line[:colon], line[colon+1:]
		for _, ch := range name {
			if !isTokenByte(ch) {
				return f, false
			}
		}
		for _, ch := range value {
			if ch < ' ' && ch != '\t' || ch == 0x7f {
				return f, false
			}
		}
		// The name is all token bytes (ASCII), so Unicode folding is ASCII
		// folding here.
		switch {
		case bytes.EqualFold(name, contentLengthName):
			if !f.hasCL {
				f.firstCL = string(value)
			}
			f.hasCL = true
		case bytes.EqualFold(name, transferEncodingName):
			f.hasTE = true
		}
	}
	return f, true
}

// parseFraming reads the framing of a header block with textproto, as
// net/http does; ok is false when textproto refuses the block.
func parseFraming(block []byte) (f framing, ok bool) {
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(block))).ReadMIMEHeader()
	if err != nil && err != io.EOF {
		return f, false
	}
	te, cl := h.Values("Transfer-Encoding"), h.Values("Content-Length")
	f.hasTE, f.hasCL = len(te) > 0, len(cl) > 0
	if f.hasCL {
		f.firstCL = cl[0]
	}
	return f, true
}

// isTokenByte reports whether ch may appear in a header name: a tchar of
// RFC 9110 §5.6.2.
func isTokenByte(ch byte) bool {
	switch {
	case 'a' <= ch && ch <= 'z', 'A' <= ch && ch <= 'Z', '0' <= ch && ch <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", ch) >= 0
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
