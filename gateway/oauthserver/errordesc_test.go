package oauthserver

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// marker is request text that must never come back in an
// error_description.
const marker = "ZZinjected<b>text"

// TestErrorDescriptionsEchoNothing: on every path where a request's own
// text could reach an error_description (a parameter's name, a redirect
// URI, a metadata document's content), the description is a fixed text.
func TestErrorDescriptionsEchoNothing(t *testing.T) {
	host := newCIMDHost(t)
	h := newHarness(t, func(o *Options) { o.AllowPrivateCIMD = true; o.CIMDTLS = host.tls() })
	clientID := h.register()
	desc := func(t *testing.T, r reply) string {
		t.Helper()
		if loc := r.header.Get("Location"); loc != "" {
			u, _ := url.Parse(loc)
			return u.Query().Get("error_description")
		}
		var e struct {
			Desc string `json:"error_description"`
		}
		if err := json.Unmarshal([]byte(r.body), &e); err != nil {
			t.Fatalf("%d %s", r.status, r.body)
		}
		return e.Desc
	}
	register := func(uri string) func() reply {
		return func() reply {
			b, _ := json.Marshal(map[string]any{"redirect_uris": []string{uri}})
			return h.do(h.hc, "POST", h.issuer+"/register", "application/json", string(b))
		}
	}
	cimdDoc := func(name, redirect string) func() reply {
		return func() reply {
			id := host.url("/" + name + ".json")
			b, _ := json.Marshal(map[string]any{"client_id": id, "redirect_uris": []string{redirect}})
			host.docs["/"+name+".json"] = string(b)
			return h.postForm(h.hc, h.issuer+"/token", url.Values{"grant_type": {"authorization_code"}, "code": {"c"}, "code_verifier": {testVerifier}, "client_id": {id}})
		}
	}
	cases := []struct {
		name string
		do   func() reply
		want string
	}{
		{"authorize, repeated parameter", func() reply {
			v := h.authorizeParams(clientID)
			v[marker] = []string{"1", "2"}
			return h.get(h.hc, h.issuer+"/authorize?"+v.Encode())
		}, "A parameter is repeated"},
		{"token, repeated parameter", func() reply {
			return h.do(h.hc, "POST", h.issuer+"/token", "application/x-www-form-urlencoded", url.QueryEscape(marker)+"=1&"+url.QueryEscape(marker)+"=2")
		}, "A parameter is repeated"},
		{"revoke, repeated parameter", func() reply {
			return h.do(h.hc, "POST", h.issuer+"/revoke", "application/x-www-form-urlencoded", url.QueryEscape(marker)+"=1&"+url.QueryEscape(marker)+"=2")
		}, "A parameter is repeated"},
		{"register, not absolute", register(marker), "A redirect URI is not an absolute URL"},
		{"register, fragment", register("https://a.example/" + marker + "#f"), "A redirect URI must not contain a fragment"},
		{"register, user info", register("https://ZZinjected:pw@a.example/cb"), "A redirect URI must not contain user information"},
		{"register, plain http", register("http://a.example/" + marker), "A redirect URI uses http on a host that is not a loopback address"},
		{"register, custom scheme", register("myapp://" + marker), "A redirect URI must use https (or http on a loopback address)"},
		{"register, invalid IDN host", register("https://\u00e9\u200d" + marker + ".example/cb"), "A redirect URI's host is not a valid internationalized domain name"},
		{"register, too long", register("https://a.example/" + strings.Repeat(marker, 30)), "redirect URIs must be non-empty URLs of at most 256 characters"},
		{"metadata document, plain http", cimdDoc("http", "http://a.example/"+marker),
			"The client ID metadata document is invalid: A redirect URI uses http on a host that is not a loopback address"},
		{"metadata document, fragment", cimdDoc("fragment", "https://a.example/"+marker+"#x"),
			"The client ID metadata document is invalid: A redirect URI must not contain a fragment"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := desc(t, tc.do())
			if got != tc.want {
				t.Errorf("error_description %q, want %q", got, tc.want)
			}
			if strings.Contains(got, "ZZinjected") {
				t.Errorf("error_description echoes the request: %q", got)
			}
		})
	}
}
