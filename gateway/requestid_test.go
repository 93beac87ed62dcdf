package gateway

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRequestID checks the contract of the request-id middleware for any
// incoming header value: the answer always carries a sane id, and it is the
// incoming one exactly when that one was sane.
func FuzzRequestID(f *testing.F) {
	for _, seed := range []string{"", "abc", "a b", "a\nb", "idé", string(make([]byte, 129)), "req-1:2.3_4"} {
		f.Add(seed)
	}
	s, err := New(Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, incoming string) {
		req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
		req.Header[HeaderRequestID] = []string{incoming}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		got := rec.Header().Get(HeaderRequestID)
		if !saneRequestID(got) {
			t.Fatalf("answered with an unsafe id %q for incoming %q", got, incoming)
		}
		if saneRequestID(incoming) != (got == incoming) {
			t.Fatalf("incoming %q (sane=%v) answered %q", incoming, saneRequestID(incoming), got)
		}
	})
}

func TestLogHandlerAddsRequestID(t *testing.T) {
	tests := []struct {
		name string
		log  func(l *slog.Logger, ctx context.Context)
		want string
	}{
		{"plain", func(l *slog.Logger, ctx context.Context) { l.InfoContext(ctx, "m") },
			`level=INFO msg=m request_id=rid-1`},
		{"derived with attrs", func(l *slog.Logger, ctx context.Context) { l.With("component", "x").InfoContext(ctx, "m", "k", 1) },
			`level=INFO msg=m component=x k=1 request_id=rid-1`},
		{"in a group", func(l *slog.Logger, ctx context.Context) { l.WithGroup("g").InfoContext(ctx, "m", "k", 1) },
			`level=INFO msg=m g.k=1 g.request_id=rid-1`},
		{"no id in the context", func(l *slog.Logger, _ context.Context) { l.InfoContext(context.Background(), "m") },
			`level=INFO msg=m`},
		{"below the level", func(l *slog.Logger, ctx context.Context) { l.DebugContext(ctx, "m") }, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			noTime := func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}
			l := slog.New(NewLogHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: noTime})))
			tt.log(l, WithRequestID(context.Background(), "rid-1"))
			if got := strings.TrimSpace(buf.String()); got != tt.want {
				t.Errorf("log line = %q, want %q", got, tt.want)
			}
		})
	}
}
