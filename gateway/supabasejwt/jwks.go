package supabasejwt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/lestrrat-go/jwx/v2/jwk"
	"golang.org/x/sync/singleflight"
)

// maxJWKSBytes bounds a JWKS document; real ones are a few KiB.
const maxJWKSBytes = 1 << 20

// ErrJWKSUnavailable wraps failures to fetch or parse the JWKS. It is a
// server-side fault, never the caller's bad token.
var ErrJWKSUnavailable = errors.New("supabasejwt: JWKS unavailable")

// keySource caches one JWKS document.
type keySource struct {
	url        string
	hc         *http.Client
	now        func() time.Time
	ttl        time.Duration
	minRefetch time.Duration

	mu        sync.Mutex
	set       jwk.Set
	fetchedAt time.Time
	group     singleflight.Group
}

// key returns the key with kid. A cached set older than ttl is refreshed;
// an unknown kid triggers a refresh only when the last fetch is older than
// minRefetch (key rotation), otherwise the kid is simply unknown.
func (s *keySource) key(ctx context.Context, kid string) (jwk.Key, error) {
	s.mu.Lock()
	set, fetchedAt := s.set, s.fetchedAt
	s.mu.Unlock()
	now := s.now()
	if set == nil || now.Sub(fetchedAt) > s.ttl {
		var err error
		if set, err = s.refresh(ctx); err != nil {
			return nil, err
		}
		fetchedAt = now
	}
	if k, ok := set.LookupKeyID(kid); ok {
		return k, nil
	}
	if now.Sub(fetchedAt) < s.minRefetch {
		return nil, nil
	}
	set, err := s.refresh(ctx)
	if err != nil {
		return nil, err
	}
	if k, ok := set.LookupKeyID(kid); ok {
		return k, nil
	}
	return nil, nil
}

func (s *keySource) refresh(ctx context.Context) (jwk.Set, error) {
	v, err, _ := s.group.Do("jwks", func() (any, error) {
		set, err := s.fetch(ctx)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.set, s.fetchedAt = set, s.now()
		s.mu.Unlock()
		return set, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(jwk.Set), nil
}

func (s *keySource) fetch(ctx context.Context) (jwk.Set, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrJWKSUnavailable, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrJWKSUnavailable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: HTTP %d from %s", ErrJWKSUnavailable, resp.StatusCode, s.url)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrJWKSUnavailable, err)
	}
	if len(data) > maxJWKSBytes {
		return nil, fmt.Errorf("%w: document exceeds %d bytes", ErrJWKSUnavailable, maxJWKSBytes)
	}
	set, err := jwk.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrJWKSUnavailable, err)
	}
	return set, nil
}
