package approval

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
)

// keyring holds the keys derived from GATEWAY_OAUTH_SECRET: the first
// secret seals and signs, every one opens and verifies (rotation). The
// labels differ from the OAuth server's, so no value sealed for one
// purpose opens for another.
type keyring struct {
	cookie [][]byte // AES-256-GCM: the sign-in cookie
	state  [][]byte // AES-256-GCM: the 2026-07-28 requestState
	csrf   [][]byte // HMAC-SHA256: the approval form's CSRF token
}

func derive(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("pawtograder-mcp-approval/" + label))
	return m.Sum(nil)
}

func newKeyring(secrets []string) (*keyring, error) {
	if len(secrets) == 0 {
		return nil, errors.New("approval: at least one secret is required")
	}
	k := &keyring{}
	for _, s := range secrets {
		if len(s) < 32 {
			return nil, errors.New("approval: each secret must be at least 32 bytes")
		}
		k.cookie = append(k.cookie, derive([]byte(s), "cookie"))
		k.state = append(k.state, derive([]byte(s), "request-state"))
		k.csrf = append(k.csrf, derive([]byte(s), "csrf"))
	}
	return k, nil
}

var b64 = base64.RawURLEncoding

// seal encrypts and authenticates plain under keys[0]; aad binds it to its
// purpose.
func seal(keys [][]byte, plain []byte, aad string) (string, error) {
	gcm, err := newGCM(keys[0])
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return b64.EncodeToString(gcm.Seal(nonce, nonce, plain, []byte(aad))), nil
}

var errUnseal = errors.New("approval: sealed value is invalid")

// open reverses seal with any key.
func open(keys [][]byte, sealed, aad string) ([]byte, error) {
	raw, err := b64.DecodeString(sealed)
	if err != nil {
		return nil, errUnseal
	}
	for _, key := range keys {
		gcm, err := newGCM(key)
		if err != nil {
			return nil, err
		}
		if len(raw) < gcm.NonceSize() {
			return nil, errUnseal
		}
		if plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], []byte(aad)); err == nil {
			return plain, nil
		}
	}
	return nil, errUnseal
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func mac(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// sign is keys[0]'s MAC of msg, base64url.
func sign(keys [][]byte, msg string) string { return b64.EncodeToString(mac(keys[0], msg)) }

// verify reports whether sig is a MAC of msg under any key, comparing in
// constant time; only the canonical base64url text is accepted.
func verify(keys [][]byte, msg, sig string) bool {
	got, err := b64.DecodeString(sig)
	if err != nil || b64.EncodeToString(got) != sig {
		return false
	}
	ok := false
	for _, key := range keys {
		if hmac.Equal(got, mac(key, msg)) {
			ok = true
		}
	}
	return ok
}

// randomToken is n random bytes, base64url.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("approval: crypto/rand failed: " + err.Error())
	}
	return b64.EncodeToString(b)
}

// challengeS256 is the PKCE S256 challenge of verifier.
func challengeS256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return b64.EncodeToString(sum[:])
}
