// Command postrender is a Helm post-renderer that adds the MCP gateway to a
// release of Pawtograder's chart (charts/pawtograder in
// pawtograder/platform), which has no values for extra workloads or Kong
// routes. Helm pipes the rendered manifests through it:
//
//	go build -o bin/mcp-gateway-postrender ./deploy/pawtograder-chart/postrender
//	helm upgrade --install pawtograder <chart> -f values.yaml \
//	  --post-renderer bin/mcp-gateway-postrender \
//	  --post-renderer-args=-settings=deploy/pawtograder-chart/mcp-gateway.yaml
//
// The settings file may also be named by MCP_GATEWAY_SETTINGS. What it adds
// and why is described in deploy/pawtograder-chart/README.md.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	settings := flag.String("settings", os.Getenv("MCP_GATEWAY_SETTINGS"), "the post-renderer's settings file (default $MCP_GATEWAY_SETTINGS)")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, os.Stderr, *settings); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-gateway post-renderer:", err)
		os.Exit(1)
	}
}

// run renders in to out; warnings go to warn (Helm shows a post-renderer's
// stderr only when it fails; `helm template … | postrender` shows them).
func run(in io.Reader, out, warn io.Writer, settingsFile string) error {
	if settingsFile == "" {
		return fmt.Errorf("no settings file: pass -settings=<file> (helm: --post-renderer-args=-settings=<file>) or set MCP_GATEWAY_SETTINGS")
	}
	data, err := os.ReadFile(settingsFile)
	if err != nil {
		return err
	}
	s, err := LoadSettings(data)
	if err != nil {
		return err
	}
	manifests, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	b, warnings, err := render(manifests, s)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(warn, "mcp-gateway post-renderer: warning:", w)
	}
	_, err = out.Write(b)
	return err
}
