package h1transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Transport is the round tripper. Its zero value is not usable: Fallback
// must be set. It is safe for concurrent use.
type Transport struct {
	// Fallback takes every request this transport does not (see the
	// package documentation).
	Fallback http.RoundTripper
	// DialContext opens connections; nil means a net.Dialer with a
	// 5-second timeout and 30-second TCP keep-alive.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// MaxIdlePerHost bounds the idle connections kept per host; 0 means 256.
	MaxIdlePerHost int
	// IdleTimeout is how long an idle connection may be reused; 0 means
	// 90 seconds.
	IdleTimeout time.Duration

	mu   sync.Mutex
	idle map[string][]*conn // by host:port, most recently used last
}

// conn is one upstream connection with its buffers.
type conn struct {
	net.Conn
	key    string // the pool it belongs to: the host:port dialled
	br     *bufio.Reader
	bw     *bufio.Writer
	idleAt time.Time
}

var defaultDialer = &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.takes(req) {
		return t.Fallback.RoundTrip(req)
	}
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h, err := checkRequest(req)
	if err != nil {
		return nil, err
	}
	addr := hostPort(req)
	for attempt := 0; ; attempt++ {
		c, reused, err := t.get(ctx, addr)
		if err != nil {
			return nil, err
		}
		resp, err := t.exchange(ctx, c, req, h)
		if err == nil {
			return resp, nil
		}
		c.Close()
		// A reused connection that failed before any answer arrived was
		// most likely closed by the server while idle: send again, once,
		// on a new connection, as net/http does for GET and HEAD.
		var nothing *nothingReceived
		beforeAnswer := errors.As(err, &nothing)
		if reused && attempt == 0 && beforeAnswer && ctx.Err() == nil {
			continue
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if beforeAnswer {
			err = nothing.err
		}
		return nil, err
	}
}

// takes reports whether the request is one this transport handles itself.
func (t *Transport) takes(req *http.Request) bool {
	return req.URL.Scheme == "http" &&
		(req.Method == http.MethodGet || req.Method == http.MethodHead) &&
		(req.Body == nil || req.Body == http.NoBody)
}

// hostPort is the address to dial: the URL's host with port 80 when none
// is given.
func hostPort(req *http.Request) string {
	if req.URL.Port() != "" {
		return req.URL.Host
	}
	return net.JoinHostPort(req.URL.Hostname(), "80")
}

// nothingReceived marks a failure before any byte of an answer was read,
// after which a GET may safely be sent again.
type nothingReceived struct{ err error }

func (e *nothingReceived) Error() string { return e.err.Error() }
func (e *nothingReceived) Unwrap() error { return e.err }

// exchange writes req on c and reads the answer's head. The answer's body
// reads from c; the connection goes back to the pool when it is read to
// its end.
func (t *Transport) exchange(ctx context.Context, c *conn, req *http.Request, h head) (*http.Response, error) {
	// The context ends the exchange by expiring the connection's deadline,
	// which makes a blocked read or write return at once.
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	if err := writeRequest(c.bw, req, h); err != nil {
		stop()
		return nil, &nothingReceived{err}
	}
	if _, err := c.br.Peek(1); err != nil {
		stop()
		return nil, &nothingReceived{err}
	}
	resp, err := readAnswer(c.br, req)
	if err != nil {
		stop()
		return nil, err
	}
	resp.Body = &body{rc: resp.Body, c: c, t: t, ctx: ctx, stop: stop, keep: !resp.Close}
	return resp, nil
}

// body is an answer's body; at its end the connection is released.
type body struct {
	rc   io.ReadCloser
	c    *conn
	t    *Transport
	ctx  context.Context
	stop func() bool
	keep bool  // the connection may carry another exchange
	done bool  // the connection was released or closed
	err  error // what Read returns once done
}

var errClosedBody = errors.New("h1transport: read on a closed body")

func (b *body) Read(p []byte) (int, error) {
	if b.done {
		return 0, b.err
	}
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.release(true)
		b.err = io.EOF
	case err != nil:
		b.release(false)
		if ctxErr := b.ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		b.err = err
	}
	return n, err
}

func (b *body) Close() error {
	if !b.done {
		// Closed before its end: the rest of the answer is still on the
		// connection, so it cannot be reused.
		b.release(false)
		b.err = errClosedBody
	}
	return nil
}

// release ends the exchange: the connection goes back to the pool when the
// body was read to its end, nothing past it was read, the answer allows it
// and the context did not end it (a fired AfterFunc has expired the
// connection's deadline).
func (b *body) release(atEnd bool) {
	b.done = true
	// Bytes already read past the answer's end belong to no request.
	if atEnd && b.keep && b.c.br.Buffered() == 0 && b.stop() {
		b.t.put(b.c)
		return
	}
	b.stop()
	b.c.Close()
}

// get returns an idle connection to addr, or dials one. reused reports an
// idle one.
func (t *Transport) get(ctx context.Context, addr string) (c *conn, reused bool, err error) {
	now := time.Now()
	t.mu.Lock()
	for list := t.idle[addr]; len(list) > 0; list = t.idle[addr] {
		c = list[len(list)-1]
		list[len(list)-1] = nil
		t.idle[addr] = list[:len(list)-1]
		if now.Sub(c.idleAt) >= t.idleTimeout() {
			c.Close()
			continue
		}
		t.mu.Unlock()
		if !unsolicited(c.Conn) {
			return c, true, nil
		}
		c.Close()
		t.mu.Lock()
	}
	t.mu.Unlock()
	dial := t.DialContext
	if dial == nil {
		dial = defaultDialer.DialContext
	}
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	return &conn{Conn: nc, key: addr, br: bufio.NewReaderSize(nc, 4096), bw: bufio.NewWriterSize(nc, 4096)}, false, nil
}

// put returns c to the pool, or closes it when the pool for its host is
// full.
func (t *Transport) put(c *conn) {
	if err := c.SetDeadline(time.Time{}); err != nil {
		c.Close()
		return
	}
	c.idleAt = time.Now()
	addr := c.key
	t.mu.Lock()
	if t.idle == nil {
		t.idle = make(map[string][]*conn)
	}
	if len(t.idle[addr]) >= t.maxIdle() {
		t.mu.Unlock()
		c.Close()
		return
	}
	t.idle[addr] = append(t.idle[addr], c)
	t.mu.Unlock()
}

// CloseIdleConnections closes the idle connections, as net/http's
// Transport method of the same name does (http.Client calls it).
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, list := range idle {
		for _, c := range list {
			c.Close()
		}
	}
	if ci, ok := t.Fallback.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

func (t *Transport) maxIdle() int {
	if t.MaxIdlePerHost > 0 {
		return t.MaxIdlePerHost
	}
	return 256
}

func (t *Transport) idleTimeout() time.Duration {
	if t.IdleTimeout > 0 {
		return t.IdleTimeout
	}
	return 90 * time.Second
}

// readAnswer reads the final answer to req from br, skipping 100 Continue.
func readAnswer(br *bufio.Reader, req *http.Request) (*http.Response, error) {
	resp, err := http.ReadResponse(br, req)
	for err == nil && resp.StatusCode == http.StatusContinue {
		resp, err = http.ReadResponse(br, req)
	}
	if err == nil && resp.StatusCode < 200 {
		err = fmt.Errorf("h1transport: unexpected informational answer %s", resp.Status)
	}
	return resp, err
}
