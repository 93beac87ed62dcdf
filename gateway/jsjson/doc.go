// Package jsjson reads and writes JSON the way JavaScript's JSON.parse and
// JSON.stringify do, so the gateway's output is byte-identical to the Deno
// functions it replaces.
//
// Go's encoding/json differs from JavaScript in ways clients can see: it sorts
// map keys, escapes <, >, &, U+2028 and U+2029, and formats floats
// differently. This package keeps object keys in insertion order (with
// JavaScript's rule that array-index keys come first), escapes only what
// JSON.stringify escapes, and prints numbers as JavaScript's Number#toString.
//
// Strings are Go strings. A lone surrogate from a \u escape, which UTF-8
// cannot hold, is kept as generalized UTF-8 (WTF-8) so it is written back as
// \udxxx, as JSON.stringify writes it.
//
// Values are plain Go values: nil, bool, float64 (and Go integer types on
// output), string, []any, *Object and json.RawMessage (re-parsed on output).
package jsjson
