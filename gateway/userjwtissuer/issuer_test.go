package userjwtissuer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"
	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest/goldenfile"
)

const testIssuer = "https://project.example/functions/v1/mcp-server/oidc"

// testKey is a fresh P-256 key as a private JWK with kid, alg and use, and
// its public coordinates (base64url) for the golden placeholders.
func testKey(t *testing.T) (priv jwk.Key, x, y string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	priv, err = jwk.FromRaw(k)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{jwk.KeyIDKey: "kid-1", jwk.AlgorithmKey: jwa.ES256, jwk.KeyUsageKey: "sig"} {
		if err := priv.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	pub, _ := k.PublicKey.Bytes()
	enc := base64.RawURLEncoding.EncodeToString
	return priv, enc(pub[1:33]), enc(pub[33:])
}

func publicOf(t *testing.T, k jwk.Key) jwk.Key {
	t.Helper()
	pub, err := jwk.PublicKeyOf(k)
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

func newIssuer(t *testing.T, url string, key func() (jwk.Key, error)) *Issuer {
	t.Helper()
	i, err := New(Options{IssuerURL: url, PublicJWK: key})
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// serve routes one request through an Echo router with the issuer
// registered at its own path.
func serve(t *testing.T, i *Issuer, method, path string) (*httptest.ResponseRecorder, error) {
	t.Helper()
	e := echo.New()
	var handlerErr error
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		handlerErr = err
		_ = c.NoContent(apierror.As(err).Status)
	}
	i.Register(e, i.Path())
	req := httptest.NewRequest(method, path, nil)
	// A forged Host or X-Forwarded-Host must not change the documents.
	req.Host = "evil.example"
	req.Header.Set("X-Forwarded-Host", "evil.example")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec, handlerErr
}

// golden compares got, plus a final newline, with testdata/name
// (goldenfile, -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), []byte(got+"\n"))
}

func TestDocuments(t *testing.T) {
	priv, x, y := testKey(t)
	i := newIssuer(t, testIssuer+"/", func() (jwk.Key, error) { return publicOf(t, priv), nil })
	if i.URL() != testIssuer || i.Path() != "/functions/v1/mcp-server/oidc" {
		t.Fatalf("URL, Path = %q, %q", i.URL(), i.Path())
	}
	tests := []struct {
		name, path, golden string
		placeholders       map[string]string
	}{
		{"discovery", "/functions/v1/mcp-server/oidc/.well-known/openid-configuration", "discovery.golden", nil},
		{"jwks", "/functions/v1/mcp-server/oidc/.well-known/jwks.json", "jwks.golden", map[string]string{x: "<x>", y: "<y>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := serve(t, i, http.MethodGet, tc.path)
			if err != nil || rec.Code != http.StatusOK {
				t.Fatalf("GET: %d %v", rec.Code, err)
			}
			body := rec.Body.String()
			for v, ph := range tc.placeholders {
				body = strings.Replace(body, `"`+v+`"`, `"`+ph+`"`, 1)
			}
			golden(t, tc.golden, body)
			wantHeaders := map[string]string{
				"Access-Control-Allow-Origin": "*",
				"Cache-Control":               "public, max-age=300",
				"Content-Type":                "application/json",
			}
			gotHeaders := map[string]string{}
			for k := range wantHeaders {
				gotHeaders[k] = rec.Header().Get(k)
			}
			if diff := cmp.Diff(wantHeaders, gotHeaders); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}

			rec, err = serve(t, i, http.MethodOptions, tc.path)
			if err != nil || rec.Code != http.StatusNoContent || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("OPTIONS: %d %v %v", rec.Code, rec.Header(), err)
			}
			rec, err = serve(t, i, http.MethodHead, tc.path)
			if err != nil || rec.Code != http.StatusOK {
				t.Errorf("HEAD: %d %v", rec.Code, err)
			}
			_, err = serve(t, i, http.MethodPost, tc.path)
			if ae := apierror.As(err); ae.Status != http.StatusMethodNotAllowed {
				t.Errorf("POST: got %v, want 405", err)
			}
		})
	}
}

