package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A documentation block is runnable when its fence's info string is
// "sh runnable" (docs/testing.md, "Runnable blocks"): it runs with bash -euo
// pipefail from the repository root, with the settings of a running
// scripts/dev loaded (what `set -a; . .dev/env; set +a` gives), and passes
// when it exits 0.

// runnableMarker is the second word of a runnable block's info string.
const runnableMarker = "runnable"

// docBlock is a fenced block of a Markdown file.
type docBlock struct {
	file string
	line int // of the opening fence, 1-based
	info string
	body string
}

// fencedBlocks returns the ``` blocks of a Markdown text, bodies dedented
// by their fence's indentation (blocks inside list items).
func fencedBlocks(file, text string) ([]docBlock, error) {
	var blocks []docBlock
	var cur *docBlock
	var indent string
	var body strings.Builder
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if cur == nil {
			if strings.HasPrefix(trimmed, "```") {
				indent = line[:len(line)-len(trimmed)]
				cur = &docBlock{file: file, line: i + 1, info: strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))}
				body.Reset()
			}
			continue
		}
		if trimmed == "```" {
			cur.body = body.String()
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		body.WriteString(strings.TrimPrefix(line, indent) + "\n")
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: unterminated code block", file, cur.line)
	}
	return blocks, nil
}

// runnableBlocks reads README.md and docs/*.md under root and returns the
// blocks marked runnable; a marker on anything but a sh block is an error.
func runnableBlocks(root string) ([]docBlock, error) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	var out []docBlock
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, f)
		blocks, err := fencedBlocks(rel, string(b))
		if err != nil {
			return nil, err
		}
		for _, blk := range blocks {
			words := strings.Fields(blk.info)
			marked := false
			for _, w := range words {
				marked = marked || w == runnableMarker
			}
			if !marked {
				continue
			}
			if len(words) != 2 || words[0] != "sh" || words[1] != runnableMarker {
				return nil, fmt.Errorf("%s:%d: info string %q: a runnable block is ```sh %s", blk.file, blk.line, blk.info, runnableMarker)
			}
			out = append(out, blk)
		}
	}
	return out, nil
}

func TestFencedBlocks(t *testing.T) {
	text := "intro\n```sh runnable\ncurl a\ncurl b\n```\n\n1. step\n\n   ```sh\n   echo x\n     indented\n   ```\n```\nplain\n```\n"
	got, err := fencedBlocks("f.md", text)
	if err != nil {
		t.Fatal(err)
	}
	want := []docBlock{
		{file: "f.md", line: 2, info: "sh runnable", body: "curl a\ncurl b\n"},
		{file: "f.md", line: 9, info: "sh", body: "echo x\n  indented\n"},
		{file: "f.md", line: 13, info: "", body: "plain\n"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(docBlock{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := fencedBlocks("f.md", "```sh\nopen\n"); err == nil {
		t.Error("an unterminated block was accepted")
	}
}

// TestRunnableDocBlocks runs every block of README.md and docs/*.md marked
// runnable against a running dev environment.
func TestRunnableDocBlocks(t *testing.T) {
	blocks, err := runnableBlocks(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	// The files that document trying the dev environment must keep a
	// runnable block each, or this test would pass having run nothing.
	perFile := map[string]int{}
	for _, b := range blocks {
		perFile[b.file]++
	}
	for _, f := range []string{"README.md", filepath.Join("docs", "oauth.md")} {
		if perFile[f] == 0 {
			t.Errorf("%s has no runnable block", f)
		}
	}
	dev := seededDev(t)
	load := "set -a; . " + shellQuote(dev.envFile) + "; set +a\n"
	for _, b := range blocks {
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			bash(t, "set -euo pipefail\n"+load+b.body, 2*time.Minute)
		})
	}
}
