package approval

import (
	"io"
	"log/slog"
	"sync"
)

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func newAuditLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(&lockedWriter{w: w}, nil))
}
