package userdb

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestJSONParseError compares with V8's JSON.parse messages, recorded with
// node 20. Where V8 quotes the source ("Unexpected token 'x', \"…\" is not
// valid JSON") the expectation is the older V8 form with a position, which
// jsonParseError uses so that the private key is never echoed.
func TestJSONParseError(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1}`, ""},
		{`{"a":0.5e-3}`, ""},
		{`{"a":[{},[]]} `, ""},
		{"{\"a\":1}\n\n", ""},
		{`{"d":"\/"}`, ""},
		{`{"a":"\ud800"}`, ""},
		{`{`, "Expected property name or '}' in JSON at position 1"},
		{`{  `, "Expected property name or '}' in JSON at position 3"},
		{`{a:1}`, "Expected property name or '}' in JSON at position 1"},
		{`{"a":`, "Unexpected end of JSON input"},
		{`{"a" 1}`, "Expected ':' after property name in JSON at position 5"},
		{`{"a"`, "Expected ':' after property name in JSON at position 4"},
		{`{"a":{"b"`, "Expected ':' after property name in JSON at position 9"},
		{`{"a":1,}`, "Expected double-quoted property name in JSON at position 7"},
		{`{"a":"b",  }`, "Expected double-quoted property name in JSON at position 11"},
		{`{"a":1,`, "Expected double-quoted property name in JSON at position 7"},
		{`{"a":1,"b":2,x`, "Expected double-quoted property name in JSON at position 13"},
		{`{"a":x}`, "Unexpected token 'x' in JSON at position 5"},
		{`{"é😀":y}`, "Unexpected token 'y' in JSON at position 7"},
		{`{"a":1}x`, "Unexpected non-whitespace character after JSON at position 7"},
		{"{\"a\":1}\u00a0", "Unexpected non-whitespace character after JSON at position 7"},
		{`{}[]`, "Unexpected non-whitespace character after JSON at position 2"},
		{`{"a":1 "b":2}`, "Expected ',' or '}' after property value in JSON at position 7"},
		{`{"a":"x"`, "Expected ',' or '}' after property value in JSON at position 8"},
		{`{"a":truex}`, "Expected ',' or '}' after property value in JSON at position 9"},
		{`{"a":1,"b":2`, "Expected ',' or '}' after property value in JSON at position 12"},
		{`{"a":1,"b"`, "Unexpected end of JSON input"},
		{`{"a":1,"b" 2}`, "Unexpected number in JSON at position 11"},
		{`{"a":1,"b"}`, "Unexpected token '}' in JSON at position 10"},
		{"{\"a\":\"\u0001\"}", "Bad control character in string literal in JSON at position 6"},
		{"{\"a\":\"\t\"}", "Bad control character in string literal in JSON at position 6"},
		{`{"a":"\x"}`, "Bad escaped character in JSON at position 7"},
		{`{"a":"\u12g4"}`, "Bad Unicode escape in JSON at position 10"},
		{`{"a":"\u12`, "Bad Unicode escape in JSON at position 10"},
		{`{"a":"\`, "Unexpected end of JSON input"},
		{`{"a":"abc`, "Unterminated string in JSON at position 9"},
		{`{"a":"\u00e9x`, "Unterminated string in JSON at position 13"},
		{`{"a":-}`, "No number after minus sign in JSON at position 6"},
		{`{"a":-`, "No number after minus sign in JSON at position 6"},
		{`{"a":1.}`, "Unterminated fractional number in JSON at position 7"},
		{`{"a":1.`, "Unterminated fractional number in JSON at position 7"},
		{`{"a":1e}`, "Exponent part is missing a number in JSON at position 7"},
		{`{"a":1e+`, "Exponent part is missing a number in JSON at position 8"},
		{`{"a":01}`, "Unexpected number in JSON at position 6"},
		{`{"a":tru}`, "Unexpected token '}' in JSON at position 8"},
		{`{"a":tru`, "Unexpected end of JSON input"},
		{`{"a":nul}`, "Unexpected token '}' in JSON at position 8"},
		{`{"a":[1 2]}`, "Expected ',' or ']' after array element in JSON at position 8"},
		{`{"a":[1`, "Expected ',' or ']' after array element in JSON at position 7"},
		{`{"a":[1,`, "Unexpected end of JSON input"},
		{`{"a":[`, "Unexpected end of JSON input"},
		{`{"a":[1,]}`, "Unexpected token ']' in JSON at position 8"},
		{`{"a":[}`, "Unexpected token '}' in JSON at position 6"},
		{`{"a":"😀"x}`, "Expected ',' or '}' after property value in JSON at position 9"},
		{`{"a":{}`, "Expected ',' or '}' after property value in JSON at position 7"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, jsonParseError(tc.in)); diff != "" {
				t.Errorf("jsonParseError(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestJSONParseErrorDepth(t *testing.T) {
	deep := "{\"a\":" + strings.Repeat("[", 10000)
	if got := jsonParseError(deep); got != "Maximum call stack size exceeded" {
		t.Errorf("deep nesting: %q", got)
	}
}

// FuzzJSONParseError: no panic, and the checker agrees with encoding/json
// on validity for valid UTF-8 input.
func FuzzJSONParseError(f *testing.F) {
	for _, s := range []string{`{"kty":"EC"}`, `{"a":[1,2,{"b":null}]}`, `{"a":1e5}`, `{`, `{"a":"\u00zz"}`, `{"a":-0.0E+1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		msg := jsonParseError(s)
		if !utf8.ValidString(s) || strings.Count(s, "[")+strings.Count(s, "{") > maxJSONDepth {
			return
		}
		if valid := json.Valid([]byte(s)); valid != (msg == "") {
			t.Fatalf("jsonParseError(%q) = %q but json.Valid = %v", s, msg, valid)
		}
	})
}
