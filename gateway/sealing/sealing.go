// Package sealing turns the gateway's configured secrets into one key per
// purpose and uses them for the values the gateway hands to browsers and
// clients: sealed (AES-256-GCM) when the holder must not read them,
// signed (HMAC-SHA256) when it may read but not forge them. The first
// secret seals and signs; every secret opens and verifies, so a secret is
// rotated by putting the new one first and dropping the old one once its
// values have expired.
package sealing

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
)

// MinSecretLength is the minimum length of each secret, in bytes.
const MinSecretLength = 32

// ErrInvalid is the answer to any sealed value that does not open: forged,
// cut, sealed for another purpose or under a secret no longer configured.
var ErrInvalid = errors.New("sealing: sealed value is invalid")

var b64 = base64.RawURLEncoding

// Keys are one purpose's keys, the current one first.
type Keys struct {
	keys [][]byte
}

// Derive returns the keys of the purpose named label, one per secret:
// HMAC-SHA256(secret, label). Each purpose has keys of its own, so a key
// leaked from one use (say, a CSRF token oracle) says nothing about the
// others, and a value sealed for one purpose never opens for another.
func Derive(secrets []string, label string) (Keys, error) {
	if len(secrets) == 0 {
		return Keys{}, errors.New("sealing: at least one secret is required")
	}
	k := Keys{keys: make([][]byte, 0, len(secrets))}
	for _, s := range secrets {
		if len(s) < MinSecretLength {
			return Keys{}, errors.New("sealing: each secret must be at least 32 bytes")
		}
		k.keys = append(k.keys, mac([]byte(s), label))
	}
	return k, nil
}

// DeriveInto derives the keys of several purposes at once: into each
// *Keys of purposes the keys of prefix followed by its name.
func DeriveInto(secrets []string, prefix string, purposes map[string]*Keys) error {
	for name, keys := range purposes {
		k, err := Derive(secrets, prefix+name)
		if err != nil {
			return err
		}
		*keys = k
	}
	return nil
}

// Seal encrypts and authenticates plain with the current key; aad binds
// the result to where it is used (a cookie's name, say), so it cannot be
// replayed somewhere else.
func (k Keys) Seal(plain []byte, aad string) (string, error) {
	gcm, err := newGCM(k.keys[0])
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return b64.EncodeToString(gcm.Seal(nonce, nonce, plain, []byte(aad))), nil
}

// Open reverses Seal with any of the keys.
func (k Keys) Open(sealed, aad string) ([]byte, error) {
	raw, err := b64.DecodeString(sealed)
	if err != nil {
		return nil, ErrInvalid
	}
	for _, key := range k.keys {
		gcm, err := newGCM(key)
		if err != nil {
			return nil, err
		}
		if len(raw) < gcm.NonceSize() {
			return nil, ErrInvalid
		}
		if plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], []byte(aad)); err == nil {
			return plain, nil
		}
	}
	return nil, ErrInvalid
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Sign is the current key's MAC of msg, base64url.
func (k Keys) Sign(msg string) string { return b64.EncodeToString(mac(k.keys[0], msg)) }

// Verify reports whether sig is a MAC of msg under any of the keys,
// comparing in constant time.
func (k Keys) Verify(msg, sig string) bool {
	got, err := b64.DecodeString(sig)
	// The decoder skips \r and \n and ignores unused trailing bits, so
	// several texts decode to one signature; only the canonical text is
	// accepted, or a signed value (a client_id) would have many spellings.
	if err != nil || b64.EncodeToString(got) != sig {
		return false
	}
	ok := false
	for _, key := range k.keys {
		if hmac.Equal(got, mac(key, msg)) {
			ok = true
		}
	}
	return ok
}

func mac(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// RandomToken returns n random bytes, base64url.
func RandomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("sealing: crypto/rand failed: " + err.Error())
	}
	return b64.EncodeToString(b)
}

// S256 is BASE64URL(SHA256(verifier)), the PKCE S256 code challenge of
// RFC 7636 §4.2.
func S256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return b64.EncodeToString(sum[:])
}
