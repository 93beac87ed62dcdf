package hiddentext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestForPage(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Marked
	}{
		{"", Marked{}},
		{"Claude", Marked{Segments: []Segment{{Text: "Claude"}}}},
		{"a\u202eb\u200b", Marked{Segments: []Segment{{Text: "a"}, {Text: "U+202E", Hidden: true}, {Text: "b"}, {Text: "U+200B", Hidden: true}}, Hidden: 2}},
		{"\ufffc", Marked{Segments: []Segment{{Text: "U+FFFC", Hidden: true}}, Hidden: 1}},
	} {
		if diff := cmp.Diff(tt.want, ForPage(tt.in)); diff != "" {
			t.Errorf("ForPage(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
