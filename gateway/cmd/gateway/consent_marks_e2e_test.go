package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// marksSeen is what oauth.mjs marks reports of the consent page at one
// width.
type marksSeen struct {
	Heading, Warning               string
	HeadingMarks, ApplicationMarks []markSeen
	HiddenLeft, ScrollWidth        int
}

// markSeen is one marker as Chromium drew it.
type markSeen struct {
	Text, Label   string
	Width, Height int
}

// markedClientName is a name a stranger can register: "Claude " and a
// right-to-left override that would make "tnatsissA" read "Assistant",
// then a zero width space and an object replacement character, which
// Chromium draws as nothing.
const markedClientName = "Claude \u202etnatsissA\u200b\ufffc"

// TestOAuthConsentMarksClientName: a client registered through DCR with
// markedClientName is shown on the consent page in Chromium, at 1280 and
// 375 px, with a red marker for each of U+202E, U+200B and U+FFFC in the
// heading and in the application entry, a warning counting 3, no hidden
// character left in the page's text, and nothing wider than the window.
// With -update-screenshots its pictures replace
// docs/images/consent-marked-{375,1280}.png.
func TestOAuthConsentMarksClientName(t *testing.T) {
	env.RequireLocal(t) // signs in at the local stack's stand-in provider
	node := oauthNode(t)
	gw := startGateway(t, oauthVars(nil))
	const redirect = "https://assistant.example/oauth/callback"
	body, _ := json.Marshal(map[string]any{"client_name": markedClientName, "redirect_uris": []string{redirect}})
	r := call(t, "POST", gw+"/functions/v1/mcp-server/oauth/register", "", string(body))
	var reg struct {
		ClientID   string `json:"client_id"`
		ClientName string `json:"client_name"`
	}
	if err := json.Unmarshal([]byte(r.body), &reg); r.status != 201 || err != nil || reg.ClientName != markedClientName {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	sum := sha256.Sum256([]byte("consent-marks-verifier-0123456789abcdefghijklmnop"))
	q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {redirect}, "state": {"st"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"resource": {gw + "/functions/v1/mcp-server"}, "scope": {"mcp:read"}}
	shots := t.TempDir()
	if *updateScreenshots {
		var err error
		if shots, err = filepath.Abs(filepath.Join("..", "..", "..", "docs", "images")); err != nil {
			t.Fatal(err)
		}
	}
	var got struct {
		Step   string
		Widths map[string]marksSeen
	}
	if err := runNodeJSON(node, oauthClientDir, &got, "oauth.mjs", "marks", gw+"/functions/v1/mcp-server/oauth/authorize?"+q.Encode(), "alice.instructor@example.edu", shots); err != nil || got.Step != "marks" {
		t.Fatalf("oauth.mjs marks: step %q: %v", got.Step, err)
	}
	if len(got.Widths) != 2 {
		t.Fatalf("the page was looked at at %v, want 1280 and 375", got.Widths)
	}
	wantMarks := []string{"U+202E", "U+200B", "U+FFFC"}
	for width, s := range got.Widths {
		if want := "Allow Claude U+202EtnatsissAU+200BU+FFFC to use Pawtograder as you?"; s.Heading != want {
			t.Errorf("at %s px the heading reads %q, want %q", width, s.Heading, want)
		}
		for where, marks := range map[string][]markSeen{"heading": s.HeadingMarks, "application": s.ApplicationMarks} {
			var texts []string
			for _, m := range marks {
				texts = append(texts, m.Text)
				if m.Width < 10 || m.Height < 8 || m.Label != "invisible character "+m.Text {
					t.Errorf("at %s px the %s's marker %+v is not drawn as a labelled badge", width, where, m)
				}
			}
			if diff := cmp.Diff(wantMarks, texts); diff != "" {
				t.Errorf("at %s px the %s's markers (-want +got):\n%s", width, where, diff)
			}
		}
		if !strings.HasPrefix(s.Warning, "The application's name contains 3 invisible or text-direction character(s), shown as red markers such as U+202E.") {
			t.Errorf("at %s px the warning reads %q", width, s.Warning)
		}
		if s.HiddenLeft != 0 {
			t.Errorf("at %s px the page's text still holds %d hidden characters", width, s.HiddenLeft)
		}
		if w, _ := strconv.Atoi(width); s.ScrollWidth == 0 || s.ScrollWidth > w {
			t.Errorf("at %s px the page is %d px wide", width, s.ScrollWidth)
		}
		if _, err := os.Stat(filepath.Join(shots, "consent-marked-"+width+".png")); err != nil {
			t.Error(err)
		}
	}
}
