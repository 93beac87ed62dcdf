package oauthserver

import (
	"bytes"
	"embed"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
	"github.com/pawtograder/mcp-gateway/gateway/htmlpage"
)

//go:embed templates/pages.html
var templateFS embed.FS

var pages = htmlpage.Must(templateFS, "templates/pages.html")

// origin is scheme://host of a URL, for form-action, with the host in its
// ASCII form: header values carry no raw UTF-8, and browsers match
// sources against the ASCII form anyway.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + asciiHost(u.Host)
}

func (s *Server) render(c echo.Context, status int, name string, data any, formTarget string) error {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		return err
	}
	pages.Secure(c.Response().Header(), formTarget)
	return c.HTMLBlob(status, buf.Bytes())
}

type messagePage struct {
	Title, Text, Hint string
	// ReturnURL, when set, is a way back to the client (an error response
	// at its verified redirect URI), labelled with ClientName, whose
	// hidden characters are drawn as markers.
	ReturnURL  string
	ClientName hiddentext.Marked
}

// page is a plain HTML page for errors that must not (or cannot) be sent
// to a redirect URI: an unverified client or redirect URI, an expired
// sign-in, a person who is not staff.
func (s *Server) page(c echo.Context, status int, title, text, hint string) error {
	return s.render(c, status, "message", messagePage{Title: title, Text: text, Hint: hint}, "")
}

// scopeDescriptions say what each scope lets the client do, in plain words.
// mcp:write's list of what may be written, and who sees it, is writeKinds.
var scopeDescriptions = map[string]string{
	"mcp:read":  "Read what you can see in Pawtograder's courses as an instructor or grader: assignments, submissions, test results, help requests and discussions (the MCP server's tools)",
	"mcp:write": "Propose changes in Pawtograder as you; nothing is written until you approve each one yourself on a Pawtograder page, which shows the change and who will see it. It may propose:",
}

// scopeLine is one scope on the consent page: what it allows and, for
// mcp:write, the kinds of write.
type scopeLine struct {
	Text  string
	Kinds []writeKind
}

// scopeLines are the consent page's lines for scopes.
func scopeLines(scopes []string) []scopeLine {
	var out []scopeLine
	for _, sc := range scopes {
		l := scopeLine{Text: scopeDescriptions[sc]}
		if sc == "mcp:write" {
			l.Kinds = writeKinds
		}
		out = append(out, l)
	}
	return out
}

// scopeAccess names what each scope adds to a connection, in a few words
// (the step-up consent page: "already has read access as you").
var scopeAccess = map[string]string{
	"mcp:read":  "read access",
	"mcp:write": "write access (proposals you approve on a page)",
}

// scopeShort is each scope in one word, for the step-up page's buttons
// ("Add write access", "Keep read only").
var scopeShort = map[string]string{
	"mcp:read":  "read",
	"mcp:write": "write",
}
