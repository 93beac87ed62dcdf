package hiddentext

import (
	"testing"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

func TestIsHidden(t *testing.T) {
	tests := []struct {
		r    rune
		want bool
		why  string
	}{
		{0x200B, true, "zero width space (Cf)"},
		{0x200C, true, "zero width non-joiner (Cf)"},
		{0x200D, true, "zero width joiner (Cf)"},
		{0x2060, true, "word joiner (Cf)"},
		{0xFEFF, true, "zero width no-break space, BOM (Cf)"},
		{0x00AD, true, "soft hyphen (Cf)"},
		{0x034F, true, "combining grapheme joiner (Other_Default_Ignorable)"},
		{0x115F, true, "hangul choseong filler (Other_Default_Ignorable)"},
		{0x1160, true, "hangul jungseong filler (Other_Default_Ignorable)"},
		{0x17B4, true, "khmer vowel inherent aq (Other_Default_Ignorable)"},
		{0x17B5, true, "khmer vowel inherent aa (Other_Default_Ignorable)"},
		{0x180E, true, "mongolian vowel separator (Cf)"},
		{0x3164, true, "hangul filler (Other_Default_Ignorable)"},
		{0xFFA0, true, "halfwidth hangul filler (Other_Default_Ignorable)"},
		{0x2800, true, "braille pattern blank (by hand: no property)"},
		{0xFFFC, true, "object replacement character (by hand: no property)"},
		{0x2028, true, "line separator (Zl)"},
		{0x2029, true, "paragraph separator (Zp)"},
		{0x202A, true, "left-to-right embedding (Bidi_Control)"},
		{0x202B, true, "right-to-left embedding (Bidi_Control)"},
		{0x202C, true, "pop directional formatting (Bidi_Control)"},
		{0x202D, true, "left-to-right override (Bidi_Control)"},
		{0x202E, true, "right-to-left override (Bidi_Control)"},
		{0x2066, true, "left-to-right isolate (Bidi_Control)"},
		{0x2067, true, "right-to-left isolate (Bidi_Control)"},
		{0x2068, true, "first strong isolate (Bidi_Control)"},
		{0x2069, true, "pop directional isolate (Bidi_Control)"},
		{0x061C, true, "arabic letter mark (Bidi_Control)"},
		{0x200E, true, "left-to-right mark (Bidi_Control)"},
		{0x200F, true, "right-to-left mark (Bidi_Control)"},
		{0xFE0F, true, "variation selector-16 (Variation_Selector)"},
		{0xE0001, true, "language tag (Cf)"},
		{0xE0041, true, "tag latin capital letter a (Cf)"},
		{0xE01EF, true, "variation selector-256 (Variation_Selector)"},
		{0xFFF9, true, "interlinear annotation anchor: kept though not Default_Ignorable"},
		{0x13430, true, "egyptian hieroglyph vertical joiner: kept though not Default_Ignorable"},
		{'a', false, "letter"},
		{' ', false, "space shows as a gap"},
		{'\t', false, "tab shows as a gap"},
		{'\n', false, "line feed is an ordinary line break"},
		{'\r', false, "carriage return"},
		{'é', false, "letter"},
		{0x0600, false, "arabic number sign: Cf but Prepended_Concatenation_Mark, draws a sign"},
		// U+3000 IDEOGRAPHIC SPACE is White_Space (Zs), not ignorable: it
		// renders as a full-width gap, which a reader sees, like ' '.
		{0x3000, false, "ideographic space: white space, renders as a gap"},
		{0x00A0, false, "no-break space renders as a gap"},
		{utf8.RuneError, false, "replacement character is drawn"},
		{-1, false, "not a code point"},
		{unicode.MaxRune + 1, false, "not a code point"},
	}
	for _, tt := range tests {
		if got := IsHidden(tt.r); got != tt.want {
			t.Errorf("IsHidden(%U) = %v, want %v: %s", tt.r, got, tt.want, tt.why)
		}
	}
}

// members lists the code points of tab, read from its ranges rather than
// through unicode.Is, as an oracle independent of IsHidden's code path.
func members(tab *unicode.RangeTable) []bool {
	in := make([]bool, unicode.MaxRune+1)
	for _, r := range tab.R16 {
		for c := uint32(r.Lo); c <= uint32(r.Hi); c += uint32(r.Stride) {
			in[c] = true
		}
	}
	for _, r := range tab.R32 {
		for c := r.Lo; c <= r.Hi; c += r.Stride {
			in[c] = true
		}
	}
	return in
}

// TestIsHiddenMatchesUnicode checks every code point against the rule
// written out from the Unicode tables, so that IsHidden cannot drift
// from them (nor its fast path hide a code point).
func TestIsHiddenMatchesUnicode(t *testing.T) {
	var (
		odi  = members(unicode.Other_Default_Ignorable_Code_Point)
		cf   = members(unicode.Cf)
		vs   = members(unicode.Variation_Selector)
		ws   = members(unicode.White_Space)
		pcm  = members(unicode.Prepended_Concatenation_Mark)
		bidi = members(unicode.Bidi_Control)
		zl   = members(unicode.Zl)
		zp   = members(unicode.Zp)
	)
	bad := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		ignorable := (odi[r] || cf[r] || vs[r]) && !ws[r] && !pcm[r]
		want := ignorable || bidi[r] || zl[r] || zp[r] || r == brailleBlank || r == objectReplacement
		if got := IsHidden(r); got != want {
			t.Errorf("IsHidden(%U) = %v, the Unicode rule says %v", r, got, want)
			if bad++; bad > 20 {
				t.Fatal("too many differences")
			}
		}
	}
	// The Hangul fillers need no hand entry: the tables give them.
	for _, r := range []rune{0x115F, 0x1160, 0x3164, 0xFFA0} {
		if !odi[r] {
			t.Errorf("%U is no longer Other_Default_Ignorable_Code_Point: add it by hand", r)
		}
	}
	for _, r := range []rune{brailleBlank, objectReplacement} {
		if odi[r] || cf[r] || vs[r] {
			t.Errorf("%U now has a property: drop the hand entry", r)
		}
	}
}

