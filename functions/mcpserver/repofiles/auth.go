package repofiles

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/go-github/v88/github"
)

// shared runs fn once for all concurrent callers with the same key
// (single flight). fn gets a context detached from any one caller's
// cancellation, bounded by authCallTimeout, so one impatient caller cannot
// fail the others; each caller still stops waiting when its own ctx ends.
func (c *Client) shared(ctx context.Context, key string, fn func(context.Context) (any, error)) (any, error) {
	ch := c.sf.DoChan(key, func() (any, error) {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), authCallTimeout)
		defer cancel()
		return fn(fctx)
	})
	select {
	case r := <-ch:
		return r.Val, r.Err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// installationID finds the App installation whose account login equals org
// exactly (case-sensitive, as the original compares). The installation list
// is cached for installationsTTL; an unknown org triggers a refresh at most
// once per installationsMissWait, so a new installation is picked up without
// a restart (the original needed one).
func (c *Client) installationID(ctx context.Context, org string) (int64, error) {
	c.instMu.Lock()
	id, ok := c.inst[org]
	fetched := c.instFetched
	c.instMu.Unlock()
	age := c.now().Sub(fetched)
	if !fetched.IsZero() {
		if ok && age < installationsTTL {
			return id, nil
		}
		if !ok && age < installationsMissWait {
			return 0, &NoInstallationError{Org: org}
		}
	}
	v, err := c.shared(withLimitKey(ctx, "app"), "installations", func(ctx context.Context) (any, error) {
		// A flight that finished after this caller looked at the cache
		// already has the list; fetching again would only repeat it.
		c.instMu.Lock()
		latest, m := c.instFetched, c.inst
		c.instMu.Unlock()
		if latest.After(fetched) {
			return m, nil
		}
		return c.fetchInstallations(ctx)
	})
	if err != nil {
		if ok {
			c.log.WarnContext(ctx, "github installation refresh failed; using cached id", slog.String("org", org), slog.Any("error", err))
			return id, nil
		}
		return 0, fmt.Errorf("repofiles: list App installations: %w", err)
	}
	m := v.(map[string]int64)
	if id, ok := m[org]; ok {
		return id, nil
	}
	return 0, &NoInstallationError{Org: org}
}

func (c *Client) fetchInstallations(ctx context.Context) (map[string]int64, error) {
	m := map[string]int64{}
	opts := &github.ListOptions{PerPage: 100, Page: 1}
	for range maxInstallationPages {
		insts, resp, err := c.apps.Apps.ListInstallations(ctx, opts)
		if err != nil {
			return nil, githubError("list installations", err)
		}
		for _, in := range insts {
			if login := in.GetAccount().GetLogin(); login != "" && in.GetID() != 0 {
				m[login] = in.GetID()
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	c.instMu.Lock()
	c.inst = m
	c.instFetched = c.now()
	c.instMu.Unlock()
	return m, nil
}

// token returns a valid installation access token for org and the
// installation id, creating one when none is cached or the cached one
// expires within tokenRefreshMargin.
func (c *Client) token(ctx context.Context, org string) (string, int64, error) {
	if t, ok := c.cachedToken(org); ok {
		return t.token, t.instID, nil
	}
	id, err := c.installationID(ctx, org)
	if err != nil {
		return "", 0, err
	}
	v, err := c.shared(withLimitKey(ctx, "app"), "token/"+org, func(ctx context.Context) (any, error) {
		if t, ok := c.cachedToken(org); ok {
			return t, nil // a flight that just finished already refreshed it
		}
		tok, _, err := c.apps.Apps.CreateInstallationToken(ctx, id, nil)
		if err != nil {
			var er *github.ErrorResponse
			if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
				c.forgetInstallations() // uninstalled since we listed
			}
			return nil, githubError("create installation token", err)
		}
		if tok.GetToken() == "" {
			return nil, errors.New("repofiles: create installation token: empty token")
		}
		exp := tok.GetExpiresAt().Time
		if exp.IsZero() {
			exp = c.now().Add(time.Hour) // GitHub's documented lifetime
		}
		t := cachedToken{token: tok.GetToken(), expires: exp, instID: id}
		c.storeToken(org, t)
		return t, nil
	})
	if err != nil {
		return "", 0, err
	}
	t := v.(cachedToken)
	return t.token, t.instID, nil
}

func (c *Client) cachedToken(org string) (cachedToken, bool) {
	c.tokMu.Lock()
	defer c.tokMu.Unlock()
	t, ok := c.tokens[org]
	if !ok || !c.now().Add(tokenRefreshMargin).Before(t.expires) {
		return cachedToken{}, false
	}
	return t, true
}

func (c *Client) storeToken(org string, t cachedToken) {
	c.tokMu.Lock()
	defer c.tokMu.Unlock()
	if _, ok := c.tokens[org]; !ok && len(c.tokens) >= maxCachedTokens {
		now := c.now()
		for k, v := range c.tokens {
			if !now.Before(v.expires) {
				delete(c.tokens, k)
			}
		}
		if len(c.tokens) >= maxCachedTokens {
			var oldest string
			var ot time.Time
			for k, v := range c.tokens {
				if oldest == "" || v.expires.Before(ot) {
					oldest, ot = k, v.expires
				}
			}
			delete(c.tokens, oldest)
		}
	}
	c.tokens[org] = t
}

// dropToken forgets org's token after GitHub rejected it (401).
func (c *Client) dropToken(org string) {
	c.tokMu.Lock()
	delete(c.tokens, org)
	c.tokMu.Unlock()
}

func (c *Client) forgetInstallations() {
	c.instMu.Lock()
	c.instFetched = time.Time{}
	c.instMu.Unlock()
}

// githubError converts go-github errors into this package's types: rate
// limits stay *RateLimitError (raised by guardTransport), HTTP failures
// become *HTTPError; the cause is kept for logs.
func githubError(op string, err error) error {
	var rl *RateLimitError
	if errors.As(err, &rl) {
		return rl
	}
	// go-github refuses on its own when an earlier answer said the budget
	// is spent; report that as the same error type.
	var grl *github.RateLimitError
	if errors.As(err, &grl) {
		return &RateLimitError{Key: "app", Until: grl.Rate.Reset.Time, Remembered: true}
	}
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &abuse) {
		until := time.Now().Add(defaultRateLimitWait)
		if abuse.RetryAfter != nil {
			until = time.Now().Add(*abuse.RetryAfter)
		}
		return &RateLimitError{Key: "app", Until: until}
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return &HTTPError{Op: op, Status: er.Response.StatusCode, Message: truncate(er.Message, 200)}
	}
	return fmt.Errorf("repofiles: %s: %w", op, err)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
