package postgrest

import (
	"context"
	"encoding/json"
	"net/http"
)

// fanouter is a transport that can send several GETs at once from the
// calling goroutine: gateway/h1transport's Transport, and the metrics
// wrapper around it. ok is false, and nothing was sent, when it cannot
// take them.
type fanouter interface {
	Fanout(reqs []*http.Request, maxBody int64) (resps []*http.Response, errs []error, ok bool)
}

// fanouter returns c's transport when requests can be sent on it directly:
// it is a fanouter, and no http.Client Timeout would be bypassed (New moves
// that Timeout into a context deadline, see deadline).
func (c *Client) fanouter() (fanouter, bool) {
	f, ok := c.hc.Transport.(fanouter)
	return f, ok && c.hc.Timeout == 0
}

// Answer is one query's outcome in a Fanout, read the way the query's own
// method would read it.
type Answer struct {
	table string
	body  json.RawMessage
	err   error
}

// Rows is what Query.Rows would have returned.
func (a Answer) Rows() (json.RawMessage, error) { return a.body, a.err }

// MaybeSingle is what Query.MaybeSingle would have returned.
func (a Answer) MaybeSingle() (json.RawMessage, error) { return maybeSingle(a.table, a.body, a.err) }

// Fanout runs read queries at once from the calling goroutine and returns
// their answers in order: each goes out on a connection of its own, all
// before any answer is read, so PostgREST works on them in parallel while
// the caller sleeps once — two look-ups cost the gateway no goroutine
// hand-off (docs/performance.md, issue 17).
//
// ok is false, and nothing was sent, unless the queries' clients share a
// transport that can (plain-HTTP upstreams, see gateway/h1transport); the
// caller then runs the queries another way. The first query's client sets
// the deadline; each query keeps its own client's body bound.
func Fanout(ctx context.Context, queries ...*Query) (answers []Answer, ok bool) {
	if len(queries) == 0 {
		return nil, true
	}
	c := queries[0].c
	f, can := c.fanouter()
	if !can {
		return nil, false
	}
	maxBody := c.maxBody
	for _, q := range queries[1:] {
		if q.c.hc != c.hc {
			return nil, false
		}
		maxBody = max(maxBody, q.c.maxBody)
	}
	ctx, cancel := c.deadline(ctx)
	defer cancel()
	reqs := make([]*http.Request, len(queries))
	answers = make([]Answer, len(queries))
	for i, q := range queries {
		req, err := q.c.newRequest(ctx, http.MethodGet, q.table, q.params, nil, nil)
		if err != nil {
			// Only a malformed base URL fails here, and New refuses those.
			return nil, false
		}
		reqs[i] = req
	}
	resps, errs, can := f.Fanout(reqs, maxBody)
	if !can {
		return nil, false
	}
	for i, q := range queries {
		body, _, err := q.c.finish(ctx, q.table, resps[i], roundTripError(reqs[i], errs[i]))
		answers[i] = Answer{table: q.table, body: body, err: err}
	}
	return answers, true
}
