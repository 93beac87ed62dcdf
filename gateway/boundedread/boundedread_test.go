package boundedread

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestAll compares All with io.ReadAll over io.LimitReader, which it
// replaces.
func TestAll(t *testing.T) {
	long := strings.Repeat("x", 2000)
	tests := []struct {
		name     string
		body     string
		declared int64
		limit    int64
		want     string
	}{
		{"declared", `[{"a":1}]`, 9, 100, `[{"a":1}]`},
		{"undeclared", long, -1, 5000, long},
		{"empty", "", 0, 100, ""},
		{"over the limit, declared", long, 2000, 10, long[:11]},
		{"over the limit, undeclared", long, -1, 10, long[:11]},
		{"longer than declared", long, 5, 5000, long},
		{"shorter than declared", "ab", 100, 5000, "ab"},
		{"one byte at a time", long, 2000, 5000, long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r io.Reader = strings.NewReader(tt.body)
			if tt.name == "one byte at a time" {
				r = iotest.OneByteReader(r)
			}
			got, err := All(r, tt.declared, tt.limit)
			want, _ := io.ReadAll(io.LimitReader(strings.NewReader(tt.body), tt.limit+1))
			if err != nil || string(got) != tt.want || string(got) != string(want) {
				t.Errorf("All = %d bytes, %v; want %d bytes (io.ReadAll gives %d)", len(got), err, len(tt.want), len(want))
			}
		})
	}
}

func TestAllKeepsWhatPrecededAnError(t *testing.T) {
	boom := errors.New("boom")
	got, err := All(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)), -1, 100)
	if !errors.Is(err, boom) || string(got) != "abc" {
		t.Fatalf("All = %q, %v; want \"abc\", boom", got, err)
	}
}

// TestAllOneAllocation: a body that declares its length is read into one
// allocation, where bytes.Buffer's ReadFrom needed a second.
func TestAllOneAllocation(t *testing.T) {
	body := strings.Repeat("y", 300)
	r := strings.NewReader(body)
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(body)
		if b, err := All(r, int64(len(body)), 1<<20); err != nil || len(b) != len(body) {
			t.Fatalf("All = %d bytes, %v", len(b), err)
		}
	})
	if allocs != 1 {
		t.Fatalf("%v allocations, want 1", allocs)
	}
}
