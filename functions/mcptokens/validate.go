package mcptokens

import (
	"math"
	"slices"
	"strings"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// validScopes in the order the error message lists them.
var validScopes = []string{"mcp:read", "mcp:write", "cli:read", "cli:write"}

const (
	maxNameLength      = 100 // UTF-16 code units, as JavaScript counts
	defaultExpiryDays  = 90
	minExpiryDays      = 1
	maxExpiryDays      = 365
	msgNameRequired    = "Token name is required"
	msgNameTooLong     = "Token name too long"
	msgInvalidScopes   = "Invalid scopes. Valid scopes are: mcp:read, mcp:write, cli:read, cli:write"
	msgExpiryRange     = "expires_in_days must be between 1 and 365"
	msgTokenIDRequired = "token_id is required"
)

// isJSSpace reports whether JavaScript's String.prototype.trim removes r:
// WhiteSpace and LineTerminator code points (note: not U+0085).
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x00A0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// jsTrim is JavaScript's String.prototype.trim.
func jsTrim(s string) string { return strings.TrimFunc(s, isJSSpace) }

// utf16Len is JavaScript's String length: UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r > 0xFFFF {
			n += 2 // a surrogate pair
		} else {
			n++
		}
	}
	return n
}

// createRequest is a validated POST body.
type createRequest struct {
	Name   string // trimmed
	Scopes []string
	Days   float64
}

// validateCreate applies docs/contract/protocol.md B4's checks in order, with JavaScript's
// semantics where they decide the outcome.
func validateCreate(body *jsjson.Object) (createRequest, string) {
	var req createRequest
	name, ok := body.Value("name").(string)
	if !ok || jsTrim(name) == "" {
		return req, msgNameRequired
	}
	if utf16Len(name) > maxNameLength {
		return req, msgNameTooLong
	}
	req.Name = jsTrim(name)

	req.Scopes = []string{"mcp:read"}
	if raw := body.Value("scopes"); jsjson.Truthy(raw) {
		list, ok := raw.([]any)
		if !ok {
			return req, msgInvalidScopes
		}
		req.Scopes = make([]string, 0, len(list))
		for _, s := range list {
			str, ok := s.(string)
			if !ok || !slices.Contains(validScopes, str) {
				return req, msgInvalidScopes
			}
			req.Scopes = append(req.Scopes, str)
		}
	}

	// null/undefined mean the default; so does anything that is not a
	// finite number (the original silently turns "30" or true into 90).
	req.Days = defaultExpiryDays
	if d, ok := body.Value("expires_in_days").(float64); ok && !math.IsInf(d, 0) && !math.IsNaN(d) {
		req.Days = d
	}
	if req.Days < minExpiryDays || req.Days > maxExpiryDays {
		return req, msgExpiryRange
	}
	return req, ""
}

// validateRevoke returns the token_id of a DELETE body.
func validateRevoke(body *jsjson.Object) (string, string) {
	id, ok := body.Value("token_id").(string)
	if !ok || id == "" {
		return "", msgTokenIDRequired
	}
	return id, ""
}
