package repofiles

import (
	"testing"
	"unicode/utf8"
)

func TestDecodeBase64(t *testing.T) {
	tests := []struct{ in, want string }{
		{"aGVsbG8=", "hello"},
		{"aGVs\nbG8=\n", "hello"},
		{"aGVsbG8", "hello"},
		{" a G V s b G 8 = ", "hello"},
		{"-_8=", "\xfb\xff"},
		{"+/8=", "\xfb\xff"},
		{"aGVsbG8=trailing", "hello"},
		{"aGVsbG8h!", "hello!"},
		{"QQ", "A"},
		{"QUJDR", "ABC"}, // a dangling single character is ignored
		{"", ""},
	}
	for _, tt := range tests {
		if got := string(decodeBase64(tt.in)); got != tt.want {
			t.Errorf("decodeBase64(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecodeUTF8(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"ascii", "abc", "abc"},
		{"valid multibyte", "é😀", "é😀"},
		{"bom kept", "\xef\xbb\xbfx", "\ufeffx"},
		{"lone continuation", "a\x80b", "a\ufffdb"},
		{"truncated 3-byte is one subpart", "\xe2\x82", "\ufffd"},
		{"truncated 3-byte then ascii", "\xe2\x82a", "\ufffda"},
		{"truncated 4-byte is one subpart", "\xf0\x9f\x98", "\ufffd"},
		{"overlong 2-byte lead", "\xc0\xaf", "\ufffd\ufffd"},
		{"surrogate encoding", "\xed\xa0\x80", "\ufffd\ufffd\ufffd"},
		{"above U+10FFFF", "\xf4\x90\x80\x80", "\ufffd\ufffd\ufffd\ufffd"},
		{"invalid lead bytes", "\xff\xfe", "\ufffd\ufffd"},
		{"E0 needs A0..BF", "\xe0\x80\x80", "\ufffd\ufffd\ufffd"},
		{"bad second byte restarts", "\xe2\x28\xa1", "\ufffd(\ufffd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decodeUTF8([]byte(tt.in)); got != tt.want {
				t.Errorf("decodeUTF8(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add("aGVsbG8=\n")
	f.Add("\xe2\x82")
	f.Fuzz(func(t *testing.T, s string) {
		b := decodeBase64(s)
		if len(b) > len(s) {
			t.Fatalf("decodeBase64(%q) produced %d bytes from %d", s, len(b), len(s))
		}
		out := decodeUTF8([]byte(s))
		if !utf8.ValidString(out) {
			t.Fatalf("decodeUTF8(%q) = %q is not valid UTF-8", s, out)
		}
		if len(out) > 3*len(s) {
			t.Fatalf("decodeUTF8 grew %d bytes to %d", len(s), len(out))
		}
	})
}
