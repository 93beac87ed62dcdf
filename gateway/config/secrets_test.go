package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/signingkey"
)

// testKey is a P-256 key pair with its JWK members, base64url.
type testKey struct{ x, y, d string }

func newTestKey() testKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	pub, err := k.PublicKey.Bytes()
	if err != nil {
		panic(err)
	}
	d, err := k.Bytes()
	if err != nil {
		panic(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	return testKey{x: enc(pub[1:33]), y: enc(pub[33:]), d: enc(d)}
}

// jwk is the private JWK with kid "kid-1", then extra members.
func (k testKey) jwk(extra ...string) string {
	members := []string{`"kid":"kid-1"`, `"kty":"EC"`, `"crv":"P-256"`, `"x":"` + k.x + `"`, `"y":"` + k.y + `"`, `"d":"` + k.d + `"`}
	return "{" + strings.Join(append(members, extra...), ",") + "}"
}

var (
	testKeyPair    = newTestKey()
	testSigningJWK = testKeyPair.jwk()
	testSigningKey = mustParseKey(testSigningJWK)
	testMCPSecret  = strings.Repeat("m", 32)
)

func mustParseKey(raw string) *signingkey.Key {
	k, err := signingkey.Parse(raw)
	if err != nil {
		panic(err)
	}
	return k
}

// secretsEnv holds the secrets every configuration needs by default.
func secretsEnv() map[string]string {
	return map[string]string{"MCP_JWT_SECRET": testMCPSecret, "JWT_SECRET": testSigningJWK}
}

func TestSecretsAccepted(t *testing.T) {
	k := testKeyPair
	tests := []struct {
		name string
		env  map[string]string
	}{
		{"MCP_JWT_SECRET of exactly 32 characters", map[string]string{"MCP_JWT_SECRET": strings.Repeat("s", 32)}},
		{"MCP_JWT_SECRET measured in UTF-16 code units", map[string]string{"MCP_JWT_SECRET": strings.Repeat("😀", 16)}},
		{"JWT_SECRET with members the original ignores", map[string]string{"JWT_SECRET": k.jwk(`"key_ops":["sign"]`, `"alg":"ES256"`, `"use":5`, `"ext":true`)}},
		{"JWT_SECRET with white space inside and after", map[string]string{"JWT_SECRET": strings.ReplaceAll(k.jwk(), ",", " ,\n ") + "\n"}},
		{"JWT_SECRET with a duplicate member: the last wins", map[string]string{"JWT_SECRET": `{"kid":"","kty":"RSA",` + k.jwk()[1:]}},
		{"JWT_SECRET unset with the MCP server off", map[string]string{"JWT_SECRET": "", "MCP_SERVER_ENABLED": "false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(tt.env)
			if err != nil {
				t.Fatalf("Load: unexpected error: %v", err)
			}
			all := secretsEnv()
			for k, v := range tt.env {
				all[k] = v
			}
			// Kept verbatim.
			want := [2]string{all["MCP_JWT_SECRET"], all["JWT_SECRET"]}
			if diff := cmp.Diff(want, [2]string{c.MCPJWTSecret, c.JWTSecret}); diff != "" {
				t.Errorf("secrets (-want +got):\n%s", diff)
			}
			// Parsed once, here, for gateway/userclient.
			var wantKey *signingkey.Key
			if all["JWT_SECRET"] != "" {
				wantKey = testSigningKey
			}
			if !c.SigningKey.Equal(wantKey) {
				t.Errorf("SigningKey is not the key of JWT_SECRET (got nil: %v, want nil: %v)", c.SigningKey == nil, wantKey == nil)
			}
		})
	}
}

func TestSecretsMalformed(t *testing.T) {
	k := testKeyPair
	other := newTestKey()
	good := k.jwk()
	enc := base64.RawURLEncoding.EncodeToString
	replace := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("%q is not in the test key", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	const jwkForm = `JWT_SECRET must be an ES256 private JWK: a JSON object with kid, "kty":"EC", "crv":"P-256", x, y and d, such as scripts/gen-signing-key prints`
	const oauthForm = "GATEWAY_OAUTH_SECRET must be one or more comma-separated secrets of at least 32 bytes each, e.g. from openssl rand -base64 32"
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"MCP_JWT_SECRET unset", map[string]string{"MCP_JWT_SECRET": ""},
			"MCP_JWT_SECRET must be set: the HS256 secret of mcp_ API tokens, at least 32 characters, e.g. from openssl rand -base64 32"},
		{"MCP_JWT_SECRET unset with the MCP server off", map[string]string{"MCP_JWT_SECRET": "", "MCP_SERVER_ENABLED": "false"},
			"MCP_JWT_SECRET must be set: the HS256 secret of mcp_ API tokens, at least 32 characters, e.g. from openssl rand -base64 32"},
		{"MCP_JWT_SECRET of 31 characters", map[string]string{"MCP_JWT_SECRET": strings.Repeat("s", 31)},
			"MCP_JWT_SECRET must be at least 32 characters, counted in UTF-16 code units as JavaScript counts them, e.g. from openssl rand -base64 32 (got 31)"},
		{"MCP_JWT_SECRET of 31 UTF-16 code units in 16 characters", map[string]string{"MCP_JWT_SECRET": strings.Repeat("😀", 15) + "s"},
			"MCP_JWT_SECRET must be at least 32 characters, counted in UTF-16 code units as JavaScript counts them, e.g. from openssl rand -base64 32 (got 31)"},
		{"MCP_JWT_SECRET of invalid UTF-8 counts a code unit per byte", map[string]string{"MCP_JWT_SECRET": strings.Repeat("\xff", 31)},
			"MCP_JWT_SECRET must be at least 32 characters, counted in UTF-16 code units as JavaScript counts them, e.g. from openssl rand -base64 32 (got 31)"},

		{"JWT_SECRET unset", map[string]string{"JWT_SECRET": ""},
			"JWT_SECRET is required when MCP_SERVER_ENABLED is true (it signs the user JWTs mcp-server sends to PostgREST; an ES256 private JWK, such as scripts/gen-signing-key prints)"},
		{"JWT_SECRET unset with only the issuer needing it", map[string]string{"JWT_SECRET": "", "MCP_SERVER_ENABLED": "false", "GATEWAY_ISSUER_URL": "https://mcp.example.edu/oidc"},
			"JWT_SECRET is required when GATEWAY_ISSUER_URL is set (the issuer's JWKS publishes its public half; an ES256 private JWK, such as scripts/gen-signing-key prints)"},
		{"JWT_SECRET not JSON", map[string]string{"JWT_SECRET": "not-a-jwk"}, jwkForm + ` (it does not start with "{")`},
		{"JWT_SECRET with a leading blank", map[string]string{"JWT_SECRET": " " + good}, jwkForm + ` (it does not start with "{")`},
		{"JWT_SECRET a JSON array", map[string]string{"JWT_SECRET": "[" + good + "]"}, jwkForm + ` (it does not start with "{")`},
		{"JWT_SECRET invalid JSON", map[string]string{"JWT_SECRET": `{"kid":"a",}`}, jwkForm + " (it is not valid JSON)"},
		{"JWT_SECRET truncated", map[string]string{"JWT_SECRET": good[:40]}, jwkForm + " (it is not valid JSON)"},
		{"JWT_SECRET an empty object", map[string]string{"JWT_SECRET": "{}"}, jwkForm + " (it has no kid)"},
		{"JWT_SECRET a JWK set", map[string]string{"JWT_SECRET": `{"keys":[` + good + `]}`}, jwkForm + " (it has no kid)"},
		{"JWT_SECRET with an empty kid", map[string]string{"JWT_SECRET": replace(`"kid":"kid-1"`, `"kid":""`)}, jwkForm + " (it has no kid)"},
		{"JWT_SECRET with a numeric kid", map[string]string{"JWT_SECRET": replace(`"kid":"kid-1"`, `"kid":7`)}, jwkForm + " (it has no kid)"},
		{"JWT_SECRET an RSA key", map[string]string{"JWT_SECRET": replace(`"kty":"EC"`, `"kty":"RSA"`)}, jwkForm + ` (its kty is not "EC")`},
		{"JWT_SECRET a symmetric key", map[string]string{"JWT_SECRET": `{"kid":"k","kty":"oct","k":"` + enc(make([]byte, 32)) + `"}`}, jwkForm + ` (its kty is not "EC")`},
		{"JWT_SECRET with kty in lower case", map[string]string{"JWT_SECRET": replace(`"kty":"EC"`, `"kty":"ec"`)}, jwkForm + ` (its kty is not "EC")`},
		{"JWT_SECRET on P-384", map[string]string{"JWT_SECRET": replace(`"crv":"P-256"`, `"crv":"P-384"`)}, jwkForm + ` (its crv is not "P-256")`},
		{"JWT_SECRET without crv", map[string]string{"JWT_SECRET": replace(`"crv":"P-256",`, ``)}, jwkForm + ` (its crv is not "P-256")`},
		{"JWT_SECRET a public key (no d)", map[string]string{"JWT_SECRET": replace(`,"d":"`+k.d+`"`, ``)}, jwkForm + " (it has no d: it is a public key, and the private key is needed)"},
		{"JWT_SECRET with an empty d", map[string]string{"JWT_SECRET": replace(`"d":"`+k.d+`"`, `"d":""`)}, jwkForm + " (it has no d: it is a public key, and the private key is needed)"},
		{"JWT_SECRET with a null d", map[string]string{"JWT_SECRET": replace(`"d":"`+k.d+`"`, `"d":null`)}, jwkForm + " (it has no d: it is a public key, and the private key is needed)"},
		{"JWT_SECRET with a numeric d", map[string]string{"JWT_SECRET": replace(`"d":"`+k.d+`"`, `"d":5`)}, jwkForm + " (its x, y or d is not a base64url P-256 value)"},
		{"JWT_SECRET with x not base64url", map[string]string{"JWT_SECRET": replace(`"x":"`+k.x+`"`, `"x":"!!!"`)}, jwkForm + " (its x, y or d is not a base64url P-256 value)"},
		{"JWT_SECRET without y", map[string]string{"JWT_SECRET": replace(`"y":"`+k.y+`",`, ``)}, jwkForm + " (its x, y or d is not a base64url P-256 value)"},
		{"JWT_SECRET with x of 33 bytes", map[string]string{"JWT_SECRET": replace(`"x":"`+k.x+`"`, `"x":"`+enc(make([]byte, 33))+`"`)}, jwkForm + " (its x, y or d is not a base64url P-256 value)"},
		{"JWT_SECRET with d zero", map[string]string{"JWT_SECRET": replace(`"d":"`+k.d+`"`, `"d":"`+enc(make([]byte, 32))+`"`)}, jwkForm + " (its x, y or d is not a base64url P-256 value)"},
		{"JWT_SECRET with d above the group order", map[string]string{"JWT_SECRET": replace(`"d":"`+k.d+`"`, `"d":"`+enc([]byte(strings.Repeat("\xff", 32)))+`"`)}, jwkForm + " (its x, y or d is not a base64url P-256 value)"},
		{"JWT_SECRET with the d of another key", map[string]string{"JWT_SECRET": replace(`"d":"`+k.d+`"`, `"d":"`+other.d+`"`)}, jwkForm + " (its d does not belong to its x and y)"},
		{"JWT_SECRET with the x and y of another key", map[string]string{"JWT_SECRET": strings.Replace(replace(`"x":"`+k.x+`"`, `"x":"`+other.x+`"`), `"y":"`+k.y+`"`, `"y":"`+other.y+`"`, 1)},
			jwkForm + " (its d does not belong to its x and y)"},
		{"JWT_SECRET malformed with the MCP server off", map[string]string{"JWT_SECRET": "{}", "MCP_SERVER_ENABLED": "false"}, jwkForm + " (it has no kid)"},

		{"GATEWAY_OAUTH_SECRET too short", gatewayEnv(map[string]string{"GATEWAY_OAUTH_SECRET": "short"}), oauthForm + " (entry 1 has 5 bytes)"},
		{"GATEWAY_OAUTH_SECRET with an empty entry", gatewayEnv(map[string]string{"GATEWAY_OAUTH_SECRET": oauthSecret + ",," + oauthSecret}), oauthForm + " (entry 2 is empty)"},
		{"GATEWAY_OAUTH_SECRET with a trailing comma", gatewayEnv(map[string]string{"GATEWAY_OAUTH_SECRET": oauthSecret + ", "}), oauthForm + " (entry 2 is empty)"},
		{"GATEWAY_OAUTH_SECRET only commas", gatewayEnv(map[string]string{"GATEWAY_OAUTH_SECRET": " , "}), oauthForm + " (entry 1 is empty; entry 2 is empty)"},
		{"GATEWAY_OAUTH_SECRET with every problem listed", gatewayEnv(map[string]string{"GATEWAY_OAUTH_SECRET": oauthSecret[:31] + "," + oauthSecret + ",,x"}),
			oauthForm + " (entry 1 has 31 bytes; entry 3 is empty; entry 4 has 1 byte)"},

		{"every secret's problem at once, none repeated by the OAuth checks",
			gatewayEnv(map[string]string{"MCP_JWT_SECRET": "short", "JWT_SECRET": "{}", "GATEWAY_OAUTH_SECRET": "short"}),
			strings.Join([]string{
				"MCP_JWT_SECRET must be at least 32 characters, counted in UTF-16 code units as JavaScript counts them, e.g. from openssl rand -base64 32 (got 5)",
				jwkForm + " (it has no kid)",
				oauthForm + " (entry 1 has 5 bytes)",
			}, "\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := load(tt.env)
			if err == nil {
				t.Fatalf("Load: got no error, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Load error:\n got: %s\nwant: %s", err, tt.want)
			}
			if diff := cmp.Diff(Config{}, got, cmpURL); diff != "" {
				t.Errorf("Load returned a partial Config on error (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzSigningJWKProblem checks that no JWT_SECRET text panics the check or
// is quoted in its problem.
func FuzzSigningJWKProblem(f *testing.F) {
	for _, seed := range []string{testSigningJWK, "{}", `{"kid":"k","kty":"EC","crv":"P-256","d":"x"}`, "{", "[1]", `{"kid":7}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		problem := signingJWKProblem(raw)
		if len(raw) >= 8 && strings.Contains(problem, raw) {
			t.Fatalf("signingJWKProblem(%q) quotes the value: %q", raw, problem)
		}
	})
}
