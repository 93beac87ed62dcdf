package jsjson

import (
	"strings"
	"testing"
)

// BenchmarkAppendString measures string escaping, the bulk of encoding a
// submission: long ASCII source, text with quotes, tabs and newlines to
// escape, and text that is mostly multi-byte UTF-8 (copied, not escaped).
func BenchmarkAppendString(b *testing.B) {
	cases := []struct{ name, s string }{
		{"ascii_plain_64KiB", strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ", 1024)},
		{"ascii_escapes_64KiB", strings.Repeat("\tif (x < 1) { print(\"a\\b\"); }\n", 2048)},
		{"unicode_64KiB", strings.Repeat("naïve façade — 日本語のテキスト 🐾🎉\u2028", 1200)},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			dst := make([]byte, 0, 2*len(tc.s))
			b.SetBytes(int64(len(tc.s)))
			b.ReportAllocs()
			for b.Loop() {
				dst = AppendString(dst[:0], tc.s)
			}
		})
	}
}

// BenchmarkMarshalCompactSubmission is BenchmarkMarshalIndent without
// indentation: the cost of structure versus whitespace.
func BenchmarkMarshalCompactSubmission(b *testing.B) {
	v := submissionLike()
	out, _ := Marshal(v)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}
