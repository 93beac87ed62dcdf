// Package githubfake is an in-memory GitHub REST API for tests of code that
// reads repositories as a GitHub App. It serves, over httptest, the
// endpoints mcp-server uses (docs/contract/github.md §5) with the real API's shapes:
//
//   - GET  /app/installations (App JWT; paginated with per_page/page + Link)
//   - POST /app/installations/{id}/access_tokens (App JWT) → 201 token
//   - GET  /repos/{owner}/{repo}/contents/{path} (installation token);
//     {path} may use literal or %2F-encoded slashes. Directories answer with
//     a JSON array in git tree order, files with base64 content wrapped at
//     60 characters, symlinks and submodules without content (listings
//     report submodules as type "file", as GitHub does), missing
//     repositories and paths with 404 "Not Found", an empty repository's
//     root with 404 "This repository is empty."
//
// It verifies App JWTs (RS256, iss = App id, exp required) against a key it
// generates, checks that installation tokens exist, are unexpired and belong
// to the repository owner's installation, can answer with rate limits, and
// counts requests and the peak number of concurrent contents requests.
package githubfake

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DefaultAppID is the App id a Server uses unless Options says otherwise.
const DefaultAppID = 424242

// Options configures New.
type Options struct {
	AppID int64 // default DefaultAppID
}

// RateLimit makes the server refuse requests like GitHub's limiter does.
type RateLimit struct {
	// Status is 403 or 429.
	Status int
	// RetryAfter, if set, is sent as the Retry-After header (a secondary
	// limit); otherwise X-RateLimit-Remaining: 0 and X-RateLimit-Reset
	// (from Reset) are sent (a primary limit).
	RetryAfter string
	Reset      time.Time
	// App limits /app/... endpoints too; by default only /repos/... .
	App bool
}

// Stats counts requests the server has answered.
type Stats struct {
	InstallationLists int // GET /app/installations
	TokenRequests     int // POST .../access_tokens
	ContentRequests   int // GET /repos/.../contents/...
	RateLimited       int // requests refused by SetRateLimit
	MaxInFlight       int // peak concurrent contents requests
}

type node struct {
	typ     string // file, symlink, submodule
	content []byte
	size    int64
	target  string
}

// Repo is a repository on the fake server; add content with its methods.
type Repo struct {
	s     *Server
	nodes map[string]*node // by full path
	fail  map[string]int   // path → forced status
}

type token struct {
	instID  int64
	expires time.Time
}

// Server is a fake GitHub. Its methods are safe for concurrent use.
type Server struct {
	// URL is the API base URL (ends without a slash).
	URL   string
	AppID int64

	srv *httptest.Server
	key *rsa.PrivateKey

	mu            sync.Mutex
	installations []installation
	repos         map[string]*Repo
	tokens        map[string]token
	tokenTTL      time.Duration
	latency       time.Duration
	rateLimit     *RateLimit
	stats         Stats
	inFlight      int
	contentPaths  []string
	nextToken     int
}

type installation struct {
	ID    int64
	Login string
}

// New starts a fake GitHub; Close it when done.
func New(opts Options) *Server {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(fmt.Sprintf("githubfake: generate key: %v", err))
	}
	s := &Server{
		AppID:    opts.AppID,
		key:      key,
		repos:    map[string]*Repo{},
		tokens:   map[string]token{},
		tokenTTL: time.Hour,
	}
	if s.AppID == 0 {
		s.AppID = DefaultAppID
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Client returns an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// AppIDString is the App id as GITHUB_APP_ID would hold it.
func (s *Server) AppIDString() string { return strconv.FormatInt(s.AppID, 10) }

// PrivateKeyPEM is the App's private key as PKCS#8 PEM, the form GitHub
// hands out (GITHUB_PRIVATE_KEY_STRING).
func (s *Server) PrivateKeyPEM() string {
	der, err := x509.MarshalPKCS8PrivateKey(s.key)
	if err != nil {
		panic(fmt.Sprintf("githubfake: marshal key: %v", err))
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// AddInstallation installs the App on the account login with id.
func (s *Server) AddInstallation(login string, id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.installations = append(s.installations, installation{ID: id, Login: login})
}

// AddRepo creates an empty repository owner/name (or returns the existing
// one).
func (s *Server) AddRepo(owner, name string) *Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := owner + "/" + name
	if r, ok := s.repos[k]; ok {
		return r
	}
	r := &Repo{s: s, nodes: map[string]*node{}, fail: map[string]int{}}
	s.repos[k] = r
	return r
}

// AddFile adds a file; its reported size is len(content).
func (r *Repo) AddFile(p string, content string) *Repo {
	return r.AddFileWithSize(p, content, int64(len(content)))
}

// AddFileWithSize adds a file whose reported size differs from its
// content (for size cut-off tests without megabytes of data).
func (r *Repo) AddFileWithSize(p string, content string, size int64) *Repo {
	r.put(p, &node{typ: "file", content: []byte(content), size: size})
	return r
}

// AddSymlink adds a symbolic link to target.
func (r *Repo) AddSymlink(p, target string) *Repo {
	r.put(p, &node{typ: "symlink", target: target, size: int64(len(target))})
	return r
}

// AddSubmodule adds a submodule pointing at gitURL.
func (r *Repo) AddSubmodule(p, gitURL string) *Repo {
	r.put(p, &node{typ: "submodule", target: gitURL})
	return r
}

// FailPath makes every request for exactly p answer status.
func (r *Repo) FailPath(p string, status int) *Repo {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.fail[p] = status
	return r
}

func (r *Repo) put(p string, n *node) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.nodes[strings.Trim(p, "/")] = n
}

// SetTokenTTL sets the lifetime of tokens issued from now on (default 1h).
func (s *Server) SetTokenTTL(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenTTL = d
}

// SetLatency delays every contents answer by d, so concurrent requests
// overlap and MaxInFlight is meaningful.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// SetRateLimit makes requests fail with rl until called with nil.
func (s *Server) SetRateLimit(rl *RateLimit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rateLimit = rl
}

// Stats returns the counters so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// ContentPaths returns the escaped request paths of all contents requests,
// in arrival order.
func (s *Server) ContentPaths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.contentPaths...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeMessage(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{
		"message":           msg,
		"documentation_url": "https://docs.github.com/rest",
		"status":            strconv.Itoa(status),
	})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.EscapedPath()
	isApp := strings.HasPrefix(p, "/app/")
	if s.refuseRateLimited(w, isApp) {
		return
	}
	switch {
	case p == "/app/installations" && r.Method == http.MethodGet:
		s.listInstallations(w, r)
	case isApp && strings.HasSuffix(p, "/access_tokens") && r.Method == http.MethodPost:
		s.createToken(w, r, strings.TrimSuffix(strings.TrimPrefix(p, "/app/installations/"), "/access_tokens"))
	case strings.HasPrefix(p, "/repos/") && r.Method == http.MethodGet:
		s.contents(w, r, strings.TrimPrefix(p, "/repos/"))
	default:
		writeMessage(w, http.StatusNotFound, "Not Found")
	}
}

