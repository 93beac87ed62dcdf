package userclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
)

type testKey struct {
	priv    *ecdsa.PrivateKey
	x, y, d string
}

func newTestKey(t testing.TB) testKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := k.PublicKey.Bytes()
	d, _ := k.Bytes()
	enc := base64.RawURLEncoding.EncodeToString
	return testKey{priv: k, x: enc(pub[1:33]), y: enc(pub[33:]), d: enc(d)}
}

// jwkJSON writes a JWK with members in the given order; "" values omitted.
func (k testKey) jwk(kid string, extra ...string) string {
	members := []string{`"kty":"EC"`, `"crv":"P-256"`, `"x":"` + k.x + `"`, `"y":"` + k.y + `"`, `"d":"` + k.d + `"`}
	if kid != "" {
		members = append([]string{`"kid":"` + kid + `"`}, members...)
	}
	return "{" + strings.Join(append(members, extra...), ",") + "}"
}

func assertAPIError(t *testing.T, err error, status int, msg string) {
	t.Helper()
	var ae *apierror.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error = %v (%T), want *apierror.Error %d %q", err, err, status, msg)
	}
	if diff := cmp.Diff([2]string{strconv.Itoa(status), msg}, [2]string{strconv.Itoa(ae.Status), ae.Message}); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

// TestSigningKeyErrors: parseSigningJWK refuses what the original cannot
// sign with, in the order of A11, and a d that does not belong to (x, y);
// the error describes the defect without quoting the key.
func TestSigningKeyErrors(t *testing.T) {
	k := newTestKey(t)
	other := newTestKey(t)
	enc := base64.RawURLEncoding.EncodeToString
	replace := func(s, old, new string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("%q is not in %q", old, s)
		}
		return strings.Replace(s, old, new, 1)
	}
	good := k.jwk("kid-1")
	const (
		prefix     = "userclient: JWT_SECRET is not an ES256 private JWK with a kid: "
		notObject  = prefix + `it does not start with "{"`
		notJSON    = prefix + "it is not valid JSON"
		noKid      = prefix + "it has no kid"
		notEC      = prefix + `its kty is not "EC"`
		notP256    = prefix + `its crv is not "P-256"`
		noD        = prefix + "it has no d: it is a public key"
		badValue   = prefix + "its x, y or d is not a base64url P-256 value"
		notMatched = prefix + "its d does not belong to its x and y"
	)
	tests := []struct {
		name, raw, want string
	}{
		{"empty", "", notObject},
		{"not a JSON object", "hello", notObject},
		{"leading space is not trimmed", " " + good, notObject},
		{"array", "[" + good + "]", notObject},
		{"invalid JSON", `{"kid":"a",}`, notJSON},
		{"truncated JSON", `{"kid":"kid-1","kty":"E`, notJSON},
		{"invalid JSON beats missing kid", `{"kty":"EC"`, notJSON},
		{"no kid", k.jwk(""), noKid},
		{"empty kid", replace(good, `"kid":"kid-1"`, `"kid":""`), noKid},
		{"null kid", replace(good, `"kid":"kid-1"`, `"kid":null`), noKid},
		{"numeric kid", replace(good, `"kid":"kid-1"`, `"kid":7`), noKid},
		{"kid checked before kty", `{"kty":"RSA"}`, noKid},
		{"wrong kty", replace(good, `"kty":"EC"`, `"kty":"RSA"`), notEC},
		{"kty lower case", replace(good, `"kty":"EC"`, `"kty":"ec"`), notEC},
		{"wrong crv", replace(good, `"crv":"P-256"`, `"crv":"P-384"`), notP256},
		{"no crv", replace(good, `"crv":"P-256",`, ``), notP256},
		{"no d (public key)", replace(good, `,"d":"`+k.d+`"`, ``), noD},
		{"empty d", replace(good, `"d":"`+k.d+`"`, `"d":""`), noD},
		{"numeric d", replace(good, `"d":"`+k.d+`"`, `"d":5`), badValue},
		{"bad x base64", replace(good, `"x":"`+k.x+`"`, `"x":"!!!"`), badValue},
		{"missing y", replace(good, `"y":"`+k.y+`",`, ``), badValue},
		{"x too long", replace(good, `"x":"`+k.x+`"`, `"x":"`+enc(make([]byte, 33))+`"`), badValue},
		{"y of another key", replace(good, `"y":"`+k.y+`"`, `"y":"`+other.y+`"`), badValue},
		{"x, y of another key", replace(replace(good, `"x":"`+k.x+`"`, `"x":"`+other.x+`"`), `"y":"`+k.y+`"`, `"y":"`+other.y+`"`), notMatched},
		{"d of another key", replace(good, `"d":"`+k.d+`"`, `"d":"`+other.d+`"`), notMatched},
		{"d zero", replace(good, `"d":"`+k.d+`"`, `"d":"`+enc(make([]byte, 32))+`"`), badValue},
		{"d above the group order", replace(good, `"d":"`+k.d+`"`, `"d":"`+enc([]byte(strings.Repeat("\xff", 32)))+`"`), badValue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sk, err := parseSigningJWK(tc.raw)
			if err == nil {
				t.Fatalf("parseSigningJWK = %+v, want error %q", sk, tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error:\n got: %s\nwant: %s", err, tc.want)
			}
		})
	}
}

