package h1transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/boundedread"
)

// maxPipelinedHeads bounds the request bytes Pipeline writes before it
// reads any answer. A client that writes more than the socket buffers hold,
// while the server blocks writing answers nobody reads yet, deadlocks;
// heads this small always fit in a send buffer.
const maxPipelinedHeads = 16 << 10

// Pipeline sends reqs back to back on one connection (HTTP/1.1 pipelining,
// RFC 9112 §9.3) and returns their answers in order, each body already
// read: at most maxBody+1 bytes of it, so that a caller can tell a body
// longer than maxBody. Where resps[i] is nil, errs[i] says why.
//
// ok is false, and nothing is sent, unless every request is one this
// transport takes itself (see RoundTrip), all go to one host, and their
// heads together fit in 16 KiB; the caller then sends them another way.
// The first request's context bounds the whole exchange, so all of them
// should carry the same one.
//
// Answers are matched to requests by their order alone, so the connection
// goes back to the pool only when every answer arrived whole with nothing
// after it. Requests left unanswered because the server closed the
// connection after an earlier answer (as servers do at their keep-alive
// request limit) or because an earlier body was too long to read to its
// end are sent again on another connection: they are GET or HEAD, safe to
// repeat. A reused connection that brings no answer at all is replayed
// once, as in RoundTrip. A failure inside an answer fails that request and
// the ones after it.
func (t *Transport) Pipeline(reqs []*http.Request, maxBody int64) (resps []*http.Response, errs []error, ok bool) {
	if len(reqs) == 0 {
		return nil, nil, true
	}
	addr := hostPort(reqs[0])
	for _, r := range reqs {
		if !t.takes(r) || hostPort(r) != addr {
			return nil, nil, false
		}
	}
	resps = make([]*http.Response, len(reqs))
	errs = make([]error, len(reqs))
	heads := make([]head, len(reqs))
	pending := make([]int, 0, len(reqs))
	size := 0
	for i, r := range reqs {
		h, err := checkRequest(r)
		if err != nil {
			errs[i] = err
			continue
		}
		heads[i] = h
		size += headSize(r, h)
		pending = append(pending, i)
	}
	if size > maxPipelinedHeads {
		return nil, nil, false
	}
	ctx := reqs[0].Context()
	fail := func(err error) {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		var nothing *nothingReceived
		if errors.As(err, &nothing) {
			err = nothing.err
		}
		for _, i := range pending {
			errs[i] = err
		}
		pending = nil
	}
	replayed := false
	for len(pending) > 0 {
		if err := ctx.Err(); err != nil {
			fail(err)
			break
		}
		c, reused, err := t.get(ctx, addr)
		if err != nil {
			fail(err)
			break
		}
		answered, resend, err := t.pipelineRound(ctx, c, reqs, heads, pending, maxBody, resps)
		pending = pending[answered:]
		switch {
		case len(pending) == 0:
		case resend && answered > 0:
			// The server answered some and closed: send it the rest.
		case resend && reused && !replayed && ctx.Err() == nil:
			replayed = true // a dead keep-alive connection
		default:
			fail(err)
		}
	}
	return resps, errs, true
}

// pipelineRound writes the pending requests on c in one write and reads
// their answers in order into resps. It returns how many of them were
// answered and, when not all were, whether the rest may be sent again
// (resend: no byte of an answer to them was read) and why the round ended.
// The connection is released at the end: back to the pool after a clean
// round, closed otherwise.
func (t *Transport) pipelineRound(ctx context.Context, c *conn, reqs []*http.Request, heads []head, pending []int, maxBody int64, resps []*http.Response) (answered int, resend bool, err error) {
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	end := func(reuse bool) {
		if reuse && c.br.Buffered() == 0 && stop() {
			t.put(c)
			return
		}
		stop()
		c.Close()
	}
	for _, i := range pending {
		writeHead(c.bw, reqs[i], heads[i])
	}
	if err := c.bw.Flush(); err != nil {
		end(false)
		return 0, true, &nothingReceived{err}
	}
	for n, i := range pending {
		if _, err := c.br.Peek(1); err != nil {
			end(false)
			return n, true, &nothingReceived{err}
		}
		resp, err := readAnswer(c.br, reqs[i])
		if err != nil {
			end(false)
			return n, false, err
		}
		b, err := boundedread.All(resp.Body, resp.ContentLength, maxBody)
		whole := int64(len(b)) <= maxBody
		if err != nil {
			end(false)
			return n, false, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resps[i] = resp
		if !whole || resp.Close {
			// The rest of a long body, or nothing, follows on this
			// connection: the requests after this one go elsewhere.
			end(false)
			return n + 1, true, nil
		}
	}
	end(true)
	return len(pending), false, nil
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
