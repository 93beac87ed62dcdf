package userclient

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/hashicorp/golang-lru/v2/simplelru"
	"github.com/lestrrat-go/jwx/v2/jwk"
	"golang.org/x/sync/singleflight"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
	"github.com/pawtograder/mcp-gateway/gateway/signingkey"
)

// User JWT parameters (docs/contract/protocol.md A10).
const (
	// TokenLifetime is the life of a minted user JWT.
	TokenLifetime = 60 * time.Second
	// ReuseMargin: a cached JWT is reused while more than this remains.
	ReuseMargin = 5 * time.Second
	// DefaultCacheEntries bounds the per-user JWT cache.
	DefaultCacheEntries = 10_000
)

// MsgServerConfig is A7 step 11's message (SUPABASE_URL or
// SUPABASE_ANON_KEY unset).
const MsgServerConfig = "Server configuration error"

// Options configures a Factory. An empty RestURL or AnonKey is reported at
// request time, as the original does; a malformed SigningJWK fails New.
// Without SigningKey and SigningJWK the Factory mints nothing (for a
// gateway whose mcp-server is disabled): ForUser and PublicJWK then fail
// with A11's "JWT_SECRET must be set" 500.
type Options struct {
	// RestURL is the PostgREST base, <SUPABASE_URL>/rest/v1.
	RestURL string
	// AnonKey is SUPABASE_ANON_KEY, sent as apikey.
	AnonKey string
	// DirectUpstream says RestURL is PostgREST itself rather than
	// Supabase's API gateway: PostgREST reads only Authorization, so no
	// apikey header is sent. The anon key must still be configured.
	DirectUpstream bool
	// SigningKey is JWT_SECRET as gateway/config parsed it
	// (config.Config.SigningKey); main passes it. It wins over SigningJWK.
	SigningKey *signingkey.Key
	// SigningJWK is a raw JWT_SECRET (an ES256 private JWK with a kid),
	// parsed by New when SigningKey is nil: a convenience for tests and
	// helpers that hold the text.
	SigningJWK string
	// HTTPClient is the pooled client for PostgREST; default
	// http.DefaultTransport.
	HTTPClient *http.Client
	// MaxBodyBytes bounds each PostgREST response (0: postgrest default).
	MaxBodyBytes int64
	// Observe is passed to the PostgREST client for metrics.
	Observe func(ctx context.Context, table string, status int, err error)
	// Now is the clock; default time.Now.
	Now func() time.Time
	// CacheEntries bounds the per-user JWT cache; default 10 000.
	CacheEntries int
	// OnCache, when set, is told whether each ForUser found a reusable
	// JWT (hit) or had to mint or wait for one (miss), for metrics.
	OnCache func(hit bool)
	// Issuer is GATEWAY_ISSUER_URL. Empty (the default) mints exactly the
	// A10 payload; when set, each JWT also carries "iss":Issuer after
	// "iat", so a Supabase project that registered the gateway as a
	// third-party auth issuer accepts it.
	Issuer string
}

// Factory hands out per-user PostgREST clients (A7 steps 11–12, A10).
// It is safe for concurrent use.
type Factory struct {
	base    *postgrest.Client
	baseErr error
	key     *signingKey // nil: no JWT_SECRET
	issuer  string
	now     func() time.Time

	onCache func(hit bool)

	flight singleflight.Group
	mints  atomic.Int64 // JWTs signed, for tests and metrics

	// cache holds each user's last JWT, ordered by mint: it is read with
	// Peek, which leaves the order alone, so the oldest entry is the
	// oldest mint. Every JWT lives 60 s, so the entries that can no longer
	// be reused are the oldest, and at capacity the oldest goes. The
	// expiry lives in the entry, checked against now: expirable's TTL is
	// per cache and on the wall clock, while reuse ends ReuseMargin before
	// each JWT's exp, on the Factory's clock. simplelru, not lru.Cache:
	// a store's add-then-drop runs under mu as one step.
	mu    sync.Mutex
	cache *simplelru.LRU[string, cacheEntry]
}

type cacheEntry struct {
	token    string
	expiryMs int64
	// client is NewClient(base, userID, token), built once per minted
	// JWT: a Client is immutable, so every request of the user within the
	// JWT's reuse window shares it.
	client *Client
}

