package tools

import (
	"testing"

	"github.com/pawtograder/mcp-gateway/gateway/jsjson"
)

func TestTestPassed(t *testing.T) {
	tests := []struct {
		name            string
		score, maxScore any
		want            bool
	}{
		{"full marks", 10.0, 10.0, true},
		{"above max", 11.0, 10.0, true},
		{"zero of zero passes", 0.0, 0.0, true},
		{"partial", 0.5, 5.0, false},
		{"null score", nil, 5.0, false},
		{"null max", 5.0, nil, false},
		{"numeric strings compare as numbers", "10", "9.5", true},
		{"NaN never passes", "abc", 0.0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := testPassed(tt.score, tt.maxScore); got != tt.want {
				t.Errorf("testPassed(%v, %v) = %v, want %v", tt.score, tt.maxScore, got, tt.want)
			}
		})
	}
}

func TestStudentLimit(t *testing.T) {
	tests := []struct {
		args   string
		want   int
		wantOK bool
	}{
		{`{}`, 10, true},
		{`{"limit":null}`, 10, true}, // JS ??: only undefined and null take the default
		{`{"limit":0}`, 0, true},     // quirk 4: 0 stays 0 (and returns [])
		{`{"limit":3}`, 3, true},
		{`{"limit":1000}`, 1000, true},
		{`{"limit":5000}`, 1000, true},
		{`{"limit":-1}`, 0, false},
		{`{"limit":1.5}`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			v, err := jsjson.Decode([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := studentLimit(v.(*jsjson.Object))
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("studentLimit(%s) = %d, %v; want %d, %v", tt.args, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestFlagArguments(t *testing.T) {
	tests := []struct {
		args             string
		isTrue, notFalse bool
	}{
		{`{}`, false, true},
		{`{"f":true}`, true, true},
		{`{"f":false}`, false, false},
		{`{"f":null}`, false, true},
		{`{"f":"true"}`, false, true}, // a string is never the boolean
		{`{"f":1}`, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			v, err := jsjson.Decode([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			o := v.(*jsjson.Object)
			if got := isTrue(o, "f"); got != tt.isTrue {
				t.Errorf("isTrue = %v, want %v", got, tt.isTrue)
			}
			if got := notFalse(o, "f"); got != tt.notFalse {
				t.Errorf("notFalse = %v, want %v", got, tt.notFalse)
			}
		})
	}
}
