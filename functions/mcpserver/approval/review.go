package approval

import (
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
)

// Every text of a proposal may hold what someone else wrote (a student's
// message, a profile name in a heading, a check's name, a title), so every
// one is shown as hiddentext.ForPage splits it, with a marker per hidden
// code point, and counted, not only the fields.

type fieldView struct {
	Label, Text hiddentext.Marked
	Student     bool
}

type reviewPage struct {
	Title, Account, Expires, CSRF, FormAction string
	Action, As, Where, Visibility             hiddentext.Marked
	Fields                                    []fieldView
	Hidden                                    int // in all of the above
}

func (s *Service) reviewData(a *Action, g *grant) reviewPage {
	p := reviewPage{
		Title:      "Review a change proposed by your assistant",
		Action:     hiddentext.ForPage(a.Preview.Action),
		As:         hiddentext.ForPage(a.Preview.As),
		Where:      hiddentext.ForPage(a.Preview.Where),
		Visibility: hiddentext.ForPage(a.Preview.Visibility),
		Account:    account(g),
		Expires:    expiresIn(a.ExpiresAt, s.opts.Now()) + " (" + a.ExpiresAt.UTC().Format(time.RFC1123) + ")",
		CSRF:       s.csrfToken(a.ID, g.UserID),
		FormAction: s.ApprovalURL(a.ID),
	}
	p.Hidden = p.Action.Hidden + p.As.Hidden + p.Where.Hidden + p.Visibility.Hidden
	for _, f := range a.Preview.Fields {
		v := fieldView{Label: hiddentext.ForPage(f.Label), Text: hiddentext.ForPage(f.Text), Student: f.StudentAuthored}
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
