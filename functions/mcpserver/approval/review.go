package approval

import (
	"fmt"
	"strings"
	"time"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/hiddentext"
)

// segment is a run of text, or one invisible character shown as a
// marker (Mark, e.g. "U+202E", with its name in Name).
type segment struct {
	Text, Mark, Name string
}

type fieldView struct {
	Label    string
	Student  bool
	Segments []segment
	Hidden   int // invisible characters in the field
}

type reviewPage struct {
	Title, Action, As, Where, Visibility, Account, Expires, CSRF, FormAction string
	Fields                                                                   []fieldView
	Hidden                                                                   int
}

// invisibleNames name the invisible characters most used to hide text.
var invisibleNames = map[rune]string{
	0x200B: "zero width space", 0x200C: "zero width non-joiner", 0x200D: "zero width joiner",
	0x200E: "left-to-right mark", 0x200F: "right-to-left mark", 0x2060: "word joiner",
	0x202A: "left-to-right embedding", 0x202B: "right-to-left embedding", 0x202C: "pop directional formatting",
	0x202D: "left-to-right override", 0x202E: "right-to-left override",
	0x2066: "left-to-right isolate", 0x2067: "right-to-left isolate", 0x2068: "first strong isolate",
	0x2069: "pop directional isolate", 0xFEFF: "zero width no-break space", 0x00AD: "soft hyphen",
	0x061C: "arabic letter mark", 0x034F: "combining grapheme joiner",
	0x115F: "Hangul choseong filler", 0x1160: "Hangul jungseong filler", 0x3164: "Hangul filler",
	0xFFA0: "halfwidth Hangul filler", 0x2800: "braille blank", 0x17B4: "Khmer inherent vowel",
	0x17B5: "Khmer inherent vowel", 0x2028: "line separator", 0x2029: "paragraph separator",
	0x180E: "Mongolian vowel separator",
}

func invisibleName(r rune) string {
	if n, ok := invisibleNames[r]; ok {
		return n
	}
	if r >= 0xE0000 && r <= 0xE007F {
		return "tag character"
	}
	return "invisible character"
}

// segments splits text into runs and markers for every hidden
// character (hiddentext.IsHidden), so the page shows what a browser would
// otherwise render as nothing or reorder.
func segments(text string) ([]segment, int) {
	var out []segment
	var b strings.Builder
	hidden := 0
	for _, r := range text {
		if !hiddentext.IsHidden(r) {
			b.WriteRune(r)
			continue
		}
		if b.Len() > 0 {
			out = append(out, segment{Text: b.String()})
			b.Reset()
		}
		hidden++
		out = append(out, segment{Mark: fmt.Sprintf("U+%04X", r), Name: invisibleName(r)})
	}
	if b.Len() > 0 {
		out = append(out, segment{Text: b.String()})
	}
	return out, hidden
}

// plain is text with its hidden characters as markers, for the lines of
// the preview that are not fields.
func plain(text string) string { return hiddentext.Mark(text) }

func (s *Service) reviewData(a *Action, g *grant) reviewPage {
	p := reviewPage{
		Title:      "Review a change proposed by your assistant",
		Action:     plain(a.Preview.Action),
		As:         plain(a.Preview.As),
		Where:      plain(a.Preview.Where),
		Visibility: plain(a.Preview.Visibility),
		Account:    account(g),
		Expires:    expiresIn(a.ExpiresAt, s.opts.Now()) + " (" + a.ExpiresAt.UTC().Format(time.RFC1123) + ")",
		CSRF:       s.csrfToken(a.ID, g.UserID),
		FormAction: s.ApprovalURL(a.ID),
	}
	for _, f := range a.Preview.Fields {
		segs, n := segments(f.Text)
		p.Fields = append(p.Fields, fieldView{Label: f.Label, Student: f.StudentAuthored, Segments: segs, Hidden: n})
		p.Hidden += n
	}
	return p
}

// expiresIn says when t comes, in whole minutes from now, as a person
// reads a deadline ("in 9 minutes", "in less than a minute").
func expiresIn(t, now time.Time) string {
	d := t.Sub(now)
	switch {
	case d <= 0:
		return "now"
	case d < time.Minute:
		return "in less than a minute"
	}
	return "in " + minutes(d.Round(time.Minute))
}
