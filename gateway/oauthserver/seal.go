package oauthserver

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
)

// MinSecretLength is the minimum length of each GATEWAY_OAUTH_SECRET
// value, in bytes.
const MinSecretLength = 32

// keyring holds the keys derived from the configured secrets. The first
// secret seals and signs; every secret opens and verifies, so a secret can
// be rotated without breaking clients registered or authorizations begun
// under the previous one.
type keyring struct {
	seal   [][]byte // AES-256-GCM keys for the pending-authorization cookie
	client [][]byte // HMAC keys for registered client ids
	csrf   [][]byte // HMAC keys for consent-form CSRF tokens
}

// derive is HMAC-SHA256(secret, label): one independent key per purpose,
// so a key leaked from one use (say, a CSRF token oracle) says nothing
// about the others.
func derive(secret []byte, label string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("pawtograder-mcp-oauth/" + label))
	return m.Sum(nil)
}

func newKeyring(secrets []string) (*keyring, error) {
	if len(secrets) == 0 {
		return nil, errors.New("oauthserver: at least one secret is required")
	}
	k := &keyring{}
	for _, s := range secrets {
		if len(s) < MinSecretLength {
			return nil, errors.New("oauthserver: each secret must be at least 32 bytes")
		}
		k.seal = append(k.seal, derive([]byte(s), "cookie"))
		k.client = append(k.client, derive([]byte(s), "client-id"))
		k.csrf = append(k.csrf, derive([]byte(s), "csrf"))
	}
	return k, nil
}

var b64 = base64.RawURLEncoding

// sealBytes encrypts and authenticates plain with the current key; aad
// binds the ciphertext to its purpose (the cookie name).
func (k *keyring) sealBytes(plain []byte, aad string) (string, error) {
	gcm, err := newGCM(k.seal[0])
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return b64.EncodeToString(gcm.Seal(nonce, nonce, plain, []byte(aad))), nil
}

var errUnseal = errors.New("oauthserver: sealed value is invalid")

// open reverses sealBytes with any configured key.
func (k *keyring) open(sealed, aad string) ([]byte, error) {
	raw, err := b64.DecodeString(sealed)
	if err != nil {
		return nil, errUnseal
	}
	for _, key := range k.seal {
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

// mac is HMAC-SHA256 of msg under key.
func mac(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// sign returns the current key's MAC of msg, base64url.
func sign(keys [][]byte, msg string) string { return b64.EncodeToString(mac(keys[0], msg)) }

// verify reports whether sig is a MAC of msg under any key, comparing in
// constant time.
func verify(keys [][]byte, msg, sig string) bool {
	got, err := b64.DecodeString(sig)
	// The decoder skips \r and \n and ignores unused trailing bits, so
	// several texts decode to one signature; only the canonical text is
	// accepted, or a signed value (a client_id) would have many spellings.
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

// randomToken returns n random bytes, base64url.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("oauthserver: crypto/rand failed: " + err.Error())
	}
	return b64.EncodeToString(b)
}

// hashToken is how codes and refresh tokens are stored: SHA-256, hex. The
// values are 256-bit random, so an unsalted fast hash is enough; a
// database leak yields nothing usable.
func hashToken(v string) string {
	sum := sha256.Sum256([]byte(v))
	const hexdigits = "0123456789abcdef"
	out := make([]byte, 64)
	for i, b := range sum {
		out[2*i], out[2*i+1] = hexdigits[b>>4], hexdigits[b&15]
	}
	return string(out)
}
