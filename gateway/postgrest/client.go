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

	"github.com/pawtograder/mcp-gateway/gateway/boundedread"
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
	// over http.DefaultTransport.
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
	prefix  string // base.String() + "/": request URLs are prefix + table + "?" + query
	apiKey  string
	bearer  string
	hc      *http.Client
	timeout time.Duration // the configured client's Timeout, applied per request as a deadline (see deadline)
	maxBody int64
	observe func(ctx context.Context, table string, status int, err error)

	// Header values built once and shared by every request (the transport
	// only reads them; http.Client copies the header map before any
	// redirect). nil when the header is not sent.
	apiKeyValue []string
	authValue   []string
	// readHeader is the whole header of a read without headers of its own
	// (Rows, MaybeSingle, every look-up), built once per client and shared
	// by its requests on the same terms: nothing after newRequest writes
	// to a request's header.
	readHeader http.Header
}

// Header values every request shares.
var (
	acceptJSONValue      = []string{"application/json"}
	contentTypeJSONValue = []string{"application/json"}
)

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
	maxBody := opts.MaxBodyBytes
	if maxBody <= 0 {
		maxBody = DefaultMaxBodyBytes
	}
	c := &Client{base: u, prefix: u.String() + "/", apiKey: opts.APIKey, hc: hc, maxBody: maxBody, observe: opts.Observe}
	probe, err := http.NewRequest(http.MethodGet, c.prefix, nil)
	if err != nil {
		return nil, fmt.Errorf("postgrest: base URL %q must be an absolute http(s) URL", opts.BaseURL)
	}
	c.base.Host = probe.Host // as http.NewRequest has it: an empty port dropped
	if hc.Timeout > 0 {
		// http.Client enforces Timeout with a timer, a context and a
		// once-function per request, even when the request's context
		// already ends sooner (the service-role look-ups carry a deadline).
		// The same bound is applied here as a context deadline, and only
		// when the context has no earlier one.
		cp := *hc
		cp.Timeout = 0
		c.hc, c.timeout = &cp, hc.Timeout
	}
	if c.apiKey != "" {
		c.apiKeyValue = []string{c.apiKey}
	}
	c.readHeader = c.header(nil, false)
	return c, nil
}

// WithBearer returns a copy of c that authenticates as token.
func (c *Client) WithBearer(token string) *Client {
	cp := *c
	cp.bearer = token
	cp.authValue = nil
	if token != "" {
		cp.authValue = []string{"Bearer " + token}
	}
	cp.readHeader = cp.header(nil, false)
	return &cp
}

// From starts a request on table.
func (c *Client) From(table string) *Query {
	return &Query{c: c, table: table}
}

// do sends one request and returns the body of a 2xx response.
//
// A read on a transport that can send it from this goroutine (plain-HTTP
// upstreams, see Fanout) goes there rather than through http.Client, whose
// per-request set-up — a copy of the headers for redirects, a cancel
// timer, the request copied again — cost more than the rest of building
// it. The one difference is that a redirect is not followed: PostgREST
// answers reads without one, and a 3xx is then an error like any other
// answer that is not 2xx.
func (c *Client) do(ctx context.Context, method, table string, params [][2]string, header http.Header, body []byte) ([]byte, http.Header, error) {
	ctx, cancel := c.deadline(ctx)
	defer cancel()
	req, err := c.newRequest(ctx, method, table, params, header, body)
	if err != nil {
		return nil, nil, err
	}
	if method == http.MethodGet && body == nil {
		if f, ok := c.fanouter(); ok {
			if resps, errs, ok := f.Fanout([]*http.Request{req}, c.maxBody); ok {
				return c.finish(ctx, table, resps[0], roundTripError(req, errs[0]))
			}
		}
	}
	resp, err := c.hc.Do(req)
	return c.finish(ctx, table, resp, err)
}

// roundTripError is err as http.Client reports a failed round trip.
func roundTripError(req *http.Request, err error) error {
	if err == nil {
		return nil
	}
	return &url.Error{Op: "Get", URL: req.URL.String(), Err: err}
}

// newRequest builds a request on table with the client's headers. A
// request without a body is assembled from the parsed base URL; building
// its URL as text for http.NewRequest to parse again was the costliest
// part of every upstream read.
func (c *Client) newRequest(ctx context.Context, method, table string, params [][2]string, header http.Header, body []byte) (*http.Request, error) {
	var req *http.Request
	if body == nil && plainPathSegment(table) {
		u := new(url.URL)
		*u = *c.base
		u.Path = c.base.Path + "/" + table
		if c.base.RawPath != "" {
			u.RawPath = c.base.RawPath + "/" + table
		}
		u.RawQuery = encodeParams(params)
		req = (&http.Request{
			Method:     method,
			URL:        u,
			Proto:      "HTTP/1.1",
			ProtoMajor: 1,
			ProtoMinor: 1,
			Host:       u.Host,
		}).WithContext(ctx)
	} else {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		var err error
		if req, err = http.NewRequestWithContext(ctx, method, c.requestURL(table, params), rd); err != nil {
			return nil, &Error{Table: table, Err: err}
		}
	}
	if header == nil && body == nil {
		req.Header = c.readHeader
	} else {
		req.Header = c.header(header, body != nil)
	}
	return req, nil
}

