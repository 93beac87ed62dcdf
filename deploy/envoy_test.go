package deploy

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Supabase's self-hosted Envoy as recorded in testdata/supabase-envoy (a
// reduced file of the same shape as Supabase's, with the facts the recipe
// relies on): the listener's one virtual host and its global HTTP filters.
const supabaseEnvoy = "testdata/supabase-envoy"

const clusterType = "type.googleapis.com/envoy.config.cluster.v3.Cluster"

// envoyHost is the virtual host of an lds file: its routes and the
// listener's HTTP filter names, in order.
func envoyHost(t *testing.T, lds map[string]any) (routes []any, filters []string) {
	t.Helper()
	hcm := dig(t, lds, "resources", 0, "filter_chains", 0, "filters", 0, "typed_config")
	routes = dig(t, hcm, "route_config", "virtual_hosts", 0, "routes").([]any)
	for _, f := range dig(t, hcm, "http_filters").([]any) {
		filters = append(filters, dig(t, f, "name").(string))
	}
	return routes, filters
}

// supabaseFunctionsRoute is Supabase's own edge-functions route, whose way
// of switching the global filters off the gateway's routes copy.
func supabaseFunctionsRoute(t *testing.T, routes []any) map[string]any {
	t.Helper()
	for _, r := range routes {
		if m := r.(map[string]any); m["name"] == "functions-v1-all" {
			return m
		}
	}
	t.Fatalf("%s: no functions-v1-all route", supabaseEnvoy)
	return nil
}

