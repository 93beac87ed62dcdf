// Package repofiles reads grader and handout repositories through the
// Pawtograder GitHub App, for mcp-server's four repository tools
// (docs/contract/tools.md §1.9, docs/contract/github.md).
//
// The client authenticates as the App (an RS256 JWT), finds the App's
// installation for the repository's organisation, exchanges it for an
// installation access token (cached per organisation until shortly before
// it expires) and walks the Contents API. Rate-limit answers fail fast with
// a *RateLimitError and are remembered, so later calls for the same
// installation fail without a request until GitHub's reset time.
package repofiles

import (
	"crypto/rsa"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-github/v88/github"
	"golang.org/x/sync/singleflight"
)

// Kind selects the exclusion list of docs/contract/tools.md §1.9.
type Kind int

const (
	// Grader is the grader repository (autograder.grader_repo).
	Grader Kind = iota
	// Handout is the template repository (assignments.template_repo); it
	// additionally excludes .github/workflows (already covered by ^\.git).
	Handout
)

// File is one listed repository file.
type File struct {
	Path string // full path from the repository root, '/'-separated
	Size int64  // size as GitHub reports it
}

// Content is one fetched file: Name is its path, Contents its text.
type Content struct {
	Name     string
	Contents string
}

// Defaults for Options (docs/contract/tools.md §0.5).
const (
	DefaultBaseURL          = "https://api.github.com/"
	DefaultMaxFiles         = 100
	DefaultFetchConcurrency = 10
	DefaultMaxFileSize      = 100000
)

// Internal bounds. The original has none; these keep a hostile or huge
// repository from exhausting memory or the request budget.
const (
	maxListedEntries      = 50000            // file entries seen in one listing
	maxListedDirs         = 5000             // directory requests in one listing
	maxDirDepth           = 64               // nesting below the root
	maxResponseBytes      = 8 << 20          // any one GitHub response body
	maxInstallationPages  = 10               // of 100 installations each
	installationsTTL      = 10 * time.Minute // installation list reuse
	installationsMissWait = time.Minute      // min age before a miss refetches
	tokenRefreshMargin    = 2 * time.Minute  // refresh tokens this long before expiry
	maxCachedTokens       = 256              // organisations with a cached token
	maxRateLimitKeys      = 1024             // remembered rate-limit resets
	maxRateLimitWait      = time.Hour        // cap on a remembered reset
	defaultRateLimitWait  = time.Minute      // when GitHub gives no reset time
	authCallTimeout       = 30 * time.Second // shared token/installation calls
)

// Options configures a Client. Zero values take the documented defaults.
type Options struct {
	// AppID is GITHUB_APP_ID, a decimal integer.
	AppID string
	// PrivateKeyPEM is GITHUB_PRIVATE_KEY_STRING: the App's RSA key as PEM
	// (PKCS#1 or PKCS#8). Literal "\n" sequences, as environment files
	// often carry them, are turned into newlines; surrounding quotes and
	// whitespace are ignored.
	PrivateKeyPEM string
	// BaseURL is the GitHub REST API root; default DefaultBaseURL.
	BaseURL string
	// HTTPClient supplies the transport (its Timeout and redirect policy
	// are not used: per-call deadlines come from ctx and redirects are not
	// followed). Default http.DefaultTransport.
	HTTPClient *http.Client
	// Logger receives diagnostics; default slog.Default().
	Logger *slog.Logger
	// MaxFiles caps how many paths Fetch reads; default 100.
	MaxFiles int
	// FetchConcurrency caps GitHub requests in flight per List or Fetch
	// call; default 10.
	FetchConcurrency int
	// MaxFileSize drops listed files larger than this many bytes; default
	// 100000 (exactly 100000 is kept).
	MaxFileSize int64
}

// ErrNotConfigured is returned by List (and makes Fetch return nothing)
// when the Client was built without App credentials.
var ErrNotConfigured = errors.New("repofiles: GitHub App credentials are not configured")

// ErrInvalidRepo reports an organisation or repository name GitHub cannot
// have.
var ErrInvalidRepo = errors.New("repofiles: invalid repository name")

// ErrNotFound matches (with errors.Is) an *HTTPError whose status is 404.
var ErrNotFound = errors.New("repofiles: not found")

// ErrTooLarge reports a repository beyond the listing bounds.
var ErrTooLarge = errors.New("repofiles: repository too large to list")

// ErrRateLimited matches (with errors.Is) any *RateLimitError.
var ErrRateLimited = errors.New("repofiles: GitHub rate limit")

// NoInstallationError reports that the App is not installed on Org (the
// original's "No octokit found for organization").
type NoInstallationError struct{ Org string }

func (e *NoInstallationError) Error() string {
	return fmt.Sprintf("repofiles: no GitHub App installation for %q", e.Org)
}

// HTTPError is a non-2xx answer from GitHub.
type HTTPError struct {
	Op      string // what was being done, e.g. "list directory"
	Status  int
	Message string // GitHub's "message" field, if any
}

func (e *HTTPError) Error() string {
	if e.Message != "" {
		return fmt.Sprintf("repofiles: %s: GitHub answered %d: %s", e.Op, e.Status, e.Message)
	}
	return fmt.Sprintf("repofiles: %s: GitHub answered %d", e.Op, e.Status)
}

// Is makes errors.Is(err, ErrNotFound) true for 404s.
func (e *HTTPError) Is(target error) bool {
	return target == ErrNotFound && e.Status == http.StatusNotFound
}

