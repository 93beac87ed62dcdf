package clientconfig

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestRenderGolden(t *testing.T) {
	got, err := Render(Options{URL: "https://project.example/functions/v1/mcp-server"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "placeholder.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestJSONSectionsParse(t *testing.T) {
	got, err := Render(Options{URL: "http://127.0.0.1:9000/functions/v1/mcp-server", Token: "mcp_abc.def.ghi", Name: "local"})
	if err != nil {
		t.Fatal(err)
	}
	sections := strings.Split(got, "\n\n")
	for _, i := range []int{0, 2} {
		body := sections[i][strings.Index(sections[i], "\n")+1:]
		var v map[string]any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Errorf("section %d is not JSON: %v\n%s", i, err, body)
		}
		if !strings.Contains(body, "Bearer mcp_abc.def.ghi") || !strings.Contains(body, `"local"`) {
			t.Errorf("section %d lacks the token or name:\n%s", i, body)
		}
	}
}

func TestRenderRejects(t *testing.T) {
	for _, o := range []Options{{URL: ""}, {URL: "ftp://x/y"}, {URL: "https://x/y", Token: "a b"}, {URL: "https://x/y", Token: `a"b`}} {
		if _, err := Render(o); err == nil {
			t.Errorf("Render(%+v) succeeded", o)
		}
	}
}
