package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/answers"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pawtograder/mcp-gateway/functions/mcpserver/views"
	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/mcpauth"
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
func initAnswer(version string) string { return initializeAnswer(version, false) }

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
		// requests get the views (every request from 2025-06-18, whatever
		// initialize declared).
		wantInit     string
		apps         bool
		wantListFile []byte
	}{
		{"pinned, extension declared", true, "2025-11-25", capsApps, "2025-11-25", "2024-11-05", false, legacyList},
		{"2024-11-05 without header", false, "2024-11-05", capsApps, "", "2024-11-05", false, legacyList},
		{"2025-03-26", false, "2025-03-26", capsApps, "2025-03-26", "2025-03-26", false, legacyList},
		{"2025-06-18 with extension", false, "2025-06-18", capsApps, "2025-06-18", "2025-06-18", true, appsList},
		{"2025-06-18 without extension", false, "2025-06-18", capsNone, "2025-06-18", "2025-06-18", true, appsList},
		{"2025-11-25 with extension", false, "2025-11-25", capsApps, "2025-11-25", "2025-11-25", true, appsList},
		{"2025-11-25 without extension", false, "2025-11-25", capsNone, "2025-11-25", "2025-11-25", true, appsList},
		{"2025-11-25 extension without the MIME type", false, "2025-11-25", capsAppsOther, "2025-11-25", "2025-11-25", true, appsList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newTestEnv(t, func(o *Options) { o.PinProtocol2024 = tc.pin })
			init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + tc.asked +
				`","capabilities":` + tc.caps + `,"clientInfo":{"name":"c","version":"1"}}}`
			if diff := cmp.Diff(initAnswer(tc.wantInit), env.do(http.MethodPost, "", hdr("Authorization", authGood), init).Body.String()); diff != "" {
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

// TestAppsPerRequestCapabilities follows 2026-07-28 requests over HTTP:
// server/discover declares resources and the extensions to every client,
// the views are resources for every request (their results carry
// resultType, the server's identity and public caching hints), and only a
// request whose _meta declares the extension with the view MIME type gets
// _meta.ui in tools/list.
func TestAppsPerRequestCapabilities(t *testing.T) {
	env := newTestEnv(t, nil)
	const review = "ui://pawtograder/submission-review"
	for _, tc := range []struct {
		name string
		caps string
		apps bool
	}{
		{"no capabilities", capsNone, false},
		{"other extension", capsOtherExt, false},
		{"extension without the MIME type", capsAppsOther, false},
		{"extension declared", capsApps, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			post := func(method, extra string, kv ...string) *httptest.ResponseRecorder {
				body := strings.Replace(modernReq("1", method, extra), `clientCapabilities":{}`, `clientCapabilities":`+tc.caps, 1)
				return env.do(http.MethodPost, "", modernHdr(method, kv...), body)
			}
			check := func(what string, rec *httptest.ResponseRecorder, status int, body string) {
				t.Helper()
				if rec.Code != status {
					t.Errorf("%s: status %d, want %d", what, rec.Code, status)
				}
				if diff := cmp.Diff(body, rec.Body.String()); diff != "" {
					t.Errorf("%s (-want +got):\n%s", what, diff)
				}
			}
			// The extensions are declared and the views served to every
			// client; only tools/list's _meta.ui depends on the request's
			// declaration.
			list := "tools_list_2026.golden"
			if tc.apps {
				list = "tools_list_apps_2026.golden"
			}
			for _, c := range []struct{ method, golden string }{
				{"server/discover", "discover_2026.golden"},
				{"tools/list", list},
				{methodResourcesList, "resources_list_2026.golden"},
			} {
				rec := post(c.method, "")
				if rec.Code != 200 {
					t.Errorf("%s: status %d", c.method, rec.Code)
				}
				golden(t, c.golden, rec.Body.Bytes())
			}
			check(methodResourceTemplatesList, post(methodResourceTemplatesList, ""), 200,
				`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","resourceTemplates":[],"ttlMs":3600000,"cacheScope":"public",`+serverInfo+`}}`)
			check("unknown URI", post(methodResourcesRead, `,"uri":"ui://pawtograder/nope"`, "Mcp-Name", "ui://pawtograder/nope"), 400,
				`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"ui://pawtograder/nope"}}}`)
			check("Mcp-Name differs from uri", post(methodResourcesRead, `,"uri":"`+review+`"`, "Mcp-Name", "ui://x"), 400,
				rpcErr("1", "-32020", "Header mismatch: Mcp-Name header value 'ui://x' does not match body value '"+review+"'"))

			rec := post(methodResourcesRead, `,"uri":"`+review+`"`, "Mcp-Name", review)
			var read struct {
				Result struct {
					ResultType string `json:"resultType"`
					Contents   []struct {
						URI      string          `json:"uri"`
						MIMEType string          `json:"mimeType"`
						Text     string          `json:"text"`
						Meta     json.RawMessage `json:"_meta"`
					} `json:"contents"`
					TTLMs      *int            `json:"ttlMs"`
					CacheScope string          `json:"cacheScope"`
					Meta       json.RawMessage `json:"_meta"`
				} `json:"result"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &read); err != nil || rec.Code != 200 {
				t.Fatalf("resources/read: %d %v", rec.Code, err)
			}
			r := read.Result
			v, _ := views.Lookup(review)
			if c := r.Contents; len(c) != 1 || c[0].URI != review || c[0].MIMEType != views.MIMEType || c[0].Text != v.HTML || string(c[0].Meta) != wantViewMeta {
				t.Errorf("resources/read: %d contents, want the submission review with its _meta", len(c))
			}
			if r.ResultType != "complete" || r.TTLMs == nil || *r.TTLMs != 3600000 || r.CacheScope != "public" ||
				string(r.Meta) != `{"io.modelcontextprotocol/serverInfo":{"name":"pawtograder","version":"0.1.0"}}` {
				t.Errorf("resources/read: resultType %q, ttlMs %v, cacheScope %q, _meta %s", r.ResultType, r.TTLMs, r.CacheScope, r.Meta)
			}
			if !bytes.HasPrefix(rec.Body.Bytes(), []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","contents":[`)) {
				t.Errorf("resources/read: resultType is not the result's first member")
			}
		})
	}
}

// TestAppsModernListsMatch: at 2026-07-28 the views add only _meta.ui to
// tools/list, and only resources and the extension to server/discover's
// capabilities.
func TestAppsModernListsMatch(t *testing.T) {
	env := newTestEnv(t, nil)
	s := env.srv
	var plain, apps struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(rowOf(t, s, answers.Key{Revision: versionModern}).ToolsList, &plain); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rowOf(t, s, answers.Key{Revision: versionModern, Apps: true}).ToolsList, &apps); err != nil {
		t.Fatal(err)
	}
	withUI := 0
	for i, tool := range apps.Tools {
		if _, ok := tool["_meta"]; ok {
			withUI++
			delete(tool, "_meta")
		}
		if diff := cmp.Diff(plain.Tools[i], tool); diff != "" {
			t.Errorf("tool %d differs beyond _meta (-plain +apps):\n%s", i, diff)
		}
	}
	if want := viewToolCount(); withUI != want {
		t.Errorf("%d tools with _meta.ui, want %d", withUI, want)
	}
	want := bytes.Replace(rowOf(t, s, answers.Key{Revision: versionModern}).Discover, []byte(`"capabilities":{"tools":{}}`),
		[]byte(`"capabilities":{"tools":{},"resources":{},"extensions":{"io.modelcontextprotocol/ui":{}}}`), 1)
	if diff := cmp.Diff(string(want), string(rowOf(t, s, answers.Key{Revision: versionModern, Apps: true}).Discover)); diff != "" {
		t.Errorf("server/discover (-want +got):\n%s", diff)
	}
}

