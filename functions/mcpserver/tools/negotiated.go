package tools

import "context"

type negotiatedKey struct{}

// WithNegotiated returns ctx for a tool call made at a negotiated revision
// (2025-06-18 and later). Some of the original's tools then return fields
// the original lacks (docs/compatibility.md S31): get_help_request's
// messages[].instructors_only and messages[].is_caller, and
// list_submission_tests' tests[].is_released. The transport sets it only
// for those revisions, so the drop-in path, 2024-11-05 and 2025-03-26 keep
// the original's answers (and requests) byte for byte.
func WithNegotiated(ctx context.Context) context.Context {
	return context.WithValue(ctx, negotiatedKey{}, true)
}

// negotiated reports whether ctx is a call at a negotiated revision
// (WithNegotiated).
func negotiated(ctx context.Context) bool {
	v, _ := ctx.Value(negotiatedKey{}).(bool)
	return v
}
