package postgreststandin

import (
	"net/http"
	"sync"
	"testing"
)

// TestRLSIsolationUnderConcurrency interleaves requests of two users (and
// anonymous ones) over the shared pool: role and claims are transaction-local,
// so nobody may ever see another user's rows.
func TestRLSIsolationUnderConcurrency(t *testing.T) {
	users := map[string]string{
		"11111111-1111-1111-1111-111111111111": `[{"id":1}, ` + "\n" + ` {"id":2}]`,
		"22222222-2222-2222-2222-222222222222": `[{"id":3}]`,
	}
	tokens := map[string]string{}
	for u := range users {
		tokens[u] = token(t, "ec", userClaims(u))
	}
	const rounds = 40
	var wg sync.WaitGroup
	errs := make(chan string, 3*rounds)
	for i := 0; i < rounds; i++ {
		for u, want := range users {
			wg.Add(1)
			go func(u, want string) {
				defer wg.Done()
				res := do(t, testHandler, http.MethodGet, "/notes?select=id&id=lt.100&order=id", map[string]string{"Authorization": "Bearer " + tokens[u]}, "")
				if res.Status != 200 || res.Body != want {
					errs <- u + ": " + res.Body
				}
			}(u, want)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res := do(t, testHandler, http.MethodGet, "/notes?select=id", nil, ""); res.Status != http.StatusUnauthorized {
				errs <- "anon: " + res.Body
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
