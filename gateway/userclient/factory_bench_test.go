package userclient

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkForUserCacheMiss measures ForUser for a user not in the cache:
// a fresh ES256 user JWT, its cache insertion (with eviction at the cap)
// and a new per-user client. Users rotate through 65 536 ids against a
// 1 024-entry cache, so every call misses.
func BenchmarkForUserCacheMiss(b *testing.B) {
	k := newTestKey(b)
	f := NewFactory(Options{RestURL: "http://rest.invalid/rest/v1", AnonKey: "anon", SigningJWK: k.jwk("kid-1"), CacheEntries: 1024})
	ctx := context.Background()
	users := make([]string, 1<<16)
	for i := range users {
		users[i] = "10000000-0000-4000-8000-" + leftPad(strconv.Itoa(i), 12)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := f.ForUser(ctx, users[i%len(users)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func leftPad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}
