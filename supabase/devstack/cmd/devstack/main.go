// Command devstack runs the local Supabase stack (PostgreSQL with the
// Pawtograder schema and seed, the REST API and the Auth endpoints) until it
// receives SIGINT or SIGTERM, then stops it and removes its data. With
// -database-url it serves an existing database instead (no cluster, no
// fixtures, nothing removed; see devstack.Options.DatabaseURL).
//
// It prints the settings a gateway needs as KEY=VALUE lines on stdout and,
// with -env-file, writes them to a file (mode 0600) as well.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/pawtograder/mcp-gateway/supabase/devstack"
)

func main() {
	port := flag.Int("port", 0, "HTTP port on 127.0.0.1 (0 picks a free port)")
	envFile := flag.String("env-file", "", "also write the KEY=VALUE settings to this file")
	noSeed := flag.Bool("no-seed", false, "apply the schema but not the seed data")
	databaseURL := flag.String("database-url", "", "serve this existing database instead of a new cluster (nothing is created or seeded)")
	flag.Parse()
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, logger, os.Stdout, *port, *envFile, devstack.Options{NoSeed: *noSeed, DatabaseURL: *databaseURL}); err != nil {
		logger.Error("devstack failed", "error", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, logger *slog.Logger, stdout io.Writer, port int, envFile string, opts devstack.Options) (err error) {
	startCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	opts.Port, opts.Logger = port, logger
	s, err := devstack.Start(startCtx, opts)
	cancel()
	if err != nil {
		return err
	}
	defer func() {
		err = errors.Join(err, s.Close())
		if envFile != "" {
			if rmErr := os.Remove(envFile); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
				err = errors.Join(err, rmErr)
			}
		}
	}()
	env := formatEnv(s.Env())
	if _, err := io.WriteString(stdout, env); err != nil {
		return err
	}
	if envFile != "" {
		if err := os.WriteFile(envFile, []byte(env), 0o600); err != nil {
			return fmt.Errorf("write %s: %w", envFile, err)
		}
	}
	logger.Info("devstack ready; stop with Ctrl-C", "url", s.URL)
	<-ctx.Done()
	logger.Info("devstack stopping")
	return nil
}

// formatEnv renders KEY=VALUE lines; values are single-quoted when they hold
// characters a shell or dotenv parser would split on (the JWK's JSON).
func formatEnv(pairs [][2]string) string {
	var sb strings.Builder
	for _, kv := range pairs {
		v := kv[1]
		if strings.ContainsAny(v, " \t\"'{}$`\\#") {
			v = "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
		}
		sb.WriteString(kv[0] + "=" + v + "\n")
	}
	return sb.String()
}
