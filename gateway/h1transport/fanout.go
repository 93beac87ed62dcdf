package h1transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/boundedread"
)

// Fanout sends several requests at once from the calling goroutine: each
// on a connection of its own, all of them written before any answer is
// read. The server works on them in parallel, as when each is sent from a
// goroutine of its own, but without those goroutines and the hand-offs
// between them; the caller sleeps once, for the slowest answer. (HTTP/1.1
// pipelining on one connection would save a write more, but the server then
// answers one request after the other: each PostgREST look-up's database
// time would add up instead of overlapping.)
//
// It returns the answers in order, each body already read: at most
// maxBody+1 bytes of it, so that a caller can tell a body longer than
// maxBody. Where resps[i] is nil, errs[i] says why, and each request's own
// context bounds its exchange. ok is false, and nothing is sent, unless
// every request is one this transport takes itself (see RoundTrip); the
// caller then sends them another way.
//
// Connections are handled as in RoundTrip: one goes back to the pool only
// when its answer arrived whole with nothing after it, and a reused one
// that brings no answer at all is replayed once on a new connection.
func (t *Transport) Fanout(reqs []*http.Request, maxBody int64) (resps []*http.Response, errs []error, ok bool) {
	for _, r := range reqs {
		if !t.takes(r) {
			return nil, nil, false
		}
	}
	resps = make([]*http.Response, len(reqs))
	errs = make([]error, len(reqs))
	flights := make([]flight, len(reqs))
	for i, r := range reqs {
		flights[i], errs[i] = t.send(r)
	}
	for i, r := range reqs {
		f := &flights[i]
		if f.c == nil {
			continue // refused or not connected; errs[i] says why
		}
		resp, err := t.collect(f, r, maxBody)
		var nothing *nothingReceived
		if err != nil && f.reused && errors.As(err, &nothing) && r.Context().Err() == nil {
			// Most likely a keep-alive connection the server had closed:
			// once more, on its own.
			resp, err = t.roundTripRead(r, maxBody)
		}
		if err != nil {
			err = exchangeError(r.Context(), err)
		}
		resps[i], errs[i] = resp, err
	}
	return resps, errs, true
}

// flight is one request of a Fanout, written and awaiting its answer.
type flight struct {
	c       *conn
	reused  bool
	stop    func() bool // undoes the context's hold on the connection
	written error       // a failed write: no answer will come
}

// send checks r, takes a connection and writes r on it.
func (t *Transport) send(r *http.Request) (flight, error) {
	ctx := r.Context()
	if err := ctx.Err(); err != nil {
		return flight{}, err
	}
	h, err := checkRequest(r)
	if err != nil {
		return flight{}, err
	}
	c, reused, err := t.get(ctx, hostPort(r))
	if err != nil {
		return flight{}, exchangeError(ctx, err)
	}
	f := flight{c: c, reused: reused}
	// The context ends the exchange by expiring the connection's deadline,
	// which makes a blocked read or write return at once.
	f.stop = context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	if err := writeRequest(c.bw, r, h); err != nil {
		f.written = &nothingReceived{err}
	}
	return f, nil
}

// collect reads the answer of a flight, its body whole, and releases the
// connection: back to the pool after a clean answer, closed otherwise.
func (t *Transport) collect(f *flight, req *http.Request, maxBody int64) (*http.Response, error) {
	c := f.c
	fail := func(err error) (*http.Response, error) {
		f.stop()
		c.Close()
		return nil, err
	}
	if f.written != nil {
		return fail(f.written)
	}
	if _, err := c.br.Peek(1); err != nil {
		return fail(&nothingReceived{err})
	}
	resp, err := readAnswer(c.br, req)
	if err != nil {
		return fail(err)
	}
	b, err := boundedread.All(resp.Body, resp.ContentLength, maxBody)
	if err != nil {
		return fail(err)
	}
	// Bytes already read past the answer's end belong to no request; the
	// rest of a body over the bound is still on the connection.
	if int64(len(b)) <= maxBody && !resp.Close && c.br.Buffered() == 0 && f.stop() {
		t.put(c)
	} else {
		f.stop()
		c.Close()
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	return resp, nil
}

// roundTripRead is RoundTrip with the body read (at most maxBody+1 bytes).
func (t *Transport) roundTripRead(req *http.Request, maxBody int64) (*http.Response, error) {
	resp, err := t.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	b, err := boundedread.All(resp.Body, resp.ContentLength, maxBody)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	return resp, nil
}

// exchangeError is the error a caller sees for a failed exchange: the
// context's when it ended the exchange, else the cause.
func exchangeError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var nothing *nothingReceived
	if errors.As(err, &nothing) {
		return nothing.err
	}
	return err
}