// RateLimitError reports a rate-limited request, or one refused without
// being sent because an earlier limit for the same key is still in force.
type RateLimitError struct {
	Key        string    // "app" or "installation/<id>"
	Until      time.Time // when GitHub says requests may resume
	Remembered bool      // true when no request was sent
}

func (e *RateLimitError) Error() string {
	how := "rate limited by GitHub"
	if e.Remembered {
		how = "still rate limited"
	}
	return fmt.Sprintf("repofiles: %s (%s) until %s", how, e.Key, e.Until.UTC().Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrRateLimited) true.
func (e *RateLimitError) Is(target error) bool { return target == ErrRateLimited }

// Client reads repositories as the GitHub App. It is safe for concurrent use.
type Client struct {
	configured  bool
	log         *slog.Logger
	base        *url.URL // ends in '/'
	http        *http.Client
	apps        *github.Client
	maxFiles    int
	concurrency int
	maxSize     int64
	limits      *rateLimits
	now         func() time.Time

	sf singleflight.Group

	instMu      sync.Mutex
	inst        map[string]int64 // account login → installation id
	instFetched time.Time

	tokMu  sync.Mutex
	tokens map[string]cachedToken // by organisation
}

type cachedToken struct {
	token   string
	expires time.Time
	instID  int64
}

// New validates opts (the App id and key are parsed once here). Without an
// App id and key it returns a Client whose List reports ErrNotConfigured.
func New(opts Options) (*Client, error) {
	c := &Client{
		log:         opts.Logger,
		maxFiles:    opts.MaxFiles,
		concurrency: opts.FetchConcurrency,
		maxSize:     opts.MaxFileSize,
		now:         time.Now,
		inst:        map[string]int64{},
		tokens:      map[string]cachedToken{},
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	if c.maxFiles <= 0 {
		c.maxFiles = DefaultMaxFiles
	}
	if c.concurrency <= 0 {
		c.concurrency = DefaultFetchConcurrency
	}
	if c.maxSize <= 0 {
		c.maxSize = DefaultMaxFileSize
	}
	c.limits = newRateLimits(c.now)
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("repofiles: GitHub base URL %q: want an absolute http(s) URL", opts.BaseURL)
	}
	c.base = u

	appID := strings.TrimSpace(opts.AppID)
	keyPEM := normalizePEM(opts.PrivateKeyPEM)
	if appID == "" && keyPEM == "" {
		return c, nil
	}
	var errs []error
	id, err := strconv.ParseInt(appID, 10, 64)
	if err != nil || id <= 0 {
		errs = append(errs, fmt.Errorf("GITHUB_APP_ID: want a positive integer, got %q", opts.AppID))
	}
	var key *rsa.PrivateKey
	if keyPEM == "" {
		errs = append(errs, errors.New("GITHUB_PRIVATE_KEY_STRING: missing (GITHUB_APP_ID is set)"))
	} else if key, err = jwt.ParseRSAPrivateKeyFromPEM([]byte(keyPEM)); err != nil {
		errs = append(errs, fmt.Errorf("GITHUB_PRIVATE_KEY_STRING: want an RSA private key in PEM form: %w", err))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	var rt http.RoundTripper = http.DefaultTransport
	if opts.HTTPClient != nil && opts.HTTPClient.Transport != nil {
		rt = opts.HTTPClient.Transport
	}
	rt = &guardTransport{next: rt, limits: c.limits}
	c.http = &http.Client{Transport: rt, CheckRedirect: noRedirects}
	appsRT := ghinstallation.NewAppsTransportFromPrivateKey(rt, id, key)
	apiBase := u.String()
	if c.apps, err = github.NewClient(
		github.WithHTTPClient(&http.Client{Transport: appsRT, CheckRedirect: noRedirects}),
		github.WithURLs(&apiBase, nil)); err != nil {
		return nil, fmt.Errorf("repofiles: GitHub client: %w", err)
	}
	c.configured = true
	return c, nil
}

// noRedirects keeps the installation token from following a redirect to
// another host; GitHub's API answers these endpoints directly.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// normalizePEM undoes the usual ways a PEM key is mangled in environment
// variables: surrounding quotes and whitespace, and "\n" written literally.
func normalizePEM(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	if !strings.Contains(s, "\n") && strings.Contains(s, `\n`) {
		s = strings.ReplaceAll(s, `\r\n`, "\n")
		s = strings.ReplaceAll(s, `\n`, "\n")
	}
	return s
}

// excluded applies docs/contract/tools.md §1.9 rules 1–7 to a file path.
func excluded(path string, kind Kind) bool {
	switch {
	case strings.HasPrefix(path, ".git"): // rule 1 (also .github/, .gitignore)
		return true
	case kind == Handout && strings.HasPrefix(path, ".github/workflows"): // rule 2
		return true
	case strings.Contains(path, "node_modules"): // rule 3
		return true
	case path == ".DS_Store": // rule 4: root only
		return true
	case strings.HasSuffix(path, ".class"), strings.HasSuffix(path, ".pyc"): // rules 5, 6
		return true
	case strings.HasPrefix(path, "__pycache__"): // rule 7: root only
		return true
	}
	return false
}

// prunedDir reports a directory every file of which rules 1, 3 or 7 would
// exclude, so the walk can skip it (the original lists it and then drops
// every file; skipping only saves requests and can only turn an error
// inside such a directory into success).
func prunedDir(path string) bool {
	return strings.HasPrefix(path, ".git") || strings.Contains(path, "node_modules") || strings.HasPrefix(path, "__pycache__")
}
