package gotruestandin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
)

// KeySet is the auth server's asymmetric key ring: the current signing key
// plus every other published key. It is safe for concurrent use; tests
// rotate keys while servers run.
type KeySet struct {
	mu      sync.RWMutex
	keys    []jwk.Key // in publication order; private where we hold them
	current string    // kid of the signing key
	pub     jwk.Set   // cached public set, rebuilt on change
}

// maxKeys bounds the ring (rotation in a long test run must not grow it
// without limit).
const maxKeys = 32

// NewES256Key generates a P-256 private JWK with the given kid, alg ES256
// and use sig.
func NewES256Key(kid string) (jwk.Key, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("gotruestandin: generate key: %w", err)
	}
	k, err := jwk.FromRaw(priv)
	if err != nil {
		return nil, fmt.Errorf("gotruestandin: wrap key: %w", err)
	}
	for name, v := range map[string]any{jwk.KeyIDKey: kid, jwk.AlgorithmKey: jwa.ES256, jwk.KeyUsageKey: "sig"} {
		if err := k.Set(name, v); err != nil {
			return nil, fmt.Errorf("gotruestandin: set %s: %w", name, err)
		}
	}
	return k, nil
}

// NewKeySet returns a ring whose signing key is signing (a private key with
// a kid).
func NewKeySet(signing jwk.Key) (*KeySet, error) {
	ks := &KeySet{}
	if err := ks.Add(signing); err != nil {
		return nil, err
	}
	ks.current = signing.KeyID()
	return ks, nil
}

// Add publishes k (public or private; only the public half is ever served).
// A key with the kid of an existing one replaces it.
func (ks *KeySet) Add(k jwk.Key) error {
	if k == nil || k.KeyID() == "" {
		return errors.New("gotruestandin: key must have a kid")
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	for i, old := range ks.keys {
		if old.KeyID() == k.KeyID() {
			ks.keys[i] = k
			ks.pub = nil
			return nil
		}
	}
	if len(ks.keys) >= maxKeys {
		return fmt.Errorf("gotruestandin: key ring is full (%d keys)", maxKeys)
	}
	ks.keys = append(ks.keys, k)
	ks.pub = nil
	return nil
}

// Remove unpublishes the key with kid (tokens signed with it stop
// verifying). Removing the signing key is refused.
func (ks *KeySet) Remove(kid string) error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if kid == ks.current {
		return errors.New("gotruestandin: cannot remove the current signing key")
	}
	for i, k := range ks.keys {
		if k.KeyID() == kid {
			ks.keys = append(ks.keys[:i], ks.keys[i+1:]...)
			ks.pub = nil
			return nil
		}
	}
	return fmt.Errorf("gotruestandin: no key with kid %q", kid)
}

// Rotate generates a new ES256 signing key with kid and makes it current;
// the previous key stays published so outstanding tokens still verify.
func (ks *KeySet) Rotate(kid string) (jwk.Key, error) {
	k, err := NewES256Key(kid)
	if err != nil {
		return nil, err
	}
	if err := ks.Add(k); err != nil {
		return nil, err
	}
	ks.mu.Lock()
	ks.current = kid
	ks.mu.Unlock()
	return k, nil
}

// Signing returns the current signing key.
func (ks *KeySet) Signing() jwk.Key {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	for _, k := range ks.keys {
		if k.KeyID() == ks.current {
			return k
		}
	}
	return nil
}

// Lookup returns the key with kid, or nil.
func (ks *KeySet) Lookup(kid string) jwk.Key {
	ks.mu.RLock()
	defer ks.mu.RUnlock()
	for _, k := range ks.keys {
		if k.KeyID() == kid {
			return k
		}
	}
	return nil
}

// Public returns the published keys as a public JWKS. The set is cached
// until the ring changes; callers must not modify it.
func (ks *KeySet) Public() jwk.Set {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.pub != nil {
		return ks.pub
	}
	set := jwk.NewSet()
	for _, k := range ks.keys {
		pk, err := k.PublicKey()
		if err != nil {
			continue
		}
		_ = set.AddKey(pk)
	}
	ks.pub = set
	return set
}

// JSON renders the public JWKS document.
func (ks *KeySet) JSON() ([]byte, error) {
	return json.Marshal(ks.Public())
}
