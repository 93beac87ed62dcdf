package userclient

import (
	"crypto/ecdsa"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"

	"github.com/pawtograder/mcp-gateway/gateway/apierror"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/signingkey"
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
		Err: errors.New("userclient: no signing key (JWT_SECRET is empty)")}
}

// signingKey is a parsed JWT_SECRET, ready to sign.
type signingKey struct {
	kid    string
	priv   *ecdsa.PrivateKey
	public jwk.Key
	// header is base64url(JSON.stringify({alg:"ES256",typ:"JWT",kid})).
	header string
}

// parseSigningJWK parses a raw JWT_SECRET with gateway/signingkey (the
// parser gateway/config uses at start-up) for Options.SigningJWK. The
// error says what is wrong and never quotes the value.
func parseSigningJWK(raw string) (*signingKey, error) {
	k, err := signingkey.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("userclient: JWT_SECRET is not an ES256 private JWK with a kid: %w", err)
	}
	return newSigningKey(k)
}

// newSigningKey prepares a parsed key for signing: the JWT header naming
// its kid and the public JWK (kid, alg ES256, use sig) PublicJWK returns.
func newSigningKey(k *signingkey.Key) (*signingKey, error) {
	pubJWK, err := jwk.FromRaw(&k.Private.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("userclient: the public JWK of JWT_SECRET: %w", err)
	}
	for name, v := range map[string]any{jwk.KeyIDKey: k.ID, jwk.AlgorithmKey: jwa.ES256, jwk.KeyUsageKey: "sig"} {
		if err := pubJWK.Set(name, v); err != nil {
			return nil, fmt.Errorf("userclient: set %s of the public JWK: %w", name, err)
		}
	}
	h := []byte(`{"alg":"ES256","typ":"JWT","kid":`)
	h = jsjson.AppendString(h, k.ID)
	h = append(h, '}')
	return &signingKey{kid: k.ID, priv: k.Private, public: pubJWK, header: base64.RawURLEncoding.EncodeToString(h)}, nil
}
