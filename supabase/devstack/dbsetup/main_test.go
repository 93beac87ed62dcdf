package dbsetup

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/supabase/devstack/pgcluster"
)

// cluster is the package's one PostgreSQL cluster; each test creates its own
// database in it.
var cluster *pgcluster.Cluster

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := pgcluster.Start(ctx, pgcluster.Options{})
	if err != nil {
		slog.Error("start cluster", "err", err)
		return 1
	}
	defer c.Stop()
	cluster = c
	return m.Run()
}
