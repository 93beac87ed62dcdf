// Package deploy holds deployment files (Compose, Kubernetes, API gateway
// routes). Its test parses them, since no Docker engine or cluster runs in
// CI, and checks the fields that break a deployment when they drift from
// the gateway's code: image, ports, probes and environment variable names.
package deploy

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// knownEnv is every variable the gateway reads (gateway/config). A manifest
// that sets any other name is setting nothing.
func knownEnv(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "gateway", "config", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`"([A-Z][A-Z0-9_]+)"`).FindAllStringSubmatch(string(src), -1) {
			if !slices.Contains(names, m[1]) {
				names = append(names, m[1])
			}
		}
	}
	if len(names) < 10 {
		t.Fatalf("found only %d variable names in gateway/config", len(names))
	}
	return names
}

func load(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

// dig walks nested maps and lists: keys are map keys or list indexes.
func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: not a map", path)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("at %v: not a list of more than %d", path, k)
			}
			v = l[k]
		}
	}
	return v
}

func TestKubernetesDeployment(t *testing.T) {
	known := knownEnv(t)
	d := load(t, "kubernetes/base/deployment.yaml")
	if dig(t, d, "kind") != "Deployment" {
		t.Fatal("not a Deployment")
	}
	spec := dig(t, d, "spec", "template", "spec")
	if dig(t, spec, "securityContext", "runAsNonRoot") != true {
		t.Error("pod must run as non-root")
	}
	c := dig(t, spec, "containers", 0)
	if img, _ := dig(t, c, "image").(string); !strings.Contains(img, "mcp-gateway") {
		t.Errorf("image = %v", img)
	}
	if dig(t, c, "securityContext", "readOnlyRootFilesystem") != true {
		t.Error("root filesystem must be read-only")
	}
	if dig(t, c, "ports", 0, "containerPort") != 9000 {
		t.Error("http port must be 9000, the gateway's default listen port")
	}
	if dig(t, c, "readinessProbe", "httpGet", "path") != "/readyz" || dig(t, c, "livenessProbe", "httpGet", "path") != "/healthz" {
		t.Error("probes must hit /readyz and /healthz")
	}
	var names []string
	for _, e := range dig(t, c, "env").([]any) {
		name := dig(t, e, "name").(string)
		if !slices.Contains(known, name) {
			t.Errorf("env %s is not read by the gateway", name)
		}
		names = append(names, name)
	}
	// Behind an ingress every caller would otherwise share its address,
	// and one budget of failed token requests per client (docs/oauth.md).
	if !slices.Contains(names, "GATEWAY_TRUSTED_PROXIES") {
		t.Error("the Deployment must set GATEWAY_TRUSTED_PROXIES, or callers behind the ingress share one rate-limit address")
	}
	for _, k := range []string{"requests", "limits"} {
		if dig(t, c, "resources", k) == nil {
			t.Errorf("resources.%s missing", k)
		}
	}
	secret := load(t, "kubernetes/base/secret.example.yaml")
	for name := range dig(t, secret, "stringData").(map[string]any) {
		if !slices.Contains(known, name) {
			t.Errorf("secret key %s is not read by the gateway", name)
		}
	}
	kz := load(t, "kubernetes/base/kustomization.yaml")
	for _, r := range dig(t, kz, "resources").([]any) {
		if _, err := os.Stat(filepath.Join("kubernetes/base", r.(string))); err != nil {
			t.Errorf("kustomization resource %v: %v", r, err)
		}
	}
	for _, f := range []string{"service.yaml", "hpa.yaml", "pdb.yaml"} {
		doc := load(t, filepath.Join("kubernetes/base", f))
		if doc["kind"] == nil || doc["spec"] == nil {
			t.Errorf("%s: missing kind or spec", f)
		}
	}
}

func TestComposeFiles(t *testing.T) {
	known := knownEnv(t)
	for _, f := range []string{"supabase-cli/compose.yaml", "self-hosted/docker-compose.override.yml"} {
		doc := load(t, f)
		svc := dig(t, doc, "services", "mcp-gateway")
		env := dig(t, svc, "environment").(map[string]any)
		for name := range env {
			if !slices.Contains(known, name) {
				t.Errorf("%s: env %s is not read by the gateway", f, name)
			}
		}
		if dig(t, svc, "stop_grace_period") != "30s" {
			t.Errorf("%s: stop_grace_period must exceed the gateway's 25 s drain", f)
		}
		if got := dig(t, svc, "healthcheck", "test"); fmt.Sprint(got) != "[CMD /gateway healthcheck]" {
			t.Errorf("%s: healthcheck.test = %v, want the binary's own probe (OCI-format images carry no HEALTHCHECK)", f, got)
		}
		for _, need := range []string{"SUPABASE_URL", "SUPABASE_ANON_KEY", "SUPABASE_SERVICE_ROLE_KEY", "MCP_JWT_SECRET", "JWT_SECRET"} {
			if _, ok := env[need]; !ok {
				t.Errorf("%s: %s not set", f, need)
			}
		}
	}
	cli := load(t, "supabase-cli/compose.yaml")
	if name, _ := dig(t, cli, "networks", "supabase", "name").(string); !strings.HasPrefix(name, "supabase_network_") {
		t.Errorf("CLI compose must join supabase_network_<project_id>, got %q", name)
	}
}

