package gatewaytest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// DB connects to the stack's database as a superuser, for tests that set
// up or inspect rows beyond what the REST API shows; the connection closes
// when t ends. It skips t when no database URL is known (a real stack
// without GATEWAY_TEST_DATABASE_URL).
func (e *Env) DB(t testing.TB) *pgx.Conn {
	t.Helper()
	e.RequireDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.DatabaseURL)
	if err != nil {
		t.Fatalf("connect to the database: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// RequireDatabase skips t when no database URL is known (a real stack
// without GATEWAY_TEST_DATABASE_URL).
func (e *Env) RequireDatabase(t testing.TB) {
	t.Helper()
	if e.DatabaseURL == "" {
		t.Skip("needs direct database access: set GATEWAY_TEST_DATABASE_URL")
	}
}
