package tools

import (
	"context"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// readFunctionRow calls the read-only SQL function fn (a SECURITY INVOKER
// mcp_ function, so row-level security applies as to the REST reads it
// replaces) and returns its one row's column key: the function's reads,
// each as PostgREST would have answered it. nil when the function answers
// no row (what it reads is not visible to the caller) or the call failed
// (noted, so the tool answers a ReadFailedError).
func (c *Call) readFunctionRow(ctx context.Context, fn, key string, args map[string]any) *jsjson.Object {
	raw, err := c.DB.ReadRPC(ctx, fn, args)
	rows, _ := c.pgRows(ctx, raw, err)
	if len(rows) == 0 {
		return nil
	}
	found, ok := rows[0].Object(key)
	if !ok || found == nil {
		return nil
	}
	return found
}

// profilesOfRows reads the user_roles rows of the profile look-up
// (docs/contract/tools.md §1.2: private_profile_id, public_profile_id,
// role and the embedded public profile's name), as an SQL function returns
// them, keyed by private profile id: what publicProfiles answers for those
// ids.
func profilesOfRows(rows []*jsjson.Object) map[string]publicProfile {
	found := make(map[string]publicProfile, len(rows))
	for _, r := range rows {
		priv, _ := r.String("private_profile_id")
		pub, _ := r.String("public_profile_id")
		found[priv] = publicProfile{ID: pub, Name: embeddedName(r), staff: isStaffRole(r)}
	}
	return found
}
