package mcpserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/views"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

// Client capabilities as JSON, for the tables below.
const (
	capsApps        = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`
	capsAppsNoTypes = `{"extensions":{"io.modelcontextprotocol/ui":{}}}`
	capsAppsOther   = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/uri-list"]}}}`
	capsOtherExt    = `{"extensions":{"io.example/other":{"mimeTypes":["text/html;profile=mcp-app"]}}}`
	capsNone        = `{}`
)

func decodeObject(t *testing.T, s string) *jsjson.Object {
	t.Helper()
	if s == "" {
		return nil
	}
	v, err := jsjson.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	o, _ := v.(*jsjson.Object)
	return o
}

// TestAppsOffered pins the negotiation rule per revision and client
// capabilities (nil: the request carries none).
func TestAppsOffered(t *testing.T) {
	for _, tc := range []struct {
		version, caps string
		want          bool
	}{
		{"2024-11-05", "", false},
		{"2024-11-05", capsApps, false},
		{"2025-03-26", "", false},
		{"2025-03-26", capsApps, false},
		// Stateless: the capabilities of initialize are not known later.
		{"2025-06-18", "", true},
		{"2025-06-18", capsNone, true},
		{"2025-11-25", "", true},
		{"2025-11-25", capsApps, true},
		// Per-request capabilities: only a client declaring the extension
		// with the view MIME type.
		{"2026-07-28", "", false},
		{"2026-07-28", capsNone, false},
		{"2026-07-28", capsOtherExt, false},
		{"2026-07-28", capsAppsNoTypes, false},
		{"2026-07-28", capsAppsOther, false},
		{"2026-07-28", capsApps, true},
	} {
		if got := appsOffered(tc.version, decodeObject(t, tc.caps)); got != tc.want {
			t.Errorf("appsOffered(%s, %s) = %v, want %v", tc.version, tc.caps, got, tc.want)
		}
	}
}

func TestRequestCapabilities(t *testing.T) {
	for _, tc := range []struct {
		params string
		want   string // compact JSON, "" for nil
	}{
		{"", ""},
		{`{}`, ""},
		{`{"_meta":{}}`, ""},
		{`{"_meta":{"io.modelcontextprotocol/clientCapabilities":5}}`, ""},
		{`{"_meta":{"io.modelcontextprotocol/clientCapabilities":` + capsApps + `}}`, capsApps},
		{`{"capabilities":` + capsApps + `}`, ""}, // initialize's place is not a request's
	} {
		var params any
		if tc.params != "" {
			params = decodeObject(t, tc.params)
		}
		got := ""
		if c := requestCapabilities(params); c != nil {
			b, err := jsjson.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			got = string(b)
		}
		if got != tc.want {
			t.Errorf("requestCapabilities(%s) = %s, want %s", tc.params, got, tc.want)
		}
	}
}

// initAnswer is the initialize answer without (apps=false) or with the
// resources capability and the extension.
func initAnswer(version string, apps bool) string {
	caps := `{"tools":{}}`
	if apps {
		caps = `{"tools":{},"resources":{},"extensions":{"io.modelcontextprotocol/ui":{}}}`
	}
	return `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"` + version + `","serverInfo":{"name":"pawtograder","version":"0.1.0"},"capabilities":` + caps + `}}`
}