// header is a request's header: the query's own (header), then Accept
// unless set, Content-Type for a body, the API key and the bearer token.
func (c *Client) header(header http.Header, body bool) http.Header {
	// Canonical keys set directly: Header.Set would canonicalise each key
	// and allocate each value.
	h := make(http.Header, len(header)+4)
	for k, vs := range header {
		h[k] = vs
	}
	if len(h["Accept"]) == 0 || h["Accept"][0] == "" {
		h["Accept"] = acceptJSONValue
	}
	if body {
		h["Content-Type"] = contentTypeJSONValue
	}
	if c.apiKeyValue != nil {
		h["Apikey"] = c.apiKeyValue
	}
	if c.authValue != nil {
		h["Authorization"] = c.authValue
	}
	return h
}

// finish turns a round trip's outcome into the body of a 2xx answer or an
// *Error, and reports it.
func (c *Client) finish(ctx context.Context, table string, resp *http.Response, err error) ([]byte, http.Header, error) {
	if err != nil {
		e := &Error{Table: table, Err: err}
		c.report(ctx, table, 0, e)
		return nil, nil, e
	}
	defer resp.Body.Close()
	data, err := boundedread.All(resp.Body, resp.ContentLength, c.maxBody)
	if err != nil {
		e := &Error{Table: table, Status: resp.StatusCode, Err: err}
		c.report(ctx, table, resp.StatusCode, e)
		return nil, nil, e
	}
	if int64(len(data)) > c.maxBody {
		e := &Error{Table: table, Status: resp.StatusCode, Err: ErrBodyTooLarge}
		c.report(ctx, table, resp.StatusCode, e)
		return nil, nil, e
	}
	if resp.StatusCode >= 300 {
		e := parseError(table, resp.StatusCode, data)
		c.report(ctx, table, resp.StatusCode, e)
		return nil, nil, e
	}
	c.report(ctx, table, resp.StatusCode, nil)
	return data, resp.Header, nil
}

func (c *Client) report(ctx context.Context, table string, status int, err error) {
	if c.observe != nil {
		c.observe(ctx, table, status, err)
	}
}

// deadline bounds ctx by the client's timeout, as http.Client.Timeout
// bounds a request and the reading of its body (do reads the body before
// returning). A deadline fired here is context.DeadlineExceeded, which is
// also what http.Client's timeout error matches with errors.Is.
func (c *Client) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout <= 0 {
		return ctx, func() {}
	}
	d := time.Now().Add(c.timeout)
	if dl, ok := ctx.Deadline(); ok && !dl.After(d) {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, d)
}

// requestURL is the URL of a request on table with params: what
// (base with Path + "/" + table and RawQuery set).String() gives, without
// copying and re-serialising the URL. Table names are identifiers; one that
// would need escaping takes the general route.
func (c *Client) requestURL(table string, params [][2]string) string {
	query := encodeParams(params)
	if !plainPathSegment(table) {
		u := *c.base
		u.Path = c.base.Path + "/" + table
		u.RawQuery = query
		return u.String()
	}
	if query == "" {
		return c.prefix + table
	}
	return c.prefix + table + "?" + query
}

// plainPathSegment reports whether s is written in a URL path as is.
func plainPathSegment(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// ErrBodyTooLarge is the cause when a response exceeds MaxBodyBytes.
var ErrBodyTooLarge = errors.New("postgrest: response body exceeds the configured limit")

// encodeParams writes parameters in the order given. Keys and values are
// escaped as postgrest-js (URLSearchParams) escapes them, which PostgREST
// decodes back to the same text.
func encodeParams(params [][2]string) string {
	n := 0
	for _, p := range params {
		n += len(p[0]) + len(p[1]) + 2
	}
	b := make([]byte, 0, n+n/4)
	for i, p := range params {
		if i > 0 {
			b = append(b, '&')
		}
		b = appendQueryEscape(b, p[0])
		b = append(b, '=')
		b = appendQueryEscape(b, p[1])
	}
	return string(b)
}

// appendQueryEscape appends url.QueryEscape(s) without a string of its
// own per key and value: letters, digits and -_.~ as they are, a space as
// '+', every other byte as %XX.
func appendQueryEscape(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.', c == '~':
			dst = append(dst, c)
		case c == ' ':
			dst = append(dst, '+')
		default:
			dst = append(dst, '%', hex[c>>4], hex[c&15])
		}
	}
	return dst
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
