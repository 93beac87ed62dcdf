// Package gateway is the HTTP server that stands in for Supabase's edge
// runtime: it mounts each function at /functions/v1/<slug> (and at /<slug>,
// for a proxy that strips the prefix, as Kong does in front of the edge
// runtime), answers unknown functions the way the platform does, and adds
// what every request needs — a request id, a request log, panic recovery, a
// body limit and one error mapping — plus the operations endpoints
// (/healthz, /readyz, /_internal/health) and a graceful shutdown that lets
// in-flight requests finish while telling long-lived streams to stop.
//
// Functions are registered in one place, main, as a list of Function
// values; the gateway knows nothing about what they do.
package gateway
