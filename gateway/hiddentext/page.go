package hiddentext

// Marked is a text as an HTML page shows it: Segments, so that the page
// escapes each run and draws each hidden code point as a marker, and
// Hidden, how many markers there are, so that the page can warn with the
// count. Both page sets (the approval pages and the OAuth consent pages)
// draw it with the layout's "marked" template (gateway/htmlpage).
type Marked struct {
	Segments []Segment
	Hidden   int
}

// ForPage splits s for a page (Segments) and counts its hidden code
// points. A text that is nothing but hidden code points still shows, as
// its markers; a text with none is one segment, drawn as before.
func ForPage(s string) Marked {
	m := Marked{Segments: Segments(s)}
	for _, seg := range m.Segments {
		if seg.Hidden {
			m.Hidden++
		}
	}
	return m
}
