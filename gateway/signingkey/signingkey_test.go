package signingkey

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

// testJWK is a fresh private JWK with kid "kid-1" and its key.
func testJWK(t testing.TB) (string, *ecdsa.PrivateKey) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := k.PublicKey.Bytes()
	d, _ := k.Bytes()
	enc := base64.RawURLEncoding.EncodeToString
	return `{"kid":"kid-1","kty":"EC","crv":"P-256","x":"` + enc(pub[1:33]) + `","y":"` + enc(pub[33:]) + `","d":"` + enc(d) + `"}`, k
}

// TestParse: a usable key comes back with its kid; each defect is one of
// the Err values, in A11's order. The wording is pinned by the callers'
// tests (gateway/config, gateway/userclient).
func TestParse(t *testing.T) {
	raw, priv := testJWK(t)
	k, err := Parse(raw)
	if err != nil {
		t.Fatalf("Parse = %v", err)
	}
	if k.ID != "kid-1" || !k.Private.Equal(priv) {
		t.Errorf("ID = %q, key equal = %v", k.ID, k.Private.Equal(priv))
	}
	for _, tc := range []struct {
		raw  string
		want error
	}{
		{"", ErrNotObject},
		{`{"kid":`, ErrNotJSON},
		{`{"kty":"RSA"}`, ErrNoKid},
		{`{"kid":"k","kty":"oct"}`, ErrNotEC},
		{`{"kid":"k","kty":"EC","crv":"P-384"}`, ErrNotP256},
		{`{"kid":"k","kty":"EC","crv":"P-256","x":"a","y":"b"}`, ErrPublicKey},
		{`{"kid":"k","kty":"EC","crv":"P-256","x":"!","y":"b","d":"c"}`, ErrBadValue},
	} {
		if _, err := Parse(tc.raw); !errors.Is(err, tc.want) {
			t.Errorf("Parse(%s) = %v, want %v", tc.raw, err, tc.want)
		}
	}
}

func TestKeyEqual(t *testing.T) {
	raw, _ := testJWK(t)
	a, _ := Parse(raw)
	b, _ := Parse(strings.Replace(raw, "{", `{"use":"sig",`, 1))
	other, _ := Parse(strings.Replace(raw, `"kid-1"`, `"kid-2"`, 1))
	var none *Key
	for _, tc := range []struct {
		name string
		x, y *Key
		want bool
	}{
		{"same key and kid", a, b, true},
		{"other kid", a, other, false},
		{"nil and a key", none, a, false},
		{"nil and nil", none, nil, true},
	} {
		if got := tc.x.Equal(tc.y); got != tc.want {
			t.Errorf("%s: Equal = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// FuzzParse: no text panics Parse, and an error is always one of the Err
// values, which never quote the value.
func FuzzParse(f *testing.F) {
	raw, _ := testJWK(f)
	for _, seed := range []string{raw, "{}", `{"kid":"k","kty":"EC","crv":"P-256","d":"x"}`, "{", "[1]"} {
		f.Add(seed)
	}
	all := []error{ErrNotObject, ErrNotJSON, ErrNoKid, ErrNotEC, ErrNotP256, ErrPublicKey, ErrBadValue, ErrMismatch}
	f.Fuzz(func(t *testing.T, raw string) {
		k, err := Parse(raw)
		if err == nil {
			if k == nil || k.ID == "" || k.Private == nil {
				t.Fatalf("Parse(%q) gave no usable key and no error", raw)
			}
			return
		}
		for _, e := range all {
			if err == e {
				return
			}
		}
		t.Fatalf("Parse(%q) = %v, not one of the Err values", raw, err)
	})
}
