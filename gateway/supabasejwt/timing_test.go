package supabasejwt

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// signRaw signs a payload given as JSON text, so claims such as 1e999 that
// no Go value marshals to can be tested.
func signRaw(t *testing.T, key *ecdsa.PrivateKey, kid, payload string) string {
	t.Helper()
	enc := base64.RawURLEncoding.EncodeToString
	signing := enc([]byte(`{"alg":"ES256","kid":"`+kid+`","typ":"JWT"}`)) + "." + enc([]byte(payload))
	sig, err := jwt.SigningMethodES256.Sign(signing, key)
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + enc(sig)
}

// TestVerifyTimingClaims: exp, nbf and iat must be finite JSON numbers
// between 0 and the end of year 9999; 1e999, absurd magnitudes and
// non-numbers are invalid tokens, never tokens that do not expire (issue 15
// item 3).
func TestVerifyTimingClaims(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srv := newJWKSServer(t)
	srv.add(t, "ec1", ec)
	v, err := New(Options{Issuer: issuer, Audiences: []string{"authenticated"}, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	v.keys.hc = srv.Client()
	v.keys.url = srv.URL

	const base = `"iss":"` + issuer + `","sub":"user-1","aud":"authenticated","role":"authenticated"`
	const exp, iat = `"exp":1800003600`, `"iat":1800000000`
	tests := []struct {
		name   string
		claims []string
		ok     bool
	}{
		{"valid", []string{exp, iat}, true},
		{"exp 1e999", []string{`"exp":1e999`, iat}, false},
		{"exp -1e999", []string{`"exp":-1e999`, iat}, false},
		{"exp 1e300", []string{`"exp":1e300`, iat}, false},
		{"exp 1e18", []string{`"exp":1e18`, iat}, false},
		{"exp 2^63", []string{`"exp":9223372036854775808`, iat}, false},
		{"exp year 10000", []string{`"exp":253402300800`, iat}, false},
		{"exp last second of 9999", []string{`"exp":253402300799`, iat}, true},
		{"exp string", []string{`"exp":"1800003600"`, iat}, false},
		{"exp null", []string{`"exp":null`, iat}, false},
		{"nbf 1e999", []string{exp, iat, `"nbf":1e999`}, false},
		{"nbf -1e999", []string{exp, iat, `"nbf":-1e999`}, false},
		{"nbf -1e300", []string{exp, iat, `"nbf":-1e300`}, false},
		{"nbf negative", []string{exp, iat, `"nbf":-1`}, false},
		{"nbf in the past", []string{exp, iat, `"nbf":1799999000`}, true},
		{"iat -1e999", []string{exp, `"iat":-1e999`}, false},
		{"iat -1e18", []string{exp, `"iat":-1e18`}, false},
		{"iat negative", []string{exp, `"iat":-1`}, false},
		{"iat string", []string{exp, `"iat":"x"`}, false},
		{"no iat", []string{exp}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := signRaw(t, ec, "ec1", "{"+base+","+strings.Join(tt.claims, ",")+"}")
			c, err := v.Verify(context.Background(), tok)
			if tt.ok {
				if err != nil || c.Subject != "user-1" {
					t.Fatalf("Verify = %+v, %v; want success", c, err)
				}
				return
			}
			var ite *InvalidTokenError
			if !errors.As(err, &ite) {
				t.Fatalf("Verify = %+v, %v; want *InvalidTokenError", c, err)
			}
		})
	}
}
