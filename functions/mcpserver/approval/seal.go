package approval

import "github.com/pawtograder/mcp-gateway/gateway/sealing"

// keyring holds the approval pages' keys, derived from
// GATEWAY_OAUTH_SECRET (gateway/sealing: the first secret seals and
// signs, every one opens and verifies). Their labels differ from the
// OAuth server's, so no value sealed for one purpose opens for another.
type keyring struct {
	cookie sealing.Keys // the sign-in cookie
	state  sealing.Keys // the 2026-07-28 requestState
	csrf   sealing.Keys // the approval form's CSRF token
}

func newKeyring(secrets []string) (*keyring, error) {
	k := &keyring{}
	if err := sealing.DeriveInto(secrets, "pawtograder-mcp-approval/", map[string]*sealing.Keys{"cookie": &k.cookie, "request-state": &k.state, "csrf": &k.csrf}); err != nil {
		return nil, err
	}
	return k, nil
}