// TestEnvoyRoutesSwitchOffSupabaseFilters: every route of envoy-routes.yaml
// switches off each global filter that Supabase's functions route switches
// off (basic_auth and rbac, which refuse everything else), in exactly the
// form Supabase uses, and the cors filter, so the gateway answers CORS
// itself.
func TestEnvoyRoutesSwitchOffSupabaseFilters(t *testing.T) {
	sbRoutes, globalFilters := envoyHost(t, load(t, filepath.Join(supabaseEnvoy, "lds.template.yaml")))
	fn := supabaseFunctionsRoute(t, sbRoutes)
	off := dig(t, fn, "typed_per_filter_config").(map[string]any)
	var names []string
	for name := range off {
		if !slices.Contains(globalFilters, name) {
			t.Errorf("Supabase's functions route configures %s, which is not among the listener's filters %v", name, globalFilters)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{"envoy.filters.http.basic_auth", "envoy.filters.http.rbac"}; !cmp.Equal(names, want) {
		t.Errorf("Supabase's functions route switches off %v, want %v (update the recorded facts and this test together)", names, want)
	}
	if !slices.Contains(globalFilters, "envoy.filters.http.cors") {
		t.Fatalf("no cors filter among %v", globalFilters)
	}
	corsOff := map[string]any{"@type": "type.googleapis.com/envoy.config.route.v3.FilterConfig", "disabled": true}

	ours := dig(t, load(t, "self-hosted/envoy-routes.yaml"), "routes").([]any)
	if len(ours) != 5 {
		t.Fatalf("envoy-routes.yaml has %d routes, want 5", len(ours))
	}
	for i, r := range ours {
		prefix := fmt.Sprint(dig(t, r, "match", "prefix"))
		if got := dig(t, r, "route", "cluster"); got != "mcp_gateway" {
			t.Errorf("route %d (%s): cluster %v, want mcp_gateway", i, prefix, got)
		}
		cfg, _ := dig(t, r, "typed_per_filter_config").(map[string]any)
		for _, name := range names {
			if diff := cmp.Diff(off[name], cfg[name]); diff != "" {
				t.Errorf("route %d (%s): %s not switched off as Supabase's functions route does (-supabase +ours):\n%s", i, prefix, name, diff)
			}
		}
		if diff := cmp.Diff(corsOff, cfg["envoy.filters.http.cors"]); diff != "" {
			t.Errorf("route %d (%s): cors filter (-want +got):\n%s", i, prefix, diff)
		}
	}
}

// TestEnvoyClusterIsCDS: the cluster is a typed CDS resource, as Supabase's
// cds.yaml holds them, aimed at the override's service and port.
func TestEnvoyClusterIsCDS(t *testing.T) {
	for _, f := range []string{filepath.Join(supabaseEnvoy, "cds.yaml"), "self-hosted/envoy-cds.yaml"} {
		doc := load(t, f)
		if len(doc) != 1 || doc["resources"] == nil {
			t.Errorf("%s: top-level keys %v, want only resources", f, doc)
		}
		for i, c := range dig(t, doc, "resources").([]any) {
			if got := dig(t, c, "@type"); got != clusterType {
				t.Errorf("%s: resource %d has @type %v, want %s", f, i, got, clusterType)
			}
		}
	}
	c := dig(t, load(t, "self-hosted/envoy-cds.yaml"), "resources", 0)
	addr := dig(t, c, "load_assignment", "endpoints", 0, "lb_endpoints", 0, "endpoint", "address", "socket_address")
	if dig(t, c, "name") != "mcp_gateway" || dig(t, addr, "address") != "mcp-gateway" || dig(t, addr, "port_value") != 9000 {
		t.Errorf("cluster %v, want mcp_gateway at mcp-gateway:9000", c)
	}
	svc := dig(t, load(t, "self-hosted/docker-compose.override.yml"), "services", "mcp-gateway", "environment", "GATEWAY_LISTEN_ADDR")
	if svc != ":9000" {
		t.Errorf("the override listens on %v, the cluster sends to 9000", svc)
	}
}

// firstRoute is the cluster of the first route whose match takes path, as
// Envoy chooses: in order, not by length.
func firstRoute(t *testing.T, routes []any, path string) string {
	t.Helper()
	for _, r := range routes {
		m := dig(t, r, "match").(map[string]any)
		if p, ok := m["prefix"].(string); ok && strings.HasPrefix(path, p) {
			return fmt.Sprint(dig(t, r, "route", "cluster"))
		}
		if p, ok := m["path"].(string); ok && path == p {
			return fmt.Sprint(dig(t, r, "route", "cluster"))
		}
	}
	return ""
}

// TestPatchEnvoy runs patch-envoy.sh on the recorded Supabase files: the
// gateway's paths reach its cluster ahead of Supabase's routes, Supabase's
// own paths are unchanged, every routed cluster is in cds.yaml, and a
// second run changes nothing.
func TestPatchEnvoy(t *testing.T) {
	dir := t.TempDir()
	envoy := filepath.Join(dir, "volumes", "api", "envoy")
	if err := os.MkdirAll(envoy, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"lds.template.yaml", "cds.yaml"} {
		b, err := os.ReadFile(filepath.Join(supabaseEnvoy, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(envoy, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	patch := func() (lds, cds []byte) {
		t.Helper()
		if out, err := exec.Command("bash", "self-hosted/patch-envoy.sh", dir).CombinedOutput(); err != nil {
			t.Fatalf("patch-envoy.sh: %v\n%s", err, out)
		}
		lds, err := os.ReadFile(filepath.Join(envoy, "lds.template.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		cds, err = os.ReadFile(filepath.Join(envoy, "cds.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return lds, cds
	}
	lds1, cds1 := patch()
	lds2, cds2 := patch()
	if !bytes.Equal(lds1, lds2) || !bytes.Equal(cds1, cds2) {
		t.Error("a second run of patch-envoy.sh changed the files")
	}

	routes, _ := envoyHost(t, load(t, filepath.Join(envoy, "lds.template.yaml")))
	for path, want := range map[string]string{
		"/functions/v1/mcp-server":                                              "mcp_gateway",
		"/functions/v1/mcp-server/oauth/callback":                               "mcp_gateway",
		"/functions/v1/mcp-server/approve/callback":                             "mcp_gateway",
		"/functions/v1/mcp-tokens":                                              "mcp_gateway",
		"/.well-known/oauth-protected-resource/functions/v1/mcp-server":         "mcp_gateway",
		"/.well-known/oauth-authorization-server/functions/v1/mcp-server/oauth": "mcp_gateway",
		"/.well-known/openid-configuration/functions/v1/mcp-server/oauth":       "mcp_gateway",
		"/.well-known/oauth-authorization-server/auth/v1":                       "auth",
		"/auth/v1/authorize":                                                    "auth",
		"/functions/v1/hello":                                                   "functions",
		"/rest/v1/assignments":                                                  "rest",
		"/project/default":                                                      "studio",
	} {
		if got := firstRoute(t, routes, path); got != want {
			t.Errorf("%s goes to cluster %q, want %q", path, got, want)
		}
	}

	clusters := map[string]bool{}
	for _, c := range dig(t, load(t, filepath.Join(envoy, "cds.yaml")), "resources").([]any) {
		if dig(t, c, "@type") != clusterType {
			t.Errorf("cds.yaml holds %v, not a Cluster", c)
		}
		clusters[dig(t, c, "name").(string)] = true
	}
	for _, r := range routes {
		if name := fmt.Sprint(dig(t, r, "route", "cluster")); !clusters[name] {
			t.Errorf("a route sends to cluster %s, which cds.yaml does not define", name)
		}
	}
	if !clusters["mcp_gateway"] {
		t.Error("cds.yaml lacks mcp_gateway after patch-envoy.sh")
	}
}
