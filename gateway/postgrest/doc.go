// Package postgrest is a small PostgREST client for the gateway: every call
// takes a context, every response body is read under a size limit, and every
// failure comes back as an *Error that says whether PostgREST answered (and
// with which status and code) or could not be reached at all.
//
// It builds the same requests as @supabase/postgrest-js, which the original
// functions use: select lists stripped of white space, filters as
// column=op.value parameters, order without a nulls modifier, and singular
// responses through the application/vnd.pgrst.object+json media type.
//
// Why not supabase-go's postgrest-go (v0.0.11)? Its Order always appends
// .nullsfirst/.nullslast, which changes row order for descending sorts; its
// parameters live in a map, so two filters on one column overwrite each
// other; its requests carry no context; it reads bodies without a limit; and
// it flattens the HTTP status into a string. Each of these would make output
// or failure handling differ from the original.
package postgrest