func TestMark(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain", "Hello, world\n\té", "Hello, world\n\té"},
		{"override", "help\u202eme", "help[U+202E]me"},
		{"tags", "a\U000E0041\U000E0042b", "a[U+E0041][U+E0042]b"},
		{"soft hyphen pads to four digits", "\u00ad", "[U+00AD]"},
		{"fillers and blank", "\u115f\u3164\u2800", "[U+115F][U+3164][U+2800]"},
		{"separators", "x\u2028y\u2029z", "x[U+2028]y[U+2029]z"},
		{"visible kept", "\u0600\u3000", "\u0600\u3000"},
		{"invalid byte", "x\xffy", "x\uFFFDy"},
		{"invalid and hidden", "\xff\u200b", "\uFFFD[U+200B]"},
		{"truncated sequence", "a\xe2\x80", "a\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Mark(tt.in); got != tt.want {
				t.Errorf("Mark(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMarkReturnsCleanTextItself(t *testing.T) {
	in := "nothing hidden here, ünïcödé too"
	if got := Mark(in); unsafe.StringData(got) != unsafe.StringData(in) {
		t.Errorf("Mark copied text with nothing hidden")
	}
}

func TestCount(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"plain text", 0},
		{"a\u200bb\u202ec\u2066d\ufeffe\U000E0041f\ufe0fg", 6},
		{"\u2800\u2800", 2},
		{"\xff\u3000\u0600", 0},
	}
	for _, tt := range tests {
		if got := Count(tt.in); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestSegments(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Segment
	}{
		{"empty", "", nil},
		{"plain", "abc", []Segment{{Text: "abc"}}},
		{"middle", "help\u202eme", []Segment{{Text: "help"}, {Text: "U+202E", Hidden: true}, {Text: "me"}}},
		{"only hidden", "\u200b\U000E0041", []Segment{{Text: "U+200B", Hidden: true}, {Text: "U+E0041", Hidden: true}}},
		{"invalid byte", "a\xffb\u2028", []Segment{{Text: "a\uFFFDb"}, {Text: "U+2028", Hidden: true}}},
		{"invalid only", "a\xff", []Segment{{Text: "a\uFFFD"}}},
		{"markup stays text", "<b>\u2066</b>", []Segment{{Text: "<b>"}, {Text: "U+2066", Hidden: true}, {Text: "</b>"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Segments(tt.in)); diff != "" {
				t.Errorf("Segments(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
