// Command keygen creates the ES256 signing key the gateway uses to mint
// per-user JWTs. It prints the private JWK as an env-file line (the
// gateway's JWT_SECRET, unquoted), the Supabase CLI's signing keys file
// holding it, and the public JWKS that PostgREST must trust under the same
// kid.
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
	// The Supabase CLI's signing keys file is a JSON array of private JWKs.
	keysFile, err := json.Marshal([]jwk.Key{key})
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
	_, err = fmt.Fprintf(w, "%sJWT_SECRET=%s\n\n%s%s\n\n%s%s\n", envFileComment, privJSON, keysFileComment, keysFile, jwksComment, pubJSON)
	return err
}

// The comments before each part of the output. Each part is one line that
// its consumer takes as it stands. JWT_SECRET's value is not quoted:
// docker --env-file and kubectl create secret --from-env-file keep quotes
// as part of the value, and the gateway refuses a key that does not start
// with "{".
const (
	envFileComment = "# The gateway's JWT_SECRET, its private signing key (keep it secret), as a line of an env file such as\n" +
		"# gateway.env: docker --env-file, docker compose --env-file and kubectl create secret --from-env-file take\n" +
		"# the rest of the line as it stands. Self-hosted: the same value is MCP_GATEWAY_SIGNING_JWK. Hosted:\n" +
		"# import the value as a standby key. A shell needs quotes around it: export JWT_SECRET='<the value>'.\n"
	keysFileComment = "# Supabase CLI: the signing keys file ([auth] signing_keys_path) is a JSON array of private JWKs; add\n" +
		"# this key to it beside Auth's own key (a new file is this line):\n"
	jwksComment = "# PostgREST's JWKS, the public half only (self-hosted: add this key to JWT_JWKS; the CLI and hosted\n" +
		"# projects publish it from the private key):\n"
)
