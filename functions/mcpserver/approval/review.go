package approval

import (
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
)

// marked is a text of the page as hiddentext.Segments splits it: runs of
// text and one marker per hidden code point, so the page shows what a
// browser would otherwise draw as nothing or reorder. Every text of a
// proposal may hold what someone else wrote (a student's message, a
// profile name in a heading, a check's name, a title), so every one is
// marked and counted, not only the fields.
type marked struct {
	Segments []hiddentext.Segment
	Hidden   int // hidden code points in the text
}

func mark(text string) marked {
	m := marked{Segments: hiddentext.Segments(text)}
	for _, s := range m.Segments {
		if s.Hidden {
			m.Hidden++
		}
	}
	return m
}

type fieldView struct {
	Label, Text marked
	Student     bool
}

type reviewPage struct {
	Title, Account, Expires, CSRF, FormAction string
	Action, As, Where, Visibility             marked
	Fields                                    []fieldView
	Hidden                                    int // in all of the above
}

func (s *Service) reviewData(a *Action, g *grant) reviewPage {
	p := reviewPage{
		Title:      "Review a change proposed by your assistant",
		Action:     mark(a.Preview.Action),
		As:         mark(a.Preview.As),
		Where:      mark(a.Preview.Where),
		Visibility: mark(a.Preview.Visibility),
		Account:    account(g),
		Expires:    expiresIn(a.ExpiresAt, s.opts.Now()) + " (" + a.ExpiresAt.UTC().Format(time.RFC1123) + ")",
		CSRF:       s.csrfToken(a.ID, g.UserID),
		FormAction: s.ApprovalURL(a.ID),
	}
	p.Hidden = p.Action.Hidden + p.As.Hidden + p.Where.Hidden + p.Visibility.Hidden
	for _, f := range a.Preview.Fields {
		v := fieldView{Label: mark(f.Label), Text: mark(f.Text), Student: f.StudentAuthored}
		p.Fields = append(p.Fields, v)
		p.Hidden += v.Label.Hidden + v.Text.Hidden
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
