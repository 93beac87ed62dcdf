package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// withScaling is the shipped settings file with its autoscaling block (and
// the commented-out replicas line) replaced by block.
func withScaling(t *testing.T, block string) string {
	t.Helper()
	base := string(readFile(t, filepath.Join("..", "mcp-gateway.yaml")))
	start := strings.Index(base, "autoscaling:\n")
	end := strings.Index(base, "# replicas: 3\n")
	if start < 0 || end < start {
		t.Fatal("mcp-gateway.yaml has no autoscaling block followed by \"# replicas: 3\"")
	}
	return base[:start] + block + base[end+len("# replicas: 3\n"):]
}

// TestScalingSettings: what replicas and autoscaling mean, with the worked
// example's defaults for what is left out.
func TestScalingSettings(t *testing.T) {
	hpa := func(min, max, target int) Scaling {
		return Scaling{Autoscaled: true, Min: min, Max: max, TargetCPU: target}
	}
	tests := []struct {
		name, block string
		want        Scaling
	}{
		{"shipped", "autoscaling:\n  enabled: true\n  minReplicas: 3\n  maxReplicas: 6\n  targetCPUUtilization: 70\n", hpa(3, 6, 70)},
		{"left out", "", hpa(defaultMinReplicas, defaultMaxReplicas, defaultTargetCPU)},
		{"only the maximum", "autoscaling:\n  maxReplicas: 12\n", hpa(3, 12, 70)},
		{"one replica at least", "autoscaling:\n  minReplicas: 1\n  maxReplicas: 1\n  targetCPUUtilization: 100\n", hpa(1, 1, 100)},
		{"off, fixed count", "autoscaling:\n  enabled: false\nreplicas: 3\n", Scaling{Replicas: 3}},
		{"off, count left out", "autoscaling:\n  enabled: false\n", Scaling{Replicas: defaultReplicas}},
		{"off, bounds kept for later", "autoscaling:\n  enabled: false\n  maxReplicas: 9\nreplicas: 1\n", Scaling{Replicas: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := LoadSettings([]byte(withScaling(t, tt.block)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, s.Scaling); diff != "" {
				t.Errorf("Scaling (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScalingSettingsRefused: each wrong value is refused, naming its
// setting and what it should be.
func TestScalingSettingsRefused(t *testing.T) {
	tests := []struct {
		name, block, want string
	}{
		{"minimum zero", "autoscaling:\n  minReplicas: 0\n",
			`settings: autoscaling.minReplicas must be a whole number of at least 1 (got 0)`},
		{"minimum a word", "autoscaling:\n  minReplicas: two\n",
			`settings: autoscaling.minReplicas must be a whole number of at least 1 (got "two")`},
		{"minimum quoted", "autoscaling:\n  minReplicas: \"2\"\n",
			`settings: autoscaling.minReplicas must be a whole number of at least 1 (got "2")`},
		{"maximum a fraction", "autoscaling:\n  maxReplicas: 2.5\n",
			`settings: autoscaling.maxReplicas must be a whole number of at least 1 (got 2.5)`},
		{"maximum beyond Kubernetes' int32", "autoscaling:\n  maxReplicas: 3000000000\n",
			`settings: autoscaling.maxReplicas must be at most 2147483647 (got 3000000000)`},
		{"maximum below minimum", "autoscaling:\n  minReplicas: 4\n  maxReplicas: 3\n",
			`settings: autoscaling.maxReplicas (3) must be at least autoscaling.minReplicas (4)`},
		{"target zero", "autoscaling:\n  targetCPUUtilization: 0\n",
			`settings: autoscaling.targetCPUUtilization must be a whole percentage of resources.requests.cpu from 1 to 100 (got 0)`},
		{"target above 100", "autoscaling:\n  targetCPUUtilization: 150\n",
			`settings: autoscaling.targetCPUUtilization must be at most 100 (got 150)`},
		{"target with a percent sign", "autoscaling:\n  targetCPUUtilization: 70%\n",
			`settings: autoscaling.targetCPUUtilization must be a whole percentage of resources.requests.cpu from 1 to 100 (got "70%")`},
		{"target a list", "autoscaling:\n  targetCPUUtilization: [70]\n",
			`settings: autoscaling.targetCPUUtilization must be a whole percentage of resources.requests.cpu from 1 to 100 (got a list)`},
		{"enabled a word", "autoscaling:\n  enabled: yes\n",
			`settings: autoscaling.enabled must be true or false (got "yes")`},
		{"replicas beside autoscaling", "autoscaling:\n  enabled: true\nreplicas: 3\n",
			`settings: replicas is the fixed count without autoscaling; with autoscaling on, the HorizontalPodAutoscaler sets it between autoscaling.minReplicas and autoscaling.maxReplicas: remove replicas, or set autoscaling.enabled: false`},
		{"replicas left beside the default", "replicas: 3\n",
			`settings: replicas is the fixed count without autoscaling`},
		{"no replicas", "autoscaling:\n  enabled: false\nreplicas: 0\n",
			`settings: replicas must be a whole number of at least 1 (got 0)`},
		{"replicas a word", "autoscaling:\n  enabled: false\nreplicas: many\n",
			`settings: replicas must be a whole number of at least 1 (got "many")`},
		{"misspelt key", "autoscaling:\n  targetCPU: 70\n", "field targetCPU not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadSettings([]byte(withScaling(t, tt.block)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadSettings error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestScalingNeedsCPURequest: the HPA's target is a share of the CPU
// request, so autoscaling without one is refused; off, it is not needed.
func TestScalingNeedsCPURequest(t *testing.T) {
	const want = "settings: autoscaling scales on CPU as a share of resources.requests.cpu, which is not set: set it, or set autoscaling.enabled: false"
	noCPU := strings.Replace(string(readFile(t, filepath.Join("..", "mcp-gateway.yaml"))), "    cpu: 250m\n", "", 1)
	if !strings.Contains(noCPU, "  requests:\n    memory:") {
		t.Fatal("mcp-gateway.yaml's resources.requests.cpu is not 250m; the test removes nothing")
	}
	if _, err := LoadSettings([]byte(noCPU)); err == nil || err.Error() != want {
		t.Errorf("LoadSettings error = %v, want %q", err, want)
	}
	off := strings.Replace(noCPU, "  enabled: true\n", "  enabled: false\n", 1)
	if _, err := LoadSettings([]byte(off)); err != nil {
		t.Errorf("autoscaling off without a CPU request: %v", err)
	}
}

// TestRenderScaling: the objects each scaling renders — the HPA scaling the
// gateway's Deployment, the Deployment with no replica count while the HPA
// sets it, and a PodDisruptionBudget only when at least two replicas run.
// Rendering again with autoscaling off removes the HPA.
func TestRenderScaling(t *testing.T) {
	const name = "demo-pawtograder-mcp-gateway"
	hpa := func(min, max, target int) any {
		return map[string]any{
			"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
			"minReplicas":    min,
			"maxReplicas":    max,
			"metrics": []any{map[string]any{
				"type": "Resource",
				"resource": map[string]any{
					"name":   "cpu",
					"target": map[string]any{"type": "Utilization", "averageUtilization": target},
				},
			}},
		}
	}
	pdb := func(minAvailable int) any {
		return map[string]any{
			"minAvailable": minAvailable,
			"selector": map[string]any{"matchLabels": map[string]any{
				"app.kubernetes.io/name": "pawtograder", "app.kubernetes.io/instance": "demo", "app.kubernetes.io/component": "mcp-gateway",
			}},
		}
	}
	tests := []struct {
		name, block string
		hpa         any // spec; nil: no HPA
		replicas    any // the Deployment's spec.replicas; nil: left out
		pdb         any // spec; nil: no PodDisruptionBudget
	}{
		{"shipped", "autoscaling:\n  enabled: true\n  minReplicas: 3\n  maxReplicas: 6\n  targetCPUUtilization: 70\n", hpa(3, 6, 70), nil, pdb(2)},
		{"autoscaled from two", "autoscaling:\n  minReplicas: 2\n  maxReplicas: 10\n", hpa(2, 10, 70), nil, pdb(1)},
		{"autoscaled from one", "autoscaling:\n  minReplicas: 1\n  maxReplicas: 4\n  targetCPUUtilization: 60\n", hpa(1, 4, 60), nil, nil},
		{"fixed three", "autoscaling:\n  enabled: false\nreplicas: 3\n", nil, 3, pdb(2)},
		{"fixed two", "autoscaling:\n  enabled: false\nreplicas: 2\n", nil, 2, pdb(1)},
		{"fixed one", "autoscaling:\n  enabled: false\nreplicas: 1\n", nil, 1, nil},
	}
	in := readFile(t, "testdata/chart.yaml")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := LoadSettings([]byte(withScaling(t, tt.block)))
			if err != nil {
				t.Fatal(err)
			}
			out, err := Render(in, s)
			if err != nil {
				t.Fatal(err)
			}
			objs := objects(t, out)
			spec := func(kind string) any {
				o := objs[kind+"/"+name]
				if o == nil {
					return nil
				}
				if diff := cmp.Diff(decode(t, get(objs["Deployment/"+name], "metadata")), decode(t, get(o, "metadata"))); diff != "" {
					t.Errorf("%s metadata differs from the Deployment's (-Deployment +%s):\n%s", kind, kind, diff)
				}
				return decode(t, get(o, "spec"))
			}
			if diff := cmp.Diff(tt.hpa, spec("HorizontalPodAutoscaler")); diff != "" {
				t.Errorf("HorizontalPodAutoscaler spec (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.pdb, spec("PodDisruptionBudget")); diff != "" {
				t.Errorf("PodDisruptionBudget spec (-want +got):\n%s", diff)
			}
			var replicas any
			if n := get(objs["Deployment/"+name], "spec", "replicas"); n != nil {
				replicas = decode(t, n)
			}
			if diff := cmp.Diff(tt.replicas, replicas); diff != "" {
				t.Errorf("Deployment spec.replicas (-want +got):\n%s", diff)
			}

			off, err := LoadSettings([]byte(withScaling(t, "autoscaling:\n  enabled: false\nreplicas: 1\n")))
			if err != nil {
				t.Fatal(err)
			}
			again, err := Render(out, off)
			if err != nil {
				t.Fatal(err)
			}
			for _, kind := range []string{"HorizontalPodAutoscaler", "PodDisruptionBudget"} {
				if objects(t, again)[kind+"/"+name] != nil {
					t.Errorf("rendered again with one fixed replica, the %s is still there", kind)
				}
			}
		})
	}
}

// TestDefaultResourcesAreShipped: leaving resources out gives what the
// shipped file states, the worked example's.
func TestDefaultResourcesAreShipped(t *testing.T) {
	s := shippedSettings(t)
	var got, want any
	if err := s.Resources.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if err := defaultResources().Decode(&want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mcp-gateway.yaml resources (-defaultResources +file):\n%s", diff)
	}
	var none yaml.Node
	s.Resources = none
	out, err := Render(readFile(t, "testdata/chart.yaml"), s)
	if err != nil {
		t.Fatal(err)
	}
	c := items(get(objects(t, out)["Deployment/demo-pawtograder-mcp-gateway"], "spec", "template", "spec", "containers"))
	if diff := cmp.Diff(want, decode(t, get(c[0], "resources"))); diff != "" {
		t.Errorf("resources without the block (-want +got):\n%s", diff)
	}
}

// TestGatewayObjectsConform validates the objects the post-renderer adds,
// with autoscaling on and off, against Kubernetes' schemas (as
// TestRealChart does the whole release); it needs
// KUBECONFORM_SCHEMA_LOCATION.
func TestGatewayObjectsConform(t *testing.T) {
	var stream []byte
	for _, block := range []string{"", "autoscaling:\n  enabled: false\nreplicas: 3\n"} {
		s, err := LoadSettings([]byte(withScaling(t, block)))
		if err != nil {
			t.Fatal(err)
		}
		out, err := Render(readFile(t, "testdata/chart.yaml"), s)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := splitDocs(out)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range docs {
			if text(d.root(), "metadata", "name") == "demo-pawtograder-mcp-gateway" {
				b, err := encode(d.node)
				if err != nil {
					t.Fatal(err)
				}
				stream = append(append(stream, "---\n"...), b...)
				n++
			}
		}
		if n < 3 {
			t.Fatalf("only %d gateway objects rendered", n)
		}
	}
	kubeconform(t, stream)
}

// TestRunRefusesScaling: the README's example of a refusal, as run
// returns it (main prefixes "mcp-gateway post-renderer: "), before any
// manifest is read.
func TestRunRefusesScaling(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mcp-gateway.yaml")
	settings := withScaling(t, "autoscaling:\n  enabled: true\n  minReplicas: 3\n  maxReplicas: 2\n  targetCPUUtilization: 70\n")
	if err := os.WriteFile(file, []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := run(strings.NewReader(string(readFile(t, "testdata/chart.yaml"))), &out, &bytes.Buffer{}, file)
	const want = "settings: autoscaling.maxReplicas (2) must be at least autoscaling.minReplicas (3)"
	if err == nil || err.Error() != want || out.Len() != 0 {
		t.Errorf("run error = %v, %d bytes written; want %q and nothing written", err, out.Len(), want)
	}
	readme := string(readFile(t, filepath.Join("..", "README.md")))
	if !strings.Contains(readme, "mcp-gateway post-renderer: "+want) {
		t.Errorf("README.md does not show the refusal %q", want)
	}
}
