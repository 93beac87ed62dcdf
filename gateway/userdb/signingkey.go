package userdb

import (
	"bytes"
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

// Public messages of docs/contract/protocol.md A11 (all HTTP 500), in check order.
const (
	MsgKeyUnset   = "JWT_SECRET must be set. Generate with: supabase gen signing-key --algorithm ES256"
	MsgKeyNotJWK  = "JWT_SECRET must be a JWK JSON object for ES256 signing"
	MsgKeyNoKid   = "JWK must have a 'kid' field"
	MsgKeyNotP256 = "JWK must be an EC key with P-256 curve (ES256)"
	MsgKeyNoD     = "JWK must include private key component 'd'"
	// Step 7 has no fixed text in the original (it is WebCrypto's). These
	// are the texts Deno's importKey gives for the same defects.
	MsgKeyBadCoordinate = "invalid b64 coordinate"
	MsgKeyBadScalar     = "crypto error"
	// MsgKeyMismatch is stricter than the original, which would import a
	// d that does not belong to (x, y) and mint tokens nobody can verify.
	MsgKeyMismatch = "JWK public key (x, y) does not match private key 'd'"
)

func keyError(msg string, cause error) *apierror.Error {
	return &apierror.Error{Status: http.StatusInternalServerError, Reason: apierror.ReasonConfig, Message: msg, Err: cause}
}

// signingKey is a parsed JWT_SECRET, ready to sign.
type signingKey struct {
	kid    string
	priv   *ecdsa.PrivateKey
	public jwk.Key
	// header is base64url(JSON.stringify({alg:"ES256",typ:"JWT",kid})).
	header string
}

// parseSigningJWK validates JWT_SECRET in the order of A11 and returns the
// key, or an *apierror.Error with that step's message:
//
//  1. unset or empty;
//  2. not starting with "{" (no trimming);
//  3. not valid JSON: the V8 JSON.parse message (see jsonParseError);
//  4. kid missing or empty (a non-string kid also fails here; the original
//     would put it in the header as is);
//  5. kty ≠ "EC" or crv ≠ "P-256";
//  6. d missing or empty;
//  7. the import of {kty, crv, x, y, d} fails: x, y or d not 32-byte
//     base64url, d not a valid scalar, or (x, y) not d's public point.
func parseSigningJWK(raw string) (*signingKey, error) {
	if raw == "" {
		return nil, keyError(MsgKeyUnset, nil)
	}
	if !strings.HasPrefix(raw, "{") {
		return nil, keyError(MsgKeyNotJWK, nil)
	}
	if msg := jsonParseError(raw); msg != "" {
		return nil, keyError(msg, errors.New("userdb: JWT_SECRET is not valid JSON"))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		// Unreachable after jsonParseError; kept so a checker bug cannot
		// panic or accept garbage.
		return nil, keyError(err.Error(), err)
	}
	kid, kidOK := jsonString(m["kid"])
	if !kidOK || kid == "" {
		return nil, keyError(MsgKeyNoKid, nil)
	}
	kty, _ := jsonString(m["kty"])
	crv, _ := jsonString(m["crv"])
	if kty != "EC" || crv != "P-256" {
		return nil, keyError(MsgKeyNotP256, nil)
	}
	d, dOK := jsonString(m["d"])
	if !dOK || d == "" {
		if isTruthy(m["d"]) {
			return nil, keyError(MsgKeyBadCoordinate, errors.New("userdb: JWK d is not a string"))
		}
		return nil, keyError(MsgKeyNoD, nil)
	}
	x, _ := jsonString(m["x"])
	y, _ := jsonString(m["y"])
	xb, errX := fieldBytes(x)
	yb, errY := fieldBytes(y)
	db, errD := fieldBytes(d)
	if err := errors.Join(errX, errY, errD); err != nil {
		return nil, keyError(MsgKeyBadCoordinate, err)
	}
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), db)
	if err != nil {
		return nil, keyError(MsgKeyBadScalar, err)
	}
	pub, err := priv.PublicKey.Bytes() // 0x04 ‖ X ‖ Y
	if err != nil || !bytes.Equal(pub[1:33], xb) || !bytes.Equal(pub[33:], yb) {
		return nil, keyError(MsgKeyMismatch, err)
	}

	// The public JWK comes from the validated key, so a JWKS built from it
	// always carries canonical 32-byte coordinates.
	pubJWK, err := jwk.FromRaw(&priv.PublicKey)
	if err != nil {
		return nil, keyError(MsgKeyBadCoordinate, err)
	}
	for k, v := range map[string]any{jwk.KeyIDKey: kid, jwk.AlgorithmKey: jwa.ES256, jwk.KeyUsageKey: "sig"} {
		if err := pubJWK.Set(k, v); err != nil {
			return nil, keyError(MsgKeyBadCoordinate, fmt.Errorf("userdb: set %s: %w", k, err))
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

// isTruthy is JavaScript truthiness of a JSON value.
func isTruthy(raw json.RawMessage) bool {
	switch s := string(raw); s {
	case "", "null", "false", `""`:
		return false
	default:
		var f float64
		if json.Unmarshal(raw, &f) == nil {
			return f != 0
		}
		return true
	}
}

// fieldBytes decodes a base64url P-256 coordinate or scalar. Like Deno's
// importKey it accepts short encodings (left-padded with zeros) and refuses
// longer ones.
func fieldBytes(s string) ([]byte, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, fmt.Errorf("userdb: bad base64url: %w", err)
	}
	if len(b) == 0 || len(b) > 32 {
		return nil, fmt.Errorf("userdb: coordinate is %d bytes, want 32", len(b))
	}
	out := make([]byte, 32)
	copy(out[32-len(b):], b)
	return out, nil
}
