package postgreststandin

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHangUpDoesNotCancel: a client that gives up while its call waits on
// a row lock does not cancel the statement; PostgREST runs it on, and so
// does this server, so the write is made once the lock is free.
func TestHangUpDoesNotCancel(t *testing.T) {
	ctx := context.Background()
	t.Cleanup(func() {
		if _, err := testPool.Exec(ctx, `UPDATE rpc_notes SET body = 'alice 1' WHERE id = 1`); err != nil {
			t.Error(err)
		}
	})
	lock, err := testPool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Exec(ctx, `SELECT 1 FROM rpc_notes WHERE id = 1 FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	client, giveUp := context.WithCancel(ctx)
	req := httptest.NewRequestWithContext(client, http.MethodPost, "/rpc/rename_note", strings.NewReader(`{"p_id":1,"p_body":"after hang-up"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token(t, "hs", userClaims("11111111-1111-1111-1111-111111111111")))
	done := make(chan int, 1)
	go func() {
		rec := httptest.NewRecorder()
		testHandler.ServeHTTP(rec, req)
		done <- rec.Code
	}()
	waitFor(t, func() bool { return lockWaiters(t) > 0 }) // the call waits on the lock
	giveUp()
	if err := lock.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != http.StatusNoContent {
			t.Errorf("the call answered %d, want 204", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not finish after the lock was freed")
	}
	var body string
	if err := testPool.QueryRow(ctx, `SELECT body FROM rpc_notes WHERE id = 1`).Scan(&body); err != nil {
		t.Fatal(err)
	}
	if body != "after hang-up" {
		t.Errorf("body %q: the hang-up cancelled the write", body)
	}
}

// lockWaiters counts the backends waiting on a lock.
func lockWaiters(t *testing.T) int {
	var n int
	if err := testPool.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks WHERE NOT granted`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFor polls cond until it holds, failing after ten seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("the condition did not hold within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
