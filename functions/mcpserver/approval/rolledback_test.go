package approval

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/postgrest"
)

// TestRolledBack: only the database's own refusal of the statement, which
// PostgREST answers after rolling back, lets the page say nothing was
// written; a transport failure, a proxy's error page or PostgREST's own
// error (its code PGRST…) does not.
func TestRolledBack(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&postgrest.Error{Status: 500, Code: "55P03", Message: "canceling statement due to lock timeout"}, true},
		{fmt.Errorf("approval: %w", &postgrest.Error{Status: 500, Code: "57014"}), true},
		{&postgrest.Error{Status: 0, Err: context.DeadlineExceeded}, false},
		{&postgrest.Error{Status: 502}, false},
		{&postgrest.Error{Status: 404, Code: "PGRST202"}, false},
		{errors.New("connection reset"), false},
	}
	for _, tt := range tests {
		if got := rolledBack(tt.err); got != tt.want {
			t.Errorf("rolledBack(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
