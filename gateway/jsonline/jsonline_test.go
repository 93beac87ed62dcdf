package jsonline

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestPlain(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "get_submission": true, "/functions/v1/mcp-server": true, "a<b>&c'd": true, " ~": true,
		`a"b`: false, `a\b`: false, "a\nb": false, "\x7f": false, "é": false, "\t": false,
	} {
		if got := Plain(s); got != want {
			t.Errorf("Plain(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestLineMatchesSlog builds a line with every kind of attribute and
// compares it with what slog's JSONHandler writes for the same record at a
// fixed time.
func TestLineMatchesSlog(t *testing.T) {
	at := time.Date(2026, 12, 1, 7, 30, 1, 123456789, time.UTC)
	var want bytes.Buffer
	h := slog.NewJSONHandler(&want, nil).WithAttrs([]slog.Attr{slog.String("log", "audit"), slog.String("version", "v1")})
	r := slog.NewRecord(at, slog.LevelWarn, "tool call", 0)
	r.AddAttrs(slog.String("tool", "get_assignment"), slog.Int64("n", -42), slog.Float64("ms", 0.052), slog.Float64("big", 1e21))
	if err := h.Handle(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	attrs, err := Attrs(slog.String("log", "audit"), slog.String("version", "v1"))
	if err != nil {
		t.Fatal(err)
	}
	b := Head(nil, at, slog.LevelWarn, "tool call", attrs)
	b = String(b, "tool", "get_assignment")
	b = Int(b, "n", -42)
	b = Float(b, "ms", 0.052)
	b = Float(b, "big", 1e21)
	if got := string(End(b)); got != want.String() {
		t.Errorf("line\n got  %s want %s", got, want.String())
	}
	if _, err := Attrs(slog.Int("n", 1)); err == nil {
		t.Error("a non-string attribute was accepted")
	}
	if _, err := Attrs(slog.String("k", `"`)); err == nil {
		t.Error("a value that needs escaping was accepted")
	}
}

func TestAppendFloat(t *testing.T) {
	for _, f := range []float64{0, 0.001, 0.052, 1.5, 12345.678, 1e-7, 2.5e-9, 1e21, 123456789012345680000, -0.25} {
		want := slogFloat(f)
		if got := string(AppendFloat(nil, f)); got != want {
			t.Errorf("AppendFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

// slogFloat is what slog's JSONHandler writes for f.
func slogFloat(f float64) string {
	var b bytes.Buffer
	slog.New(slog.NewJSONHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey {
			return slog.Attr{}
		}
		return a
	}})).Info("", "f", f)
	s := strings.TrimSpace(b.String())
	return strings.TrimSuffix(strings.TrimPrefix(s, `{"f":`), "}")
}
