// Package fuzzscript holds the tests of scripts/fuzz, the script that runs
// Go's fuzzing engine on every Fuzz* target. It has no code of its own: the
// tests run the script against a small module written to a temporary
// directory, with a `go` wrapper on PATH that can make the engine's known
// spurious failures happen on demand.
package fuzzscript
