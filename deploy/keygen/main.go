// Command keygen creates the ES256 signing key the gateway uses to mint
// per-user JWTs. It prints the private JWK (the gateway's JWT_SECRET) and
// the public JWKS entry that PostgREST must trust under the same kid.
//
//	go run ./deploy/keygen -kid pawtograder-session-v1
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
)

func main() {
	kid := flag.String("kid", "mcp-gateway-v1", "key id published in the JWKS")
	flag.Parse()
	if err := run(os.Stdout, *kid); err != nil {
		fmt.Fprintln(os.Stderr, "keygen:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, kid string) error {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	key, err := jwk.FromRaw(priv)
	if err != nil {
		return err
	}
	for k, v := range map[string]any{jwk.KeyIDKey: kid, jwk.AlgorithmKey: jwa.ES256, jwk.KeyUsageKey: "sig"} {
		if err := key.Set(k, v); err != nil {
			return err
		}
	}
	pub, err := key.PublicKey()
	if err != nil {
		return err
	}
	privJSON, err := json.Marshal(key)
	if err != nil {
		return err
	}
	set := jwk.NewSet()
	if err := set.AddKey(pub); err != nil {
		return err
	}
	pubJSON, err := json.Marshal(set)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "# The gateway's JWT_SECRET (keep private). Supabase CLI: add this private JWK to the signing keys file; hosted: import it as a standby key:\nJWT_SECRET='%s'\n\n# Add this key to PostgREST's JWKS (self-hosted: JWT_JWKS; the CLI and hosted projects publish it from the private key):\n%s\n", privJSON, pubJSON)
	return err
}
