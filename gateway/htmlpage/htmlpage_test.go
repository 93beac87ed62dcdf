package htmlpage

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestSecure(t *testing.T) {
	css := "body{margin:0}"
	fsys := fstest.MapFS{"p.html": {Data: []byte(`{{define "x"}}<style>` + css + `</style>{{end}}`)}}
	s := Must(fsys, "p.html")
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
	if err := s.ExecuteTemplate(&b, "x", nil); err != nil || b.String() != "<style>"+css+"</style>" {
		t.Errorf("template: %q %v", b.String(), err)
	}
}

func TestMustRefusesAPageWithoutStyle(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a file without <style>")
		}
	}()
	Must(fstest.MapFS{"p.html": {Data: []byte(`<p>x</p>`)}}, "p.html")
}
