package repofiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pawtograder/mcp-gateway/functions/mcpserver/repofiles/githubfake"
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

func newFake(t *testing.T) *githubfake.Server {
	t.Helper()
	gh := githubfake.New(githubfake.Options{})
	t.Cleanup(gh.Close)
	gh.AddInstallation("other-org", 7)
	gh.AddInstallation("pawtograder-org", 42)
	return gh
}

func newClient(t *testing.T, gh *githubfake.Server, mod func(*Options)) *Client {
	t.Helper()
	opts := Options{
		AppID:         gh.AppIDString(),
		PrivateKeyPEM: gh.PrivateKeyPEM(),
		BaseURL:       gh.URL,
		HTTPClient:    gh.Client(),
		Logger:        quietLog,
	}
	if mod != nil {
		mod(&opts)
	}
	c, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// sampleRepo has files in an order that differs between git tree order,
// path order and insertion order, plus every exclusion and non-file kind.
func sampleRepo(gh *githubfake.Server) {
	gh.AddRepo("pawtograder-org", "grader").
		AddFile("src/main/App.java", "class App {}").
		AddFile("README.md", "# readme").
		AddFile("src/main/Util.java", "class Util {}").
		AddFile("src/test/AppTest.java", "class AppTest {}").
		AddFile("src-extra.txt", "extra").
		AddFile("build.gradle", "plugins {}").
		AddFile(".gitignore", "build/").
		AddFile(".github/workflows/grade.yml", "on: push").
		AddFile("node_modules/left-pad/index.js", "module.exports = 1").
		AddFile(".DS_Store", "x").
		AddFile("docs/.DS_Store", "x").
		AddFile("out/App.class", "\xca\xfe\xba\xbe").
		AddFile("scripts/run.pyc", "x").
		AddFile("__pycache__/a.pyc", "x").
		AddFile("lib/__pycache__/notes.txt", "kept").
		AddFileWithSize("data/exact.bin", "e", 100000).
		AddFileWithSize("data/big.bin", "b", 100001).
		AddSymlink("link-to-readme", "README.md").
		AddSubmodule("vendor/lib", "https://github.com/x/lib.git")
}

func TestListOrderAndExclusions(t *testing.T) {
	gh := newFake(t)
	sampleRepo(gh)
	c := newClient(t, gh, nil)
	tests := []struct {
		kind Kind
		want []File
	}{
		{Grader, []File{
			{"README.md", 8},
			{"build.gradle", 10},
			{"data/exact.bin", 100000},
			{"docs/.DS_Store", 1},
			{"lib/__pycache__/notes.txt", 4},
			{"src-extra.txt", 5},
			{"src/main/App.java", 12},
			{"src/main/Util.java", 13},
			{"src/test/AppTest.java", 16},
			// GitHub lists submodules as files of size 0; the original
			// cannot tell them apart either.
			{"vendor/lib", 0},
		}},
	}
	tests = append(tests, struct {
		kind Kind
		want []File
	}{Handout, tests[0].want})
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.kind), func(t *testing.T) {
			got, err := c.List(context.Background(), "pawtograder-org", "grader", tt.kind)
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("List mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListOrderIsPreOrderByEntry(t *testing.T) {
	gh := newFake(t)
	// git tree order puts "a.txt" < "a/" (since '.' < '/') and "a/" < "a0".
	gh.AddRepo("pawtograder-org", "order").
		AddFile("a0", "").
		AddFile("a/z.txt", "").
		AddFile("a/b/c.txt", "").
		AddFile("a.txt", "").
		AddFile("Z.txt", "")
	c := newClient(t, gh, nil)
	got, err := c.List(context.Background(), "pawtograder-org", "order", Grader)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{{"Z.txt", 0}, {"a.txt", 0}, {"a/b/c.txt", 0}, {"a/z.txt", 0}, {"a0", 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List mismatch (-want +got):\n%s", diff)
	}
	// Nested directories are requested with '/' encoded as %2F, like octokit.
	paths := gh.ContentPaths()
	wantPaths := []string{
		"/repos/pawtograder-org/order/contents/",
		"/repos/pawtograder-org/order/contents/a",
		"/repos/pawtograder-org/order/contents/a%2Fb",
	}
	if diff := cmp.Diff(wantPaths, paths); diff != "" {
		t.Errorf("request paths mismatch (-want +got):\n%s", diff)
	}
}

func TestListErrors(t *testing.T) {
	gh := newFake(t)
	sampleRepo(gh)
	gh.AddRepo("pawtograder-org", "empty")
	gh.AddRepo("pawtograder-org", "broken").
		AddFile("ok.txt", "x").
		AddFile("bad/x.txt", "x").
		FailPath("bad", http.StatusInternalServerError)
	gh.AddRepo("Pawtograder-Org", "grader").AddFile("a", "b")
	c := newClient(t, gh, nil)
	unconfigured, err := New(Options{BaseURL: gh.URL, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		c         *Client
		org, repo string
		check     func(error) bool
		want      string
	}{
		{"not configured", unconfigured, "pawtograder-org", "grader",
			func(err error) bool { return errors.Is(err, ErrNotConfigured) },
			"repofiles: GitHub App credentials are not configured"},
		{"no installation", c, "nobody", "grader",
			func(err error) bool { var e *NoInstallationError; return errors.As(err, &e) && e.Org == "nobody" },
			`repofiles: no GitHub App installation for "nobody"`},
		{"installation match is case-sensitive", c, "Pawtograder-Org", "grader",
			func(err error) bool { var e *NoInstallationError; return errors.As(err, &e) },
			`repofiles: no GitHub App installation for "Pawtograder-Org"`},
		{"missing repo", c, "pawtograder-org", "nope",
			func(err error) bool { return errors.Is(err, ErrNotFound) },
			"repofiles: list directory: GitHub answered 404: Not Found"},
		{"empty repo", c, "pawtograder-org", "empty",
			func(err error) bool { return errors.Is(err, ErrNotFound) },
			"repofiles: list directory: GitHub answered 404: This repository is empty."},
		{"subdirectory failure aborts", c, "pawtograder-org", "broken",
			func(err error) bool { var e *HTTPError; return errors.As(err, &e) && e.Status == 500 },
			"repofiles: list directory: GitHub answered 500: Internal Server Error"},
		{"invalid owner", c, "..", "grader",
			func(err error) bool { return errors.Is(err, ErrInvalidRepo) },
			`repofiles: invalid repository name: ".."/"grader"`},
		{"invalid repo", c, "pawtograder-org", "a?b",
			func(err error) bool { return errors.Is(err, ErrInvalidRepo) },
			`repofiles: invalid repository name: "pawtograder-org"/"a?b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := tt.c.List(context.Background(), tt.org, tt.repo, Grader)
			if err == nil {
				t.Fatalf("List = %v, want error", files)
			}
			if !tt.check(err) {
				t.Errorf("List error %T %v has the wrong type", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("List error = %q, want %q", err.Error(), tt.want)
			}
		})
	}
}

func TestFetch(t *testing.T) {
	gh := newFake(t)
	sampleRepo(gh)
	gh.AddRepo("pawtograder-org", "grader").
		AddFile("text/bom.txt", "\xef\xbb\xbfhello").
		AddFile("text/latin1.txt", "caf\xe9").
		AddFile("text/fail.txt", "x").
		FailPath("text/fail.txt", http.StatusBadGateway)
	c := newClient(t, gh, nil)
	got := c.Fetch(context.Background(), "pawtograder-org", "grader", []string{
		"src/main/Util.java",
		"text/latin1.txt",
		"missing.txt",    // 404: skipped
		"src",            // a directory: skipped
		"vendor/lib",     // a submodule: no content, skipped
		"link-to-readme", // symlink answer without content: skipped
		"text/fail.txt",  // 502: skipped
		"README.md",
		"text/bom.txt",
	})
	want := []Content{
		{"README.md", "# readme"},
		{"src/main/Util.java", "class Util {}"},
		{"text/bom.txt", "\ufeffhello"},
		{"text/latin1.txt", "caf\ufffd"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Fetch mismatch (-want +got):\n%s", diff)
	}
}

func TestFetchCapAndConcurrency(t *testing.T) {
	gh := newFake(t)
	r := gh.AddRepo("pawtograder-org", "many")
	var paths []string
	for i := 149; i >= 0; i-- { // reverse order: output must still be sorted
		p := fmt.Sprintf("f%03d.txt", i)
		r.AddFile(p, p)
		paths = append(paths, p)
	}
	gh.SetLatency(5 * time.Millisecond)
	c := newClient(t, gh, nil)
	got := c.Fetch(context.Background(), "pawtograder-org", "many", paths)
	var want []Content
	for i := 50; i < 150; i++ { // the first 100 requested are f149 … f050
		p := fmt.Sprintf("f%03d.txt", i)
		want = append(want, Content{p, p})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Fetch mismatch (-want +got):\n%s", diff)
	}
	st := gh.Stats()
	if st.ContentRequests != 100 {
		t.Errorf("content requests = %d, want 100 (MaxFiles)", st.ContentRequests)
	}
	if st.MaxInFlight > DefaultFetchConcurrency || st.MaxInFlight < 2 {
		t.Errorf("peak concurrent requests = %d, want 2..%d", st.MaxInFlight, DefaultFetchConcurrency)
	}
}

func TestListConcurrencyBounded(t *testing.T) {
	gh := newFake(t)
	r := gh.AddRepo("pawtograder-org", "wide")
	var want []File
	for i := range 30 {
		for j := range 3 {
			p := fmt.Sprintf("d%02d/e%d/f.txt", i, j)
			r.AddFile(p, "x")
			want = append(want, File{p, 1})
		}
	}
	gh.SetLatency(5 * time.Millisecond)
	c := newClient(t, gh, func(o *Options) { o.FetchConcurrency = 4 })
	got, err := c.List(context.Background(), "pawtograder-org", "wide", Grader)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List mismatch (-want +got):\n%s", diff)
	}
	if st := gh.Stats(); st.MaxInFlight > 4 || st.MaxInFlight < 2 {
		t.Errorf("peak concurrent requests = %d, want 2..4", st.MaxInFlight)
	}
}

func TestTokenCaching(t *testing.T) {
	gh := newFake(t)
	sampleRepo(gh)
	c := newClient(t, gh, nil)
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 8 { // concurrent first use: one installation list, one token
		wg.Go(func() {
			if _, err := c.List(ctx, "pawtograder-org", "grader", Grader); err != nil {
				t.Errorf("List: %v", err)
			}
		})
	}
	wg.Wait()
	for range 5 {
		c.Fetch(ctx, "pawtograder-org", "grader", []string{"README.md"})
	}
	st := gh.Stats()
	if st.TokenRequests != 1 || st.InstallationLists != 1 {
		t.Errorf("token requests = %d, installation lists = %d; want 1 and 1", st.TokenRequests, st.InstallationLists)
	}

	// Tokens that expire within the refresh margin are replaced on use.
	gh2 := newFake(t)
	sampleRepo(gh2)
	gh2.SetTokenTTL(90 * time.Second)
	c2 := newClient(t, gh2, nil)
	for range 3 {
		if got := c2.Fetch(ctx, "pawtograder-org", "grader", []string{"README.md"}); len(got) != 1 {
			t.Fatalf("Fetch = %v, want README.md", got)
		}
	}
	if st := gh2.Stats(); st.TokenRequests != 3 || st.InstallationLists != 1 {
		t.Errorf("short-lived tokens: token requests = %d, installation lists = %d; want 3 and 1", st.TokenRequests, st.InstallationLists)
	}
}

// fakeClock is a settable time source.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeClock) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

func TestRateLimitFailsFast(t *testing.T) {
	reset := time.Now().Add(30 * time.Minute).Truncate(time.Second)
	tests := []struct {
		name      string
		rl        githubfake.RateLimit
		wantUntil func(now time.Time) time.Time
	}{
		{"primary 403", githubfake.RateLimit{Status: 403, Reset: reset},
			func(time.Time) time.Time { return reset }},
		{"primary 429", githubfake.RateLimit{Status: 429, Reset: reset},
			func(time.Time) time.Time { return reset }},
		{"secondary 403 retry-after", githubfake.RateLimit{Status: 403, RetryAfter: "120"},
			func(now time.Time) time.Time { return now.Add(120 * time.Second) }},
		{"secondary 429 retry-after", githubfake.RateLimit{Status: 429, RetryAfter: "60"},
			func(now time.Time) time.Time { return now.Add(60 * time.Second) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := newFake(t)
			sampleRepo(gh)
			c := newClient(t, gh, nil)
			clock := &fakeClock{t: time.Now()}
			c.now = clock.now
			c.limits.now = clock.now
			ctx := context.Background()
			if _, err := c.List(ctx, "pawtograder-org", "grader", Grader); err != nil {
				t.Fatalf("List before the limit: %v", err)
			}
			gh.SetRateLimit(&tt.rl)
			before := gh.Stats()
			_, err := c.List(ctx, "pawtograder-org", "grader", Grader)
			var rl *RateLimitError
			if !errors.As(err, &rl) || !errors.Is(err, ErrRateLimited) {
				t.Fatalf("List error = %v, want *RateLimitError", err)
			}
			want := RateLimitError{Key: "installation/42", Until: tt.wantUntil(clock.now())}
			if diff := cmp.Diff(want, *rl); diff != "" {
				t.Errorf("rate limit error mismatch (-want +got):\n%s", diff)
			}
			if got := gh.Stats().RateLimited - before.RateLimited; got != 1 {
				t.Errorf("refused requests = %d, want 1 (no retries)", got)
			}

			// Later calls fail without asking GitHub, even once it recovered.
			gh.SetRateLimit(nil)
			mid := gh.Stats()
			_, err = c.List(ctx, "pawtograder-org", "grader", Grader)
			if !errors.As(err, &rl) || !rl.Remembered {
				t.Fatalf("second List error = %v, want remembered *RateLimitError", err)
			}
			if got := c.Fetch(ctx, "pawtograder-org", "grader", []string{"README.md"}); len(got) != 0 {
				t.Errorf("Fetch while limited = %v, want nothing", got)
			}
			if after := gh.Stats(); after.ContentRequests != mid.ContentRequests || after.RateLimited != mid.RateLimited {
				t.Errorf("requests while remembered = %d, want 0", after.ContentRequests-mid.ContentRequests+after.RateLimited-mid.RateLimited)
			}
			// Another installation is not affected.
			gh.AddRepo("other-org", "r").AddFile("x", "y")
			if _, err := c.List(ctx, "other-org", "r", Grader); err != nil {
				t.Errorf("List for another installation: %v", err)
			}

			// After the reset time requests flow again.
			clock.advance(time.Hour)
			if _, err := c.List(ctx, "pawtograder-org", "grader", Grader); err != nil {
				t.Errorf("List after reset: %v", err)
			}
		})
	}
}

func TestPlainForbiddenIsNotRateLimit(t *testing.T) {
	gh := newFake(t)
	gh.AddRepo("pawtograder-org", "private").AddFile("a", "b").FailPath("", http.StatusForbidden)
	c := newClient(t, gh, nil)
	_, err := c.List(context.Background(), "pawtograder-org", "private", Grader)
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 403 || errors.Is(err, ErrRateLimited) {
		t.Fatalf("List error = %v, want a 403 *HTTPError", err)
	}
	if _, err := c.List(context.Background(), "pawtograder-org", "private", Grader); errors.Is(err, ErrRateLimited) {
		t.Errorf("a plain 403 must not be remembered as a rate limit: %v", err)
	}
}

func TestAppRateLimitOnTokenCreation(t *testing.T) {
	gh := newFake(t)
	sampleRepo(gh)
	gh.SetRateLimit(&githubfake.RateLimit{Status: 403, RetryAfter: "30", App: true})
	c := newClient(t, gh, nil)
	_, err := c.List(context.Background(), "pawtograder-org", "grader", Grader)
	var rl *RateLimitError
	if !errors.As(err, &rl) || rl.Key != "app" {
		t.Fatalf("List error = %v, want an app *RateLimitError", err)
	}
	_, err = c.List(context.Background(), "pawtograder-org", "grader", Grader)
	if !errors.As(err, &rl) || !rl.Remembered {
		t.Fatalf("second List error = %v, want remembered", err)
	}
	if st := gh.Stats(); st.RateLimited != 1 {
		t.Errorf("refused requests = %d, want 1", st.RateLimited)
	}
}

func TestContextDeadline(t *testing.T) {
	gh := newFake(t)
	sampleRepo(gh)
	c := newClient(t, gh, nil)
	if _, err := c.List(context.Background(), "pawtograder-org", "grader", Grader); err != nil {
		t.Fatal(err) // warm the token cache
	}
	// GitHub would answer only after an hour (or when the request is
	// abandoned), so List can return in time only by honouring the
	// caller's 50 ms deadline.
	gh.SetLatency(time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := c.List(ctx, "pawtograder-org", "grader", Grader)
		errc <- err
	}()
	select {
	case err := <-errc:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("List error = %v, want context.DeadlineExceeded", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("List did not return after its context's deadline")
	}
}

func TestNewValidation(t *testing.T) {
	gh := newFake(t)
	pemKey := gh.PrivateKeyPEM()
	escaped := `"` + strings.ReplaceAll(strings.TrimSpace(pemKey), "\n", `\n`) + `"`
	tests := []struct {
		name    string
		opts    Options
		wantErr string
		wantCfg bool
	}{
		{"nothing set", Options{}, "", false},
		{"pem", Options{AppID: "1", PrivateKeyPEM: pemKey}, "", true},
		{"escaped newlines and quotes", Options{AppID: " 1 ", PrivateKeyPEM: escaped}, "", true},
		{"app id only", Options{AppID: "1"}, "GITHUB_PRIVATE_KEY_STRING: missing (GITHUB_APP_ID is set)", false},
		{"key only", Options{PrivateKeyPEM: pemKey}, `GITHUB_APP_ID: want a positive integer, got ""`, false},
		{"bad id", Options{AppID: "abc", PrivateKeyPEM: pemKey}, `GITHUB_APP_ID: want a positive integer, got "abc"`, false},
		{"bad base url", Options{BaseURL: "not a url"}, `repofiles: GitHub base URL "not a url": want an absolute http(s) URL`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.opts)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("New error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if c.configured != tt.wantCfg {
				t.Errorf("configured = %v, want %v", c.configured, tt.wantCfg)
			}
		})
	}
	if _, err := New(Options{AppID: "1", PrivateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"}); err == nil ||
		!strings.HasPrefix(err.Error(), "GITHUB_PRIVATE_KEY_STRING: want an RSA private key in PEM form") {
		t.Errorf("New with a bad key: error = %v", err)
	}
}

func TestInstallationPagination(t *testing.T) {
	gh := githubfake.New(githubfake.Options{})
	t.Cleanup(gh.Close)
	for i := range 250 {
		gh.AddInstallation(fmt.Sprintf("org%03d", i), int64(1000+i))
	}
	gh.AddRepo("org249", "r").AddFile("a.txt", "x")
	c := newClient(t, gh, nil)
	got, err := c.List(context.Background(), "org249", "r", Grader)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if diff := cmp.Diff([]File{{"a.txt", 1}}, got); diff != "" {
		t.Errorf("List mismatch (-want +got):\n%s", diff)
	}
	if st := gh.Stats(); st.InstallationLists != 3 {
		t.Errorf("installation pages fetched = %d, want 3 (100 per page)", st.InstallationLists)
	}
	// An unknown organisation does not refetch the list right away.
	if _, err := c.List(context.Background(), "org999", "r", Grader); err == nil {
		t.Fatal("List for an unknown org succeeded")
	}
	if st := gh.Stats(); st.InstallationLists != 3 {
		t.Errorf("installation pages fetched after a miss = %d, want still 3", st.InstallationLists)
	}
}
