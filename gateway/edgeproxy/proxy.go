// Package edgeproxy proxies requests for functions the gateway does not
// serve to another upstream (Supabase's edge runtime or API gateway), so the
// gateway can take over the whole /functions/v1/ route while every other
// function keeps working. Bodies stream in both directions without
// buffering, SSE responses are flushed as they arrive, and WebSocket
// upgrades pass through.
package edgeproxy

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"
)

// Options configures the proxy.
type Options struct {
	// Upstream is the base URL requests are sent to; the original path and
	// query are appended unchanged.
	Upstream string
	// Transport defaults to a pooled transport with sane timeouts.
	Transport http.RoundTripper
	Logger    *slog.Logger
	// Observe, when set, is called with each proxied response's status
	// (502 when the upstream could not be reached).
	Observe func(status int)
}

// New returns the proxy handler.
func New(opts Options) (http.Handler, error) {
	target, err := url.Parse(opts.Upstream)
	if err != nil || (target.Scheme != "http" && target.Scheme != "https") || target.Host == "" {
		return nil, errors.New("edgeproxy: upstream must be an absolute http(s) URL")
	}
	target.Path = strings.TrimRight(target.Path, "/")
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	transport := opts.Transport
	if transport == nil {
		transport = &http.Transport{
			Proxy:                 nil,
			MaxIdleConns:          256,
			MaxIdleConnsPerHost:   64,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 60 * time.Second,
			ForceAttemptHTTP2:     true,
		}
	}
	observe := opts.Observe
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme = target.Scheme
			r.Out.URL.Host = target.Host
			r.Out.URL.Path = target.Path + r.In.URL.Path
			r.Out.URL.RawPath = ""
			if r.In.URL.RawPath != "" {
				r.Out.URL.RawPath = target.Path + r.In.URL.RawPath
			}
			r.Out.Host = target.Host
			// Keep the caller's headers (Authorization, apikey, …) as the
			// edge runtime would receive them; add the usual forwarding
			// facts for the upstream's logs.
			r.SetXForwarded()
		},
		Transport:     transport,
		FlushInterval: -1, // flush every write: SSE and streamed bodies
		ModifyResponse: func(resp *http.Response) error {
			if observe != nil {
				observe(resp.StatusCode)
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if errors.Is(err, http.ErrAbortHandler) || r.Context().Err() != nil {
				return // the client went away; nothing to answer
			}
			logger.WarnContext(r.Context(), "fallback upstream failed", "error", err.Error())
			if observe != nil {
				observe(http.StatusBadGateway)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte(`{"code":"BAD_GATEWAY","message":"The function upstream could not be reached"}`))
		},
	}
	return rp, nil
}
