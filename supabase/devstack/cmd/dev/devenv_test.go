package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The helpers below start the dev command in-process, as scripts/dev runs
// it (with a gateway binary built from this checkout), and run what it
// prints the way a user pastes it.

func TestMain(m *testing.M) {
	code := m.Run()
	if seeded.dev != nil {
		if err := seeded.dev.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the dev environment:", err)
			code = 1
		}
	}
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// gatewayBinary builds the gateway once per test binary.
func gatewayBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "dev-gateway-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "gateway")
		out, err := exec.Command("go", "build", "-o", built.path, "github.com/pawtograder/mcp-gateway/gateway/cmd/gateway").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("building the gateway: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// devRun is a running dev command.
type devRun struct {
	// banner is everything printed up to and including "Press Ctrl-C".
	banner  string
	envFile string
	stop    func() error
}

// startDev runs the dev command until its banner is printed.
func startDev(ctx context.Context, f flags) (*devRun, error) {
	runCtx, cancel := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, slog.New(slog.DiscardHandler), pw, f)
		pw.Close()
	}()
	ready := make(chan string, 1)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "Press Ctrl-C") {
				ready <- b.String()
			}
		}
		_, _ = io.Copy(io.Discard, pr) // after a scanner error, keep dev's writes from blocking
	}()
	stop := func() error {
		cancel()
		return <-done
	}
	select {
	case banner := <-ready:
		return &devRun{banner: banner, envFile: f.envFile, stop: stop}, nil
	case err := <-done:
		cancel()
		return nil, fmt.Errorf("dev exited before it was ready: %v", err)
	case <-time.After(3 * time.Minute):
		return nil, errors.Join(errors.New("dev not ready within 3 minutes"), stop())
	}
}

var seeded struct {
	once sync.Once
	dev  *devRun
	err  error
}

// seededDev is one dev environment over a new seeded cluster, shared by the
// tests that only read from it; TestMain stops it.
func seededDev(t *testing.T) *devRun {
	t.Helper()
	bin := gatewayBinary(t)
	seeded.once.Do(func() {
		dir, err := os.MkdirTemp("", "dev-env-")
		if err != nil {
			seeded.err = err
			return
		}
		// Ports 0: a free one each, so a scripts/dev already running on
		// the defaults is left alone.
		seeded.dev, seeded.err = startDev(context.Background(), flags{gatewayBin: bin, envFile: filepath.Join(dir, "env")})
	})
	if seeded.err != nil {
		t.Fatal(seeded.err)
	}
	return seeded.dev
}

// repoRoot is the repository root, where users paste commands.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root: %v", err)
	}
	return root
}

// freshShellEnv is the environment of a new terminal: PATH and a HOME of
// its own (the Inspector keeps a catalogue there), with npm's cache where
// the user's is, so npx does not download the same packages for every test.
func freshShellEnv(t *testing.T) []string {
	t.Helper()
	cache := os.Getenv("npm_config_cache")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(home, ".npm")
	}
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8", "npm_config_cache=" + cache}
}

// bash runs script with bash from the repository root in a fresh shell and
// returns its standard output; a non-zero exit fails the test.
func bash(t *testing.T, script string, timeout time.Duration) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = repoRoot(t)
	cmd.Env = freshShellEnv(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bash -c %q: %v\nstdout:\n%s\nstderr:\n%s", script, err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}