// New returns a Factory. A SigningJWK is parsed here, once: a malformed
// one is an error naming what is wrong with it (never its value). A
// missing PostgREST URL or anon key is not: ForUser reports it with the
// original's message.
func New(opts Options) (*Factory, error) {
	var key *signingKey
	var err error
	switch {
	case opts.SigningKey != nil:
		key, err = newSigningKey(opts.SigningKey)
	case opts.SigningJWK != "":
		key, err = parseSigningJWK(opts.SigningJWK)
	}
	if err != nil {
		return nil, err
	}
	f := &Factory{
		key:     key,
		issuer:  opts.Issuer,
		now:     opts.Now,
		onCache: opts.OnCache,
	}
	if f.now == nil {
		f.now = time.Now
	}
	entries := opts.CacheEntries
	if entries <= 0 {
		entries = DefaultCacheEntries
	}
	if f.cache, err = simplelru.NewLRU[string, cacheEntry](entries, nil); err != nil {
		return nil, err
	}
	if opts.RestURL == "" || opts.AnonKey == "" {
		f.baseErr = fmt.Errorf("userclient: SUPABASE_URL and SUPABASE_ANON_KEY must be set")
	} else {
		f.base, f.baseErr = postgrest.New(postgrest.Options{
			BaseURL:      opts.RestURL,
			APIKey:       apiKeyUnlessDirect(opts.AnonKey, opts.DirectUpstream),
			HTTPClient:   opts.HTTPClient,
			MaxBodyBytes: opts.MaxBodyBytes,
			Observe:      opts.Observe,
		})
	}
	return f, nil
}

// NewFactory is New for wiring code whose key gateway/config has accepted
// (it parses JWT_SECRET by the same rules at start-up, so New cannot fail
// there). It panics where New returns an error, which can only happen at
// wiring time.
func NewFactory(opts Options) *Factory {
	f, err := New(opts)
	if err != nil {
		panic(err)
	}
	return f
}

// ForUser returns a client that reads PostgREST as userID: the anon key as
// apikey and a 60 s ES256 JWT for userID as bearer. The JWT is cached and
// reused while more than 5 s of its life remain; concurrent misses for one
// user mint once.
//
// Errors are *apierror.Error 500: "Server configuration error" when the URL
// or anon key is unset (A7 step 11), else A11's "JWT_SECRET must be set"
// when the Factory has no signing key.
func (f *Factory) ForUser(ctx context.Context, userID string) (*Client, error) {
	if f.baseErr != nil {
		return nil, &apierror.Error{Status: http.StatusInternalServerError, Reason: apierror.ReasonConfig, Message: MsgServerConfig, Err: f.baseErr}
	}
	if c, ok := f.cachedClient(userID, f.now().UnixMilli()); ok {
		if f.onCache != nil {
			f.onCache(true)
		}
		return c, nil
	}
	tok, err := f.token(userID)
	if err != nil {
		return nil, err
	}
	return NewClient(f.base, userID, tok), nil
}

// ForApproval returns a client for userID whose JWT also carries the
// claim "mcp_action": actionID. It is minted for one approval and never
// cached: the approval's SQL function (mcp_pending_action_approve) writes
// only for a JWT that names the action it approves, so neither a person's
// own session token nor a client's access token can approve anything.
func (f *Factory) ForApproval(ctx context.Context, userID, actionID string) (*Client, error) {
	if f.baseErr != nil {
		return nil, &apierror.Error{Status: http.StatusInternalServerError, Reason: apierror.ReasonConfig, Message: MsgServerConfig, Err: f.baseErr}
	}
	if f.key == nil {
		return nil, errKeyUnset()
	}
	tok, err := mintJWT(f.key, userID, f.issuer, actionID, f.now().UnixMilli())
	if err != nil {
		return nil, err
	}
	f.mints.Add(1)
	return NewClient(f.base, userID, tok), nil
}

// cachedClient is lookup for the client built with the cached JWT.
func (f *Factory) cachedClient(userID string, nowMs int64) (*Client, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.cache.Peek(userID); ok && e.client != nil && e.reusable(nowMs) {
		return e.client, true
	}
	return nil, false
}

