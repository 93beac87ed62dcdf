package userdb

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// MsgKeyUnset is docs/contract/protocol.md A11 #1, the 500 that ForUser
// answers when the Factory was built without a signing key. The gateway
// does not start without one while mcp-server is enabled (gateway/config),
// so only a Factory built for a disabled mcp-server can answer it.
const MsgKeyUnset = "JWT_SECRET must be set. Generate with: supabase gen signing-key --algorithm ES256"

// errKeyUnset is the ForUser and PublicJWK error of a Factory without a
// key, new on each call so that no caller can change another's.
func errKeyUnset() error {
	return &apierror.Error{Status: http.StatusInternalServerError, Reason: apierror.ReasonConfig, Message: MsgKeyUnset,
		Err: errors.New("userdb: no signing key (JWT_SECRET is empty)")}
}

// signingKey is a parsed JWT_SECRET, ready to sign.
type signingKey struct {
	kid    string
	priv   *ecdsa.PrivateKey
	public jwk.Key
	// header is base64url(JSON.stringify({alg:"ES256",typ:"JWT",kid})).
	header string
}

// parseSigningJWK parses JWT_SECRET. It accepts what the original signs
// with, checked in the order of docs/contract/protocol.md A11: text that
// starts with "{" (untrimmed) and is valid JSON, a non-empty string kid,
// kty "EC", crv "P-256" and a d; members other than kid, kty, crv, x, y
// and d are ignored. It also refuses a d that does not belong to (x, y),
// which the original would import and then sign tokens no one can verify.
// gateway/config checks JWT_SECRET by the same rules at start-up. The
// error says what is wrong and never quotes the value.
func parseSigningJWK(raw string) (*signingKey, error) {
	fail := func(problem string) (*signingKey, error) {
		return nil, fmt.Errorf("userdb: JWT_SECRET is not an ES256 private JWK with a kid: %s", problem)
	}
	if !strings.HasPrefix(raw, "{") {
		return fail(`it does not start with "{"`)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &m) != nil {
		return fail("it is not valid JSON")
	}
	kid, ok := jsonString(m["kid"])
	if !ok || kid == "" {
		return fail("it has no kid")
	}
	if kty, _ := jsonString(m["kty"]); kty != "EC" {
		return fail(`its kty is not "EC"`)
	}
	if crv, _ := jsonString(m["crv"]); crv != "P-256" {
		return fail(`its crv is not "P-256"`)
	}
	if d := string(m["d"]); d == "" || d == "null" || d == `""` {
		return fail("it has no d: it is a public key")
	}
	// Only the members the original imports reach the parser, so an extra
	// member such as "use" or "key_ops" cannot make it fail.
	imported := make(map[string]json.RawMessage, 5)
	for _, name := range []string{"kty", "crv", "x", "y", "d"} {
		if v, ok := m[name]; ok {
			imported[name] = v
		}
	}
	text, err := json.Marshal(imported)
	if err != nil {
		return fail("it is not valid JSON")
	}
	const badValue = "its x, y or d is not a base64url P-256 value"
	key, err := jwk.ParseKey(text)
	if err != nil {
		return fail(badValue)
	}
	pk, ok := key.(jwk.ECDSAPrivateKey)
	if !ok {
		return fail("it has no d: it is a public key")
	}
	var parsed ecdsa.PrivateKey
	if pk.Raw(&parsed) != nil {
		return fail(badValue)
	}
	scalar, errD := parsed.ECDH()
	point, errXY := parsed.PublicKey.ECDH()
	if errD != nil || errXY != nil {
		return fail(badValue)
	}
	if !scalar.PublicKey().Equal(point) {
		return fail("its d does not belong to its x and y")
	}
	// Rebuilt from the scalar alone, so the key that signs and the public
	// JWK published for it always carry canonical 32-byte values.
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), scalar.Bytes())
	if err != nil {
		return fail(badValue)
	}
	pubJWK, err := jwk.FromRaw(&priv.PublicKey)
	if err != nil {
		return fail(badValue)
	}
	for k, v := range map[string]any{jwk.KeyIDKey: kid, jwk.AlgorithmKey: jwa.ES256, jwk.KeyUsageKey: "sig"} {
		if err := pubJWK.Set(k, v); err != nil {
			return nil, fmt.Errorf("userdb: set %s of the public JWK: %w", k, err)
		}
	}

	h := []byte(`{"alg":"ES256","typ":"JWT","kid":`)
	h = jsjson.AppendString(h, kid)
	h = append(h, '}')
	return &signingKey{kid: kid, priv: priv, public: pubJWK, header: base64.RawURLEncoding.EncodeToString(h)}, nil
}

// jsonString decodes raw when it is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
