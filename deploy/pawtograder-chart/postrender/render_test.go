package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// shippedSettings is deploy/pawtograder-chart/mcp-gateway.yaml, the file
// operators use, so the tests cover what is shipped.
func shippedSettings(t *testing.T) Settings {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "mcp-gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadSettings(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// objects parses a rendered stream into its objects, keyed "Kind/name".
func objects(t *testing.T, stream []byte) map[string]*yaml.Node {
	t.Helper()
	docs, err := splitDocs(stream)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*yaml.Node{}
	for _, d := range docs {
		if r := d.root(); r != nil {
			key := text(r, "kind") + "/" + text(r, "metadata", "name")
			if _, dup := out[key]; dup {
				t.Errorf("%s appears twice", key)
			}
			out[key] = r
		}
	}
	return out
}

// decode turns a node into plain Go values for cmp.Diff.
func decode(t *testing.T, n *yaml.Node) any {
	t.Helper()
	var v any
	if err := n.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func kongConfig(t *testing.T, objs map[string]*yaml.Node, name string) (string, map[string]any) {
	t.Helper()
	cm := objs["ConfigMap/"+name]
	if cm == nil {
		t.Fatalf("no ConfigMap %s", name)
	}
	raw := text(cm, "data", "kong.yml")
	var k map[string]any
	if err := yaml.Unmarshal([]byte(raw), &k); err != nil {
		t.Fatalf("kong.yml: %v", err)
	}
	return raw, k
}

func kongService(k map[string]any, name string) (int, map[string]any) {
	for i, s := range k["services"].([]any) {
		if m := s.(map[string]any); m["name"] == name {
			return i, m
		}
	}
	return -1, nil
}

// TestRenderGolden pins the whole output for the synthetic chart output.
func TestRenderGolden(t *testing.T) {
	got, err := Render(readFile(t, "testdata/chart.yaml"), shippedSettings(t))
	if err != nil {
		t.Fatal(err)
	}
	golden := "testdata/chart.golden.yaml"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(string(readFile(t, golden)), string(got)); diff != "" {
		t.Errorf("output differs from %s (-want +got; go test -update rewrites it):\n%s", golden, diff)
	}
}

// TestRenderChanges states what the golden file shows: which objects are
// added, which are changed and how, and that the rest is left byte for
// byte.
func TestRenderChanges(t *testing.T) {
	in := readFile(t, "testdata/chart.yaml")
	out, err := Render(in, shippedSettings(t))
	if err != nil {
		t.Fatal(err)
	}
	before, after := objects(t, in), objects(t, out)

	var added []string
	for k := range after {
		if before[k] == nil {
			added = append(added, k)
		}
	}
	slices.Sort(added)
	wantAdded := []string{"Deployment/demo-pawtograder-mcp-gateway", "HorizontalPodAutoscaler/demo-pawtograder-mcp-gateway", "PodDisruptionBudget/demo-pawtograder-mcp-gateway", "Service/demo-pawtograder-mcp-gateway"}
	if diff := cmp.Diff(wantAdded, added); diff != "" {
		t.Errorf("added objects (-want +got):\n%s", diff)
	}

	var changed []string
	for k, n := range before {
		if after[k] == nil {
			t.Errorf("%s was removed", k)
		} else if diff := cmp.Diff(decode(t, n), decode(t, after[k])); diff != "" {
			changed = append(changed, k)
		}
	}
	slices.Sort(changed)
	wantChanged := []string{"ConfigMap/demo-pawtograder-kong-config", "Deployment/demo-pawtograder-auth", "Deployment/demo-pawtograder-kong"}
	if diff := cmp.Diff(wantChanged, changed); diff != "" {
		t.Errorf("changed objects (-want +got):\n%s", diff)
	}
	// Unchanged documents are copied, not re-encoded.
	for _, want := range []string{"name: demo-pawtograder-allow-same-release", `policyTypes: ["Ingress"]`, `value: "https://api.courses.example.edu"`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lost the original text %q", want)
		}
	}

	t.Run("kong routes", func(t *testing.T) {
		_, k0 := kongConfig(t, before, "demo-pawtograder-kong-config")
		raw, k := kongConfig(t, after, "demo-pawtograder-kong-config")
		at, svc := kongService(k, "mcp-gateway")
		fnAt, fn := kongService(k, "functions-v1")
		if at < 0 || fnAt != at+1 {
			t.Fatalf("mcp-gateway at %d, functions-v1 at %d; want mcp-gateway right before functions-v1", at, fnAt)
		}
		want := map[string]any{
			"name":          "mcp-gateway",
			"_comment":      "MCP gateway: mcp-server, mcp-tokens and their OAuth metadata -> http://demo-pawtograder-mcp-gateway:9000 (paths unstripped)",
			"url":           "http://demo-pawtograder-mcp-gateway:9000",
			"read_timeout":  3600000,
			"write_timeout": 3600000,
			"routes": []any{map[string]any{
				"name":       "mcp-gateway-all",
				"strip_path": false,
				"paths": []any{
					"/functions/v1/mcp-server",
					"/functions/v1/mcp-tokens",
					"/.well-known/oauth-protected-resource",
					"/.well-known/oauth-authorization-server/functions/v1/mcp-server",
					"/.well-known/openid-configuration/functions/v1/mcp-server",
				},
			}},
		}
		if diff := cmp.Diff(want, svc); diff != "" {
			t.Errorf("mcp-gateway service (-want +got):\n%s", diff)
		}
		_, fn0 := kongService(k0, "functions-v1")
		if diff := cmp.Diff(fn0, fn); diff != "" {
			t.Errorf("functions-v1 changed (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(len(k0["services"].([]any))+1, len(k["services"].([]any))); diff != "" {
			t.Errorf("service count: %s", diff)
		}
		sum := sha256.Sum256([]byte(raw))
		if got := text(after["Deployment/demo-pawtograder-kong"], "spec", "template", "metadata", "annotations", "checksum/config"); got != hex.EncodeToString(sum[:]) {
			t.Errorf("Kong checksum/config = %s, want the sha256 of the new kong.yml", got)
		}
	})

	t.Run("auth allow-list", func(t *testing.T) {
		var got string
		for _, e := range items(get(podContainer(&doc{node: &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{after["Deployment/demo-pawtograder-auth"]}}}, "gotrue"), "env")) {
			if text(e, "name") == "GOTRUE_URI_ALLOW_LIST" {
				got = text(e, "value")
			}
		}
		if want := "https://courses.example.edu/*,https://api.courses.example.edu/functions/v1/mcp-server/oauth/callback"; got != want {
			t.Errorf("GOTRUE_URI_ALLOW_LIST = %q, want %q", got, want)
		}
	})

	t.Run("network policy reaches the pods", func(t *testing.T) {
		sel := decode(t, get(after["NetworkPolicy/demo-pawtograder-allow-same-release"], "spec", "podSelector", "matchLabels")).(map[string]any)
		pod := decode(t, get(after["Deployment/demo-pawtograder-mcp-gateway"], "spec", "template", "metadata", "labels")).(map[string]any)
		for k, v := range sel {
			if pod[k] != v {
				t.Errorf("pod label %s = %v, want %v (the release's NetworkPolicy selects by it)", k, pod[k], v)
			}
		}
	})

	t.Run("service selects the pods", func(t *testing.T) {
		d := after["Deployment/demo-pawtograder-mcp-gateway"]
		svcSel := decode(t, get(after["Service/demo-pawtograder-mcp-gateway"], "spec", "selector"))
		depSel := decode(t, get(d, "spec", "selector", "matchLabels"))
		pdbSel := decode(t, get(after["PodDisruptionBudget/demo-pawtograder-mcp-gateway"], "spec", "selector", "matchLabels"))
		want := map[string]any{"app.kubernetes.io/name": "pawtograder", "app.kubernetes.io/instance": "demo", "app.kubernetes.io/component": "mcp-gateway"}
		for name, got := range map[string]any{"service": svcSel, "deployment": depSel, "pdb": pdbSel} {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s selector (-want +got):\n%s", name, diff)
			}
		}
		pod := decode(t, get(d, "spec", "template", "metadata", "labels")).(map[string]any)
		for k, v := range want {
			if pod[k] != v {
				t.Errorf("pod label %s = %v, want %v", k, pod[k], v)
			}
		}
	})
}

