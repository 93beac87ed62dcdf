package fuzzscript

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The module under test has one target that always passes and one that
// fails on any input of two bytes or more, which the engine finds at once.
const (
	goMod      = "module example.com/fz\n\ngo 1.22\n"
	targetFile = `package fz

import "testing"

func FuzzGood(f *testing.F) {
	f.Add("a")
	f.Fuzz(func(t *testing.T, s string) {})
}

func FuzzShort(f *testing.F) {
	f.Add("a")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) >= 2 {
			t.Fatalf("input too long: %d bytes", len(s))
		}
	})
}
`
)

// goShim stands in for the go command on PATH. For a fuzzing run of the
// target named in $SHIM_TARGET it fakes the engine's failure $SHIM_MODE
// the first $SHIM_TIMES times (counted in $SHIM_COUNT); everything else
// goes to the real go command.
const goShim = `#!/usr/bin/env bash
set -u
if [[ " $* " == *" -fuzz ^${SHIM_TARGET}\$ "* ]]; then
	n=$(cat "$SHIM_COUNT" 2>/dev/null || echo 0)
	if [ "$n" -lt "$SHIM_TIMES" ]; then
		echo $((n + 1)) >"$SHIM_COUNT"
		case "$SHIM_MODE" in
		deadline)
			printf -- '--- FAIL: %s (3.01s)\n    context deadline exceeded\nFAIL\n' "$SHIM_TARGET"
			exit 1 ;;
		hung)
			mkdir -p "testdata/fuzz/$SHIM_TARGET"
			printf 'go test fuzz v1\nstring("b")\n' >"testdata/fuzz/$SHIM_TARGET/0123abcd"
			printf -- '--- FAIL: %s (3.20s)\n    fuzzing process hung or terminated unexpectedly: exit status 2\n    Failing input written to testdata/fuzz/%s/0123abcd\nFAIL\n' "$SHIM_TARGET" "$SHIM_TARGET"
			exit 1 ;;
		other)
			printf -- '--- FAIL: %s (0.50s)\n    something else went wrong\nFAIL\n' "$SHIM_TARGET"
			exit 1 ;;
		esac
	fi
fi
exec "$REAL_GO" "$@"
`

type run struct {
	out    string
	failed bool
	mod    string // the module's directory, to look at testdata afterwards
}

// runScript writes the module and the shim to a fresh directory and runs
// scripts/fuzz there for the targets matching target.
func runScript(t *testing.T, target, mode string, times int) run {
	t.Helper()
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	script, err := filepath.Abs("../fuzz")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mod := filepath.Join(dir, "mod")
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{mod, bin} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string, mode os.FileMode) {
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(mod, "go.mod"), goMod, 0o644)
	write(filepath.Join(mod, "fz_test.go"), targetFile, 0o644)
	write(filepath.Join(bin, "go"), goShim, 0o755)

	// The script finds the module from its own location, so it runs from
	// a copy inside the temporary module's scripts/ directory.
	body, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(mod, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(mod, "scripts", "fuzz"), string(body), 0o755)

	cmd := exec.Command(filepath.Join(mod, "scripts", "fuzz"), "-fuzztime", "2s", "-run", "^"+target+"$", "./...")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"REAL_GO="+realGo,
		"SHIM_TARGET="+target,
		"SHIM_MODE="+mode,
		"SHIM_TIMES="+strconv.Itoa(times),
		"SHIM_COUNT="+filepath.Join(dir, "count"),
	)
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("scripts/fuzz did not run: %v\n%s", err, out)
	}
	return run{out: string(out), failed: err != nil, mod: mod}
}

// resultOf returns the RESULT column of target's row in the closing table.
func resultOf(t *testing.T, out, target string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + target + `\s+\./?\S*\s+\S+\s+\S+\s+\S+ (.*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no table row for %s in:\n%s", target, out)
	}
	return m[1]
}

// The real engine can flake too (golang/go#51484 happens about one run
// in ten on a loaded machine), on top of the flakes the shim injects, so a
// passing verdict may count more flakes than were injected.
func TestFuzzScriptVerdicts(t *testing.T) {
	const okAfter = `^ok after [%d-4] engine flake\(s\)$`
	tests := []struct {
		name       string
		target     string
		mode       string
		times      int
		wantFailed bool
		wantResult string   // a regular expression
		wantOutput []string // lines the output must contain
		wantKept   string   // corpus file left in testdata, "" for none
	}{
		{
			name: "clean run", target: "FuzzGood", mode: "none", times: 0,
			wantResult: `^ok( after [1-4] engine flake\(s\))?$`,
		},
		{
			name: "deadline flake once is retried", target: "FuzzGood", mode: "deadline", times: 1,
			wantResult: fmt.Sprintf(okAfter, 1),
		},
		{
			name: "hung flake twice is retried and its input dropped", target: "FuzzGood", mode: "hung", times: 2,
			wantResult: fmt.Sprintf(okAfter, 2),
		},
		{
			name: "five flakes fail the target", target: "FuzzGood", mode: "deadline", times: 5,
			wantFailed: true,
			wantResult: `^FAIL: engine flaked 5 times \(deadline exceeded without an input, golang/go#51484\)$`,
			wantOutput: []string{"---- output of FuzzGood (last 40 lines):", "    context deadline exceeded", "scripts/fuzz: FAILED"},
		},
		{
			name: "an unknown failure is not retried", target: "FuzzGood", mode: "other", times: 1,
			wantFailed: true,
			wantResult: `^FAIL$`,
			wantOutput: []string{"    something else went wrong"},
		},
		{
			name: "a real crasher fails and is kept", target: "FuzzShort", mode: "none", times: 0,
			wantFailed: true,
			wantResult: `^FAIL crasher$`,
			wantOutput: []string{"input too long", "crashers kept as regression inputs (commit them with the fix):"},
			wantKept:   "testdata/fuzz/FuzzShort",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runScript(t, tt.target, tt.mode, tt.times)
			if r.failed != tt.wantFailed {
				t.Errorf("script failed = %v, want %v\n%s", r.failed, tt.wantFailed, r.out)
			}
			if got := resultOf(t, r.out, tt.target); !regexp.MustCompile(tt.wantResult).MatchString(got) {
				t.Errorf("result = %q, want a match of %s\n%s", got, tt.wantResult, r.out)
			}
			for _, line := range tt.wantOutput {
				if !strings.Contains(r.out, line) {
					t.Errorf("output lacks %q:\n%s", line, r.out)
				}
			}
			entries, _ := os.ReadDir(filepath.Join(r.mod, "testdata", "fuzz", tt.target))
			if tt.wantKept == "" && len(entries) != 0 {
				t.Errorf("testdata/fuzz/%s keeps %d files, want none", tt.target, len(entries))
			}
			if tt.wantKept != "" {
				if len(entries) != 1 {
					t.Fatalf("%s holds %d files, want the one crasher", tt.wantKept, len(entries))
				}
				if !strings.Contains(r.out, "    "+tt.wantKept+"/"+entries[0].Name()) {
					t.Errorf("the crasher's path %s/%s is not listed:\n%s", tt.wantKept, entries[0].Name(), r.out)
				}
			}
		})
	}
}