// token returns a cached or freshly minted user JWT.
func (f *Factory) token(userID string) (string, error) {
	if tok, ok := f.lookup(userID, f.now().UnixMilli()); ok {
		if f.onCache != nil {
			f.onCache(true)
		}
		return tok, nil
	}
	if f.onCache != nil {
		f.onCache(false)
	}
	v, err, _ := f.flight.Do(userID, func() (any, error) {
		// A flight that finished just before this one may have stored it.
		if tok, ok := f.lookup(userID, f.now().UnixMilli()); ok {
			return tok, nil
		}
		if f.key == nil {
			return nil, errKeyUnset()
		}
		nowMs := f.now().UnixMilli()
		tok, err := mintUserJWTWithIssuer(f.key, userID, f.issuer, nowMs)
		if err != nil {
			return nil, err
		}
		f.mints.Add(1)
		f.store(userID, tok, nowMs)
		return tok, nil
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

func (f *Factory) lookup(userID string, nowMs int64) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.cache.Peek(userID); ok && e.reusable(nowMs) {
		return e.token, true
	}
	return "", false
}

// reusable reports whether more than ReuseMargin of the JWT's life
// remains at nowMs.
func (e cacheEntry) reusable(nowMs int64) bool {
	return e.expiryMs > nowMs+ReuseMargin.Milliseconds()
}

// store caches tok, minted at nowMs, as the newest entry (the cache drops
// the oldest at capacity), then drops the oldest entries while they can no
// longer be reused (amortised O(1)).
func (f *Factory) store(userID, tok string, nowMs int64) {
	e := cacheEntry{token: tok, expiryMs: nowMs + TokenLifetime.Milliseconds()}
	if f.base != nil {
		e.client = NewClient(f.base, userID, tok)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cache.Add(userID, e)
	for {
		if _, oldest, ok := f.cache.GetOldest(); !ok || oldest.reusable(nowMs) {
			return
		}
		f.cache.RemoveOldest()
	}
}

// Mints reports how many user JWTs have been signed, for metrics.
func (f *Factory) Mints() int64 { return f.mints.Load() }

// Len reports the number of cached JWTs, for tests and metrics.
func (f *Factory) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cache.Len()
}

// PublicJWK returns the public half of the signing key (kid, alg ES256,
// use sig), for publishing in a JWKS. It fails with A11's "JWT_SECRET must
// be set" error when the Factory has no key. The result is a copy the
// caller may modify.
func (f *Factory) PublicJWK() (jwk.Key, error) {
	if f.key == nil {
		return nil, errKeyUnset()
	}
	return f.key.public.Clone()
}

// mintUserJWT signs {"sub","role","aud","exp","iat"} (that order) with
// the header {"alg":"ES256","typ":"JWT","kid"}. exp and iat are
// Math.round of seconds, as in the original: for whole milliseconds
// Math.round(ms/1000) equals floor((ms+500)/1000).
func mintUserJWT(key *signingKey, userID string, nowMs int64) (string, error) {
	return mintUserJWTWithIssuer(key, userID, "", nowMs)
}

// mintUserJWTWithIssuer is mintUserJWT with "iss":issuer appended after
// "iat" when issuer is not empty; with an empty issuer the bytes are
// exactly A10's.
func mintUserJWTWithIssuer(key *signingKey, userID, issuer string, nowMs int64) (string, error) {
	return mintJWT(key, userID, issuer, "", nowMs)
}

// mintJWT is mintUserJWTWithIssuer with "mcp_action":action appended
// last when action is not empty (ForApproval).
func mintJWT(key *signingKey, userID, issuer, action string, nowMs int64) (string, error) {
	p := make([]byte, 0, 128+len(userID)+len(issuer)+len(action))
	p = append(p, `{"sub":`...)
	p = jsjson.AppendString(p, userID)
	p = append(p, `,"role":"authenticated","aud":"authenticated","exp":`...)
	p = jsjson.AppendNumber(p, float64(roundSeconds(nowMs+TokenLifetime.Milliseconds())))
	p = append(p, `,"iat":`...)
	p = jsjson.AppendNumber(p, float64(roundSeconds(nowMs)))
	if issuer != "" {
		p = append(p, `,"iss":`...)
		p = jsjson.AppendString(p, issuer)
	}
	if action != "" {
		p = append(p, `,"mcp_action":`...)
		p = jsjson.AppendString(p, action)
	}
	p = append(p, '}')

	signing := key.header + "." + base64.RawURLEncoding.EncodeToString(p)
	sig, err := jwt.SigningMethodES256.Sign(signing, key.priv)
	if err != nil {
		return "", apierror.Internal("Failed to sign user token", fmt.Errorf("userclient: sign: %w", err))
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// roundSeconds is Math.round(ms/1000) for an integral ms.
func roundSeconds(ms int64) int64 {
	q := (ms + 500) / 1000
	if (ms+500)%1000 < 0 {
		q-- // floor for negative values
	}
	return q
}

// apiKeyUnlessDirect is the apikey header value: none for a direct upstream.
func apiKeyUnlessDirect(key string, direct bool) string {
	if direct {
		return ""
	}
	return key
}