// TestRenderIsIdempotent: helm runs the post-renderer on the chart's
// output only, but an operator piping a rendered file through it twice
// must get the same manifests, not a second gateway or route.
func TestRenderIsIdempotent(t *testing.T) {
	s := shippedSettings(t)
	once, err := Render(readFile(t, "testdata/chart.yaml"), s)
	if err != nil {
		t.Fatal(err)
	}
	twice, err := Render(once, s)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(once), string(twice)); diff != "" {
		t.Errorf("second pass changed the output (-once +twice):\n%s", diff)
	}
}

func TestRenderRefusesOtherInput(t *testing.T) {
	chart := string(readFile(t, "testdata/chart.yaml"))
	without := func(kind, name string) string {
		docs, err := splitDocs([]byte(chart))
		if err != nil {
			t.Fatal(err)
		}
		docs = slices.DeleteFunc(docs, func(d *doc) bool { return d.is(kind, name) })
		b, err := writeDocs(docs)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	noOAuth := shippedSettings(t)
	tests := []struct {
		name, in, want string
	}{
		{"no Kong ConfigMap", without("ConfigMap", "demo-pawtograder-kong-config"),
			"no Kong ConfigMap in the chart's output (a ConfigMap with data.kong.yml, from the chart's templates/kong-config.yaml): is this the pawtograder chart with kong.enabled=true?"},
		{"empty input", "", "no Kong ConfigMap in the chart's output"},
		{"no Kong Deployment", without("Deployment", "demo-pawtograder-kong"), "no Kong Deployment demo-pawtograder-kong in the chart's output"},
		{"no Kong Service", without("Service", "demo-pawtograder-kong"), "no Service demo-pawtograder-kong with a port named http"},
		{"no auth Deployment with oauth", without("Deployment", "demo-pawtograder-auth"), "oauth is on but the chart's output has no Deployment demo-pawtograder-auth"},
		{"kong.yml without services", strings.Replace(chart, "    services:\n", "    services_moved:\n", 1), "the Kong ConfigMap's kong.yml has no services list"},
		{"ConfigMap misnamed", strings.Replace(chart, "name: demo-pawtograder-kong-config", "name: demo-kong-settings", 1), `the Kong ConfigMap is named "demo-kong-settings", not <release>-kong-config`},
		{"not YAML", "---\nkind: [\n", "document 1 of the chart's output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Render([]byte(tt.in), noOAuth)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Render error = %v, want one containing %q (output %d bytes)", err, tt.want, len(out))
			}
		})
	}
}