// TestAppsDiscoverLegacy: server/discover under a handshake revision
// declares resources and the MCP Apps extension from 2025-06-18 to every
// client, whatever its _meta declares, and not the Skills extension, whose
// methods are 2026-07-28's; at 2025-03-26 only tools.
func TestAppsDiscoverLegacy(t *testing.T) {
	env := newTestEnv(t, nil)
	for _, tc := range []struct {
		version, caps string
		apps          bool
	}{
		{"2025-03-26", capsApps, false},
		{"2025-06-18", "", true},
		{"2025-06-18", capsApps, true},
		{"2025-11-25", capsOtherExt, true},
		{"2025-11-25", capsApps, true},
	} {
		body := `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`
		if tc.caps != "" {
			body = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":` + tc.caps + `}}}`
		}
		want := `"capabilities":{"tools":{}},`
		if tc.apps {
			want = `"capabilities":{"tools":{},"resources":{},"extensions":{"io.modelcontextprotocol/ui":{}}},`
		}
		rec := env.do(http.MethodPost, "", hdr("Authorization", authGood, headerProtocolVersion, tc.version), body)
		if !strings.Contains(rec.Body.String(), want) || !strings.HasPrefix(rec.Body.String(), `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":`) {
			t.Errorf("%s %s: %s\nwant %s", tc.version, tc.caps, rec.Body, want)
		}
	}
}

