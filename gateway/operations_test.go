package gateway

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRunCheck: what a readiness probe reports for each way a check can
// end, measured against a 50 ms deadline.
func TestRunCheck(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	cases := []struct {
		name  string
		check func(context.Context) error
		want  string // "" for ready
	}{
		{"ready", func(context.Context) error { return nil }, ""},
		{"fails at once", func(context.Context) error { return errors.New("PostgREST is unreachable") }, "PostgREST is unreachable"},
		{"watches its deadline and says why", func(ctx context.Context) error {
			<-ctx.Done()
			return errors.New("the database did not answer in time")
		}, "the database did not answer in time"},
		{"ignores its deadline", func(context.Context) error { <-block; return nil }, "readiness check timed out"},
		{"succeeds only after its deadline", func(ctx context.Context) error { <-ctx.Done(); return nil }, "readiness check timed out"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := runCheck(ctx, tc.check)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("runCheck = %q, want %q", got, tc.want)
			}
			if took := time.Since(start); took > 50*time.Millisecond+checkGrace+100*time.Millisecond {
				t.Errorf("runCheck took %v, want at most the deadline plus %v", took, checkGrace)
			}
		})
	}
}
