package oauthserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// registerNamed performs DCR with client_name name and returns the
// client_id.
func (h *harness) registerNamed(name string) string {
	h.t.Helper()
	b, _ := json.Marshal(map[string]any{"client_name": name, "redirect_uris": []string{testRedirect}, "token_endpoint_auth_method": "none"})
	r := h.do(h.hc, "POST", h.issuer+"/register", "application/json", string(b))
	var out struct {
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal([]byte(r.body), &out); r.status != http.StatusCreated || err != nil {
		h.t.Fatalf("register: %d %s", r.status, r.body)
	}
	return out.ClientID
}

// markHTML is a hidden character's marker as the pages draw it (html/
// template writes the "+" of "U+202E" as "&#43;").
func markHTML(code string) string {
	code = strings.ReplaceAll(code, "+", "&#43;")
	return `<span class="mark" title="invisible or text-direction character" aria-label="invisible character ` + code + `">` + code + `</span>`
}

// nameWarning is the warning a page with a client name holding n hidden
// characters shows; none for n = 0.
func nameWarning(n int) string {
	if n == 0 {
		return ""
	}
	return `<p class="warn" role="alert">The application's name contains ` + strconv.Itoa(n) + ` invisible or text-direction character(s), shown as red markers such as <span class="mark">U+202E</span>. Such characters can hide or reorder text, and anyone can register an application under any name: check it carefully.</p>
`
}

// markedNames are client names as registered, as the pages show them in
// HTML and in the title, and how many hidden characters they hold. An
// ordinary name is shown exactly as before.
var markedNames = []struct {
	label, name, shown, title string
	hidden                    int
}{
	{"ordinary", "Test Assistant", "Test Assistant", "Test Assistant", 0},
	{"escaped", `A & <b>"B"</b>`, `A &amp; &lt;b&gt;&#34;B&#34;&lt;/b&gt;`, `A &amp; &lt;b&gt;&#34;B&#34;&lt;/b&gt;`, 0},
	{"right-to-left override", "Claude\u202eevil", "Claude" + markHTML("U+202E") + "evil", "Claude[U&#43;202E]evil", 1},
	{"zero width, object replacement, override", "Cl\u200baude\ufffc \u202etxt.exe",
		"Cl" + markHTML("U+200B") + "aude" + markHTML("U+FFFC") + " " + markHTML("U+202E") + "txt.exe", "Cl[U&#43;200B]aude[U&#43;FFFC] [U&#43;202E]txt.exe", 3},
	{"nothing but hidden characters", "\u200b\ufffc\u202e",
		markHTML("U+200B") + markHTML("U+FFFC") + markHTML("U+202E"), "[U&#43;200B][U&#43;FFFC][U&#43;202E]", 3},
	{"markup-like hidden neighbours", "<\u2066x\u2069>", "&lt;" + markHTML("U+2066") + "x" + markHTML("U+2069") + "&gt;", "&lt;[U&#43;2066]x[U&#43;2069]&gt;", 2},
}

// wantFragments fails t for each fragment page lacks, and when the page
// does not carry exactly one warning for a marked name (none otherwise).
func wantFragments(t *testing.T, page string, hidden int, fragments ...string) {
	t.Helper()
	for _, f := range fragments {
		if !strings.Contains(page, f) {
			t.Errorf("the page lacks\n%s\nin\n%s", f, page)
		}
	}
	if want := min(hidden, 1); strings.Count(page, `class="warn"`) != want {
		t.Errorf("the page has %d warnings, want %d", strings.Count(page, `class="warn"`), want)
	}
}

// TestConsentMarksClientName: on the consent page every place that shows
// the client's name (heading, application, the grant's name, the title)
// draws its hidden characters as markers, and one warning counts them.
func TestConsentMarksClientName(t *testing.T) {
	for _, tc := range markedNames {
		t.Run(tc.label, func(t *testing.T) {
			h := newHarness(t, nil)
			r := h.consentPage(h.newBrowser(), h.authorizeParams(h.registerNamed(tc.name)))
			if r.status != http.StatusOK {
				t.Fatalf("%d %s", r.status, r.body)
			}
			want := strings.TrimSpace("<h1>Allow " + tc.shown + " to use Pawtograder as you?</h1>\n" + nameWarning(tc.hidden))
			if got := consentIntro(t, r.body); got != want {
				t.Errorf("the page opens\n%s\nwant\n%s", got, want)
			}
			wantFragments(t, r.body, tc.hidden,
				"<title>Connect "+tc.title+" · Pawtograder</title>",
				"<dd>"+tc.shown+`<br><span class="muted">It will receive access at</span>`,
				"in your MCP token list as “"+tc.shown+" — connected with OAuth”")
		})
	}
}

// TestStepUpMarksClientName: the step-up consent names the client three
// times before its details; each is marked, and one warning counts the
// name's hidden characters.
func TestStepUpMarksClientName(t *testing.T) {
	for _, tc := range markedNames {
		t.Run(tc.label, func(t *testing.T) {
			h := newHarness(t, nil)
			clientID := h.registerNamed(tc.name)
			_, approved := h.connectWith(clientID, "mcp:read", "approve")
			h.tokensOf(clientID, approved)
			page, _ := h.connectWith(clientID, "mcp:read mcp:write", "")
			want := "<h1>Give " + tc.shown + " more access as you?</h1>\n<p>" + tc.shown +
				" already has read access as you, and asks to add write access (proposals you approve on a page).</p>\n" +
				"<p class=\"muted\">“Keep read only” leaves its read access as it is and tells " + tc.shown +
				" that nothing was added, so it goes on working with what it has.</p>\n" + nameWarning(tc.hidden)
			if got := consentIntro(t, page.body); got != strings.TrimSpace(want) {
				t.Errorf("the page opens\n%s\nwant\n%s", got, want)
			}
			wantFragments(t, page.body, tc.hidden,
				"<title>Add access for "+tc.title+" · Pawtograder</title>",
				"<dd>"+tc.shown+`<br><span class="muted">It will receive access at</span>`,
				"replaces the existing connection “"+tc.shown+" — connected with OAuth”")
		})
	}
}

// TestSignInAndRefusalMarkClientName: the sign-in choice and the refusal
// page's way back name the client too, marked and counted.
func TestSignInAndRefusalMarkClientName(t *testing.T) {
	for _, tc := range markedNames {
		t.Run(tc.label, func(t *testing.T) {
			h := newHarness(t, func(o *Options) { o.Providers = []string{"github", "azure"} })
			clientID := h.registerNamed(tc.name)
			r := h.get(h.newBrowser(), h.issuer+"/authorize?"+h.authorizeParams(clientID).Encode())
			if r.status != http.StatusOK {
				t.Fatalf("sign-in page: %d %s", r.status, r.body)
			}
			wantFragments(t, r.body, tc.hidden, "<h1>Sign in to connect "+tc.shown+"</h1>\n"+nameWarning(tc.hidden)+"<p>Sign in with")

			h = newHarness(t, nil)
			r = h.signIn(h.newBrowser(), h.authorizeParams(h.registerNamed(tc.name)), samID, "sam@example.edu")
			if r.status != http.StatusForbidden {
				t.Fatalf("refusal page: %d %s", r.status, r.body)
			}
			wantFragments(t, r.body, tc.hidden, "</p>\n"+nameWarning(tc.hidden)+`<div class="actions"><a class="button primary" href="`,
				`">Return to `+tc.shown+"</a></div>")
		})
	}
}

// TestConsentMarksMetadataDocumentName: a Client ID Metadata Document's
// client_name is as much a stranger's as a registration's, and is marked
// the same way.
func TestConsentMarksMetadataDocumentName(t *testing.T) {
	host := newCIMDHost(t)
	id := host.url("/client.json")
	doc, _ := json.Marshal(map[string]any{"client_id": id, "client_name": "Doc\u202e\u200b\ufffcClient",
		"redirect_uris": []string{testRedirect}, "token_endpoint_auth_method": "none"})
	host.docs["/client.json"] = string(doc)
	h := newHarness(t, func(o *Options) { o.AllowPrivateCIMD = true; o.CIMDTLS = host.tls() })
	r := h.consentPage(h.newBrowser(), h.authorizeParams(id))
	shown := "Doc" + markHTML("U+202E") + markHTML("U+200B") + markHTML("U+FFFC") + "Client"
	want := strings.TrimSpace("<h1>Allow " + shown + " to use Pawtograder as you?</h1>\n" + nameWarning(3))
	if got := consentIntro(t, r.body); got != want {
		t.Errorf("the page opens\n%s\nwant\n%s", got, want)
	}
	wantFragments(t, r.body, 3, "<dd>"+shown+`<br><span class="muted">It will receive access at</span>`)
}