func (s *Server) refuseRateLimited(w http.ResponseWriter, isApp bool) bool {
	s.mu.Lock()
	rl := s.rateLimit
	if rl == nil || (isApp && !rl.App) {
		s.mu.Unlock()
		return false
	}
	s.stats.RateLimited++
	s.mu.Unlock()
	if rl.RetryAfter != "" {
		w.Header().Set("Retry-After", rl.RetryAfter)
		writeMessage(w, rl.Status, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.")
		return true
	}
	w.Header().Set("X-RateLimit-Limit", "5000")
	w.Header().Set("X-RateLimit-Remaining", "0")
	w.Header().Set("X-RateLimit-Used", "5000")
	w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(rl.Reset.Unix(), 10))
	w.Header().Set("X-RateLimit-Resource", "core")
	writeMessage(w, rl.Status, "API rate limit exceeded for installation.")
	return true
}

// checkAppJWT verifies "Authorization: Bearer <App JWT>".
func (s *Server) checkAppJWT(w http.ResponseWriter, r *http.Request) bool {
	h := r.Header.Get("Authorization")
	raw, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		raw, ok = strings.CutPrefix(h, "bearer ")
	}
	if ok {
		_, err := jwt.Parse(raw, func(*jwt.Token) (any, error) { return &s.key.PublicKey, nil },
			jwt.WithValidMethods([]string{"RS256"}),
			jwt.WithIssuer(s.AppIDString()),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(time.Minute))
		if err == nil {
			return true
		}
	}
	writeMessage(w, http.StatusUnauthorized, "A JSON web token could not be decoded")
	return false
}

func (s *Server) listInstallations(w http.ResponseWriter, r *http.Request) {
	if !s.checkAppJWT(w, r) {
		return
	}
	perPage, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if perPage <= 0 {
		perPage = 30
	}
	perPage = min(perPage, 100)
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	s.mu.Lock()
	s.stats.InstallationLists++
	all := append([]installation(nil), s.installations...)
	s.mu.Unlock()
	type account struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	}
	type inst struct {
		ID      int64   `json:"id"`
		Account account `json:"account"`
		AppID   int64   `json:"app_id"`
	}
	out := []inst{}
	start := (page - 1) * perPage
	for i := start; i < len(all) && i < start+perPage; i++ {
		out = append(out, inst{ID: all[i].ID, Account: account{Login: all[i].Login, Type: "Organization"}, AppID: s.AppID})
	}
	if start+perPage < len(all) {
		next := *r.URL
		q := next.Query()
		q.Set("page", strconv.Itoa(page+1))
		q.Set("per_page", strconv.Itoa(perPage))
		next.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, s.URL, next.RequestURI()))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request, idStr string) {
	if !s.checkAppJWT(w, r) {
		return
	}
	id, err := strconv.ParseInt(idStr, 10, 64)
	s.mu.Lock()
	s.stats.TokenRequests++
	found := false
	for _, in := range s.installations {
		if in.ID == id {
			found = true
		}
	}
	if err != nil || !found {
		s.mu.Unlock()
		writeMessage(w, http.StatusNotFound, "Not Found")
		return
	}
	s.nextToken++
	tok := fmt.Sprintf("ghs_fake%06d", s.nextToken)
	exp := time.Now().Add(s.tokenTTL).UTC().Truncate(time.Second)
	s.tokens[tok] = token{instID: id, expires: exp}
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"token":                tok,
		"expires_at":           exp.Format(time.RFC3339),
		"permissions":          map[string]string{"contents": "read", "metadata": "read"},
		"repository_selection": "all",
	})
}

