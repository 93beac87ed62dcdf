// Package installdeps holds the tests of scripts/install-deps. It has no
// code of its own: the tests run the script in its dry-run mode
// (INSTALL_DEPS_DRY_RUN=1) with stand-ins for node and npm first on PATH
// and check what it decides to install, without installing anything.
package installdeps

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scriptNodeVersion is the Node.js release the script pins (NODE_VERSION).
func scriptNodeVersion(t *testing.T, script string) string {
	t.Helper()
	text, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^NODE_VERSION=(\d+\.\d+\.\d+)$`).FindSubmatch(text)
	if m == nil {
		t.Fatalf("%s pins no NODE_VERSION=x.y.z", script)
	}
	return string(m[1])
}

// TestNodeDecision: a node older than 20 (Debian 12's is 18) or none at
// all makes the script install the pinned Node.js from the npm registry,
// and says so in one line; node 20 or later is left alone.
func TestNodeDecision(t *testing.T) {
	script, err := filepath.Abs("../install-deps")
	if err != nil {
		t.Fatal(err)
	}
	version := scriptNodeVersion(t, script)
	if !strings.HasPrefix(version, "20.") {
		t.Errorf("NODE_VERSION=%s, want a Node.js 20 release", version)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH (install-deps requires it): %v", err)
	}
	tests := []struct {
		name string
		node string // what the stand-in node prints for --version; "" for no node or npm on PATH
		want []string
	}{
		{"Debian 12's node 18", "v18.19.0", []string{"install-deps: node 18.19.0 is older than 20: would install node " + version + " from the npm registry into NODEDIR"}},
		{"no node", "", []string{"install-deps: node is missing: would install node " + version + " from the npm registry into NODEDIR"}},
		{"node 20", "v20.11.0", nil},
		{"node 22", "v22.1.0", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			if err := os.Mkdir(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			// The script needs go on PATH; without a stand-in node, PATH
			// holds nothing else, so no node or npm is found.
			path := bin
			if err := os.Symlink(goBin, filepath.Join(bin, "go")); err != nil {
				t.Fatal(err)
			}
			if tt.node != "" {
				for name, out := range map[string]string{"node": tt.node, "npm": "10.8.2"} {
					if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\necho "+out+"\n"), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				path += string(os.PathListSeparator) + os.Getenv("PATH")
			}
			nodeDir := filepath.Join(dir, "nodejs-20")
			linkDir := filepath.Join(dir, "links")
			bash, err := exec.LookPath("bash")
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bash, script)
			cmd.Env = []string{"PATH=" + path, "HOME=" + dir, "INSTALL_DEPS_DRY_RUN=1",
				"INSTALL_DEPS_NODE_DIR=" + nodeDir, "INSTALL_DEPS_BIN_DIR=" + linkDir}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("install-deps: %v\n%s", err, out)
			}
			var got []string
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, "node") || strings.Contains(line, "npm") {
					got = append(got, strings.ReplaceAll(line, nodeDir, "NODEDIR"))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines about node (-want +got):\n%s\noutput:\n%s", diff, out)
			}
			for _, d := range []string{nodeDir, linkDir} {
				if _, err := os.Stat(d); !os.IsNotExist(err) {
					t.Errorf("the dry run created %s", d)
				}
			}
		})
	}
}
