package mcpauth

import (
	"context"
	"log/slog"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// touch is one pending last_used_at write.
type touch struct {
	tokenID string
	at      time.Time
}

// isoMillis formats t as JavaScript's Date#toISOString does.
func isoMillis(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// TouchLastUsed records that p's API token was just used (docs/contract/protocol.md A8)
// without blocking the request: the write is queued for a single worker,
// and coalesced so a token is written at most once per LastUsedInterval.
// When the queue is full the write is dropped with a debug line; like the
// original, every failure is swallowed. Principals without a token id
// (Supabase OAuth credentials) are ignored.
func (a *Authenticator) TouchLastUsed(p *Principal) {
	if p == nil || p.TokenID == "" || p.Kind == KindSupabase || a.svc == nil {
		return
	}
	now := a.now()
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return
	}
	if last, ok := a.lastSeen[p.TokenID]; ok && now.Sub(last) < a.interval && !now.Before(last) {
		a.mu.Unlock()
		return
	}
	if len(a.lastSeen) >= a.tracked {
		a.pruneLocked(now)
	}
	if len(a.lastSeen) >= a.tracked {
		a.mu.Unlock()
		a.log.Debug("mcpauth: last_used_at dropped, too many tracked tokens", slog.String("token_id", p.TokenID))
		return
	}
	select {
	case a.queue <- touch{tokenID: p.TokenID, at: now}:
		a.lastSeen[p.TokenID] = now
	default:
		a.log.Debug("mcpauth: last_used_at dropped, queue full", slog.String("token_id", p.TokenID))
	}
	a.mu.Unlock()
}

// pruneLocked forgets tokens whose window has passed. Called with a.mu held
// and only when the map is full, so its cost is amortised.
func (a *Authenticator) pruneLocked(now time.Time) {
	for id, t := range a.lastSeen {
		if now.Sub(t) >= a.interval || now.Before(t) {
			delete(a.lastSeen, id)
		}
	}
}

func (a *Authenticator) worker() {
	defer close(a.done)
	for {
		select {
		case t := <-a.queue:
			a.writeLastUsed(context.Background(), t)
		case <-a.stop:
			// Flush what is already queued, within CloseTimeout overall.
			ctx, cancel := context.WithTimeout(context.Background(), a.closeTimeout)
			defer cancel()
			for {
				select {
				case t := <-a.queue:
					if ctx.Err() != nil {
						continue // drain without writing
					}
					a.writeLastUsed(ctx, t)
				default:
					return
				}
			}
		}
	}
}

// writeLastUsed is PATCH api_tokens?token_id=eq.<jti> with
// {"last_used_at":"<ISO ms Z>"} as the service role, under WriteTimeout.
func (a *Authenticator) writeLastUsed(parent context.Context, t touch) {
	ctx, cancel := context.WithTimeout(parent, a.writeTimeout)
	defer cancel()
	body := append([]byte(`{"last_used_at":`), jsjson.AppendString(nil, isoMillis(t.at))...)
	body = append(body, '}')
	if _, err := a.svc.From("api_tokens").Eq("token_id", t.tokenID).Update(ctx, body, postgrest.ReturnMinimal); err != nil {
		a.log.Debug("mcpauth: last_used_at write failed", slog.String("token_id", t.tokenID), slog.String("error", err.Error()))
	}
}

// Close stops the last_used_at worker after flushing queued writes for at
// most CloseTimeout. It is idempotent; TouchLastUsed after Close is a no-op.
func (a *Authenticator) Close() {
	a.once.Do(func() {
		a.mu.Lock()
		a.closed = true
		a.mu.Unlock()
		close(a.stop)
		select {
		case <-a.done:
		case <-time.After(a.closeTimeout + a.writeTimeout):
		}
	})
}
