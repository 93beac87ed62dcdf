package mcpauth

import (
	"cmp"
	"sync"
	"time"
)

// maxVerifiedTokens bounds the verified-token cache. A client sends the same
// token on every request, so a few thousand entries cover every active
// token of a deployment; when full, the cache is emptied and refilled.
const maxVerifiedTokens = 4096

// verifiedTokens remembers API tokens whose signature and claims
// VerifyAPIToken accepted, so a token seen again skips the HMAC, the base64
// and JSON decoding and the claim checks (about fifty allocations and most
// of the in-process cost of an authenticated request). The key is the
// whole token text, signature included, and only successes are kept, so a
// hit is a token that verified before under the same secret; what can turn
// a verified token invalid with time — its expiry — is checked again on
// every hit, exactly as the verifier checks it (stillValid). Everything
// after verification (revocation, roles) is not cached.
type verifiedTokens struct {
	mu     sync.Mutex
	byText map[string]*TokenClaims
	max    int // 0: maxVerifiedTokens (tests set less)
}

// verify is VerifyAPIToken(secret, token, now) with the cache in front.
// The cache belongs to one Authenticator, whose secret never changes.
func (v *verifiedTokens) verify(secret, token string, now time.Time) (*TokenClaims, error) {
	if err := ValidateMCPJWTSecret(secret); err != nil { // as VerifyAPIToken does first
		return nil, err
	}
	v.mu.Lock()
	c, ok := v.byText[token]
	v.mu.Unlock()
	if ok && stillValid(c, now) {
		return c, nil
	}
	c, err := VerifyAPIToken(secret, token, now)
	if err != nil {
		if ok { // expired since it was cached
			v.mu.Lock()
			delete(v.byText, token)
			v.mu.Unlock()
		}
		return nil, err
	}
	v.mu.Lock()
	if v.byText == nil || len(v.byText) >= cmp.Or(v.max, maxVerifiedTokens) {
		v.byText = make(map[string]*TokenClaims)
	}
	v.byText[token] = c
	v.mu.Unlock()
	return c, nil
}

// stillValid re-applies, to claims that verified earlier, the checks whose
// outcome can change as time passes: exp, with the verifier's leeway
// (golang-jwt accepts while now is before exp + leeway). A check added to
// VerifyAPIToken that a valid token can start to fail later must be added
// here too; checks that a token, once passing, keeps passing (signature,
// claims' types and values, nbf, iat not in the future) need not be.
func stillValid(c *TokenClaims, now time.Time) bool {
	return !c.ExpiresAt.IsZero() && now.Before(c.ExpiresAt.Add(TokenLeeway))
}
