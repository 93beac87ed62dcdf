package gotruestandin

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func kids(t *testing.T, ks *KeySet) []string {
	t.Helper()
	b, err := ks.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, k := range doc.Keys {
		if _, ok := k["d"]; ok {
			t.Fatalf("public JWKS holds a private key: %s", b)
		}
		out = append(out, k["kid"].(string))
	}
	return out
}

func TestKeySetRotation(t *testing.T) {
	k1, err := NewES256Key("k1")
	if err != nil {
		t.Fatal(err)
	}
	ks, err := NewKeySet(k1)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewES256Key("gateway")
	if err := ks.Add(other); err != nil {
		t.Fatal(err)
	}
	if _, err := ks.Rotate("k2"); err != nil {
		t.Fatal(err)
	}
	if got := ks.Signing().KeyID(); got != "k2" {
		t.Errorf("signing kid = %q, want k2", got)
	}
	if diff := cmp.Diff([]string{"k1", "gateway", "k2"}, kids(t, ks)); diff != "" {
		t.Errorf("kids (-want +got):\n%s", diff)
	}
	if err := ks.Remove("k2"); err == nil {
		t.Error("removing the signing key succeeded")
	}
	if err := ks.Remove("k1"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"gateway", "k2"}, kids(t, ks)); diff != "" {
		t.Errorf("kids after removal (-want +got):\n%s", diff)
	}
	if err := ks.Remove("k1"); err == nil {
		t.Error("removing an absent key succeeded")
	}
	if ks.Lookup("gateway") == nil || ks.Lookup("k1") != nil {
		t.Error("Lookup disagrees with the ring")
	}
}

func TestKeySetBounded(t *testing.T) {
	k, _ := NewES256Key("k0")
	ks, _ := NewKeySet(k)
	for i := 1; i < maxKeys; i++ {
		if _, err := ks.Rotate("k" + string(rune('a'+i%26)) + string(rune('a'+i/26))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ks.Rotate("one-too-many"); err == nil {
		t.Error("ring grew past maxKeys")
	}
}
