package hiddentext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzMark(f *testing.F) {
	for _, s := range []string{
		"", "plain", "help\u202eme", "a\U000E0041b\ufe0f", "\u115f\u3164\u2800\u2028",
		"\xff\xfe", "a\xe2\x80", "\u0600\u3000 \t\r\n", "\U000E01EF\u00ad",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Mark(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Mark(%q) = %q is not valid UTF-8", s, got)
		}
		if i := strings.IndexFunc(got, IsHidden); i >= 0 {
			t.Fatalf("Mark(%q) = %q keeps a hidden code point at byte %d", s, got, i)
		}
		if n := Count(got); n != 0 {
			t.Fatalf("Count(Mark(%q)) = %d, want 0", s, n)
		}
		if utf8.ValidString(s) && Count(s) == 0 && got != s {
			t.Fatalf("Mark(%q) = %q changed text with nothing hidden", s, got)
		}
		// Segments agrees with Mark and Count.
		var b strings.Builder
		hidden := 0
		for _, seg := range Segments(s) {
			if seg.Hidden {
				hidden++
				b.WriteString("[" + seg.Text + "]")
			} else {
				b.WriteString(seg.Text)
			}
		}
		if b.String() != got || hidden != Count(s) {
			t.Fatalf("Segments(%q) gives %q with %d markers; Mark gives %q, Count %d", s, b.String(), hidden, got, Count(s))
		}
		if p := ForPage(s); p.Hidden != hidden || len(p.Segments) != len(Segments(s)) {
			t.Fatalf("ForPage(%q) counts %d in %d segments; Segments gives %d markers in %d", s, p.Hidden, len(p.Segments), hidden, len(Segments(s)))
		}
	})
}
