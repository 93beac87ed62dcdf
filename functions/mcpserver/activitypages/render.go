package activitypages

import (
	"bytes"
	"embed"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/htmlpage"
)

//go:embed templates/pages.html
var templateFS embed.FS

var pages = htmlpage.Must(templateFS, "templates/pages.html")

func (p *Pages) render(c echo.Context, status int, name string, data any) error {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		return err
	}
	pages.Secure(c.Response().Header())
	return c.HTMLBlob(status, buf.Bytes())
}

type messagePage struct{ Title, Text, Hint, Back string }

func (p *Pages) message(c echo.Context, status int, title, text, hint string) error {
	return p.render(c, status, "message", messagePage{Title: title, Text: text, Hint: hint})
}

// unavailable is the page of a failed read: never an empty page that
// would say there is nothing.
func (p *Pages) unavailable(c echo.Context, what string, err error) error {
	p.opts.Logger.ErrorContext(c.Request().Context(), "activitypages: reading "+what+" failed", "error", err.Error())
	return p.message(c, 503, "Pawtograder is unavailable", "Your "+what+" could not be read just now, so nothing is shown.", "Try again in a few minutes.")
}

// day and stamp format times the same way on every page, in UTC.
func day(t time.Time) string   { return t.UTC().Format("2006-01-02") }
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }
