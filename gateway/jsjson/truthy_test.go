package jsjson

import (
	"math"
	"testing"
)

// TestTruthy pins Boolean(v) for every kind of JSON value, the falsy ones
// and the truthy values next to them.
func TestTruthy(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    any
		want bool
	}{
		{"null", nil, false},
		{"false", false, false},
		{"true", true, true},
		{"0", float64(0), false},
		{"-0", math.Copysign(0, -1), false},
		{"NaN", math.NaN(), false},
		{"1", float64(1), true},
		{"-1", float64(-1), true},
		{"smallest double", math.SmallestNonzeroFloat64, true},
		{"Infinity", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true},
		{"int 0", 0, false},
		{"int64 0", int64(0), false},
		{"int32 -3", int32(-3), true},
		{"uint32 7", uint32(7), true},
		{"float32 NaN", float32(math.NaN()), false},
		{"float32 0.5", float32(0.5), true},
		{"empty string", "", false},
		{`"0"`, "0", true},
		{`"false"`, "false", true},
		{`" "`, " ", true},
		{"empty object", NewObject(0), true},
		{"object", NewObject(1).Set("a", nil), true},
		{"nil *Object", (*Object)(nil), false},
		{"empty array", []any{}, true},
		{"nil array", []any(nil), true},
		{"array of null", []any{nil}, true},
	} {
		if got := Truthy(tt.v); got != tt.want {
			t.Errorf("Truthy(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