// gitLess orders tree entries like git: by name, directories compared as
// if they ended in '/'.
func gitLess(a, b entry) bool {
	an, bn := a.Name, b.Name
	if a.Type == "dir" {
		an += "/"
	}
	if b.Type == "dir" {
		bn += "/"
	}
	return an < bn
}

type entry struct {
	Type string `json:"type"`
	Name string `json:"name"`
	Path string `json:"path"`
	Size int64  `json:"size"`
	SHA  string `json:"sha"`
}

func blobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

func (s *Server) contents(w http.ResponseWriter, r *http.Request, rest string) {
	s.mu.Lock()
	s.stats.ContentRequests++
	s.contentPaths = append(s.contentPaths, r.URL.EscapedPath())
	s.inFlight++
	s.stats.MaxInFlight = max(s.stats.MaxInFlight, s.inFlight)
	latency := s.latency
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	if latency > 0 {
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return
		}
	}

	parts := strings.SplitN(rest, "/", 4)
	if len(parts) < 3 || parts[2] != "contents" {
		writeMessage(w, http.StatusNotFound, "Not Found")
		return
	}
	owner, _ := url.PathUnescape(parts[0])
	name, _ := url.PathUnescape(parts[1])
	rawPath := ""
	if len(parts) == 4 {
		rawPath = parts[3]
	}
	p, err := url.PathUnescape(rawPath)
	if err != nil {
		writeMessage(w, http.StatusBadRequest, "Bad path")
		return
	}
	p = strings.Trim(p, "/")

	h := r.Header.Get("Authorization")
	tokStr, ok := strings.CutPrefix(h, "token ")
	if !ok {
		tokStr, ok = strings.CutPrefix(h, "Bearer ")
	}
	s.mu.Lock()
	tok, known := s.tokens[tokStr]
	if !ok || !known || !time.Now().Before(tok.expires) {
		s.mu.Unlock()
		writeMessage(w, http.StatusUnauthorized, "Bad credentials")
		return
	}
	login := ""
	for _, in := range s.installations {
		if in.ID == tok.instID {
			login = in.Login
		}
	}
	repo, found := s.repos[owner+"/"+name]
	if login != owner || !found {
		s.mu.Unlock()
		writeMessage(w, http.StatusNotFound, "Not Found")
		return
	}
	if status, bad := repo.fail[p]; bad {
		s.mu.Unlock()
		writeMessage(w, status, http.StatusText(status))
		return
	}
	if len(repo.nodes) == 0 {
		s.mu.Unlock()
		writeMessage(w, http.StatusNotFound, "This repository is empty.")
		return
	}
	if n, ok := repo.nodes[p]; ok {
		s.mu.Unlock()
		writeNode(w, p, n)
		return
	}
	// a directory: collect direct children
	prefix := ""
	if p != "" {
		prefix = p + "/"
	}
	seen := map[string]bool{}
	var list []entry
	for fp, n := range repo.nodes {
		rest, ok := strings.CutPrefix(fp, prefix)
		if !ok {
			continue
		}
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			d := rest[:i]
			if !seen[d] {
				seen[d] = true
				sum := sha1.Sum([]byte("tree " + prefix + d))
				list = append(list, entry{Type: "dir", Name: d, Path: prefix + d, SHA: hex.EncodeToString(sum[:])})
			}
			continue
		}
		typ := n.typ
		if typ == "submodule" {
			// GitHub's documented v3 quirk: directory listings report
			// submodules as type "file" (size 0); only a request for the
			// path itself says "submodule".
			typ = "file"
		}
		list = append(list, entry{Type: typ, Name: rest, Path: fp, Size: n.size, SHA: blobSHA(n.content)})
	}
	s.mu.Unlock()
	if len(list) == 0 {
		writeMessage(w, http.StatusNotFound, "Not Found")
		return
	}
	sort.Slice(list, func(i, j int) bool { return gitLess(list[i], list[j]) })
	writeJSON(w, http.StatusOK, list)
}

// wrap60 breaks base64 text into 60-character lines, as GitHub does.
func wrap60(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteByte('\n')
	return b.String()
}

func writeNode(w http.ResponseWriter, p string, n *node) {
	base := map[string]any{
		"type": n.typ,
		"name": path.Base(p),
		"path": p,
		"size": n.size,
		"sha":  blobSHA(n.content),
	}
	switch n.typ {
	case "file":
		base["encoding"] = "base64"
		base["content"] = wrap60(base64.StdEncoding.EncodeToString(n.content))
	case "symlink":
		base["target"] = n.target
	case "submodule":
		base["submodule_git_url"] = n.target
	}
	writeJSON(w, http.StatusOK, base)
}