func TestSigningKeyAccepts(t *testing.T) {
	k := newTestKey(t)
	for name, raw := range map[string]string{
		"plain":                    k.jwk("kid-1"),
		"extra members dropped":    k.jwk("kid-1", `"key_ops":["sign"]`, `"alg":"ES256"`, `"use":"sig"`, `"ext":true`),
		"whitespace inside":        strings.ReplaceAll(k.jwk("kid-1"), ",", " ,\n "),
		"trailing white space":     k.jwk("kid-1") + "\n",
		"duplicate key: last wins": `{"kid":"nope","kid":"kid-1",` + k.jwk("")[1:],
	} {
		t.Run(name, func(t *testing.T) {
			sk, err := parseSigningJWK(raw)
			if err != nil {
				t.Fatalf("parseSigningJWK = %v", err)
			}
			if sk.kid != "kid-1" || !sk.priv.Equal(k.priv) {
				t.Errorf("kid = %q, key equal = %v", sk.kid, sk.priv.Equal(k.priv))
			}
		})
	}
}

func fixedClock(ms int64) func() time.Time {
	return func() time.Time { return time.UnixMilli(ms) }
}

// TestMintUserJWT pins the exact header and payload bytes and checks the
// signature with golang-jwt (pinned to ES256) against the public key.
func TestMintUserJWT(t *testing.T) {
	k := newTestKey(t)
	sk, err := parseSigningJWK(k.jwk("pawtograder-session-v1"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		nowMs            int64
		wantExp, wantIat int64
	}{
		{1764460800123, 1764460860, 1764460800},
		{1764460800500, 1764460861, 1764460801}, // .5 rounds up
		{1764460800499, 1764460860, 1764460800},
	}
	for _, tc := range tests {
		t.Run(strconv.FormatInt(tc.nowMs, 10), func(t *testing.T) {
			tok, err := mintUserJWT(sk, "11111111-1111-4111-8111-111111111111", tc.nowMs)
			if err != nil {
				t.Fatal(err)
			}
			parts := strings.Split(tok, ".")
			if len(parts) != 3 {
				t.Fatalf("token has %d parts", len(parts))
			}
			dec := func(s string) string {
				b, err := base64.RawURLEncoding.DecodeString(s)
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			want := []string{
				`{"alg":"ES256","typ":"JWT","kid":"pawtograder-session-v1"}`,
				`{"sub":"11111111-1111-4111-8111-111111111111","role":"authenticated","aud":"authenticated","exp":` +
					strconv.FormatInt(tc.wantExp, 10) + `,"iat":` + strconv.FormatInt(tc.wantIat, 10) + `}`,
			}
			if diff := cmp.Diff(want, []string{dec(parts[0]), dec(parts[1])}); diff != "" {
				t.Errorf("header/payload (-want +got):\n%s", diff)
			}
			if n := len(dec(parts[2])); n != 64 {
				t.Errorf("signature is %d bytes, want raw r‖s of 64", n)
			}
			_, err = jwt.NewParser(
				jwt.WithValidMethods([]string{"ES256"}),
				jwt.WithAudience("authenticated"),
				jwt.WithExpirationRequired(),
				jwt.WithTimeFunc(func() time.Time { return time.UnixMilli(tc.nowMs) }),
			).Parse(tok, func(*jwt.Token) (any, error) { return &k.priv.PublicKey, nil })
			if err != nil {
				t.Errorf("minted JWT does not verify: %v", err)
			}
		})
	}
}

// TestFactoryIssuer: without Options.Issuer the factory mints A10's
// payload byte for byte; with it, "iss" follows "iat" and nothing else
// changes, and golang-jwt accepts the token with WithIssuer.
func TestFactoryIssuer(t *testing.T) {
	const user = "11111111-1111-4111-8111-111111111111"
	const nowMs = 1764460800123
	k := newTestKey(t)
	tests := []struct {
		name, issuer, wantPayload string
	}{
		{"unset", "",
			`{"sub":"11111111-1111-4111-8111-111111111111","role":"authenticated","aud":"authenticated","exp":1764460860,"iat":1764460800}`},
		{"set", "https://project.example/functions/v1/mcp-server/oidc",
			`{"sub":"11111111-1111-4111-8111-111111111111","role":"authenticated","aud":"authenticated","exp":1764460860,"iat":1764460800,"iss":"https://project.example/functions/v1/mcp-server/oidc"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFactory(Options{RestURL: "http://rest.invalid/rest/v1", AnonKey: "anon",
				SigningJWK: k.jwk("kid-1"), Issuer: tc.issuer, Now: fixedClock(nowMs)})
			tok, err := f.token(user)
			if err != nil {
				t.Fatal(err)
			}
			parts := strings.Split(tok, ".")
			if len(parts) != 3 {
				t.Fatalf("token has %d parts", len(parts))
			}
			header, _ := base64.RawURLEncoding.DecodeString(parts[0])
			payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
			want := []string{`{"alg":"ES256","typ":"JWT","kid":"kid-1"}`, tc.wantPayload}
			if diff := cmp.Diff(want, []string{string(header), string(payload)}); diff != "" {
				t.Errorf("header/payload (-want +got):\n%s", diff)
			}
			if tc.issuer == "" {
				// The factory path is the one TestMintUserJWT pins.
				sk, err := parseSigningJWK(k.jwk("kid-1"))
				if err != nil {
					t.Fatal(err)
				}
				plain, _ := mintUserJWT(sk, user, nowMs)
				if p := strings.Split(plain, ".")[1]; p != parts[1] {
					t.Errorf("payload differs from mintUserJWT's: %s vs %s", parts[1], p)
				}
				return
			}
			_, err = jwt.NewParser(
				jwt.WithValidMethods([]string{"ES256"}),
				jwt.WithIssuer(tc.issuer),
				jwt.WithAudience("authenticated"),
				jwt.WithExpirationRequired(),
				jwt.WithTimeFunc(func() time.Time { return time.UnixMilli(nowMs) }),
			).Parse(tok, func(*jwt.Token) (any, error) { return &k.priv.PublicKey, nil })
			if err != nil {
				t.Errorf("minted JWT does not verify with its issuer: %v", err)
			}
		})
	}
}

func TestRoundSeconds(t *testing.T) {
	for ms, want := range map[int64]int64{0: 0, 499: 0, 500: 1, 1499: 1, 1500: 2, -500: 0, -501: -1, -1500: -1} {
		if got := roundSeconds(ms); got != want {
			t.Errorf("roundSeconds(%d) = %d, want %d", ms, got, want)
		}
	}
}

// restRecorder answers every request with [] and records auth headers.
func restRecorder(t *testing.T) (*httptest.Server, *[][2]string, *sync.Mutex) {
	var mu sync.Mutex
	var got [][2]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, [2]string{r.Header.Get("apikey"), r.Header.Get("Authorization")})
		mu.Unlock()
		_, _ = io.WriteString(w, `[]`)
	}))
	t.Cleanup(srv.Close)
	return srv, &got, &mu
}

func TestForUserSendsAnonKeyAndUserJWT(t *testing.T) {
	k := newTestKey(t)
	srv, got, _ := restRecorder(t)
	f := NewFactory(Options{RestURL: srv.URL + "/rest/v1", AnonKey: "anon-key", SigningJWK: k.jwk("kid-1"), Now: fixedClock(1764460800123)})
	c, err := f.ForUser(context.Background(), "u1")
	if err != nil {
		t.Fatal(err)
	}
	if c.UserID() != "u1" {
		t.Errorf("UserID = %q", c.UserID())
	}
	if _, err := c.From("classes").Select("id").Rows(context.Background()); err != nil {
		t.Fatal(err)
	}
	tok, _ := f.token("u1")
	want := [][2]string{{"anon-key", "Bearer " + tok}}
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
}

// TestForUserCache: reused while more than 5 s of the 60 s remain.
func TestForUserCache(t *testing.T) {
	k := newTestKey(t)
	now := int64(1764460800000)
	var mu sync.Mutex
	clk := func() time.Time { mu.Lock(); defer mu.Unlock(); return time.UnixMilli(now) }
	set := func(ms int64) { mu.Lock(); now = ms; mu.Unlock() }
	var hits, misses int
	f := NewFactory(Options{RestURL: "http://rest.invalid/rest/v1", AnonKey: "anon", SigningJWK: k.jwk("kid-1"), Now: clk,
		OnCache: func(hit bool) {
			if hit {
				hits++
			} else {
				misses++
			}
		}})

	t1, err := f.token("u1")
	if err != nil {
		t.Fatal(err)
	}
	set(1764460800000 + 54_999) // 5.001 s left: reuse
	t2, _ := f.token("u1")
	set(1764460800000 + 55_000) // exactly 5 s left: re-mint
	t3, _ := f.token("u1")
	set(1764460800000 + 55_001)
	t4, _ := f.token("u1")
	if t1 != t2 || t2 == t3 || t3 != t4 {
		t.Errorf("reuse pattern wrong: t1==t2 %v, t2!=t3 %v, t3==t4 %v", t1 == t2, t2 != t3, t3 == t4)
	}
	if n := f.Mints(); n != 2 {
		t.Errorf("mints = %d, want 2", n)
	}
	if hits != 2 || misses != 2 {
		t.Errorf("cache hits/misses = %d/%d, want 2/2", hits, misses)
	}
	other, _ := f.token("u2")
	if other == t4 {
		t.Error("two users share a JWT")
	}
}

// TestForUserSingleFlight: concurrent misses for one user sign once.
func TestForUserSingleFlight(t *testing.T) {
	k := newTestKey(t)
	f := NewFactory(Options{RestURL: "http://rest.invalid/rest/v1", AnonKey: "anon", SigningJWK: k.jwk("kid-1")})
	var wg sync.WaitGroup
	toks := make([]string, 64)
	for i := range toks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := f.ForUser(context.Background(), "u1")
			if err != nil {
				t.Error(err)
				return
			}
			toks[i], _ = f.token(c.UserID())
		}()
	}
	wg.Wait()
	if n := f.Mints(); n != 1 {
		t.Errorf("mints = %d, want 1", n)
	}
	for _, tok := range toks {
		if tok != toks[0] {
			t.Fatal("callers got different JWTs")
		}
	}
}

// TestForUserCacheBound: the cache never exceeds CacheEntries, dropping
// the oldest entries, and drops unusable entries as it goes.
func TestForUserCacheBound(t *testing.T) {
	k := newTestKey(t)
	now := int64(1764460800000)
	f := NewFactory(Options{RestURL: "http://rest.invalid/rest/v1", AnonKey: "anon", SigningJWK: k.jwk("kid-1"), CacheEntries: 3,
		Now: func() time.Time { return time.UnixMilli(now) }})
	for i := 0; i < 5; i++ {
		if _, err := f.token("u" + strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
		now += 1000
	}
	if n := f.Len(); n != 3 {
		t.Errorf("Len = %d, want 3", n)
	}
	before := f.Mints()
	if _, err := f.token("u4"); err != nil { // newest: still cached
		t.Fatal(err)
	}
	if _, err := f.token("u0"); err != nil { // oldest: evicted, re-minted
		t.Fatal(err)
	}
	if got := f.Mints() - before; got != 1 {
		t.Errorf("mints = %d, want 1 (u0 only)", got)
	}
	now += 120_000 // everything expired
	if _, err := f.token("fresh"); err != nil {
		t.Fatal(err)
	}
	if n := f.Len(); n != 1 {
		t.Errorf("Len after expiry = %d, want 1", n)
	}
}

func TestForUserErrors(t *testing.T) {
	k := newTestKey(t)
	tests := []struct {
		name    string
		opts    Options
		wantMsg string
	}{
		{"SUPABASE_URL unset", Options{AnonKey: "anon", SigningJWK: k.jwk("kid")}, MsgServerConfig},
		{"SUPABASE_ANON_KEY unset", Options{RestURL: "http://x/rest/v1", SigningJWK: k.jwk("kid")}, MsgServerConfig},
		{"malformed URL", Options{RestURL: "::", AnonKey: "anon", SigningJWK: k.jwk("kid")}, MsgServerConfig},
		{"config is checked before the key", Options{SigningJWK: ""}, MsgServerConfig},
		{"JWT_SECRET unset", Options{RestURL: "http://x/rest/v1", AnonKey: "anon"}, MsgKeyUnset},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := New(tc.opts)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			_, err = f.ForUser(context.Background(), "u1")
			assertAPIError(t, err, http.StatusInternalServerError, tc.wantMsg)
		})
	}
}

// TestNewRefusesMalformedKey: a JWT_SECRET that cannot sign fails the
// constructor, before any request, and the error does not carry the key.
func TestNewRefusesMalformedKey(t *testing.T) {
	k := newTestKey(t)
	public := strings.Replace(k.jwk("kid-1"), `,"d":"`+k.d+`"`, "", 1)
	for name, raw := range map[string]string{
		"not JSON":   "{" + k.d,
		"public key": public,
	} {
		t.Run(name, func(t *testing.T) {
			f, err := New(Options{RestURL: "http://rest.invalid/rest/v1", AnonKey: "anon", SigningJWK: raw})
			if err == nil || f != nil {
				t.Fatalf("New = %v, %v; want nil and an error", f, err)
			}
			if strings.Contains(err.Error(), k.d) || strings.Contains(err.Error(), k.x) {
				t.Errorf("error quotes the key: %v", err)
			}
			var ae *apierror.Error
			if errors.As(err, &ae) {
				t.Errorf("error is an HTTP error (%d %q), want a plain configuration error", ae.Status, ae.Message)
			}
		})
	}
}

// TestNewFactoryPanicsOnMalformedKey: the wiring-time form panics with
// New's error instead of returning a Factory that cannot sign.
func TestNewFactoryPanicsOnMalformedKey(t *testing.T) {
	const want = `userclient: JWT_SECRET is not an ES256 private JWK with a kid: it has no kid`
	defer func() {
		err, _ := recover().(error)
		if err == nil || err.Error() != want {
			t.Errorf("recovered %v, want the error %q", err, want)
		}
	}()
	NewFactory(Options{SigningJWK: "{}"})
}

func TestPublicJWK(t *testing.T) {
	k := newTestKey(t)
	f := NewFactory(Options{SigningJWK: k.jwk("kid-1", `"alg":"ES256"`)})
	pub, err := f.PublicJWK()
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(pub)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"kty": "EC", "crv": "P-256", "x": k.x, "y": k.y, "kid": "kid-1", "alg": "ES256", "use": "sig"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("public JWK (-want +got):\n%s", diff)
	}
	// A copy: changing it does not change the factory's key.
	_ = pub.Set("kid", "changed")
	again, _ := f.PublicJWK()
	if again.KeyID() != "kid-1" {
		t.Error("PublicJWK returned shared state")
	}
	if _, err := NewFactory(Options{}).PublicJWK(); err == nil {
		t.Error("PublicJWK without a key succeeded")
	}
}

func BenchmarkForUserCacheHit(b *testing.B) {
	k := newTestKey(b)
	f := NewFactory(Options{RestURL: "http://rest.invalid/rest/v1", AnonKey: "anon", SigningJWK: k.jwk("kid-1")})
	ctx := context.Background()
	if _, err := f.ForUser(ctx, "u1"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.ForUser(ctx, "u1"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMintUserJWT(b *testing.B) {
	k := newTestKey(b)
	sk, err := parseSigningJWK(k.jwk("kid-1"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mintUserJWT(sk, "11111111-1111-4111-8111-111111111111", 1764460800123); err != nil {
			b.Fatal(err)
		}
	}
}

// TestForApproval: the approval's JWT is the user's with "mcp_action"
// last, minted afresh each time and never cached for ForUser.
func TestForApproval(t *testing.T) {
	const user = "11111111-1111-4111-8111-111111111111"
	const action = "22222222-2222-4222-8222-222222222222"
	k := newTestKey(t)
	srv, got, _ := restRecorder(t)
	f := NewFactory(Options{RestURL: srv.URL + "/rest/v1", AnonKey: "anon-key", SigningJWK: k.jwk("kid-1"), Now: fixedClock(1764460800123)})
	c, err := f.ForApproval(context.Background(), user, action)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.RPC(context.Background(), "mcp_pending_action_approve", map[string]string{"p_id": action}); err != nil {
		t.Fatal(err)
	}
	if len(*got) != 1 {
		t.Fatalf("requests = %d, want 1", len(*got))
	}
	tok := strings.TrimPrefix((*got)[0][1], "Bearer ")
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[1])
	want := `{"sub":"11111111-1111-4111-8111-111111111111","role":"authenticated","aud":"authenticated","exp":1764460860,"iat":1764460800,"mcp_action":"22222222-2222-4222-8222-222222222222"}`
	if string(payload) != want {
		t.Errorf("payload = %s, want %s", payload, want)
	}
	if f.Len() != 0 {
		t.Errorf("the approval's JWT was cached (%d entries)", f.Len())
	}
	plain, _ := f.token(user)
	if plain == tok {
		t.Error("ForUser's JWT is the approval's")
	}
}
