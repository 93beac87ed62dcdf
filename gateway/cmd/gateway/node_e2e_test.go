package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"time"
)

// runNodeJSON runs `node script args…` in dir, for at most two minutes,
// and decodes what it prints (one JSON value) into v. A failure carries
// both outputs. It may be called from goroutines other than the test's.
func runNodeJSON(node, dir string, v any, script string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	name := script
	if len(args) > 0 {
		name += " " + args[0]
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("node %s: %v\nstdout:\n%s\nstderr:\n%s", name, err, stdout.String(), stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		return fmt.Errorf("node %s output: %v\n%s", name, err, stdout.String())
	}
	return nil
}
