package main

import (
	"bytes"
	"crypto"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/lestrrat-go/jwx/v2/jwk"

	"github.com/pawtograder/mcp-gateway/gateway/config"
)

// readEnvFile reads an env file the way docker --env-file and kubectl
// create secret --from-env-file do: leading blanks dropped, blank lines
// and lines starting with # skipped, the name ends at the first "=" and
// the value is the rest of the line, quotes and all.
func readEnvFile(text string) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(strings.TrimPrefix(text, "\uFEFF"), "\n") {
		line = strings.TrimLeftFunc(line, unicode.IsSpace)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok || name == "" || strings.ContainsFunc(name, unicode.IsSpace) {
			return nil, fmt.Errorf("line %d is not NAME=value: %q", i+1, line)
		}
		out[name] = value
	}
	return out, nil
}

// TestReadEnvFileKeepsQuotes: the reader keeps quotes, as both consumers
// do, so a quoted key would reach the gateway with its quotes.
func TestReadEnvFileKeepsQuotes(t *testing.T) {
	got, err := readEnvFile("# c\n\n  A='{\"k\":1}'\nB=x=y # not a comment\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"A": `'{"k":1}'`, "B": "x=y # not a comment"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("readEnvFile (-want +got):\n%s", diff)
	}
	if _, err := readEnvFile("{\"keys\":[]}\n"); err == nil {
		t.Error("a JSON line was read as an env-file line")
	}
}

// parts splits keygen's output into its blank-line separated parts, each
// its comment lines and the one line to copy, keyed by how that line
// starts.
func parts(t *testing.T, out string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, part := range strings.Split(strings.TrimSuffix(out, "\n"), "\n\n") {
		lines := strings.Split(part, "\n")
		last := lines[len(lines)-1]
		for _, l := range lines[:len(lines)-1] {
			if !strings.HasPrefix(l, "# ") {
				t.Fatalf("part %q has more than one line to copy", part)
			}
		}
		switch {
		case strings.HasPrefix(last, "JWT_SECRET="):
			got["env"] = part
		case strings.HasPrefix(last, "["):
			got["keys file"] = last
		case strings.HasPrefix(last, "{"):
			got["jwks"] = last
		default:
			t.Fatalf("unexpected part %q", part)
		}
	}
	if len(got) != 3 {
		t.Fatalf("output has parts %v, want the env line, the signing keys file and the JWKS:\n%s", got, out)
	}
	return got
}

// TestRunPrintsWhatEachConsumerTakes reads each part of the output as its
// consumer does: the env-file line as docker and kubectl read it, checked
// by the gateway's own configuration; the signing keys file as the
// Supabase CLI (GoTrue) reads it, a JSON array of private JWKs; the JWKS as
// PostgREST reads it. All three hold the same key under the same kid.
func TestRunPrintsWhatEachConsumerTakes(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, "test-kid"); err != nil {
		t.Fatal(err)
	}
	p := parts(t, out.String())

	env, err := readEnvFile(p["env"])
	if err != nil {
		t.Fatalf("env part: %v", err)
	}
	secret := env["JWT_SECRET"]
	if !strings.HasPrefix(secret, "{") || !json.Valid([]byte(secret)) {
		t.Fatalf("JWT_SECRET as an env file gives it is not JSON starting with {: %.20q…", secret)
	}
	if _, err := config.Load(func(name string) string {
		return map[string]string{"JWT_SECRET": secret, "MCP_JWT_SECRET": strings.Repeat("m", 32)}[name]
	}); err != nil {
		t.Fatalf("the gateway refuses JWT_SECRET as an env file gives it: %v", err)
	}
	priv, err := jwk.ParseKey([]byte(secret))
	if err != nil {
		t.Fatalf("JWT_SECRET: %v", err)
	}

	var keysFile []json.RawMessage
	if err := json.Unmarshal([]byte(p["keys file"]), &keysFile); err != nil || len(keysFile) != 1 {
		t.Fatalf("signing keys file: %d keys, %v; want a JSON array of one key", len(keysFile), err)
	}
	fileKey, err := jwk.ParseKey(keysFile[0])
	if err != nil {
		t.Fatalf("signing keys file: %v", err)
	}

	set, err := jwk.Parse([]byte(p["jwks"]))
	if err != nil {
		t.Fatalf("JWKS: %v", err)
	}
	pub, ok := set.LookupKeyID("test-kid")
	if !ok || set.Len() != 1 {
		t.Fatalf("JWKS has %d keys, want the one with kid test-kid", set.Len())
	}
	if _, has := pub.Get("d"); has {
		t.Fatal("public JWKS leaks the private component")
	}

	for name, k := range map[string]jwk.Key{"JWT_SECRET": priv, "signing keys file": fileKey} {
		if k.KeyID() != "test-kid" || k.KeyType() != "EC" {
			t.Errorf("%s: kid %q type %q", name, k.KeyID(), k.KeyType())
		}
		if _, has := k.Get("d"); !has {
			t.Errorf("%s: not a private key", name)
		}
		kPub, err := k.PublicKey()
		if err != nil {
			t.Fatal(err)
		}
		a, _ := kPub.Thumbprint(crypto.SHA256)
		b, _ := pub.Thumbprint(crypto.SHA256)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: its public half is not the JWKS's key", name)
		}
	}
}