func TestRouteSnippetsCoverTheFunctions(t *testing.T) {
	for _, f := range []string{"self-hosted/kong-routes.yml", "self-hosted/envoy-routes.yaml", "supabase-cli/patch-kong.sh"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"/functions/v1/mcp-server", "/functions/v1/mcp-tokens", "/.well-known/oauth-protected-resource",
			// The OAuth authorization server's RFC 8414 locations (docs/oauth.md).
			"/.well-known/oauth-authorization-server/functions/v1/mcp-server", "/.well-known/openid-configuration/functions/v1/mcp-server"} {
			if !strings.Contains(string(data), p) {
				t.Errorf("%s does not route %s", f, p)
			}
		}
	}
	envoy := load(t, "self-hosted/envoy-routes.yaml")
	if dig(t, envoy, "routes", 0, "route", "timeout") != "0s" {
		t.Error("the mcp-server route needs timeout 0s, or Envoy cuts SSE streams after 15 s")
	}
}

// TestScenariosAreDocumented: every deployment scenario under deploy/ (a
// directory holding anything but Go code) and each of its files is named in
// docs/deploy.md, so a section lost in an edit fails here (issue 15: the
// Kubernetes section went missing once).
func TestScenariosAreDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	scenarios := 0
	reported := map[string]bool{}
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".go") || !strings.Contains(path, "/") {
			return err
		}
		dir := filepath.ToSlash(filepath.Join("deploy", filepath.Dir(path)))
		if !strings.Contains(text, "`"+dir+"`") && !strings.Contains(text, dir+"/") && !reported[dir] {
			reported[dir] = true
			t.Errorf("docs/deploy.md does not describe the scenario directory %s", dir)
		}
		if name := filepath.Base(path); !strings.Contains(text, name) {
			t.Errorf("docs/deploy.md does not mention %s (in %s)", name, dir)
		}
		scenarios++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scenarios < 10 {
		t.Fatalf("found only %d deployment files under deploy/", scenarios)
	}
	// The Kubernetes section must keep its topics, not only the file names.
	for _, want := range []string{"kubectl apply -k deploy/kubernetes/base", "kubectl create secret", "/readyz", "/healthz", "HorizontalPodAutoscaler", "rollout", "per replica"} {
		if !strings.Contains(text, want) {
			t.Errorf("docs/deploy.md lacks %q", want)
		}
	}
}

// releasedImage is how manifests name the published image: the release
// workflow's repository with a version tag, never latest (a restart must
// not change what runs).
var releasedImage = regexp.MustCompile(`^ghcr\.io/pawtograder/mcp-gateway:[0-9]+\.[0-9]+\.[0-9]+$`)

// TestImagesAreVersioned: every manifest that pulls the image names one
// released version, the same everywhere, and the release workflow
// publishes that repository.
func TestImagesAreVersioned(t *testing.T) {
	images := map[string]string{
		"kubernetes/base/deployment.yaml": dig(t, load(t, "kubernetes/base/deployment.yaml"), "spec", "template", "spec", "containers", 0, "image").(string),
		// The override's image is ${MCP_GATEWAY_IMAGE:-…}: the release unless set.
		"self-hosted/docker-compose.override.yml": interpolate(t, dig(t, load(t, "self-hosted/docker-compose.override.yml"), "services", "mcp-gateway", "image").(string), nil),
	}
	var first string
	for f, img := range images {
		if !releasedImage.MatchString(img) {
			t.Errorf("%s: image %q is not ghcr.io/pawtograder/mcp-gateway:X.Y.Z", f, img)
		}
		if first == "" {
			first = img
		} else if img != first {
			t.Errorf("%s: image %q differs from %q", f, img, first)
		}
	}
	wf := load(t, filepath.Join("..", ".github", "workflows", "release.yml"))
	steps := dig(t, wf, "jobs", "image", "steps").([]any)
	var published string
	for _, s := range steps {
		if with, ok := s.(map[string]any)["with"].(map[string]any); ok {
			if img, ok := with["images"].(string); ok {
				published = img
			}
		}
	}
	if repo, _, _ := strings.Cut(first, ":"); published != repo {
		t.Errorf("release workflow publishes %q, manifests pull %q", published, repo)
	}
}