// TestAppsOverHTTP follows clients with and without the extension through
// initialize, tools/list, resources/list and resources/read at each
// revision: the drop-in path answers byte for byte as the original.
func TestAppsOverHTTP(t *testing.T) {
	legacyList, err := os.ReadFile(filepath.Join("testdata", "tools_list.golden"))
	if err != nil {
		t.Fatal(err)
	}
	appsList, err := os.ReadFile(filepath.Join("testdata", "tools_list_apps.golden"))
	if err != nil {
		t.Fatal(err)
	}
	const (
		listResources = `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`
		readReview    = `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"ui://pawtograder/submission-review"}}`
		readUnknown   = `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"ui://pawtograder/nope"}}`
		readNoURI     = `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":5}}`
		listTemplates = `{"jsonrpc":"2.0","id":1,"method":"resources/templates/list"}`
	)
	notFound := func(m string) string {
		return `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: ` + m + `"}}`
	}
	for _, tc := range []struct {
		name   string
		pin    bool
		asked  string // initialize's protocolVersion
		caps   string // initialize's capabilities
		header string // later requests' MCP-Protocol-Version
		// wantInit is the negotiated revision; apps whether the later
		// requests get the views.
		wantInit     string
		initApps     bool
		apps         bool
		wantListFile []byte
	}{
		{"pinned, extension declared", true, "2025-11-25", capsApps, "2025-11-25", "2024-11-05", false, false, legacyList},
		{"2024-11-05 without header", false, "2024-11-05", capsApps, "", "2024-11-05", false, false, legacyList},
		{"2025-03-26", false, "2025-03-26", capsApps, "2025-03-26", "2025-03-26", false, false, legacyList},
		{"2025-06-18 with extension", false, "2025-06-18", capsApps, "2025-06-18", "2025-06-18", true, true, appsList},
		{"2025-06-18 without extension", false, "2025-06-18", capsNone, "2025-06-18", "2025-06-18", false, true, appsList},
		{"2025-11-25 with extension", false, "2025-11-25", capsApps, "2025-11-25", "2025-11-25", true, true, appsList},
		{"2025-11-25 without extension", false, "2025-11-25", capsNone, "2025-11-25", "2025-11-25", false, true, appsList},
		{"2025-11-25 extension without the MIME type", false, "2025-11-25", capsAppsOther, "2025-11-25", "2025-11-25", false, true, appsList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) { o.PinProtocol2024 = tc.pin })
			init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + tc.asked +
				`","capabilities":` + tc.caps + `,"clientInfo":{"name":"c","version":"1"}}}`
			if diff := cmp.Diff(initAnswer(tc.wantInit, tc.initApps), env.do(http.MethodPost, "", hdr("Authorization", authGood), init).Body.String()); diff != "" {
				t.Errorf("initialize (-want +got):\n%s", diff)
			}
			h := hdr("Authorization", authGood)
			if tc.header != "" {
				h[headerProtocolVersion] = tc.header
			}
			post := func(body string) string { return env.do(http.MethodPost, "", h, body).Body.String() }

			want := string(bytes.Replace(tc.wantListFile, []byte(`"id":1,`), []byte(`"id":4,`), 1))
			if diff := cmp.Diff(want, post(listTools)); diff != "" {
				t.Errorf("tools/list (-want +got):\n%s", diff)
			}
			if !tc.apps {
				for _, c := range []struct{ body, method string }{
					{listResources, "resources/list"}, {readReview, "resources/read"}, {listTemplates, "resources/templates/list"},
				} {
					if diff := cmp.Diff(notFound(c.method), post(c.body)); diff != "" {
						t.Errorf("%s (-want +got):\n%s", c.method, diff)
					}
				}
				return
			}
			golden(t, "resources_list.golden", []byte(post(listResources)))
			var read struct {
				Result struct {
					Contents []struct {
						URI      string          `json:"uri"`
						MIMEType string          `json:"mimeType"`
						Text     string          `json:"text"`
						Meta     json.RawMessage `json:"_meta"`
					} `json:"contents"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(post(readReview)), &read); err != nil {
				t.Fatal(err)
			}
			review, _ := views.Lookup("ui://pawtograder/submission-review")
			if c := read.Result.Contents; len(c) != 1 || c[0].URI != review.URI || c[0].MIMEType != "text/html;profile=mcp-app" ||
				c[0].Text != review.HTML || string(c[0].Meta) != wantViewMeta {
				t.Errorf("resources/read: %d contents, want the submission review with its _meta", len(c))
			}
			if diff := cmp.Diff(`{"jsonrpc":"2.0","id":1,"result":{"resourceTemplates":[]}}`, post(listTemplates)); diff != "" {
				t.Errorf("resources/templates/list (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(`{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"Resource not found"}}`, post(readUnknown)); diff != "" {
				t.Errorf("unknown URI (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: uri must be a string"}}`, post(readNoURI)); diff != "" {
				t.Errorf("uri not a string (-want +got):\n%s", diff)
			}
		})
	}
}

// wantViewMeta is every view's _meta: a CSP without origins and the host's
// border.
const wantViewMeta = `{"ui":{"csp":{"connectDomains":[],"resourceDomains":[],"frameDomains":[],"baseUriDomains":[]},"prefersBorder":true}}`

