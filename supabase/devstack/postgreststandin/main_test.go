package postgreststandin

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/lestrrat-go/jwx/v2/jwk"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest/goldenfile"
	"github.com/pawtograder/mcp-gateway/supabase/devstack/pgcluster"
)

// Test fixtures shared by the package's tests: one cluster, one database.
var (
	testPool    *pgxpool.Pool
	testHandler *Handler
	testSecret  = []byte("test-legacy-secret-with-at-least-32-chars")
	testECKey   *ecdsa.PrivateKey
	testRSAKey  *rsa.PrivateKey
	testOtherEC *ecdsa.PrivateKey
	testNow     = func() time.Time { return time.Now() }
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := pgcluster.Start(ctx, pgcluster.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "postgreststandin tests: start postgres:", err)
		return 1
	}
	defer c.Stop()
	if err := c.CreateDatabase(ctx, "postgreststandin"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	pool, err := pgxpool.New(ctx, c.SuperuserURL("postgreststandin"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer pool.Close()
	schema, err := os.ReadFile("testdata/schema.sql")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := pool.Exec(ctx, string(schema)); err != nil {
		fmt.Fprintln(os.Stderr, "apply schema:", err)
		return 1
	}
	testPool = pool
	testECKey, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	testOtherEC, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	testRSAKey, _ = rsa.GenerateKey(rand.Reader, 2048)
	set := jwk.NewSet()
	for kid, k := range map[string]any{"ec-1": &testECKey.PublicKey, "rsa-1": &testRSAKey.PublicKey} {
		jk, err := jwk.FromRaw(k)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		_ = jk.Set(jwk.KeyIDKey, kid)
		_ = set.AddKey(jk)
	}
	testHandler, err = New(Config{Pool: pool, JWKS: set, JWTSecret: testSecret, MaxRows: 1000,
		Now: func() time.Time { return testNow() }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// token signs claims with the named key: "hs" (legacy secret), "ec" (kid
// ec-1), "rsa" (kid rsa-1), "ec-unknown-kid", "ec-wrong-key".
func token(t testing.TB, key string, claims jwt.MapClaims) string {
	t.Helper()
	var tok *jwt.Token
	var signKey any
	switch key {
	case "hs":
		tok, signKey = jwt.NewWithClaims(jwt.SigningMethodHS256, claims), testSecret
	case "ec":
		tok, signKey = jwt.NewWithClaims(jwt.SigningMethodES256, claims), testECKey
		tok.Header["kid"] = "ec-1"
	case "ec-nokid":
		tok, signKey = jwt.NewWithClaims(jwt.SigningMethodES256, claims), testECKey
	case "ec-unknown-kid":
		tok, signKey = jwt.NewWithClaims(jwt.SigningMethodES256, claims), testECKey
		tok.Header["kid"] = "nope"
	case "ec-wrong-key":
		tok, signKey = jwt.NewWithClaims(jwt.SigningMethodES256, claims), testOtherEC
		tok.Header["kid"] = "ec-1"
	case "rsa":
		tok, signKey = jwt.NewWithClaims(jwt.SigningMethodRS256, claims), testRSAKey
		tok.Header["kid"] = "rsa-1"
	default:
		t.Fatalf("unknown key %q", key)
	}
	s, err := tok.SignedString(signKey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// userClaims are typical Supabase session claims for sub.
func userClaims(sub string) jwt.MapClaims {
	now := time.Now().Unix()
	return jwt.MapClaims{"sub": sub, "role": "authenticated", "aud": "authenticated", "iat": now, "exp": now + 3600}
}

// response is what the tests compare.
type response struct {
	Status  int
	Headers map[string]string
	Body    string
}

// do sends a request through the handler and keeps the named headers.
func do(t testing.TB, h http.Handler, method, target string, hdr map[string]string, body string, keep ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, escapeTarget(target), rd)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := response{Status: rec.Code, Body: rec.Body.String()}
	if len(keep) > 0 {
		res.Headers = map[string]string{}
		for _, k := range keep {
			if v := rec.Header().Get(k); v != "" {
				res.Headers[k] = v
			}
		}
	}
	return res
}

// rcase is one request of a golden-file test.
type rcase struct {
	name   string
	method string
	target string
	hdr    map[string]string
	body   string
}

// keptHeaders are the response headers golden files pin.
var keptHeaders = []string{"Content-Type", "Content-Range", "Preference-Applied", "WWW-Authenticate", "Proxy-Status"}

// runGolden sends every case through h in order and compares the transcript
// with testdata/<file>; -update rewrites it.
func runGolden(t *testing.T, h http.Handler, file string, cases []rcase) {
	t.Helper()
	var sb strings.Builder
	for _, c := range cases {
		m := c.method
		if m == "" {
			m = http.MethodGet
		}
		res := do(t, h, m, c.target, c.hdr, c.body, keptHeaders...)
		fmt.Fprintf(&sb, "### %s\n%s %s\n", c.name, m, c.target)
		for _, k := range sortedKeys(c.hdr) {
			if k == "Authorization" {
				continue
			}
			fmt.Fprintf(&sb, "> %s: %s\n", k, c.hdr[k])
		}
		if c.body != "" {
			fmt.Fprintf(&sb, "> body: %s\n", c.body)
		}
		fmt.Fprintf(&sb, "status: %d\n", res.Status)
		for _, k := range keptHeaders {
			if v, ok := res.Headers[k]; ok {
				fmt.Fprintf(&sb, "%s: %s\n", k, v)
			}
		}
		fmt.Fprintf(&sb, "%s\n\n", res.Body)
	}
	golden(t, file, sb.String())
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// golden compares got with testdata/file (goldenfile, -update).
func golden(t *testing.T, file, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", file), []byte(got))
}

// escapeTarget percent-encodes the query of a readable test target, keeping
// parameter order.
func escapeTarget(target string) string {
	path, rawQuery, ok := strings.Cut(target, "?")
	if !ok {
		return target
	}
	parts := strings.Split(rawQuery, "&")
	for i, p := range parts {
		k, v, _ := strings.Cut(p, "=")
		parts[i] = url.QueryEscape(k) + "=" + url.QueryEscape(v)
	}
	return path + "?" + strings.Join(parts, "&")
}