// TestSizingAgrees: the Kubernetes base and the chart's post-renderer
// settings carry the same worked example (docs/deploy.md, "Scaling (HPA)
// and how many replicas"): HPA bounds and target, the PodDisruptionBudget
// that lets a drain take one of the minimum, the container's requests and
// limits, and no replica count in a Deployment the HPA scales.
func TestSizingAgrees(t *testing.T) {
	chart := load(t, "pawtograder-chart/mcp-gateway.yaml")
	hpa := load(t, "kubernetes/base/hpa.yaml")
	pairs := []struct {
		name        string
		base, chart any
	}{
		{"minimum", dig(t, hpa, "spec", "minReplicas"), dig(t, chart, "autoscaling", "minReplicas")},
		{"maximum", dig(t, hpa, "spec", "maxReplicas"), dig(t, chart, "autoscaling", "maxReplicas")},
		{"CPU target", dig(t, hpa, "spec", "metrics", 0, "resource", "target", "averageUtilization"), dig(t, chart, "autoscaling", "targetCPUUtilization")},
		{"resources", dig(t, load(t, "kubernetes/base/deployment.yaml"), "spec", "template", "spec", "containers", 0, "resources"), dig(t, chart, "resources")},
	}
	for _, p := range pairs {
		if p.base == nil || fmt.Sprint(p.base) != fmt.Sprint(p.chart) {
			t.Errorf("%s: kubernetes/base has %v, pawtograder-chart/mcp-gateway.yaml %v", p.name, p.base, p.chart)
		}
	}
	if dig(t, chart, "autoscaling", "enabled") != true {
		t.Error("the chart's settings do not autoscale, unlike kubernetes/base")
	}
	if min, ok := dig(t, hpa, "spec", "minReplicas").(int); !ok || dig(t, load(t, "kubernetes/base/pdb.yaml"), "spec", "minAvailable") != min-1 {
		t.Errorf("pdb.yaml minAvailable must be hpa.yaml's minReplicas (%v) less one", dig(t, hpa, "spec", "minReplicas"))
	}
	if r := dig(t, load(t, "kubernetes/base/deployment.yaml"), "spec", "replicas"); r != nil {
		t.Errorf("deployment.yaml sets replicas: %v; hpa.yaml sets the count", r)
	}
}

// TestShutdownAgrees: the Kubernetes base and the chart's post-renderer
// (its golden output, which TestRenderGolden holds to the code) stop a
// gateway pod alike (docs/deploy.md, "Rollout"): a preStop sleep through
// Kubernetes' sleep action (the distroless image has no shell or sleep
// binary for an exec hook), the same drain, and a grace period that holds
// the sleep, the drain and a margin for the process to exit.
func TestShutdownAgrees(t *testing.T) {
	const margin = 5 // seconds between the end of the drain and SIGKILL
	pods := map[string]any{
		"kubernetes/base":   dig(t, load(t, "kubernetes/base/deployment.yaml"), "spec", "template", "spec"),
		"pawtograder-chart": dig(t, goldenGateway(t), "spec", "template", "spec"),
	}
	type stop struct {
		Sleep, Grace int
		Drain        string
	}
	got := map[string]stop{}
	for name, pod := range pods {
		c := dig(t, pod, "containers", 0)
		hook, _ := dig(t, c, "lifecycle", "preStop").(map[string]any)
		if len(hook) != 1 || hook["sleep"] == nil {
			t.Errorf("%s: preStop is %v, want only the sleep action", name, hook)
			continue
		}
		s := stop{Sleep: toInt(dig(t, hook, "sleep", "seconds")), Grace: toInt(dig(t, pod, "terminationGracePeriodSeconds"))}
		for _, e := range dig(t, c, "env").([]any) {
			if dig(t, e, "name") == "GATEWAY_SHUTDOWN_TIMEOUT" {
				s.Drain, _ = dig(t, e, "value").(string)
			}
		}
		drain, err := time.ParseDuration(s.Drain)
		if err != nil {
			t.Errorf("%s: GATEWAY_SHUTDOWN_TIMEOUT %q: %v", name, s.Drain, err)
			continue
		}
		if s.Sleep <= 0 || s.Grace < s.Sleep+int(math.Ceil(drain.Seconds()))+margin {
			t.Errorf("%s: grace %d s does not hold the preStop sleep (%d s), the drain (%s) and %d s", name, s.Grace, s.Sleep, s.Drain, margin)
		}
		got[name] = s
	}
	if got["kubernetes/base"] != got["pawtograder-chart"] {
		t.Errorf("kubernetes/base stops with %+v, the chart with %+v", got["kubernetes/base"], got["pawtograder-chart"])
	}
}

// goldenGateway is the gateway Deployment of the post-renderer's golden
// output.
func goldenGateway(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile("pawtograder-chart/postrender/testdata/chart.golden.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("no gateway Deployment in the golden output: %v", err)
		}
		if doc["kind"] == "Deployment" && strings.HasSuffix(fmt.Sprint(dig(t, doc, "metadata", "name")), "-mcp-gateway") {
			return doc
		}
	}
}

func toInt(v any) int {
	n, _ := v.(int)
	return n
}
