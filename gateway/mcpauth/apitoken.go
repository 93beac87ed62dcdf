package mcpauth

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// API token constants (docs/contract/protocol.md A9).
const (
	// TokenPrefix starts every issued API token; verification also accepts
	// a bare JWT, as the original does.
	TokenPrefix = "mcp_"
	// TokenIssuer is the required iss claim.
	TokenIssuer = "pawtograder"
	// TokenAudience is the required aud claim, which must be a JSON string.
	TokenAudience = "mcp"
	// MinSecretLength is the minimum MCP_JWT_SECRET length in UTF-16 code
	// units (JavaScript's String#length).
	MinSecretLength = 32
	// TokenLeeway is djwt's default leeway on exp and nbf.
	TokenLeeway = time.Second
)

// TokenClaims are the verified claims of an API token.
type TokenClaims struct {
	Subject   string
	Scopes    []string
	TokenID   string
	ExpiresAt time.Time
	// IssuedAt is zero when iat is absent.
	IssuedAt time.Time
}

// ValidateMCPJWTSecret checks MCP_JWT_SECRET as A7 step 3 does: set and at
// least 32 characters, counted as JavaScript counts them (UTF-16 code
// units, so an astral character counts twice). The error is the A7 500.
func ValidateMCPJWTSecret(secret string) error {
	if jsLength(secret) < MinSecretLength {
		return errMCPSecret
	}
	return nil
}

// jsLength is String#length of s after Deno decodes the environment: each
// invalid UTF-8 byte becomes one U+FFFD, one code unit.
func jsLength(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// jsRound is JavaScript's Math.round: the nearest integer, halves rounded
// towards +Infinity (so -2.5 → -2, unlike math.Round).
func jsRound(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	f := math.Floor(x)
	if x-f >= 0.5 {
		return f + 1
	}
	return f
}

// tokenHeader is the header the original's djwt create() writes:
// JSON.stringify({alg:"HS256",typ:"JWT"}), base64url without padding.
var tokenHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// MintAPIToken returns "mcp_" followed by an HS256 JWS byte-identical to the
// one the original's createApiToken produces for the same inputs and clock
// reading: header {"alg":"HS256","typ":"JWT"}; payload keys sub, scopes,
// jti, iss, aud, exp, iat in that order, written as JSON.stringify writes
// them; iat = Math.round(now_ms/1000) and
// exp = Math.round((now_ms + days*24*60*60*1000)/1000), with the
// multiplication done in the original's left-to-right order so fractional
// days round identically.
//
// A short secret gives the A7 step 3 error. days must be finite and the
// expiry must be a valid JavaScript date.
func MintAPIToken(secret, sub string, scopes []string, tokenID string, days float64, now time.Time) (string, error) {
	if err := ValidateMCPJWTSecret(secret); err != nil {
		return "", err
	}
	nowMs := float64(now.UnixMilli())
	expMs := nowMs + days*24*60*60*1000
	// new Date(x) accepts |x| ≤ 8.64e15 ms; beyond, getNumericDate is NaN.
	if math.IsNaN(expMs) || math.Abs(expMs) > 8.64e15 {
		return "", fmt.Errorf("mcpauth: token lifetime of %v days is out of range", days)
	}
	exp := jsRound(math.Trunc(expMs) / 1000)
	iat := jsRound(nowMs / 1000)

	p := make([]byte, 0, 160+len(sub)+len(tokenID)+12*len(scopes))
	p = append(p, `{"sub":`...)
	p = jsjson.AppendString(p, sub)
	p = append(p, `,"scopes":[`...)
	for i, s := range scopes {
		if i > 0 {
			p = append(p, ',')
		}
		p = jsjson.AppendString(p, s)
	}
	p = append(p, `],"jti":`...)
	p = jsjson.AppendString(p, tokenID)
	p = append(p, `,"iss":"pawtograder","aud":"mcp","exp":`...)
	p = jsjson.AppendNumber(p, exp)
	p = append(p, `,"iat":`...)
	p = jsjson.AppendNumber(p, iat)
	p = append(p, '}')

	signing := tokenHeader + "." + base64.RawURLEncoding.EncodeToString(p)
	sig, err := jwt.SigningMethodHS256.Sign(signing, []byte(secret))
	if err != nil {
		return "", fmt.Errorf("mcpauth: sign API token: %w", err)
	}
	return TokenPrefix + signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// VerifyAPIToken verifies an API token as the original's verifyApiToken does
// (docs/contract/protocol.md A9), with golang-jwt pinned to HS256:
//
//   - an "mcp_" prefix is optional; segments may carry the '=' padding
//     that completes them, as djwt's decoder allows;
//   - the signature must verify with alg HS256 (any other alg, or none, fails);
//   - exp is REQUIRED (a deliberate deviation: the original accepts a token
//     without exp, which could then never expire); exp and nbf, when present,
//     must be numbers and are checked with 1 s leeway; exp, nbf and iat must
//     be finite and between 0 and MaxTimingClaim (another deviation);
//   - sub and jti must be non-empty strings; iss must be "pawtograder";
//   - aud must be the JSON string "mcp" (an array containing "mcp" fails);
//   - scopes must be present and an array of valid scopes (empty passes).
//
// Every token failure is the A7 step 4 error (401 "Invalid or expired API
// token") carrying the cause; a short secret is the A7 step 3 error.
func VerifyAPIToken(secret, token string, now time.Time) (*TokenClaims, error) {
	if err := ValidateMCPJWTSecret(secret); err != nil {
		return nil, err
	}
	return verifyAPIToken([]byte(secret), token, now)
}

// verifyAPIToken is VerifyAPIToken with a key whose length was checked.
func verifyAPIToken(key []byte, token string, now time.Time) (*TokenClaims, error) {
	token = strings.TrimPrefix(token, TokenPrefix)
	var c apiClaims
	parser := jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		// djwt's base64url decoder accepts the '=' padding that completes
		// a segment; so does this one (docs/compatibility.md A13 notes
		// it is the original's behaviour, kept on purpose).
		jwt.WithPaddingAllowed(),
		jwt.WithIssuer(TokenIssuer),
		jwt.WithAudience(TokenAudience),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(TokenLeeway),
		jwt.WithTimeFunc(func() time.Time { return now }),
	)
	if _, err := parser.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return key, nil }); err != nil {
		return nil, errInvalidToken.WithCause(err)
	}
	if err := c.check(); err != nil {
		return nil, errInvalidToken.WithCause(err)
	}
	// The parser reads iat only when told to compare it with the clock.
	iat, err := c.GetIssuedAt()
	if err != nil {
		return nil, errInvalidToken.WithCause(err)
	}
	out := &TokenClaims{Subject: c.Sub, Scopes: *c.Scopes, TokenID: c.Jti}
	if exp, _ := numericDate(c.Exp); exp != nil {
		out.ExpiresAt = exp.Time
	}
	if iat != nil {
		out.IssuedAt = iat.Time
	}
	return out, nil
}

