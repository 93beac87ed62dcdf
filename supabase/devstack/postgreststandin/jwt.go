package postgreststandin

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// clockSkew is PostgREST's allowance for exp/nbf/iat checks.
const clockSkew = 30

// authResult is the outcome of verifying a request's bearer token.
type authResult struct {
	role   string
	claims map[string]any // with "role" set, as PostgREST passes them to the database
	authed bool           // role is not the anonymous role (42501 maps to 403 instead of 401)
}

// verifyToken checks token the way PostgREST 13 does (Auth/Jwt.hs) and
// returns the role and claims, or a PGRST30x error.
func (h *Handler) verifyToken(ctx context.Context, token string) (authResult, *Error) {
	if token == "" {
		return authResult{}, errJWTDecode("Empty JWT is sent in Authorization header", nil)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return authResult{}, errJWTDecode("Expected 3 parts in JWT; got "+strconv.Itoa(len(parts)), nil)
	}
	undecodable := errJWTDecode("JWT couldn't be decoded", nil)
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return authResult{}, undecodable
	}
	var hdr struct {
		Alg string  `json:"alg"`
		Kid *string `json:"kid"`
	}
	if json.Unmarshal(hb, &hdr) != nil {
		return authResult{}, undecodable
	}
	var payload []byte
	switch hdr.Alg {
	case "none":
		return authResult{}, errJWTDecode("Unsupported token type", nil)
	case "HS256", "HS384", "HS512", "ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA":
	default:
		return authResult{}, errJWTDecode("Wrong or unsupported encoding algorithm", "Unsupported algorithm "+hdr.Alg)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return authResult{}, errJWTDecode("JWT cryptographic operation failed", nil)
	}
	keys := h.candidateKeys(ctx, hdr.Alg, hdr.Kid)
	if len(keys) == 0 {
		return authResult{}, errJWTDecode("No suitable key or wrong key type", "None of the keys was able to decode the JWT")
	}
	method := jwt.GetSigningMethod(hdr.Alg)
	if method == nil {
		return authResult{}, errJWTDecode("Wrong or unsupported encoding algorithm", "Unsupported algorithm "+hdr.Alg)
	}
	signing := parts[0] + "." + parts[1]
	ok := false
	for _, k := range keys {
		if method.Verify(signing, sig, k) == nil {
			ok = true
			break
		}
	}
	if !ok {
		return authResult{}, errJWTDecode("JWT cryptographic operation failed", nil)
	}
	payload, err = base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return authResult{}, errJWTClaims("Parsing claims failed")
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var claims map[string]any
	if dec.Decode(&claims) != nil || claims == nil {
		return authResult{}, errJWTClaims("Parsing claims failed")
	}
	if e := h.validateClaims(claims); e != nil {
		return authResult{}, e
	}
	role := h.cfg.AnonRole
	switch r := claims["role"].(type) {
	case string:
		role = r
	case nil:
	default:
		b, _ := json.Marshal(r)
		role = string(b)
	}
	claims["role"] = role
	// PostgREST's "authenticated" means a role other than the anonymous one
	// (App.hs: Just authRole /= configDbAnonRole), not "a JWT was sent".
	return authResult{role: role, claims: claims, authed: role != h.cfg.AnonRole}, nil
}

// validateClaims mirrors PostgREST's checkForErrors: exp, nbf, iat, aud in
// that order, the first failure wins, 30 s skew.
func (h *Handler) validateClaims(claims map[string]any) *Error {
	now := h.now().Unix()
	num := func(key string) (int64, bool, bool) { // value, present, isNumber
		v, present := claims[key]
		if !present || v == nil {
			return 0, false, true
		}
		n, ok := v.(json.Number)
		if !ok {
			return 0, true, false
		}
		f, err := n.Float64()
		if err != nil {
			return 0, true, false
		}
		// Scientific toBoundedInteger yields 0 for fractions; floor is close
		// enough for the integral NumericDates every issuer writes.
		return int64(math.Floor(f)), true, true
	}
	if v, present, isNum := num("exp"); !isNum {
		return errJWTClaims("The JWT 'exp' claim must be a number")
	} else if present && now-clockSkew > v {
		return errJWTClaims("JWT expired")
	}
	if v, present, isNum := num("nbf"); !isNum {
		return errJWTClaims("The JWT 'nbf' claim must be a number")
	} else if present && now+clockSkew < v {
		return errJWTClaims("JWT not yet valid")
	}
	if v, present, isNum := num("iat"); !isNum {
		return errJWTClaims("The JWT 'iat' claim must be a number")
	} else if present && now+clockSkew < v {
		return errJWTClaims("JWT issued at future")
	}
	if aud, present := claims["aud"]; present && aud != nil {
		matches := func(s string) bool { return h.cfg.Audience == "" || s == h.cfg.Audience }
		switch a := aud.(type) {
		case string:
			if !matches(a) {
				return errJWTClaims("JWT not in audience")
			}
		case []any:
			if len(a) == 0 {
				break
			}
			found := false
			for _, x := range a {
				s, ok := x.(string)
				if !ok {
					return errJWTClaims("The JWT 'aud' claim must be a string or an array of strings")
				}
				if matches(s) {
					found = true
				}
			}
			if !found {
				return errJWTClaims("JWT not in audience")
			}
		default:
			return errJWTClaims("The JWT 'aud' claim must be a string or an array of strings")
		}
	}
	return nil
}

// candidateKeys returns the verification keys usable for alg and kid, as
// jose-jwt's canDecodeJws selects them: the key type must fit the algorithm,
// a key's own alg (if any) must equal it, and when both the token and the key
// carry a kid they must be equal.
func (h *Handler) candidateKeys(ctx context.Context, alg string, kid *string) []any {
	var out []any
	if strings.HasPrefix(alg, "HS") {
		if len(h.cfg.JWTSecret) > 0 {
			out = append(out, h.cfg.JWTSecret)
		}
	}
	set := h.cfg.JWKS
	if h.cfg.JWKSFunc != nil {
		set = h.cfg.JWKSFunc(ctx)
	}
	if set == nil {
		return out
	}
	for i := 0; i < set.Len(); i++ {
		k, ok := set.Key(i)
		if !ok {
			continue
		}
		if kid != nil && k.KeyID() != "" && k.KeyID() != *kid {
			continue
		}
		if ka := k.Algorithm().String(); ka != "" && ka != alg {
			continue
		}
		if u := k.KeyUsage(); u == "enc" {
			continue
		}
		var raw any
		if err := k.Raw(&raw); err != nil {
			continue
		}
		switch r := raw.(type) {
		case *ecdsa.PrivateKey:
			raw = &r.PublicKey
		case *rsa.PrivateKey:
			raw = &r.PublicKey
		}
		switch raw.(type) {
		case *ecdsa.PublicKey:
			if !strings.HasPrefix(alg, "ES") {
				continue
			}
		case *rsa.PublicKey:
			if !strings.HasPrefix(alg, "RS") && !strings.HasPrefix(alg, "PS") {
				continue
			}
		case []byte:
			if !strings.HasPrefix(alg, "HS") {
				continue
			}
		default:
			continue
		}
		out = append(out, raw)
	}
	return out
}
