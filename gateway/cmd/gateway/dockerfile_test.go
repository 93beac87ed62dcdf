package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// instruction is one Dockerfile instruction with its continuation lines
// joined.
type instruction struct {
	Cmd  string // upper-case keyword
	Args string
}

// stage is a FROM and the instructions after it.
type stage struct {
	From, Name   string
	Instructions []instruction
}

func (s stage) find(cmd string) []string {
	var out []string
	for _, in := range s.Instructions {
		if in.Cmd == cmd {
			out = append(out, in.Args)
		}
	}
	return out
}

func parseDockerfile(t *testing.T, path string) []stage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stages []stage
	var pending string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if pending == "" && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			pending += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		line = pending + line
		pending = ""
		cmd, args, _ := strings.Cut(line, " ")
		in := instruction{strings.ToUpper(cmd), strings.TrimSpace(args)}
		if in.Cmd == "FROM" {
			fields := strings.Fields(in.Args)
			st := stage{From: fields[0]}
			if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
				st.Name = fields[2]
			}
			stages = append(stages, st)
			continue
		}
		if len(stages) == 0 {
			if in.Cmd == "ARG" {
				continue
			}
			t.Fatalf("instruction before FROM: %q", line)
		}
		stages[len(stages)-1].Instructions = append(stages[len(stages)-1].Instructions, in)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return stages
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestDockerfile pins what the deployment relies on: two stages, a pinned
// toolchain matching go.mod, the static build line, distroless non-root at
// run time, port 9000 and the self-probing HEALTHCHECK.
func TestDockerfile(t *testing.T) {
	root := repoRoot(t)
	stages := parseDockerfile(t, filepath.Join(root, "Dockerfile"))
	if len(stages) != 2 {
		t.Fatalf("Dockerfile has %d stages, want 2", len(stages))
	}
	build, final := stages[0], stages[1]

	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	if goVersion == nil {
		t.Fatal("go.mod has no go directive")
	}
	if want := "docker.io/library/golang:" + string(goVersion[1]) + "-bookworm"; build.From != want || build.Name != "build" {
		t.Errorf("build stage = FROM %s AS %s, want FROM %s AS build (a pinned tag matching go.mod)", build.From, build.Name, want)
	}
	wantBuild := `CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/gateway ./gateway/cmd/gateway`
	if !contains(build.find("RUN"), wantBuild) {
		t.Errorf("build stage RUN lines %q lack %q", build.find("RUN"), wantBuild)
	}

	got := map[string][]string{
		"FROM":        {final.From},
		"COPY":        final.find("COPY"),
		"USER":        final.find("USER"),
		"EXPOSE":      final.find("EXPOSE"),
		"HEALTHCHECK": final.find("HEALTHCHECK"),
		"ENTRYPOINT":  final.find("ENTRYPOINT"),
		"RUN":         final.find("RUN"),
	}
	want := map[string][]string{
		"FROM":        {"gcr.io/distroless/static-debian12:nonroot"},
		"COPY":        {"--from=build /out/gateway /gateway"},
		"USER":        {"nonroot:nonroot"},
		"EXPOSE":      {"9000"},
		"HEALTHCHECK": {`--interval=10s --timeout=5s --start-period=5s --retries=3 CMD ["/gateway","healthcheck"]`},
		"ENTRYPOINT":  {`["/gateway"]`},
		"RUN":         nil, // distroless has no shell
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("final stage (-want +got):\n%s", diff)
	}
}

// TestDockerfileNamesImagesInFull: every image the Dockerfile pulls (each
// FROM that is not an earlier stage, and the syntax directive's frontend)
// starts with a registry host. Podman and buildah resolve a short name such
// as golang:1.26 only through the host's unqualified-search registries,
// which Debian leaves unset, so a short name fails there.
func TestDockerfileNamesImagesInFull(t *testing.T) {
	path := filepath.Join(repoRoot(t), "Dockerfile")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]string{}
	if m := regexp.MustCompile(`(?m)^#\s*syntax=(\S+)`).FindSubmatch(b); m != nil {
		refs["syntax directive"] = string(m[1])
	}
	stages := map[string]bool{}
	for i, st := range parseDockerfile(t, path) {
		if !stages[st.From] {
			refs[fmt.Sprintf("FROM of stage %d", i+1)] = st.From
		}
		if st.Name != "" {
			stages[st.Name] = true
		}
	}
	if len(refs) < 2 {
		t.Fatalf("found only %v", refs)
	}
	for what, ref := range refs {
		if !fullyQualified(ref) {
			t.Errorf("%s names %q, not a fully qualified image (registry host first, e.g. docker.io/library/…)", what, ref)
		}
	}
}

// fullyQualified reports whether ref's first path element is a registry
// host: it has a dot or a port, or is localhost (the rule Docker and
// containers/image use to tell a host from a Docker Hub namespace).
func fullyQualified(ref string) bool {
	host, rest, ok := strings.Cut(ref, "/")
	return ok && rest != "" && (strings.ContainsAny(host, ".:") || host == "localhost")
}

func TestFullyQualified(t *testing.T) {
	for ref, want := range map[string]bool{
		"docker.io/library/golang:1.26.8-bookworm":  true,
		"gcr.io/distroless/static-debian12:nonroot": true,
		"localhost:5000/mcp-gateway":                true,
		"localhost/mcp-gateway":                     true,
		"golang:1.26.8-bookworm":                    false,
		"library/golang:1.26.8-bookworm":            false,
		"docker/dockerfile:1":                       false,
	} {
		if got := fullyQualified(ref); got != want {
			t.Errorf("fullyQualified(%q) = %v, want %v", ref, got, want)
		}
	}
}

// TestBuildLineIsMarked keeps scripts/test's extraction working: exactly
// one RUN follows the "# build-line" comment.
func TestBuildLineIsMarked(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var marked []string
	for i, l := range lines {
		if strings.HasPrefix(l, "# build-line") && i+1 < len(lines) {
			marked = append(marked, lines[i+1])
		}
	}
	want := []string{`RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/gateway ./gateway/cmd/gateway`}
	if diff := cmp.Diff(want, marked); diff != "" {
		t.Errorf("lines after '# build-line' (-want +got):\n%s", diff)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
