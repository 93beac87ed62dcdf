package approval

import (
	"io"
	"log/slog"
	"strings"
	"sync"
)

// auditBuffer keeps the audit lines; the approval writes them from its
// own goroutine while a test reads them.
type auditBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (a *auditBuffer) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.b.Write(p)
}

func (a *auditBuffer) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.b.String()
}

func newAuditLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, nil))
}
