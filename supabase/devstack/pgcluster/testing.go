package pgcluster

import (
	"context"
	"testing"
	"time"
)

// StartForTest starts a throwaway cluster for a test (or benchmark) and stops
// it in tb.Cleanup. It fails the test when the cluster cannot start.
//
// For one cluster per package, call Start from TestMain instead: a cluster
// per test costs about a second each.
func StartForTest(tb testing.TB) *Cluster {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := Start(ctx, Options{})
	if err != nil {
		tb.Fatalf("pgcluster.Start: %v", err)
	}
	tb.Cleanup(func() {
		if err := c.Stop(); err != nil {
			tb.Errorf("pgcluster.Stop: %v", err)
		}
	})
	return c
}