// TestJWKSNeverPublishesD: even a PublicJWK that hands over the private
// key publishes only the public half.
func TestJWKSNeverPublishesD(t *testing.T) {
	priv, x, y := testKey(t)
	for name, key := range map[string]jwk.Key{"public": publicOf(t, priv), "private": priv} {
		t.Run(name, func(t *testing.T) {
			i := newIssuer(t, testIssuer, func() (jwk.Key, error) { return key, nil })
			rec, err := serve(t, i, http.MethodGet, "/functions/v1/mcp-server/oidc/.well-known/jwks.json")
			if err != nil || rec.Code != http.StatusOK {
				t.Fatalf("GET: %d %v", rec.Code, err)
			}
			var set struct {
				Keys []map[string]any `json:"keys"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &set); err != nil {
				t.Fatal(err)
			}
			if len(set.Keys) != 1 {
				t.Fatalf("keys = %d, want 1", len(set.Keys))
			}
			if _, ok := set.Keys[0]["d"]; ok {
				t.Fatal("JWKS publishes the private component d")
			}
			want := map[string]any{"kty": "EC", "crv": "P-256", "x": x, "y": y, "kid": "kid-1", "alg": "ES256", "use": "sig"}
			if diff := cmp.Diff(want, set.Keys[0]); diff != "" {
				t.Errorf("key (-want +got):\n%s", diff)
			}
			parsed, err := jwk.Parse(rec.Body.Bytes())
			if err != nil || parsed.Len() != 1 {
				t.Fatalf("jwk.Parse: %v", err)
			}
		})
	}
}

// TestJWKSKeyUnavailable: a missing or invalid JWT_SECRET is a 503 with
// its own message; the A11 text stays in the (logged) cause.
func TestJWKSKeyUnavailable(t *testing.T) {
	a11 := apierror.New(http.StatusInternalServerError, apierror.ReasonConfig, "JWT_SECRET must be set. Generate with: supabase gen signing-key --algorithm ES256")
	for name, key := range map[string]func() (jwk.Key, error){
		"error":  func() (jwk.Key, error) { return nil, a11 },
		"no key": func() (jwk.Key, error) { return nil, nil },
	} {
		t.Run(name, func(t *testing.T) {
			i := newIssuer(t, testIssuer, key)
			rec, err := serve(t, i, http.MethodGet, "/functions/v1/mcp-server/oidc/.well-known/jwks.json")
			var ae *apierror.Error
			if !errors.As(err, &ae) {
				t.Fatalf("error = %v, want *apierror.Error", err)
			}
			got := [3]any{rec.Code, ae.Status, ae.Message}
			want := [3]any{http.StatusServiceUnavailable, http.StatusServiceUnavailable, MsgKeyUnavailable}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("status/message (-want +got):\n%s", diff)
			}
			if name == "error" && !errors.Is(err, a11) {
				t.Errorf("cause %v does not wrap the key error", ae.Err)
			}
			if rec.Header().Get("Cache-Control") != "no-store" || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("headers = %v", rec.Header())
			}
		})
	}
	// The discovery document does not need the key.
	i := newIssuer(t, testIssuer, func() (jwk.Key, error) { return nil, a11 })
	if rec, err := serve(t, i, http.MethodGet, "/functions/v1/mcp-server/oidc/.well-known/openid-configuration"); err != nil || rec.Code != http.StatusOK {
		t.Errorf("discovery without a key: %d %v", rec.Code, err)
	}
}

func TestRegister(t *testing.T) {
	priv, _, _ := testKey(t)
	key := func() (jwk.Key, error) { return publicOf(t, priv), nil }
	tests := []struct {
		name, issuer, groupPrefix, relative string
		wantPaths                           []string
	}{
		{"at the root of a host", "https://mcp.example.edu", "", "",
			[]string{"/.well-known/openid-configuration", "/.well-known/jwks.json"}},
		{"under a path", "https://mcp.example.edu/oidc", "", "/oidc",
			[]string{"/oidc/.well-known/openid-configuration", "/oidc/.well-known/jwks.json"}},
		{"in a function's group", testIssuer, "/functions/v1/mcp-server", "/oidc",
			[]string{"/functions/v1/mcp-server/oidc/.well-known/openid-configuration", "/functions/v1/mcp-server/oidc/.well-known/jwks.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			i := newIssuer(t, tc.issuer, key)
			e := echo.New()
			g := e.Group(tc.groupPrefix)
			// A catch-all like a function's must not shadow the documents.
			g.Any("/*", func(c echo.Context) error { return c.String(http.StatusTeapot, "function") })
			i.Register(g, tc.relative)
			for _, p := range tc.wantPaths {
				rec := httptest.NewRecorder()
				e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
				if rec.Code != http.StatusOK {
					t.Errorf("GET %s: %d %s", p, rec.Code, rec.Body)
				}
			}
		})
	}
}

func TestNewRejects(t *testing.T) {
	key := func() (jwk.Key, error) { return nil, nil }
	for _, tc := range []struct {
		url string
		key func() (jwk.Key, error)
	}{
		{"", key}, {"/oidc", key}, {"ftp://x.example/oidc", key}, {"https://x.example/oidc?a=1", key},
		{"https://x.example/oidc#f", key}, {"https://u:p@x.example/oidc", key}, {"https://x.example/oidc", nil},
	} {
		if _, err := New(Options{IssuerURL: tc.url, PublicJWK: tc.key}); err == nil {
			t.Errorf("New(%q, key set %v) succeeded", tc.url, tc.key != nil)
		}
	}
}
