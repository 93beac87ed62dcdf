package postgreststandin

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestJWT pins PostgREST's answers to every kind of token.
func TestJWT(t *testing.T) {
	alice := "11111111-1111-1111-1111-111111111111"
	now := time.Now().Unix()
	with := func(mod func(c jwt.MapClaims)) jwt.MapClaims {
		c := userClaims(alice)
		mod(c)
		return c
	}
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	noneTok := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"`+alice+`","role":"authenticated"}`)) + "."
	cases := []rcase{
		{name: "HS256 legacy secret", target: "/notes?select=id,body&order=id", hdr: bearer(token(t, "hs", userClaims(alice)))},
		{name: "ES256 through JWKS", target: "/notes?select=id,body&order=id", hdr: bearer(token(t, "ec", userClaims(alice)))},
		{name: "ES256 without kid", target: "/notes?select=id&order=id", hdr: bearer(token(t, "ec-nokid", userClaims(alice)))},
		{name: "RS256 through JWKS", target: "/notes?select=id&order=id", hdr: bearer(token(t, "rsa", userClaims("22222222-2222-2222-2222-222222222222")))},
		{name: "kid not in JWKS", target: "/notes?select=id", hdr: bearer(token(t, "ec-unknown-kid", userClaims(alice)))},
		{name: "wrong signing key", target: "/notes?select=id", hdr: bearer(token(t, "ec-wrong-key", userClaims(alice)))},
		{name: "alg none", target: "/notes?select=id", hdr: bearer(noneTok)},
		{name: "expired beyond skew", target: "/notes?select=id", hdr: bearer(token(t, "ec", with(func(c jwt.MapClaims) { c["exp"] = now - 31 })))},
		{name: "expired within skew", target: "/notes?select=id&order=id", hdr: bearer(token(t, "ec", with(func(c jwt.MapClaims) { c["exp"] = now - 5 })))},
		{name: "not yet valid", target: "/notes?select=id", hdr: bearer(token(t, "ec", with(func(c jwt.MapClaims) { c["nbf"] = now + 120 })))},
		{name: "issued in the future", target: "/notes?select=id", hdr: bearer(token(t, "ec", with(func(c jwt.MapClaims) { c["iat"] = now + 120 })))},
		{name: "exp not a number", target: "/notes?select=id", hdr: bearer(token(t, "ec", with(func(c jwt.MapClaims) { c["exp"] = "soon" })))},
		{name: "no role claim means anon", target: "/films?select=id&id=eq.1", hdr: bearer(token(t, "ec", with(func(c jwt.MapClaims) { delete(c, "role") })))},
		{name: "role that does not exist", target: "/films?select=id", hdr: bearer(token(t, "ec", with(func(c jwt.MapClaims) { c["role"] = "ghost" })))},
		{name: "service_role bypasses RLS", target: "/notes?select=id&order=id", hdr: bearer(token(t, "hs", jwt.MapClaims{"role": "service_role", "iss": "supabase-demo"}))},
		{name: "two parts", target: "/films?select=id", hdr: bearer("abc.def")},
		{name: "empty bearer", target: "/films?select=id", hdr: map[string]string{"Authorization": "Bearer "}},
		{name: "garbage header segment", target: "/films?select=id", hdr: bearer("!!.e30.sig")},
		{name: "anon sees nothing of notes", target: "/notes?select=id"},
	}
	runGolden(t, testHandler, "jwt.golden", cases)
}

// TestJWTAudience checks jwt-aud: a configured audience rejects others.
func TestJWTAudience(t *testing.T) {
	h, err := New(Config{Pool: testPool, JWTSecret: testSecret, Audience: "authenticated"})
	if err != nil {
		t.Fatal(err)
	}
	alice := "11111111-1111-1111-1111-111111111111"
	c := userClaims(alice)
	c["aud"] = "someone-else"
	arr := userClaims(alice)
	arr["aud"] = []string{"x", "authenticated"}
	cases := []rcase{
		{name: "wrong audience", target: "/notes?select=id", hdr: map[string]string{"Authorization": "Bearer " + token(t, "hs", c)}},
		{name: "audience array containing ours", target: "/notes?select=id&order=id", hdr: map[string]string{"Authorization": "Bearer " + token(t, "hs", arr)}},
		{name: "ES256 without JWKS", target: "/notes?select=id", hdr: map[string]string{"Authorization": "Bearer " + token(t, "ec", userClaims(alice))}},
	}
	runGolden(t, h, "jwt_audience.golden", cases)
}
