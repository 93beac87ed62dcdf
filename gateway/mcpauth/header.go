package mcpauth

import "strings"

// ParseAuthorization extracts the bearer token from an Authorization header
// exactly as MCPAuth.ts does (docs/contract/protocol.md A7 steps 1–2): an empty header is
// "missing"; otherwise the header is split on every single space and must
// give exactly two parts, the first equal to "bearer" ignoring case. So
// "Bearer  x" (two spaces), "Bearer" alone, "Bearer x y" and a tab instead
// of the space all fail, while "bearer x" and "BEARER x" pass. The token
// part may be empty ("Bearer ") and is then refused by token verification.
//
// strings.EqualFold agrees with JavaScript's toLowerCase here: no non-ASCII
// letter folds to any of b, e, a, r.
//
// The returned error is one of the A7 *apierror.Error values.
func ParseAuthorization(header string) (string, error) {
	if header == "" {
		return "", errMissingHeader
	}
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || strings.Contains(token, " ") || !strings.EqualFold(scheme, "bearer") {
		return "", errInvalidHeader
	}
	return token, nil
}
