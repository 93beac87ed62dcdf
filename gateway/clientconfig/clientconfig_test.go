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
	for i, want := range map[int]string{0: "Bearer mcp_abc.def.ghi", 2: "Bearer mcp_abc.def.ghi", 3: "Bearer ${input:local-token}"} {
		body := sections[i][strings.Index(sections[i], "\n")+1:]
		var v map[string]any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Errorf("section %d is not JSON: %v\n%s", i, err, body)
		}
		if !strings.Contains(body, want) || !strings.Contains(body, `"local"`) {
			t.Errorf("section %d lacks %q or the name:\n%s", i, want, body)
		}
	}
	// VS Code's mcp.json: a Streamable HTTP server under "servers", its
	// token from a password input, never the token itself.
	var vs struct {
		Servers map[string]struct{ Type, URL string } `json:"servers"`
		Inputs  []struct {
			Type, ID string
			Password bool
		} `json:"inputs"`
	}
	body := sections[3][strings.Index(sections[3], "\n")+1:]
	if err := json.Unmarshal([]byte(body), &vs); err != nil || vs.Servers["local"].Type != "http" || vs.Servers["local"].URL != "http://127.0.0.1:9000/functions/v1/mcp-server" ||
		len(vs.Inputs) != 1 || vs.Inputs[0].ID != "local-token" || vs.Inputs[0].Type != "promptString" || !vs.Inputs[0].Password || strings.Contains(body, "mcp_abc") {
		t.Errorf("VS Code section (%v):\n%s", err, body)
	}
}

// TestChatGPTNeedsAPublicURL: ChatGPT connects from OpenAI's servers, so
// its section says when the URL cannot be reached from there.
func TestChatGPTNeedsAPublicURL(t *testing.T) {
	for url, warned := range map[string]bool{
		"https://project.example/functions/v1/mcp-server": false,
		"http://project.example/functions/v1/mcp-server":  true,
		"http://127.0.0.1:9000/functions/v1/mcp-server":   true,
		"https://localhost/functions/v1/mcp-server":       true,
		"https://10.1.2.3/functions/v1/mcp-server":        true,
		"https://[::1]:8443/functions/v1/mcp-server":      true,
	} {
		got, err := Render(Options{URL: url})
		if err != nil {
			t.Fatal(err)
		}
		chatgpt := got[strings.Index(got, "# ChatGPT"):]
		chatgpt = chatgpt[:strings.Index(chatgpt, "\n\n")]
		if strings.Contains(chatgpt, "not reachable from ChatGPT") != warned {
			t.Errorf("%s: warned %v, want %v:\n%s", url, !warned, warned, chatgpt)
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
