package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// Tools the real-chart test builds from their Go modules, pinned.
const (
	helmModule       = "helm.sh/helm/v3/cmd/helm@v3.22.0"
	kubeconformTool  = "github.com/yannh/kubeconform/cmd/kubeconform@v0.8.0"
	chartKubeVersion = "1.31.0" // a built-from-source helm defaults to 1.20, below the chart's kubeVersion
)

// prodBlanks fill what the chart's examples/values-prod.yaml leaves for the
// operator and its render-time guard rails refuse empty.
var prodBlanks = []string{
	"monitoring.prometheusRules.labels.release=kube-prometheus-stack",
	"web.image.tag=v1.0.0",
	"edgeFunctions.image.tag=v1.0.0",
	"migrations.image.tag=v1.0.0",
	"postgres.persistence.storageClass=replicated",
	"postgres.walg.s3Prefix=s3://backups/walg",
	"backup.s3.endpoint=https://s3.example.edu",
	"storage.s3.endpoint=https://s3.example.edu",
}

// CRD kinds of the chart (External Secrets, Prometheus Operator) that
// kubeconform has no built-in schema for.
var crdKinds = []string{"ExternalSecret", "ServiceMonitor", "PodMonitor", "PrometheusRule", "AlertmanagerConfig"}

func goTool(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOBIN="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// fromRepoRoot resolves a relative path given in an environment variable
// against the repository root, where the README's commands are run, not
// against this package's directory, where go test runs the test.
func fromRepoRoot(t *testing.T, path string) string {
	t.Helper()
	if filepath.IsAbs(path) {
		return path
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, path)
}

// TestRealChart renders Pawtograder's chart with its production example
// values and the post-renderer, and checks what an install would get. It
// needs a checkout of charts/pawtograder (pawtograder/platform), named by
// PAWTOGRADER_CHART_DIR (absolute, or relative to the repository root);
// kubeconform's schema validation additionally
// needs KUBECONFORM_SCHEMA_LOCATION (see README.md).
func TestRealChart(t *testing.T) {
	chart := os.Getenv("PAWTOGRADER_CHART_DIR")
	if chart == "" {
		t.Skip("PAWTOGRADER_CHART_DIR is not set: point it at a charts/pawtograder checkout of pawtograder/platform to render the real chart")
	}
	chart = fromRepoRoot(t, chart)
	settingsFile, err := filepath.Abs(filepath.Join("..", "mcp-gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	goTool(t, bin, "install", helmModule)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	goTool(t, wd, "build", "-o", filepath.Join(bin, "postrender"), ".")

	args := []string{"template", "pawtograder", chart, "--namespace", "pawtograder",
		"--kube-version", chartKubeVersion,
		"-f", filepath.Join(chart, "examples", "values-prod.yaml")}
	for _, s := range prodBlanks {
		args = append(args, "--set", s)
	}
	plain := helm(t, bin, args...)
	out := helm(t, bin, append(args, "--post-renderer", filepath.Join(bin, "postrender"), "--post-renderer-args=-settings="+settingsFile)...)
	if dir := os.Getenv("PAWTOGRADER_CHART_OUT"); dir != "" {
		dir = fromRepoRoot(t, dir)
		// For reading the result by hand.
		_ = os.WriteFile(filepath.Join(dir, "plain.yaml"), plain, 0o644)
		_ = os.WriteFile(filepath.Join(dir, "post-rendered.yaml"), out, 0o644)
	}

	s := shippedSettings(t)
	objs := objects(t, out)
	for key, o := range objs {
		if text(o, "apiVersion") == "" || text(o, "kind") == "" || text(o, "metadata", "name") == "" {
			t.Errorf("%s lacks apiVersion, kind or metadata.name", key)
		}
	}
	const full = "pawtograder"
	gw := objs["Deployment/"+full+"-mcp-gateway"]
	svc := objs["Service/"+full+"-mcp-gateway"]
	if gw == nil || svc == nil || objs["HorizontalPodAutoscaler/"+full+"-mcp-gateway"] == nil || objs["PodDisruptionBudget/"+full+"-mcp-gateway"] == nil {
		t.Fatal("the gateway's Deployment, Service, HorizontalPodAutoscaler or PodDisruptionBudget is missing")
	}

	t.Run("kong routes reach the gateway service", func(t *testing.T) {
		raw, k := kongConfig(t, objs, full+"-kong-config")
		_, route := kongService(k, "mcp-gateway")
		if route == nil {
			t.Fatal("kong.yml has no mcp-gateway service")
		}
		var port string
		for _, p := range items(get(svc, "spec", "ports")) {
			if text(p, "name") == "http" {
				port = text(p, "port")
			}
		}
		if want := fmt.Sprintf("http://%s:%s", text(svc, "metadata", "name"), port); route["url"] != want {
			t.Errorf("mcp-gateway url = %v, want the Service %s", route["url"], want)
		}
		var paths []any
		for _, r := range route["routes"].([]any) {
			if r.(map[string]any)["strip_path"] != false {
				t.Errorf("route %v strips its path", r)
			}
			paths = append(paths, r.(map[string]any)["paths"].([]any)...)
		}
		var want []any
		for _, p := range gatewayPaths {
			want = append(want, p)
		}
		if diff := cmp.Diff(want, paths); diff != "" {
			t.Errorf("routed paths (-want +got):\n%s", diff)
		}
		// The chart's catch-all must still be there for every other function.
		if _, fn := kongService(k, "functions-v1"); fn == nil {
			t.Error("functions-v1 is gone")
		}
		sum := sha256.Sum256([]byte(raw))
		if got := text(objs["Deployment/"+full+"-kong"], "spec", "template", "metadata", "annotations", "checksum/config"); got != hex.EncodeToString(sum[:]) {
			t.Errorf("Kong checksum/config = %s, want the sha256 of the rendered kong.yml", got)
		}
		// Helm's own checksum is replaced, so Kong rolls onto the routes.
		_, plainKong := kongConfig(t, objects(t, plain), full+"-kong-config")
		if _, r := kongService(plainKong, "mcp-gateway"); r != nil {
			t.Error("the chart without the post-renderer already has an mcp-gateway route; the test compares nothing")
		}
	})

	t.Run("secrets are the chart's or the operator's", func(t *testing.T) {
		// (Secret, key) pairs the chart's own workloads read, and Secrets
		// they take whole (envFrom).
		keys, whole := map[string]bool{}, map[string]bool{}
		for key, o := range objs {
			if strings.HasSuffix(key, "/"+full+"-mcp-gateway") {
				continue
			}
			walk(o, func(n *yaml.Node) {
				if ref := get(n, "secretKeyRef"); ref != nil {
					keys[text(ref, "name")+"/"+text(ref, "key")] = true
				}
				if ref := get(n, "secretRef"); ref != nil {
					whole[text(ref, "name")] = true
				}
			})
		}
		operator := map[string]bool{s.Secret + "/MCP_JWT_SECRET": true, s.Secret + "/GATEWAY_OAUTH_SECRET": true}
		n := 0
		walk(gw, func(node *yaml.Node) {
			ref := get(node, "secretKeyRef")
			if ref == nil {
				return
			}
			n++
			pair := text(ref, "name") + "/" + text(ref, "key")
			switch {
			case keys[pair], operator[pair]:
			case whole[text(ref, "name")] && text(ref, "optional") == "true":
				// A key of an integration Secret the edge functions read
				// whole; optional there and here.
			default:
				t.Errorf("the gateway reads %s, which neither the chart nor the documented operator Secret %q provides", pair, s.Secret)
			}
		})
		if n < 6 {
			t.Errorf("only %d secret references in the gateway Deployment", n)
		}
	})

	t.Run("env names are read", func(t *testing.T) {
		known := knownEnv(t)
		for _, name := range envNames(gw) {
			if !slices.Contains(known, name) {
				t.Errorf("env %s is not read by the gateway", name)
			}
		}
	})

	t.Run("network policy admits the gateway", func(t *testing.T) {
		np := objs["NetworkPolicy/"+full+"-allow-same-release"]
		if np == nil {
			t.Fatal("the production values render no allow-same-release NetworkPolicy")
		}
		pod := decode(t, get(gw, "spec", "template", "metadata", "labels")).(map[string]any)
		for _, sel := range []*yaml.Node{get(np, "spec", "podSelector", "matchLabels"), get(items(get(items(get(np, "spec", "ingress"))[0], "from"))[0], "podSelector", "matchLabels")} {
			for k, v := range decode(t, sel).(map[string]any) {
				if pod[k] != v {
					t.Errorf("gateway pod label %s = %v, want %v", k, pod[k], v)
				}
			}
		}
	})

	t.Run("only the expected objects change", func(t *testing.T) {
		before := objects(t, plain)
		var changed []string
		for key, o := range before {
			if objs[key] == nil {
				t.Errorf("%s was dropped", key)
			} else if diff := cmp.Diff(decode(t, o), decode(t, objs[key])); diff != "" {
				changed = append(changed, key)
			}
		}
		slices.Sort(changed)
		want := []string{"ConfigMap/" + full + "-kong-config", "Deployment/" + full + "-auth", "Deployment/" + full + "-kong"}
		if diff := cmp.Diff(want, changed); diff != "" {
			t.Errorf("changed objects (-want +got):\n%s", diff)
		}
		if got, want := len(objs), len(before)+4; got != want {
			t.Errorf("%d objects, want %d (the chart's and four)", got, want)
		}
	})

	t.Run("kubeconform", func(t *testing.T) { kubeconform(t, out) })
}

// kubeconform validates a rendered stream against Kubernetes' schemas
// (kubeconform -strict, at chartKubeVersion, the chart's CRD kinds
// skipped). It needs KUBECONFORM_SCHEMA_LOCATION: "default" fetches the
// schemas from GitHub, or name a local copy in kubeconform's layout.
func kubeconform(t *testing.T, out []byte) {
	t.Helper()
	loc := os.Getenv("KUBECONFORM_SCHEMA_LOCATION")
	if loc == "" {
		t.Skip("KUBECONFORM_SCHEMA_LOCATION is not set: kubeconform needs Kubernetes JSON schemas (\"default\" fetches them from GitHub, or name a local copy)")
	}
	file := filepath.Join(t.TempDir(), "post-rendered.yaml")
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", kubeconformTool, "-strict", "-summary",
		"-kubernetes-version", chartKubeVersion, "-schema-location", loc,
		"-skip", strings.Join(crdKinds, ","), file)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kubeconform: %v\n%s", err, b)
	} else {
		t.Logf("kubeconform: %s", bytes.TrimSpace(b))
	}
}

func helm(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "helm"), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

// walk calls f on every node under n.
func walk(n *yaml.Node, f func(*yaml.Node)) {
	f(n)
	for _, c := range n.Content {
		walk(c, f)
	}
}
