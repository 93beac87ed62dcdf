package htmlpage

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/gateway/hiddentext"
)

func TestSecure(t *testing.T) {
	fsys := fstest.MapFS{"p.html": {Data: []byte(`{{define "x"}}{{template "head" .}}<p>x</p>{{template "foot" .}}{{end}}`)}}
	s := Must(fsys, "p.html")
	_, rest, _ := strings.Cut(layout, "<style>")
	css, _, _ := strings.Cut(rest, "</style>")
	sum := sha256.Sum256([]byte(css))
	hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	for _, tc := range []struct {
		targets []string
		csp     string
	}{
		{nil, "default-src 'none'; style-src " + hash + "; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"},
		{[]string{""}, "default-src 'none'; style-src " + hash + "; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"},
		{[]string{"https://claude.ai"}, "default-src 'none'; style-src " + hash + "; base-uri 'none'; frame-ancestors 'none'; form-action 'self' https://claude.ai"},
	} {
		h := http.Header{}
		s.Secure(h, tc.targets...)
		want := http.Header{
			"Content-Security-Policy": {tc.csp}, "X-Frame-Options": {"DENY"}, "X-Content-Type-Options": {"nosniff"},
			"Referrer-Policy": {"no-referrer"}, "Cache-Control": {"no-store"}, "Pragma": {"no-cache"},
		}
		if diff := cmp.Diff(want, h); diff != "" {
			t.Errorf("targets %q (-want +got):\n%s", tc.targets, diff)
		}
	}
	var b strings.Builder
	if err := s.ExecuteTemplate(&b, "x", struct{ Title string }{"T"}); err != nil ||
		!strings.HasPrefix(b.String(), "<!doctype html>") || !strings.Contains(b.String(), "<title>T · Pawtograder</title>") ||
		!strings.Contains(b.String(), "<style>"+css+"</style>") || !strings.HasSuffix(b.String(), "<p>x</p></main>\n</body>\n</html>\n") {
		t.Errorf("template: %q %v", b.String(), err)
	}
}

func TestMustRefusesAStylesheetOfItsOwn(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a file with its own <style>")
		}
	}()
	Must(fstest.MapFS{"p.html": {Data: []byte(`<style>p{}</style>`)}}, "p.html")
}

// TestMarkedTemplate: the layout's "marked" template escapes each run of
// text and draws each hidden character as a labelled red marker, and
// draws text without one exactly as {{.}} would.
func TestMarkedTemplate(t *testing.T) {
	s := Must(fstest.MapFS{"p.html": {Data: []byte(`{{define "x"}}{{template "marked" .}}{{end}}`)}}, "p.html")
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Claude & <Co>", "Claude &amp; &lt;Co&gt;"},
		{"a\u202eb", `a<span class="mark" title="invisible or text-direction character" aria-label="invisible character U&#43;202E">U&#43;202E</span>b`},
		{"\ufffc", `<span class="mark" title="invisible or text-direction character" aria-label="invisible character U&#43;FFFC">U&#43;FFFC</span>`},
	} {
		var b strings.Builder
		if err := s.ExecuteTemplate(&b, "x", hiddentext.ForPage(tc.in)); err != nil || b.String() != tc.want {
			t.Errorf("marked %q = %q, %v; want %q", tc.in, b.String(), err, tc.want)
		}
	}
}
