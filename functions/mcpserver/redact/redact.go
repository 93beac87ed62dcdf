// Package redact removes credentials from tool output as a last line of
// defence: a student's program can write anything into grader output, and
// JSON columns such as grader_results.errors are passed through verbatim, so
// a leaked API key or password must not travel on to an AI assistant.
package redact

import (
	"strings"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Replacement is what a redacted value becomes.
const Replacement = "[REDACTED]"

// DefaultKeys are the fragments that mark a key as naming a credential,
// compared after lower-casing and removing '_', '-', '.' and spaces.
var DefaultKeys = []string{
	"token", "secret", "password", "passwd", "apikey", "privatekey",
	"authorization", "credential", "accesskey", "bearer", "cookie",
}

// Redactor replaces values stored under credential-named keys.
type Redactor struct {
	fragments []string
}

// New returns a Redactor for the given key fragments (DefaultKeys when
// empty).
func New(fragments []string) *Redactor {
	if len(fragments) == 0 {
		fragments = DefaultKeys
	}
	norm := make([]string, 0, len(fragments))
	for _, f := range fragments {
		if f = normalise(f); f != "" {
			norm = append(norm, f)
		}
	}
	return &Redactor{fragments: norm}
}

func normalise(k string) string {
	k = strings.ToLower(k)
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', ' ':
			return -1
		}
		return r
	}, k)
}

// IsCredentialKey reports whether key names a credential.
func (r *Redactor) IsCredentialKey(key string) bool {
	n := normalise(key)
	for _, f := range r.fragments {
		if strings.Contains(n, f) {
			return true
		}
	}
	return false
}

// Value redacts v in place, walking objects and arrays, and returns it.
// It reports how many values it replaced.
func (r *Redactor) Value(v any) (any, int) {
	n := 0
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case *jsjson.Object:
			if x == nil {
				return x
			}
			for _, k := range x.Keys() {
				if r.IsCredentialKey(k) {
					if val := x.Value(k); val != nil {
						x.Set(k, Replacement)
						n++
					}
					continue
				}
				x.Set(k, walk(x.Value(k)))
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		}
		return v
	}
	return walk(v), n
}
