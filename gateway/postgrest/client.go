package postgrest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxBodyBytes bounds a PostgREST response body. Submission files are
// the largest rows the tools read; 64 MiB leaves room for max_rows of them.
const DefaultMaxBodyBytes = 64 << 20

// Options configures a Client.
type Options struct {
	// BaseURL is PostgREST's root, e.g. https://xyz.supabase.co/rest/v1.
	BaseURL string
	// APIKey is sent as the apikey header when non-empty (required through
	// Supabase's API gateway, ignored by PostgREST itself).
	APIKey string
	// HTTPClient carries the shared, pooled transport. Defaults to a client
	// over http.DefaultTransport. Its Timeout bounds each exchange, body
	// included.
	HTTPClient *http.Client
	// MaxBodyBytes bounds each response body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Observe, when set, is called after every round trip with the table,
	// the HTTP status (0 when unreachable) and the error, for metrics.
	Observe func(ctx context.Context, table string, status int, err error)
}

// Client sends requests to PostgREST with one fixed bearer token. It is
// immutable and safe for concurrent use; WithBearer returns a copy.
type Client struct {
	base    *url.URL
	apiKey  string
	bearer  string
	hc      *http.Client
	timeout time.Duration // hc.Timeout, applied as a context deadline
	maxBody int64
	observe func(ctx context.Context, table string, status int, err error)
}

// New validates opts and returns a Client that sends no Authorization header.
func New(opts Options) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(opts.BaseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("postgrest: base URL %q must be an absolute http(s) URL", opts.BaseURL)
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	// net/http enforces Client.Timeout over a wrapped transport (the
	// metrics one) with a goroutine and a timer per request; a context
	// deadline around the exchange bounds the same and costs neither.
	timeout := hc.Timeout
	if timeout > 0 {
		cp := *hc
		cp.Timeout = 0
		hc = &cp
	}
	maxBody := opts.MaxBodyBytes
	if maxBody <= 0 {
		maxBody = DefaultMaxBodyBytes
	}
	return &Client{base: u, apiKey: opts.APIKey, hc: hc, timeout: timeout, maxBody: maxBody, observe: opts.Observe}, nil
}

// WithBearer returns a copy of c that authenticates as token.
func (c *Client) WithBearer(token string) *Client {
	cp := *c
	cp.bearer = token
	return &cp
}

// From starts a request on table.
func (c *Client) From(table string) *Query {
	return &Query{c: c, table: table}
}

// do sends one request and returns the body of a 2xx response.
func (c *Client) do(ctx context.Context, method, table string, params [][2]string, header http.Header, body []byte) ([]byte, http.Header, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	req, err := c.newRequest(ctx, method, table, params, header, body)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, c.fail(ctx, &Error{Table: table, Err: err})
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return nil, nil, c.fail(ctx, &Error{Table: table, Status: resp.StatusCode, Err: err})
	}
	if int64(len(data)) > c.maxBody {
		return nil, nil, c.fail(ctx, &Error{Table: table, Status: resp.StatusCode, Err: ErrBodyTooLarge})
	}
	if resp.StatusCode >= 300 {
		return nil, nil, c.fail(ctx, parseError(table, resp.StatusCode, data))
	}
	c.report(ctx, table, resp.StatusCode, nil)
	return data, resp.Header, nil
}

// newRequest builds a request on table with the query's own headers, then
// Accept unless set, Content-Type for a body, the API key and the bearer
// token.
func (c *Client) newRequest(ctx context.Context, method, table string, params [][2]string, header http.Header, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.requestURL(table, params), rd)
	if err != nil {
		return nil, &Error{Table: table, Err: err}
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey != "" {
		req.Header.Set("apikey", c.apiKey)
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
	return req, nil
}

// fail reports e and returns it.
func (c *Client) fail(ctx context.Context, e *Error) *Error {
	c.report(ctx, e.Table, e.Status, e)
	return e
}

func (c *Client) report(ctx context.Context, table string, status int, err error) {
	if c.observe != nil {
		c.observe(ctx, table, status, err)
	}
}

// requestURL is the URL of a request on table with params.
func (c *Client) requestURL(table string, params [][2]string) string {
	u := *c.base
	u.Path = c.base.Path + "/" + table
	if c.base.RawPath != "" {
		u.RawPath = c.base.RawPath + "/" + url.PathEscape(table)
	}
	u.RawQuery = encodeParams(params)
	return u.String()
}

// ErrBodyTooLarge is the cause when a response exceeds MaxBodyBytes.
var ErrBodyTooLarge = errors.New("postgrest: response body exceeds the configured limit")

// encodeParams writes parameters in the order given (url.Values.Encode
// would sort them by key, and PostgREST reads repeated and ordered keys
// such as order and or as sent). Keys and values are escaped as
// postgrest-js (URLSearchParams) escapes them, which PostgREST decodes
// back to the same text.
func encodeParams(params [][2]string) string {
	var b strings.Builder
	for i, p := range params {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(p[0]))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(p[1]))
	}
	return b.String()
}

func parseError(table string, status int, body []byte) *Error {
	e := &Error{Table: table, Status: status}
	var pe struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
		Details *string `json:"details"`
		Hint    *string `json:"hint"`
	}
	if json.Unmarshal(body, &pe) == nil {
		if pe.Code != nil {
			e.Code = *pe.Code
		}
		if pe.Message != nil {
			e.Message = *pe.Message
		}
		if pe.Details != nil {
			e.Details = *pe.Details
		}
		if pe.Hint != nil {
			e.Hint = *pe.Hint
		}
	}
	if e.Message == "" && e.Code == "" {
		e.Err = fmt.Errorf("postgrest: HTTP %d: %s", status, truncate(body, 200))
	}
	return e
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// itoa is strconv.Itoa, named for readability at call sites.
func itoa(n int) string { return strconv.Itoa(n) }
