package gateway

import (
	"io"
	"sync"
	"time"
)

// Defaults of NewLogWriter.
const (
	DefaultLogFlushInterval = 100 * time.Millisecond
	logBufferSize           = 64 << 10
	logFlushAt              = 48 << 10
)

// LogWriter buffers log lines and writes them to the underlying writer in
// batches: when the buffer passes 48 KiB, and at most DefaultLogFlushInterval
// after the first line of a batch. Without it, every request costs a write
// system call for its log line — on the cheapest requests (a refused token)
// about as much CPU as the rest of the request. Each Write must be whole
// lines (slog handlers write one record per call), so lines are never split
// or interleaved. Call Close (or Flush) before the process exits; lines
// still buffered when the process dies are lost, which is the price of
// batching (at most one interval's worth).
//
// A LogWriter is safe for concurrent use.
type LogWriter struct {
	mu       sync.Mutex
	w        io.Writer
	buf      []byte
	interval time.Duration
	timer    *time.Timer
	pending  bool  // a timed flush is scheduled
	closed   bool  // Close was called: write through
	err      error // the last write error, reported by Flush
}

// NewLogWriter returns a LogWriter over w that flushes within interval of
// a line being written (0 means DefaultLogFlushInterval).
func NewLogWriter(w io.Writer, interval time.Duration) *LogWriter {
	if interval <= 0 {
		interval = DefaultLogFlushInterval
	}
	lw := &LogWriter{w: w, buf: make([]byte, 0, logBufferSize), interval: interval}
	lw.timer = time.AfterFunc(time.Hour, func() { _ = lw.Flush() })
	lw.timer.Stop()
	return lw
}

// Write appends p to the buffer, flushing when it is full. It never fails:
// log output must not fail requests; a write error is kept for Flush.
func (lw *LogWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.closed {
		if _, err := lw.w.Write(p); err != nil {
			lw.err = err
		}
		return len(p), nil
	}
	if len(lw.buf)+len(p) > cap(lw.buf) {
		lw.flushLocked()
		if len(p) > cap(lw.buf) {
			if _, err := lw.w.Write(p); err != nil {
				lw.err = err
			}
			return len(p), nil
		}
	}
	lw.buf = append(lw.buf, p...)
	if len(lw.buf) >= logFlushAt {
		lw.flushLocked()
	} else if !lw.pending {
		lw.pending = true
		lw.timer.Reset(lw.interval)
	}
	return len(p), nil
}

func (lw *LogWriter) flushLocked() {
	if len(lw.buf) > 0 {
		if _, err := lw.w.Write(lw.buf); err != nil {
			lw.err = err
		}
		lw.buf = lw.buf[:0]
	}
}

// Flush writes what is buffered now and returns the last write error.
func (lw *LogWriter) Flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.flushLocked()
	lw.pending = false
	return lw.err
}

// Close flushes and makes later writes go straight through (lines logged
// while the process exits are not lost).
func (lw *LogWriter) Close() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.timer.Stop()
	lw.flushLocked()
	lw.pending = false
	lw.closed = true
	return lw.err
}
