package oauthserver

import (
	"fmt"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/sealing"
)

func benchServer(b *testing.B) *Server {
	s, err := New(Options{Issuer: "https://x.example/o", ResourceURL: "https://x.example/m", AuthURL: "https://x.example/a",
		Providers: []string{"github"}, Secrets: []string{testSecret}, Store: newMemStore(),
		Mint: func(string, []string, string, float64, time.Time) (string, error) { return "", nil }})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkDecodeClientID is the per-request cost of a registered client:
// an HMAC check and a small JSON decode, instead of a database read.
func BenchmarkDecodeClientID(b *testing.B) {
	s := benchServer(b)
	id, _ := s.encodeClientID(dcrPayload{Name: "Claude", Redirect: []string{"https://claude.ai/api/mcp/auth_callback"}, Issued: 1, Nonce: "abcdefghijkl"})
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := s.decodeClientID(id); !ok {
			b.Fatal("did not verify")
		}
	}
}

// BenchmarkPendingCookie seals and opens a typical pending authorization.
func BenchmarkPendingCookie(b *testing.B) {
	s := benchServer(b)
	plain := []byte(`{"id":"0123456789abcdefghijkl","ch":"` + hashToken("c") + `","cn":"Claude","ru":"https://claude.ai/api/mcp/auth_callback","st":"state","cc":"` + sealing.S256(testVerifier) + `","sc":["mcp:read"],"sv":"` + testVerifier + `","exp":1}`)
	b.ReportAllocs()
	for b.Loop() {
		v, err := s.keys.seal.Seal(plain, "mcp_oauth")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.keys.seal.Open(v, "mcp_oauth"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLimitToken is what the limits add to one refresh: the check of
// the (client, address) budget of failures and the per-grant bucket, kept
// in this process (docs/oauth.md compares it with a count kept in
// PostgreSQL). The keys rotate through 10,000 grants and 100,000 pairs of
// one of 100 clients and an address, each pair having failed once, so the
// LRU caches are exercised as under many users.
func BenchmarkLimitToken(b *testing.B) {
	s, err := New(Options{Issuer: "https://x.example/o", ResourceURL: "https://x.example/m", AuthURL: "https://x.example/a",
		Providers: []string{"github"}, Secrets: []string{testSecret}, Store: newMemStore(),
		Mint:             func(string, []string, string, float64, time.Time) (string, error) { return "", nil },
		FailedPerMinute:  1 << 30,
		RefreshPerMinute: 1 << 30,
	})
	if err != nil {
		b.Fatal(err)
	}
	budgets := make([]failures, 100_000)
	for i := range budgets {
		addr := fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&255, i&255)
		budgets[i] = s.failuresOf(&Client{ID: fmt.Sprintf("https://host%d.example/client.json", i%100)}, addr)
		budgets[i].spend()
	}
	grants := make([]string, 10_000)
	for i := range grants {
		grants[i] = fmt.Sprintf("10000000-0000-4000-8000-%012d", i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if budgets[i%len(budgets)].check() != nil || s.limitRefresh(grants[i%len(grants)]) != nil {
			b.Fatal("limited")
		}
		i++
	}
}
