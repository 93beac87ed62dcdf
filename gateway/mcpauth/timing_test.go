package mcpauth

import (
	"net/http"
	"testing"
)

// TestVerifyAPITokenTimingClaims: exp, nbf and iat must each be a finite
// JSON number between 0 and the end of year 9999 when present; anything
// else (1e999, which JavaScript reads as Infinity, absurdly large or
// negative values, non-numbers) is an invalid token, never a token that
// does not expire (issue 15 item 3).
func TestVerifyAPITokenTimingClaims(t *testing.T) {
	tests := []struct {
		name  string
		claim string // appended to a payload that has a valid exp unless it sets exp
		ok    bool
	}{
		{"exp 1e999", `"exp":1e999`, false},
		{"exp 1e400", `"exp":1e400`, false},
		{"exp -1e999", `"exp":-1e999`, false},
		{"exp 1e300", `"exp":1e300`, false},
		{"exp 1e18", `"exp":1e18`, false},
		{"exp 2^63", `"exp":9223372036854775808`, false},
		{"exp year 10000", `"exp":253402300800`, false},
		{"exp last second of 9999", `"exp":253402300799`, true},
		{"exp negative", `"exp":-1`, false},
		{"exp string", `"exp":"1772236800"`, false},
		{"nbf 1e999", `"nbf":1e999`, false},
		{"nbf -1e999", `"nbf":-1e999`, false},
		{"nbf -1e300", `"nbf":-1e300`, false},
		{"nbf negative", `"nbf":-5`, false},
		{"nbf zero", `"nbf":0`, true},
		{"nbf in the past", `"nbf":1764460000`, true},
		{"iat 1e999", `"iat":1e999`, false},
		{"iat -1e999", `"iat":-1e999`, false},
		{"iat 1e300", `"iat":1e300`, false},
		{"iat negative", `"iat":-1`, false},
		{"iat string", `"iat":"x"`, false},
		{"iat null", `"iat":null`, false},
		{"iat true", `"iat":true`, false},
		{"iat fractional", `"iat":1764460800.5`, true},
		{"iat in the future (not checked)", `"iat":9999999999`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parts := []string{pSub, pScopes, pJti, pIss, pAud}
			if tc.claim[:5] != `"exp"` {
				parts = append(parts, pExp)
			}
			parts = append(parts, tc.claim)
			_, err := VerifyAPIToken(testSecret, "mcp_"+hs256(testSecret, hdr, payload(parts...)), testNow)
			if tc.ok {
				if err != nil {
					t.Fatalf("VerifyAPIToken = %v, want success", err)
				}
				return
			}
			assertAPIError(t, err, http.StatusUnauthorized, MsgInvalidToken)
		})
	}
}
