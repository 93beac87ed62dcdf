package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFormatEnv(t *testing.T) {
	got := formatEnv([][2]string{
		{"SUPABASE_URL", "http://127.0.0.1:5000"},
		{"JWT_SECRET", `{"kid":"k","x":"a'b"}`},
	})
	want := "SUPABASE_URL=http://127.0.0.1:5000\nJWT_SECRET='{\"kid\":\"k\",\"x\":\"a'\\''b\"}'\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("formatEnv (-want +got):\n%s", diff)
	}
}
