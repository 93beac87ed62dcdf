package activityrecord

import (
	"context"
	"math/rand/v2"
	"time"
)

// Purge bounds, as the pending actions' purge: one run deletes at most
// purgeBatches batches of purgeBatch rows; the next run continues.
const (
	purgeBatch   = 5000
	purgeBatches = 20
	purgeEvery   = time.Hour
)

// RunPurge deletes rows older than Options.Retention now and then about
// every hour (with jitter, so replicas started together do not all try at
// once), until ctx ends. The SQL function lets one purge run at a time.
func (r *Recorder) RunPurge(ctx context.Context) {
	for {
		r.purgeOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(purgeEvery/2 + rand.N(purgeEvery)):
		}
	}
}

// purgeOnce deletes batches until one comes back short and returns how
// many rows it deleted.
func (r *Recorder) purgeOnce(ctx context.Context) int {
	before := r.opts.Now().Add(-r.opts.Retention)
	total := 0
	for range purgeBatches {
		bctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		n, err := r.opts.Store.Purge(bctx, before, purgeBatch)
		cancel()
		if err != nil {
			r.opts.Logger.WarnContext(ctx, "activityrecord: purging old rows failed", "error", err.Error())
			break
		}
		total += n
		if n < purgeBatch {
			break
		}
	}
	if total > 0 {
		r.opts.Logger.InfoContext(ctx, "activityrecord: purged old rows", "deleted", total)
	}
	return total
}
