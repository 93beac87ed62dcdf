// Package htmlpage holds what the gateway's server-rendered pages (the
// OAuth server's sign-in and consent, the write tools' approval) share:
// one layout (layout.html: the "head" and "foot" templates, with the one
// inline stylesheet, light and dark, that the pages' Content Security
// Policy allows by its hash, and the "marked" template, which draws a
// hiddentext.Marked with a red marker for each hidden character), and the
// headers every page is served with.
// The pages load nothing from elsewhere and run no script.
package htmlpage

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
)

// Set is one parsed template file.
type Set struct {
	*template.Template
	styleSrc string // 'sha256-…' of the stylesheet
}

//go:embed layout.html
var layout string

// styleSrc is the CSP source of the layout's stylesheet.
var styleSrc = func() string {
	_, rest, found := strings.Cut(layout, "<style>")
	css, _, closed := strings.Cut(rest, "</style>")
	if !found || !closed {
		panic("htmlpage: layout.html has no <style> element")
	}
	sum := sha256.Sum256([]byte(css))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// Must parses the layout and the page templates of file name of fsys,
// which open with {{template "head" .}} and close with
// {{template "foot" .}}; it panics if they do not parse or if the file
// brings a stylesheet of its own, which only a broken build does.
func Must(fsys fs.FS, name string) *Set {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		panic("htmlpage: " + err.Error())
	}
	if strings.Contains(string(src), "<style") {
		panic("htmlpage: " + name + " has a stylesheet of its own; pages use the layout's")
	}
	t := template.Must(template.New("layout.html").Parse(layout))
	return &Set{Template: template.Must(t.ParseFS(fsys, name)), styleSrc: styleSrc}
}

// Secure sets the headers of a page: nothing cached, no framing
// (clickjacking of an Approve button), no script and no other style, no
// referrer (a callback URL carries a code), and forms posted only to the
// gateway and to formTargets (the origin a decision's 303 leads to).
func (s *Set) Secure(h http.Header, formTargets ...string) {
	csp := "default-src 'none'; style-src " + s.styleSrc + "; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
	for _, t := range formTargets {
		if t != "" {
			csp += " " + t
		}
	}
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
}
