package repofiles

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// errNotAFile reports a contents answer without inline content (a
// directory, submodule or symlink); the original throws "File is not a file".
var errNotAFile = errors.New("repofiles: path is not a file")

// dirEntry is one element of a Contents API directory listing.
type dirEntry struct {
	Type string `json:"type"`
	Name string `json:"name"`
	Path string `json:"path"`
	Size int64  `json:"size"`
	SHA  string `json:"sha"`
}

// List walks org/repo recursively (docs/contract/github.md §3) and returns its files in
// listing order (depth-first, each directory's files where the directory
// entry was), after the exclusions of docs/contract/tools.md §1.9 for kind and the size
// cut-off. Any failed request fails the whole listing.
func (c *Client) List(ctx context.Context, org, repo string, kind Kind) ([]File, error) {
	if !c.configured {
		return nil, ErrNotConfigured
	}
	if !validOwner(org) || !validRepo(repo) {
		return nil, fmt.Errorf("%w: %q/%q", ErrInvalidRepo, org, repo)
	}
	tok, instID, err := c.token(ctx, org)
	if err != nil {
		return nil, err
	}
	w := &walker{c: c, org: org, repo: repo, token: tok, sem: make(chan struct{}, c.concurrency)}
	all, err := w.walk(withLimitKey(ctx, installationKey(instID)), "", 0)
	if err != nil {
		return nil, err
	}
	files := make([]File, 0, len(all))
	for _, f := range all {
		if excluded(f.Path, kind) || f.Size > c.maxSize {
			continue
		}
		files = append(files, f)
	}
	return files, nil
}

type walker struct {
	c         *Client
	org, repo string
	token     string
	sem       chan struct{} // caps requests in flight
	dirs      atomic.Int64
	entries   atomic.Int64
}

func (w *walker) walk(ctx context.Context, dir string, depth int) ([]File, error) {
	if depth > maxDirDepth || w.dirs.Add(1) > maxListedDirs {
		return nil, ErrTooLarge
	}
	entries, err := w.listDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	if w.entries.Add(int64(len(entries))) > maxListedEntries {
		return nil, ErrTooLarge
	}
	results := make([][]File, len(entries))
	g, gctx := errgroup.WithContext(ctx)
	for i, e := range entries {
		switch e.Type {
		case "file":
			results[i] = []File{{Path: e.Path, Size: e.Size}}
		case "dir":
			if prunedDir(e.Path) {
				continue
			}
			g.Go(func() error {
				r, err := w.walk(gctx, e.Path, depth+1)
				results[i] = r
				return err
			})
		default: // symlink, submodule: skipped like the original
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []File
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

func (w *walker) listDir(ctx context.Context, dir string) ([]dirEntry, error) {
	select {
	case w.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	body, err := w.c.getContents(ctx, w.org, w.repo, dir, w.token, "list directory")
	<-w.sem
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '[' {
		return nil, fmt.Errorf("repofiles: list directory %q of %s/%s: not an array", dir, w.org, w.repo)
	}
	var entries []dirEntry
	if err := json.Unmarshal(body, &entries); err != nil {
		return nil, fmt.Errorf("repofiles: list directory %q of %s/%s: %w", dir, w.org, w.repo, err)
	}
	return entries, nil
}

// Fetch reads the first MaxFiles of paths from org/repo with at most
// FetchConcurrency requests in flight. Failed fetches and paths that are not
// files are skipped (and logged at debug level). The result is sorted by
// path; the original returned completion order (docs/contract/tools.md §4 quirk 9).
// Without App credentials, or when the token cannot be obtained, the result
// is empty.
func (c *Client) Fetch(ctx context.Context, org, repo string, paths []string) []Content {
	out := []Content{}
	if !c.configured || len(paths) == 0 {
		return out
	}
	if !validOwner(org) || !validRepo(repo) {
		return out
	}
	if len(paths) > c.maxFiles {
		paths = paths[:c.maxFiles]
	}
	tok, instID, err := c.token(ctx, org)
	if err != nil {
		c.log.WarnContext(ctx, "github fetch: no installation token", slog.String("org", org), slog.Any("error", err))
		return out
	}
	ctx = withLimitKey(ctx, installationKey(instID))
	results := make([]*Content, len(paths))
	sem := make(chan struct{}, c.concurrency)
	var wg sync.WaitGroup
loop:
	for i, p := range paths {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		wg.Go(func() {
			defer func() { <-sem }()
			text, err := c.fetchOne(ctx, org, repo, p, tok)
			if err != nil {
				c.log.DebugContext(ctx, "github fetch: file skipped", slog.String("repo", org+"/"+repo), slog.String("path", p), slog.Any("error", err))
				return
			}
			results[i] = &Content{Name: p, Contents: text}
		})
	}
	wg.Wait()
	for _, r := range results {
		if r != nil {
			out = append(out, *r)
		}
	}
	slices.SortStableFunc(out, func(a, b Content) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (c *Client) fetchOne(ctx context.Context, org, repo, path, tok string) (string, error) {
	body, err := c.getContents(ctx, org, repo, path, tok, "get file")
	if err != nil {
		return "", err
	}
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' {
		return "", errNotAFile
	}
	var f struct {
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(body, &f); err != nil {
		return "", fmt.Errorf("repofiles: get file %q: %w", path, err)
	}
	if f.Content == nil {
		return "", errNotAFile
	}
	return decodeUTF8(decodeBase64(*f.Content)), nil
}

// getContents GETs /repos/{org}/{repo}/contents/{path} with the path
// percent-encoded as one component ('/' as %2F), like octokit, and returns
// the body of a 2xx answer.
func (c *Client) getContents(ctx context.Context, org, repo, path, tok, op string) ([]byte, error) {
	u := c.base.String() + "repos/" + url.PathEscape(org) + "/" + url.PathEscape(repo) + "/contents/" + url.PathEscape(path)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("repofiles: %s: %w", op, err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("Authorization", "token "+tok)
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", "pawtograder-mcp-gateway")
	resp, err := c.http.Do(req)
	if err != nil {
		var rl *RateLimitError
		if errors.As(err, &rl) {
			return nil, rl
		}
		return nil, fmt.Errorf("repofiles: %s: %w", op, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("repofiles: %s: read body: %w", op, err)
	}
	if resp.StatusCode/100 == 2 {
		return body, nil
	}
	if resp.StatusCode == http.StatusUnauthorized {
		c.dropToken(org) // revoked or expired early: mint a new one next time
	}
	var msg struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(body, &msg)
	return nil, &HTTPError{Op: op, Status: resp.StatusCode, Message: truncate(msg.Message, 200)}
}
