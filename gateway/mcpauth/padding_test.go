package mcpauth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// TestVerifyAPITokenPadding: like the original (djwt's base64url decoder),
// a segment may carry the '=' padding that completes it to a multiple of
// four characters; wrong padding, or '=' anywhere else, is refused
// (issue 15 item 8).
func TestVerifyAPITokenPadding(t *testing.T) {
	tok := hs256(testSecret, hdr, goodPayload())
	parts := strings.Split(tok, ".")
	sig := parts[2] // 43 characters: one '=' completes it
	padded := func(s string) string {
		if r := len(s) % 4; r > 0 {
			return s + strings.Repeat("=", 4-r)
		}
		return s
	}
	// signOver signs the exact text of the header and payload segments.
	signOver := func(h, p string) string {
		m := hmac.New(sha256.New, []byte(testSecret))
		m.Write([]byte(h + "." + p))
		return h + "." + p + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	}
	payload := b64(payload(pSub, pScopes, pJti, pIss, pAud, pExp, `"iat":1`)) // length not a multiple of 4
	if len(payload)%4 == 0 {
		t.Fatalf("payload segment %q needs no padding; pick another", payload)
	}
	for _, tt := range []struct {
		name, token string
		ok          bool
	}{
		{"unpadded", tok, true},
		{"signature padded", parts[0] + "." + parts[1] + "." + sig + "=", true},
		{"signature with mcp_ prefix padded", "mcp_" + parts[0] + "." + parts[1] + "." + sig + "=", true},
		{"signature over-padded", parts[0] + "." + parts[1] + "." + sig + "==", false},
		{"signature padded thrice", parts[0] + "." + parts[1] + "." + sig + "===", false},
		{"padding inside the signature", parts[0] + "." + parts[1] + "." + sig[:20] + "=" + sig[20:], false},
		{"payload padded (signed as sent)", signOver(parts[0], padded(payload)), true},
		{"payload padding added after signing", parts[0] + "." + padded(payload) + "." + strings.Split(signOver(parts[0], payload), ".")[2], false},
		{"header with needless padding", signOver(parts[0]+"=", parts[1]), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := VerifyAPIToken(testSecret, tt.token, testNow)
			if tt.ok {
				if err != nil {
					t.Fatalf("VerifyAPIToken = %v, want success", err)
				}
				return
			}
			assertAPIError(t, err, http.StatusUnauthorized, MsgInvalidToken)
		})
	}
}
