// Package signingkey parses JWT_SECRET, the ES256 private JWK that signs
// the user JWTs (docs/contract/protocol.md A11). gateway/config parses it
// once at start-up and hands the Key to gateway/userclient, so the two share
// one parser; the package imports nothing of the project.
package signingkey

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/json"
	"errors"
	"strings"

	"github.com/lestrrat-go/jwx/v2/jwk"
)

// Key is a parsed JWT_SECRET.
type Key struct {
	// ID is the JWK's kid, named in every JWT header.
	ID string
	// Private signs. It is rebuilt from the scalar alone, so it and its
	// public half always carry canonical 32-byte values.
	Private *ecdsa.PrivateKey
}

// Equal reports whether k and o are the same key with the same kid (nil
// equals only nil). go-cmp uses it to compare values holding a Key.
func (k *Key) Equal(o *Key) bool {
	if k == nil || o == nil {
		return k == o
	}
	return k.ID == o.ID && k.Private.Equal(o.Private)
}

// The problems Parse reports, in the order it checks them. Each describes
// the defect and never quotes the value.
var (
	ErrNotObject = errors.New(`it does not start with "{"`)
	ErrNotJSON   = errors.New("it is not valid JSON")
	ErrNoKid     = errors.New("it has no kid")
	ErrNotEC     = errors.New(`its kty is not "EC"`)
	ErrNotP256   = errors.New(`its crv is not "P-256"`)
	ErrPublicKey = errors.New("it has no d: it is a public key")
	ErrBadValue  = errors.New("its x, y or d is not a base64url P-256 value")
	ErrMismatch  = errors.New("its d does not belong to its x and y")
)

// Parse accepts what the original signs with, checked in the order of
// A11: text that starts with "{" (untrimmed) and is valid JSON, a
// non-empty string kid, kty "EC", crv "P-256" and a d; members other than
// kid, kty, crv, x, y and d are ignored. It also refuses a d that does not
// belong to (x, y), which the original would import and then sign tokens
// no one can verify. The error is one of the Err values above.
func Parse(raw string) (*Key, error) {
	if !strings.HasPrefix(raw, "{") {
		return nil, ErrNotObject
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &m) != nil {
		return nil, ErrNotJSON
	}
	kid, ok := jsonString(m["kid"])
	if !ok || kid == "" {
		return nil, ErrNoKid
	}
	if kty, _ := jsonString(m["kty"]); kty != "EC" {
		return nil, ErrNotEC
	}
	if crv, _ := jsonString(m["crv"]); crv != "P-256" {
		return nil, ErrNotP256
	}
	if d := string(m["d"]); d == "" || d == "null" || d == `""` {
		return nil, ErrPublicKey
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
		return nil, ErrNotJSON
	}
	key, err := jwk.ParseKey(text)
	if err != nil {
		return nil, ErrBadValue
	}
	pk, ok := key.(jwk.ECDSAPrivateKey)
	if !ok {
		return nil, ErrPublicKey
	}
	var parsed ecdsa.PrivateKey
	if pk.Raw(&parsed) != nil {
		return nil, ErrBadValue
	}
	scalar, errD := parsed.ECDH()
	point, errXY := parsed.PublicKey.ECDH()
	if errD != nil || errXY != nil {
		return nil, ErrBadValue
	}
	if !scalar.PublicKey().Equal(point) {
		return nil, ErrMismatch
	}
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), scalar.Bytes())
	if err != nil {
		return nil, ErrBadValue
	}
	return &Key{ID: kid, Private: priv}, nil
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
