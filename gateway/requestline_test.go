package gateway

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pawtograder/mcp-gateway/gateway/gatewaytest/logline"
)

// TestRequestLogMatchesSlog pins the fast request line to the bytes slog's
// JSONHandler writes through the process logger for the same request, and
// checks that values needing escapes are handed back to slog.
func TestRequestLogMatchesSlog(t *testing.T) {
	tests := []struct {
		name     string
		level    slog.Level
		line     requestLine
		wantFast bool
	}{
		{"401", slog.LevelInfo, requestLine{"POST", "/functions/v1/mcp-server", "mcp-server", "0123456789abcdef0123456789abcdef", 401, 52 * time.Microsecond, 80}, true},
		{"500 at warn", slog.LevelWarn, requestLine{"GET", "/mcp-tokens", "mcp-tokens", "req-1", 500, 1500 * time.Microsecond, 33}, true},
		{"no function", slog.LevelInfo, requestLine{"GET", "/nope", "", "x", 404, 0, 0}, true},
		{"no request id", slog.LevelInfo, requestLine{"GET", "/x", "", "", 404, 999 * time.Nanosecond, 0}, true},
		{"long duration", slog.LevelInfo, requestLine{"POST", "/functions/v1/mcp-server", "mcp-server", "r", 200, 12345678 * time.Microsecond, 1 << 40}, true},
		{"html characters", slog.LevelInfo, requestLine{"GET", "/a<b>&c'd", "", "id<>&", 404, time.Millisecond, 1}, true},
		{"quote in the path", slog.LevelInfo, requestLine{"GET", `/a"b`, "", "r", 404, time.Millisecond, 1}, false},
		{"backslash in the id", slog.LevelInfo, requestLine{"GET", "/a", "", `r\1`, 404, time.Millisecond, 1}, false},
		{"non-ASCII path", slog.LevelInfo, requestLine{"GET", "/é…", "", "r", 404, time.Millisecond, 1}, false},
		{"control character", slog.LevelInfo, requestLine{"GET", "/a\nb", "", "r", 404, time.Millisecond, 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var slogOut, fastOut bytes.Buffer
			log := slog.New(NewLogHandler(slog.NewJSONHandler(&slogOut, nil))).With(slog.String("version", "v1.2.3"))
			ctx := context.Background()
			if tt.line.requestID != "" {
				ctx = WithRequestID(ctx, tt.line.requestID)
			}
			logRequest(ctx, log, nil, tt.level, tt.line)

			fast, err := NewRequestLog(&fastOut, slog.LevelInfo, slog.String("version", "v1.2.3"))
			if err != nil {
				t.Fatal(err)
			}
			if got := fast.write(tt.level, tt.line); got != tt.wantFast {
				t.Fatalf("fast path taken = %v, want %v", got, tt.wantFast)
			}
			if !tt.wantFast {
				if fastOut.Len() != 0 {
					t.Errorf("declined line was written: %q", fastOut.String())
				}
				return
			}
			logline.Same(t, fastOut.String(), slogOut.String())
		})
	}
}

func TestRequestLogLevel(t *testing.T) {
	var out bytes.Buffer
	fast, err := NewRequestLog(&out, slog.LevelWarn)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}))
	logRequest(context.Background(), log, fast, slog.LevelInfo, requestLine{method: "GET", path: "/", status: 200})
	if out.Len() != 0 {
		t.Errorf("info line written at level warn: %q", out.String())
	}
	logRequest(context.Background(), log, fast, slog.LevelWarn, requestLine{method: "GET", path: "/", status: 500})
	if !strings.Contains(out.String(), `"level":"WARN","msg":"request","method":"GET"`) {
		t.Errorf("warn line = %q", out.String())
	}
	if _, err := NewRequestLog(&out, slog.LevelInfo, slog.Int("n", 1)); err == nil {
		t.Error("a non-string attribute was accepted")
	}
}

// countingBuffer is a bytes.Buffer safe for the flush timer's goroutine.
type countingBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (s *countingBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.b.Write(p)
}

func (s *countingBuffer) snapshot() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String(), s.writes
}

func TestLogWriter(t *testing.T) {
	t.Run("batches and flushes on the interval", func(t *testing.T) {
		var out countingBuffer
		lw := NewLogWriter(&out, 20*time.Millisecond)
		for i := range 100 {
			_, _ = lw.Write([]byte("line " + string(rune('a'+i%26)) + "\n"))
		}
		if s, _ := out.snapshot(); s != "" {
			t.Fatalf("written before the interval: %q", s)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			s, writes := out.snapshot()
			if strings.Count(s, "\n") == 100 {
				if writes != 1 {
					t.Errorf("%d writes, want 1 batch", writes)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("not flushed: %q", s)
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	t.Run("flushes when full and keeps lines whole", func(t *testing.T) {
		var out countingBuffer
		lw := NewLogWriter(&out, time.Hour)
		line := []byte(strings.Repeat("x", 999) + "\n")
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 100 {
					_, _ = lw.Write(line)
				}
			})
		}
		wg.Wait()
		if s, writes := out.snapshot(); writes == 0 || len(s) == 0 {
			t.Fatalf("nothing flushed after 400 KB")
		}
		if err := lw.Close(); err != nil {
			t.Fatal(err)
		}
		s, _ := out.snapshot()
		for i, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
			if l != string(line[:len(line)-1]) {
				t.Fatalf("line %d split or merged: %d bytes", i, len(l))
			}
		}
		if strings.Count(s, "\n") != 400 {
			t.Errorf("%d lines, want 400", strings.Count(s, "\n"))
		}
	})
	t.Run("writes through after Close", func(t *testing.T) {
		var out countingBuffer
		lw := NewLogWriter(&out, time.Hour)
		_, _ = lw.Write([]byte("a\n"))
		_ = lw.Close()
		_, _ = lw.Write([]byte("b\n"))
		if s, _ := out.snapshot(); s != "a\nb\n" {
			t.Errorf("output %q", s)
		}
		big := []byte(strings.Repeat("y", 2*logBufferSize) + "\n")
		lw2 := NewLogWriter(&out, time.Hour)
		_, _ = lw2.Write(big)
		if s, _ := out.snapshot(); !strings.HasSuffix(s, string(big)) {
			t.Error("a line larger than the buffer was not written at once")
		}
	})
}
