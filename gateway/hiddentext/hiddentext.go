// Package hiddentext finds the code points that render as nothing or
// reorder the text around them, and shows them as visible markers.
//
// Text a student wrote reaches two readers that must see the same thing:
// a model, which reads every code point, and a person approving a write,
// who reads what a browser draws. A zero width space, a tag character or
// a right-to-left override lets a student hide instructions from the
// person ("ignore the rubric…" in tag characters) or make the person read
// something other than what the model reads. Marking such code points,
// rather than stripping them, keeps the text whole and shows both readers
// that something is there. The same holds for any text a person reads
// that someone else set: the OAuth consent pages mark the name a client
// registered ("Claude" followed by U+202E can make the rest read
// backwards), and ForPage gives a page the segments and the count for its
// warning.
//
// The rule comes from the Unicode tables in Go's unicode package (see
// IsHidden), not from a hand list, so it follows the Unicode version Go
// ships.
package hiddentext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// brailleBlank is U+2800 BRAILLE PATTERN BLANK. It is a symbol (So) that
// draws as an empty cell, so it passes for a space, but no Unicode
// property says so: it is the one code point IsHidden adds by hand.
const brailleBlank = 0x2800

// objectReplacement is U+FFFC OBJECT REPLACEMENT CHARACTER, a symbol (So)
// that stands for an embedded object and draws as nothing in Chromium
// outside a rich-text editor: the second code point added by hand.
const objectReplacement = 0xFFFC

// firstHidden is the lowest hidden code point (U+00AD SOFT HYPHEN):
// ASCII and the C1 controls take the fast path in IsHidden.
// TestIsHiddenMatchesUnicode checks that nothing below it is hidden.
const firstHidden = 0x00AD

// IsHidden reports whether r renders as nothing or reorders text, so that
// a person reading the rendered text cannot see it while a model reading
// the code points can. It is true for:
//
//   - Default_Ignorable_Code_Point as DerivedCoreProperties derives it:
//     Other_Default_Ignorable_Code_Point, the format characters (Cf: zero
//     widths, the BOM, the soft hyphen, tag characters) and the variation
//     selectors, less White_Space and less Prepended_Concatenation_Mark
//     (U+0600 ARABIC NUMBER SIGN and its kin, which draw a visible sign).
//     Unlike the derivation it keeps U+FFF9..U+FFFB (interlinear
//     annotation) and the Egyptian hieroglyph format controls, which
//     draw nothing outside the few renderers that implement them. The
//     Hangul fillers U+115F, U+1160, U+3164 and U+FFA0, U+034F COMBINING
//     GRAPHEME JOINER and U+17B4, U+17B5 come from
//     Other_Default_Ignorable_Code_Point.
//   - the bidirectional controls (Bidi_Control: the marks, embeddings,
//     overrides and isolates, including U+061C ARABIC LETTER MARK);
//   - U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR (Zl, Zp),
//     which break a line without looking like a newline to most tools;
//   - U+2800 BRAILLE PATTERN BLANK and U+FFFC OBJECT REPLACEMENT
//     CHARACTER, which no property covers.
//
// White space that shows as a gap is not hidden: space, tab, CR, LF and
// U+3000 IDEOGRAPHIC SPACE (White_Space, not ignorable) pass through.
func IsHidden(r rune) bool {
	if r < firstHidden {
		return false
	}
	switch {
	case r == brailleBlank || r == objectReplacement:
		return true
	case unicode.In(r, unicode.Bidi_Control, unicode.Zl, unicode.Zp):
		return true
	case unicode.In(r, unicode.White_Space, unicode.Prepended_Concatenation_Mark):
		return false
	}
	return unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector)
}

// clean reports whether s is valid UTF-8 with no hidden code point, the
// case in which Mark and Segments have nothing to change.
func clean(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || IsHidden(r) {
			return false
		}
		i += n
	}
	return true
}

// code is r's marker without brackets: "U+" and at least four uppercase
// hex digits, as Unicode charts write code points ("U+202E", "U+E0041").
func code(r rune) string {
	return fmt.Sprintf("U+%04X", r)
}

// Mark returns s with each hidden code point (IsHidden) replaced by a
// visible marker such as "[U+202E]", so that whoever reads the result,
// a person or a model, sees that the student's text carries characters
// a browser would not draw. Bytes that are not valid UTF-8 become U+FFFD.
// When s is valid and holds nothing hidden, Mark returns s itself.
func Mark(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		if IsHidden(r) {
			b.WriteString("[" + code(r) + "]")
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Count returns the number of hidden code points (IsHidden) in s, so that
// a page can warn how many characters its markers stand for.
func Count(s string) int {
	n := 0
	for _, r := range s {
		if IsHidden(r) {
			n++
		}
	}
	return n
}

// Segment is a piece of text as Segments splits it: a run of visible
// text (Hidden false), or one hidden code point (Hidden true) whose Text
// is its marker without brackets, such as "U+202E".
type Segment struct {
	// Text is the run of text, or the marker of the hidden code point.
	Text string
	// Hidden is true when the segment stands for one hidden code point.
	Hidden bool
}

// Segments splits s into runs of visible text and one segment per hidden
// code point (IsHidden), so that an HTML template can escape the text and
// style each marker (a red badge) instead of letting the browser draw
// nothing where the student hid something. Bytes that are not valid UTF-8
// become U+FFFD. An empty s gives no segments.
func Segments(s string) []Segment {
	if clean(s) {
		if s == "" {
			return nil
		}
		return []Segment{{Text: s}}
	}
	var out []Segment
	var b strings.Builder
	for _, r := range s {
		if !IsHidden(r) {
			b.WriteRune(r)
			continue
		}
		if b.Len() > 0 {
			out = append(out, Segment{Text: b.String()})
			b.Reset()
		}
		out = append(out, Segment{Text: code(r), Hidden: true})
	}
	if b.Len() > 0 {
		out = append(out, Segment{Text: b.String()})
	}
	return out
}