// TestRenderWithoutOAuth: with oauth off the gateway gets no OAuth secret
// and GoTrue's allow-list is left alone.
func TestRenderWithoutOAuth(t *testing.T) {
	s := shippedSettings(t)
	s.OAuth = false
	in := readFile(t, "testdata/chart.yaml")
	out, err := Render(in, s)
	if err != nil {
		t.Fatal(err)
	}
	before, after := objects(t, in), objects(t, out)
	if diff := cmp.Diff(decode(t, before["Deployment/demo-pawtograder-auth"]), decode(t, after["Deployment/demo-pawtograder-auth"])); diff != "" {
		t.Errorf("auth Deployment changed:\n%s", diff)
	}
	if names := envNames(after["Deployment/demo-pawtograder-mcp-gateway"]); slices.Contains(names, "GATEWAY_OAUTH_SECRET") {
		t.Errorf("env %v sets GATEWAY_OAUTH_SECRET with oauth off", names)
	}
}

func envNames(d *yaml.Node) []string {
	var names []string
	for _, c := range items(get(d, "spec", "template", "spec", "containers")) {
		for _, e := range items(get(c, "env")) {
			names = append(names, text(e, "name"))
		}
	}
	return names
}

// knownEnv is every variable name gateway/config reads; a manifest that
// sets any other name sets nothing.
func knownEnv(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "gateway", "config", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		for _, m := range regexp.MustCompile(`"([A-Z][A-Z0-9_]+)"`).FindAllStringSubmatch(string(readFile(t, f)), -1) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
	}
	if len(names) < 30 {
		t.Fatalf("found only %d variable names in gateway/config", len(names))
	}
	return names
}

