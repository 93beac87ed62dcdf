package supabasejwt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Options configures a Verifier.
type Options struct {
	// Issuer is Supabase Auth's issuer, e.g. https://xyz.supabase.co/auth/v1.
	Issuer string
	// JWKSURL defaults to Issuer + "/.well-known/jwks.json".
	JWKSURL string
	// Audiences accepted; a token must name at least one of them.
	Audiences []string
	// LegacySecret, when set, also accepts HS256 tokens signed with it.
	LegacySecret string
	HTTPClient   *http.Client
	Now          func() time.Time
	// Leeway is the clock skew allowed on exp, nbf and iat (default 30 s).
	Leeway time.Duration
	// TTL is how long a fetched JWKS is trusted (default 10 min).
	TTL time.Duration
	// MinRefetchInterval spaces refetches caused by unknown kids (default 30 s).
	MinRefetchInterval time.Duration
}

// Claims are the verified facts the gateway uses.
type Claims struct {
	Subject   string
	SessionID string
	ClientID  string
	Scope     string
	Role      string
	Audience  []string
}

// Verifier checks Supabase-issued access tokens.
type Verifier struct {
	opts    Options
	keys    *keySource
	methods []string
}

// New validates opts and returns a Verifier.
func New(opts Options) (*Verifier, error) {
	if opts.Issuer == "" {
		return nil, errors.New("supabasejwt: Issuer is required")
	}
	if len(opts.Audiences) == 0 {
		return nil, errors.New("supabasejwt: at least one audience is required")
	}
	if opts.JWKSURL == "" {
		opts.JWKSURL = strings.TrimRight(opts.Issuer, "/") + "/.well-known/jwks.json"
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Leeway == 0 {
		opts.Leeway = 30 * time.Second
	}
	if opts.TTL == 0 {
		opts.TTL = 10 * time.Minute
	}
	if opts.MinRefetchInterval == 0 {
		opts.MinRefetchInterval = 30 * time.Second
	}
	methods := []string{"ES256", "RS256"}
	if opts.LegacySecret != "" {
		methods = append(methods, "HS256")
	}
	return &Verifier{
		opts:    opts,
		methods: methods,
		keys: &keySource{url: opts.JWKSURL, hc: opts.HTTPClient, now: opts.Now,
			ttl: opts.TTL, minRefetch: opts.MinRefetchInterval},
	}, nil
}

// Issuer returns the issuer this verifier accepts.
func (v *Verifier) Issuer() string { return v.opts.Issuer }

// InvalidTokenError is a token refused for a reason that is the caller's:
// bad signature, unknown key, wrong issuer or audience, expiry.
type InvalidTokenError struct{ Reason string }

func (e *InvalidTokenError) Error() string { return "invalid access token: " + e.Reason }

// tokenClaims keeps exp, nbf and iat raw: jwt.RegisteredClaims' decoder
// accepts quoted numbers and turns 1e18 or -1e300 into a time far in the
// future or past, so a token could be made never to expire.
type tokenClaims struct {
	Issuer    string           `json:"iss"`
	Subject   string           `json:"sub"`
	Audience  jwt.ClaimStrings `json:"aud"`
	Exp       json.RawMessage  `json:"exp"`
	Nbf       json.RawMessage  `json:"nbf"`
	Iat       json.RawMessage  `json:"iat"`
	SessionID string           `json:"session_id"`
	ClientID  string           `json:"client_id"`
	Scope     string           `json:"scope"`
	Role      string           `json:"role"`
}

// GetExpirationTime implements jwt.Claims.
func (c *tokenClaims) GetExpirationTime() (*jwt.NumericDate, error) { return numericDate(c.Exp) }

// GetNotBefore implements jwt.Claims.
func (c *tokenClaims) GetNotBefore() (*jwt.NumericDate, error) { return numericDate(c.Nbf) }

// GetIssuedAt implements jwt.Claims.
func (c *tokenClaims) GetIssuedAt() (*jwt.NumericDate, error) { return numericDate(c.Iat) }

// GetIssuer implements jwt.Claims.
func (c *tokenClaims) GetIssuer() (string, error) { return c.Issuer, nil }

// GetSubject implements jwt.Claims.
func (c *tokenClaims) GetSubject() (string, error) { return c.Subject, nil }

// GetAudience implements jwt.Claims.
func (c *tokenClaims) GetAudience() (jwt.ClaimStrings, error) { return c.Audience, nil }

// MaxTimingClaim is the largest exp, nbf or iat accepted, in seconds since
// the epoch: 9999-12-31T23:59:59Z.
const MaxTimingClaim = 253402300799

var errTimingClaim = errors.New("timing claim is not a number between 0 and 9999-12-31")

// numericDate parses a raw exp, nbf or iat: absent is nil; it must
// otherwise be a bare, finite JSON number in [0, MaxTimingClaim].
func numericDate(raw json.RawMessage) (*jwt.NumericDate, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return nil, errTimingClaim
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 || f > MaxTimingClaim {
		return nil, errTimingClaim
	}
	sec, frac := math.Modf(f)
	return jwt.NewNumericDate(time.Unix(int64(sec), int64(math.Round(frac*1e9)))), nil
}

// Verify checks token and returns its claims. A refused token is an
// *InvalidTokenError; a JWKS that cannot be fetched wraps ErrJWKSUnavailable.
func (v *Verifier) Verify(ctx context.Context, token string) (*Claims, error) {
	var fetchErr error
	keyfunc := func(t *jwt.Token) (any, error) {
		if t.Method.Alg() == "HS256" {
			return []byte(v.opts.LegacySecret), nil
		}
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("token has no kid")
		}
		k, err := v.keys.key(ctx, kid)
		if err != nil {
			fetchErr = err
			return nil, err
		}
		if k == nil {
			return nil, fmt.Errorf("kid %q is not in the JWKS", kid)
		}
		var raw any
		if err := k.Raw(&raw); err != nil {
			return nil, err
		}
		return raw, nil
	}
	var c tokenClaims
	_, err := jwt.ParseWithClaims(token, &c, keyfunc,
		jwt.WithValidMethods(v.methods),
		jwt.WithIssuer(v.opts.Issuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(v.opts.Leeway),
		jwt.WithTimeFunc(v.opts.Now),
	)
	if fetchErr != nil {
		return nil, fetchErr
	}
	if err != nil {
		return nil, &InvalidTokenError{Reason: err.Error()}
	}
	if c.Subject == "" {
		return nil, &InvalidTokenError{Reason: "token has no sub"}
	}
	if !slices.ContainsFunc(c.Audience, func(a string) bool { return slices.Contains(v.opts.Audiences, a) }) {
		return nil, &InvalidTokenError{Reason: "token audience is not accepted by this resource"}
	}
	return &Claims{Subject: c.Subject, SessionID: c.SessionID, ClientID: c.ClientID,
		Scope: c.Scope, Role: c.Role, Audience: c.Audience}, nil
}

// PeekIssuer returns the iss claim of a compact JWS without verifying it,
// so a caller can route a bearer to the right verifier. Routing on an
// unverified claim is safe because the chosen verifier then checks it.
func PeekIssuer(token string) string {
	p := jwt.NewParser()
	var c jwt.RegisteredClaims
	if _, _, err := p.ParseUnverified(token, &c); err != nil {
		return ""
	}
	return c.Issuer
}