// TestAppsPerRequestCapabilities drives dispatch as a 2026-07-28 request
// (the revision issue 18 adds) would: the views only for a request whose
// _meta declares the extension; otherwise the structured list without
// _meta.ui (pinned by tools_list_structured.golden) and unknown methods.
func TestAppsPerRequestCapabilities(t *testing.T) {
	env := newTestEnv(t, nil)
	s := env.srv
	cl := &caller{version: "2026-07-28"}
	wrap := func(result []byte) []byte {
		return append(append([]byte(`{"jsonrpc":"2.0","id":1,"result":`), result...), '}')
	}
	golden(t, "tools_list_structured.golden", wrap(s.toolsListResultStructured))
	golden(t, "tools_list_apps.golden", wrap(s.apps.toolsList))
	for _, tc := range []struct {
		name   string
		params string
		apps   bool
	}{
		{"no capabilities", `{}`, false},
		{"other extension", `{"_meta":{"io.modelcontextprotocol/clientCapabilities":` + capsOtherExt + `}}`, false},
		{"extension declared", `{"_meta":{"io.modelcontextprotocol/clientCapabilities":` + capsApps + `}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range []string{methodToolsList, methodResourcesList, methodResourcesRead, methodResourceTemplatesList} {
				resp, ok := s.dispatchApps(cl, 1.0, m, decodeObject(t, tc.params))
				if ok != tc.apps {
					t.Errorf("%s: answered by the extension = %v, want %v", m, ok, tc.apps)
				}
				if m == methodToolsList && ok && !bytes.Equal(resp.result, s.apps.toolsList) {
					t.Errorf("tools/list: not the list with _meta.ui")
				}
			}
		})
	}
}

// TestToolsListWithUIMeta checks that _meta.ui is the only difference from
// the structured list, on exactly the view tools.
func TestToolsListWithUIMeta(t *testing.T) {
	env := newTestEnv(t, nil)
	var plain, apps struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(env.srv.toolsListResultStructured, &plain); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(env.srv.apps.toolsList, &apps); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for i, tool := range apps.Tools {
		if meta, ok := tool["_meta"]; ok {
			got[strings.Trim(string(tool["name"]), `"`)] = string(meta)
			delete(tool, "_meta")
		}
		if diff := cmp.Diff(plain.Tools[i], tool); diff != "" {
			t.Errorf("tool %d differs beyond _meta (-plain +apps):\n%s", i, diff)
		}
	}
	ui := func(uri string) string { return `{"ui":{"resourceUri":"` + uri + `"}}` }
	want := map[string]string{
		"get_submission":              ui("ui://pawtograder/submission-review"),
		"list_submission_tests":       ui("ui://pawtograder/submission-review"),
		"get_test_output":             ui("ui://pawtograder/submission-review"),
		"get_help_request":            ui("ui://pawtograder/help-request"),
		"get_assignment":              ui("ui://pawtograder/assignment"),
		"get_submissions_for_student": ui("ui://pawtograder/assignment"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("_meta per tool (-want +got):\n%s", diff)
	}
}

// FuzzAppsRequest feeds arbitrary params to the extension's dispatch at
// every revision: it must never panic, never answer on the drop-in path,
// and always answer resources/read from 2025-06-18 to 2025-11-25.
func FuzzAppsRequest(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `5`, `[]`, `{"uri":"ui://pawtograder/assignment"}`, `{"uri":5}`,
		`{"_meta":{"io.modelcontextprotocol/clientCapabilities":` + capsApps + `}}`,
		`{"protocolVersion":"2025-11-25","capabilities":` + capsApps + `}`,
		`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":[null,{},"text/html;profile=mcp-app"]}}}}}`,
	} {
		f.Add(seed)
	}
	env := newTestEnv(f, nil)
	s := env.srv
	f.Fuzz(func(t *testing.T, params string) {
		v, err := jsjson.Decode([]byte(params))
		if err != nil {
			return
		}
		for _, version := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
			cl := &caller{version: version}
			for _, m := range []string{methodInitialize, methodToolsList, methodToolsCall, methodResourcesList, methodResourcesRead, "ping"} {
				resp, ok := s.dispatchApps(cl, 1.0, m, v)
				if ok && resp == nil {
					t.Fatalf("%s at %s: answered without a response", m, version)
				}
				if m == methodInitialize {
					continue // governed by the negotiated revision, not the header
				}
				if ok && version < firstVersionWithApps {
					t.Fatalf("%s answered on the drop-in path (%s)", m, version)
				}
				if m == methodResourcesRead && (version == "2025-06-18" || version == "2025-11-25") && !ok {
					t.Fatalf("resources/read not answered at %s", version)
				}
				if (m == methodToolsCall || m == "ping") && ok {
					t.Fatalf("%s answered by the extension", m)
				}
			}
		}
	})
}