// TestEnvNamesAreRead: every variable the post-renderer sets, and every
// one the shipped settings add, is read by the gateway.
func TestEnvNamesAreRead(t *testing.T) {
	known := knownEnv(t)
	out, err := Render(readFile(t, "testdata/chart.yaml"), shippedSettings(t))
	if err != nil {
		t.Fatal(err)
	}
	names := envNames(objects(t, out)["Deployment/demo-pawtograder-mcp-gateway"])
	for name := range managedEnv {
		names = append(names, name)
	}
	for _, name := range names {
		if !slices.Contains(known, name) {
			t.Errorf("env %s is not read by the gateway (gateway/config)", name)
		}
	}
	for _, need := range []string{"SUPABASE_URL", "SUPABASE_ANON_KEY", "SUPABASE_SERVICE_ROLE_KEY", "MCP_JWT_SECRET", "JWT_SECRET", "GATEWAY_PUBLIC_URL", "EDGE_FUNCTIONS_URL", "GATEWAY_OAUTH_SECRET", "GATEWAY_OAUTH_ISSUER"} {
		if !slices.Contains(names, need) {
			t.Errorf("%s is not set", need)
		}
	}
}

func TestLoadSettings(t *testing.T) {
	base := string(readFile(t, filepath.Join("..", "mcp-gateway.yaml")))
	tests := []struct {
		name, edit, want string
	}{
		{"unknown key", base + "replica: 3\n", "field replica not found"},
		{"no image", strings.Replace(base, "image: ghcr.io/pawtograder/mcp-gateway:1.0.0", "image: \"\"", 1), "settings: image is required"},
		{"bad public URL", strings.Replace(base, `publicURL: ""`, "publicURL: api.example.edu", 1), `settings: publicURL must be an absolute http(s) URL such as https://api.example.edu (got "api.example.edu")`},
		{"bad timeout", strings.Replace(base, "streamTimeout: 1h", "streamTimeout: 0s", 1), "settings: streamTimeout must be a positive duration such as 1h (got 0s)"},
		{"managed env", base + "  SUPABASE_URL: http://elsewhere\n", "settings: env SUPABASE_URL is set by the post-renderer from the chart; remove it from env"},
		{"bad env name", base + "  gateway-log: x\n", `settings: env name "gateway-log" is not an environment variable name`},
		{"write tools without oauth", strings.Replace(strings.Replace(base, `GATEWAY_WRITE_TOOLS: "off"`, `GATEWAY_WRITE_TOOLS: "on"`, 1), "oauth: true", "oauth: false", 1),
			"settings: env GATEWAY_WRITE_TOOLS is on, which needs oauth: true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadSettings([]byte(tt.edit))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadSettings error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestRunNeedsSettings(t *testing.T) {
	err := run(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, "")
	want := "no settings file: pass -settings=<file> (helm: --post-renderer-args=-settings=<file>) or set MCP_GATEWAY_SETTINGS"
	if err == nil || err.Error() != want {
		t.Errorf("run error = %v, want %q", err, want)
	}
}