// apiClaims decodes the payload. A field of the wrong JSON type makes the
// token malformed, which matches the original's checks for every field it
// tests (a non-array scopes, a non-string iss or aud, a non-number exp or
// nbf). exp, nbf, iat and aud stay raw so their exact type can be checked.
type apiClaims struct {
	Sub    string          `json:"sub"`
	Scopes *[]string       `json:"scopes"`
	Jti    string          `json:"jti"`
	Iss    string          `json:"iss"`
	Aud    json.RawMessage `json:"aud"`
	Exp    json.RawMessage `json:"exp"`
	Nbf    json.RawMessage `json:"nbf"`
	Iat    json.RawMessage `json:"iat"`
}

var (
	errMissingClaims = errors.New("mcpauth: missing required claims (sub, jti, scopes)")
	errBadScopes     = errors.New("mcpauth: invalid scopes claim")
	errNotNumber     = errors.New("mcpauth: timing claim is not a number")
)

func (c *apiClaims) check() error {
	if c.Sub == "" || c.Jti == "" || c.Scopes == nil {
		return errMissingClaims
	}
	for _, s := range *c.Scopes {
		if !IsValidScope(s) {
			return errBadScopes
		}
	}
	return nil
}

// GetExpirationTime implements jwt.Claims.
func (c *apiClaims) GetExpirationTime() (*jwt.NumericDate, error) { return numericDate(c.Exp) }

// GetNotBefore implements jwt.Claims.
func (c *apiClaims) GetNotBefore() (*jwt.NumericDate, error) { return numericDate(c.Nbf) }

// GetIssuedAt implements jwt.Claims. iat is not compared with the clock (no
// WithIssuedAt), as in the original, but when present it must be a sane
// number like exp and nbf (docs/compatibility.md A12).
func (c *apiClaims) GetIssuedAt() (*jwt.NumericDate, error) { return numericDate(c.Iat) }

// GetIssuer implements jwt.Claims.
func (c *apiClaims) GetIssuer() (string, error) { return c.Iss, nil }

// GetSubject implements jwt.Claims.
func (c *apiClaims) GetSubject() (string, error) { return c.Sub, nil }

// GetAudience implements jwt.Claims. Only a JSON string counts: the
// original compares aud !== "mcp", so ["mcp"] fails there and here.
func (c *apiClaims) GetAudience() (jwt.ClaimStrings, error) {
	if len(c.Aud) == 0 || c.Aud[0] != '"' {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(c.Aud, &s); err != nil {
		return nil, err
	}
	return jwt.ClaimStrings{s}, nil
}

// numericDate parses a raw timing claim: absent is nil; a JSON number is
// kept to the nanosecond (jwt.NumericDate's own decoder truncates to whole
// seconds, which would move fractional expiries); anything else, null
// included, is an error, as djwt rejects a present non-number. A number
// that is not finite (1e999, which JavaScript reads as Infinity) or lies
// outside [0, MaxTimingClaim] is an error too: the original would treat an
// infinite exp as a token that never expires (docs/compatibility.md A12).
func numericDate(raw json.RawMessage) (*jwt.NumericDate, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return nil, errNotNumber
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f < 0 || f > MaxTimingClaim {
		return nil, errTimingRange
	}
	sec, frac := math.Modf(f)
	return &jwt.NumericDate{Time: time.Unix(int64(sec), int64(math.Round(frac*1e9)))}, nil
}

// MaxTimingClaim is the largest exp, nbf or iat accepted, in seconds since
// the epoch: 9999-12-31T23:59:59Z. Timing claims must also not be negative.
const MaxTimingClaim = 253402300799

var errTimingRange = errors.New("mcpauth: timing claim is not a finite number between 0 and 9999-12-31")
