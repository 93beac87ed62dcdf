// Package userjwtissuer publishes the gateway as an OpenID Connect issuer of the
// per-user JWTs it mints (docs/contract/protocol.md A10), so that a hosted Supabase
// project can be told to trust them through third-party auth instead of
// importing the signing key.
//
// It serves two unauthenticated documents below the issuer URL:
//
//   - <issuer>/.well-known/openid-configuration, a minimal OIDC discovery
//     document naming the issuer and its jwks_uri;
//   - <issuer>/.well-known/jwks.json, the public half of JWT_SECRET.
//
// Supabase's custom OIDC third-party auth reads only what this needs: the
// discovery document at <issuer>/.well-known/openid-configuration (the
// issuer URL must use HTTPS), the signing keys at its jwks_uri, an
// asymmetric algorithm with a kid header, and a role claim in each JWT
// (https://supabase.com/docs/guides/auth/third-party/custom-oidc). The
// other members (signing algorithms, response and subject types) are
// REQUIRED by OpenID Connect Discovery 1.0 §3 and kept so generic OIDC
// libraries accept the document; authorization_endpoint, also REQUIRED
// there, is left out because the gateway runs no login flow and Supabase
// does not read it.
//
// Every URL comes from configuration: Host and X-Forwarded-* are never read.
package userjwtissuer

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/lestrrat-go/jwx/v2/jwk"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Well-known paths below the issuer URL.
const (
	// DiscoveryPath is OpenID Connect Discovery's configuration document.
	DiscoveryPath = "/.well-known/openid-configuration"
	// JWKSPath is where the key set is published (the document's jwks_uri).
	JWKSPath = "/.well-known/jwks.json"
)

// CacheControl is sent with both documents. Five minutes keeps a key
// rotation visible quickly while sparing the gateway repeated fetches.
const CacheControl = "public, max-age=300"

// MsgKeyUnavailable is the public message of the 503 answered when the
// signing key cannot be read. It deliberately differs from the A11 texts,
// which are meant for function callers and name the variable.
const MsgKeyUnavailable = "Signing key unavailable"

// Options configures an Issuer.
type Options struct {
	// IssuerURL is GATEWAY_ISSUER_URL: an absolute http(s) URL without
	// query or fragment. Trailing slashes are removed; the result is the
	// exact "iss" of the minted JWTs and the "issuer" of the document.
	IssuerURL string
	// PublicJWK returns the public signing key (with kid, alg and use),
	// e.g. userclient.Factory.PublicJWK. It is called per JWKS request, so a
	// key that becomes readable later is published without a restart.
	PublicJWK func() (jwk.Key, error)
}

// Issuer serves the discovery document and the JWKS.
type Issuer struct {
	issuer    string
	path      string
	discovery []byte
	publicJWK func() (jwk.Key, error)
}

// New validates opts and renders the discovery document once.
func New(opts Options) (*Issuer, error) {
	u, err := url.Parse(opts.IssuerURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, errors.New("issuer: IssuerURL must be an absolute http(s) URL without query, fragment or credentials")
	}
	if opts.PublicJWK == nil {
		return nil, errors.New("issuer: PublicJWK is required")
	}
	iss := strings.TrimRight(opts.IssuerURL, "/")
	doc, err := jsjson.Marshal(jsjson.NewObject(5).
		Set("issuer", iss).
		Set("jwks_uri", iss+JWKSPath).
		Set("id_token_signing_alg_values_supported", []any{"ES256"}).
		Set("response_types_supported", []any{"id_token"}).
		Set("subject_types_supported", []any{"public"}))
	if err != nil {
		return nil, err
	}
	return &Issuer{
		issuer:    iss,
		path:      strings.TrimRight(u.Path, "/"),
		discovery: doc,
		publicJWK: opts.PublicJWK,
	}, nil
}

// URL is the issuer identifier: the "iss" claim and the URL to register.
func (i *Issuer) URL() string { return i.issuer }

// Path is the issuer URL's path without trailing slash ("" at the root).
// The documents are served at Path()+DiscoveryPath and Path()+JWKSPath.
func (i *Issuer) Path() string { return i.path }

// Router is what both *echo.Echo and *echo.Group provide.
type Router interface {
	Any(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) []*echo.Route
}

// Register adds both documents to r at prefix+DiscoveryPath and
// prefix+JWKSPath. prefix is the issuer path relative to r's own prefix:
// Path() on the root router, or what remains of it below a group's path.
func (i *Issuer) Register(r Router, prefix string) {
	prefix = strings.TrimRight(prefix, "/")
	r.Any(prefix+DiscoveryPath, i.Discovery)
	r.Any(prefix+JWKSPath, i.JWKS)
}

// Discovery answers GET and HEAD with the OIDC discovery document.
func (i *Issuer) Discovery(c echo.Context) error {
	if done, err := preamble(c); done {
		return err
	}
	c.Response().Header().Set("Cache-Control", CacheControl)
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, i.discovery)
}

// JWKS answers GET and HEAD with {"keys":[<public JWK>]}. When the signing
// key cannot be read it returns a 503 *apierror.Error whose cause (the A11
// error) is logged by the gateway's error handler and never serialised.
func (i *Issuer) JWKS(c echo.Context) error {
	if done, err := preamble(c); done {
		return err
	}
	body, err := i.jwks()
	if err != nil {
		c.Response().Header().Set("Cache-Control", "no-store")
		return apierror.New(http.StatusServiceUnavailable, apierror.ReasonConfig, MsgKeyUnavailable).
			WithCause(fmt.Errorf("issuer: JWT_SECRET: %w", err))
	}
	c.Response().Header().Set("Cache-Control", CacheControl)
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, body)
}

// jwks renders the key set. The key is reduced to its public half again
// here, so a PublicJWK that returned a private key still publishes no d.
func (i *Issuer) jwks() ([]byte, error) {
	key, err := i.publicJWK()
	if err != nil {
		return nil, err
	}
	if key == nil {
		return nil, errors.New("no key")
	}
	pub, err := jwk.PublicKeyOf(key)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(pub)
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`{"keys":[`), data...), ']', '}'), nil
}

// preamble sets the CORS headers and answers the methods other than GET and
// HEAD; done reports whether the answer is settled.
func preamble(c echo.Context) (done bool, err error) {
	h := c.Response().Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, OPTIONS")
	switch c.Request().Method {
	case http.MethodGet, http.MethodHead:
		return false, nil
	case http.MethodOptions:
		return true, c.NoContent(http.StatusNoContent)
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		return true, apierror.New(http.StatusMethodNotAllowed, apierror.ReasonMethodNotAllow, "Method not allowed")
	}
}
