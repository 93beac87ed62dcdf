package approval

import (
	"context"
	"math/rand/v2"
	"time"
)

// Purge bounds: one run deletes at most purgeBatches batches of
// purgeBatch actions, so it never holds the table for long; the next run
// continues.
const (
	purgeBatch   = 500
	purgeBatches = 20
	purgeEvery   = time.Hour
)

// RunPurge deletes decided and lapsed actions older than Options.Retention,
// now and then about every hour (with jitter, so replicas started together
// do not all try at once), until ctx ends. Any replica may run it: the SQL
// function lets one purge run at a time, and the others return at once.
func (s *Service) RunPurge(ctx context.Context) {
	for {
		s.purgeOnce(ctx)
		wait := purgeEvery/2 + rand.N(purgeEvery)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// purgeOnce deletes batches until one comes back short, and returns how
// many actions it deleted.
func (s *Service) purgeOnce(ctx context.Context) int {
	before := s.now().Add(-s.opts.Retention)
	total := 0
	for range purgeBatches {
		bctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		n, err := s.opts.Store.Purge(bctx, before, purgeBatch)
		cancel()
		if err != nil {
			s.opts.Logger.WarnContext(ctx, "approval: purging old actions failed", "error", err.Error())
			break
		}
		total += n
		if n < purgeBatch {
			break
		}
	}
	if total > 0 {
		s.opts.Logger.InfoContext(ctx, "approval: purged old actions", "deleted", total)
	}
	return total
}
