package oauthserver

import (
	"encoding/json"
	"html"
	"strings"
	"testing"
)

// TestConsentMarksHiddenCharactersInClientName: a client's name is set by
// whoever registers it; a right-to-left override, a zero width space and
// an object replacement character in it show on the consent page as
// markers, never as the characters themselves.
func TestConsentMarksHiddenCharactersInClientName(t *testing.T) {
	h := newHarness(t, nil)
	b, _ := json.Marshal(map[string]any{"client_name": "Helper\u202eevil\u200b\ufffc", "redirect_uris": []string{testRedirect}, "token_endpoint_auth_method": "none"})
	r := h.do(h.hc, "POST", h.issuer+"/register", "application/json", string(b))
	var out struct {
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal([]byte(r.body), &out); err != nil || out.ClientID == "" {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	page := h.consentPage(h.newBrowser(), h.authorizeParams(out.ClientID)).body
	if !strings.Contains(html.UnescapeString(page), "Helper[U+202E]evil[U+200B][U+FFFC]") {
		t.Errorf("the consent page does not mark the client name's hidden characters:\n%s", page)
	}
	if strings.ContainsAny(page, "\u202e\u200b\ufffc") {
		t.Error("the consent page holds the hidden characters themselves")
	}
}