// TestToolsListWithUIMeta checks that _meta.ui is on exactly the view
// tools at 2025-11-25, and is the only difference from the list a
// 2026-07-28 client without the extension gets in the members both have.
func TestToolsListWithUIMeta(t *testing.T) {
	env := newTestEnv(t, nil)
	var plain, apps struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(rowOf(t, env.srv, answers.Key{Revision: versionModern}).ToolsList, &plain); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(rowOf(t, env.srv, answers.Key{Revision: "2025-11-25"}).ToolsList, &apps); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for i, tool := range apps.Tools {
		if meta, ok := tool["_meta"]; ok {
			got[strings.Trim(string(tool["name"]), `"`)] = string(meta)
			delete(tool, "_meta")
		}
		delete(tool, "outputSchema") // each revision describes results its own way
		delete(plain.Tools[i], "outputSchema")
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
		"get_help_queue_overview":     ui("ui://pawtograder/help-queues"),
		"get_grading_progress":        ui("ui://pawtograder/grading-progress"),
		"get_regrade_request":         ui("ui://pawtograder/regrade-request"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("_meta per tool (-want +got):\n%s", diff)
	}
}

// FuzzAppsRequest feeds arbitrary params to the method table at every
// revision (at 2026-07-28 with the capabilities they declare, as
// serveStateless passes them): it must never panic, never offer the views
// on the drop-in path, and always answer the resource methods from
// 2025-06-18.
func FuzzAppsRequest(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `5`, `[]`, `{"uri":"ui://pawtograder/assignment"}`, `{"uri":5}`,
		`{"_meta":{"io.modelcontextprotocol/clientCapabilities":` + capsApps + `}}`,
		`{"protocolVersion":"2025-11-25","capabilities":` + capsApps + `}`,
		`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":[null,{},"text/html;profile=mcp-app"]}}}}}`,
		`{"uri":"ui://pawtograder/assignment","_meta":{"io.modelcontextprotocol/clientCapabilities":` + capsApps + `}}`,
	} {
		f.Add(seed)
	}
	env := newTestEnv(f, nil)
	s := env.srv
	log := slog.New(slog.DiscardHandler)
	f.Fuzz(func(t *testing.T, params string) {
		v, err := jsjson.Decode([]byte(params))
		if err != nil {
			return
		}
		for _, version := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
			for _, m := range []string{methodInitialize, methodToolsList, methodResourcesList, methodResourcesRead, methodResourceTemplatesList, methodDiscover} {
				msg := jsjson.NewObject(4).Set("jsonrpc", "2.0").Set("id", 1.0).Set("method", m).Set("params", v)
				cl := &caller{principal: &mcpauth.Principal{UserID: "u"}, version: version, versionStated: true}
				var resp *response
				if version == versionModern {
					cl.clientCapabilities = requestCapabilities(v)
					resp = s.dispatchStateless(context.Background(), cl, msg, log)
				} else {
					resp = s.dispatch(context.Background(), cl, msg, log)
				}
				if resp == nil {
					t.Fatalf("%s at %s: no response", m, version)
				}
				isResources := m == methodResourcesList || m == methodResourcesRead || m == methodResourceTemplatesList
				notFound := resp.Err != nil && resp.Err.Code == codeMethodNotFound
				switch {
				case version < firstVersionWithApps && isResources && !notFound:
					t.Fatalf("%s answered on the drop-in path (%s)", m, version)
				case version < firstVersionWithApps && m == methodToolsList && !bytes.Equal(resp.Result, rowOf(t, s, answers.Key{Revision: "2025-03-26"}).ToolsList):
					t.Fatalf("tools/list at %s is not the original's", version)
				case version < versionModern && version >= firstVersionWithApps && isResources && notFound:
					t.Fatalf("%s not answered at %s", m, version)
				case version == versionModern && isResources && notFound:
					t.Fatalf("%s not answered at %s with capabilities %v", m, version, cl.clientCapabilities)
				}
			}
		}
	})
}

// viewToolCount is how many tools a view renders (views.All).
func viewToolCount() int {
	n := 0
	for _, v := range views.All() {
		n += len(v.Tools)
	}
	return n
}
