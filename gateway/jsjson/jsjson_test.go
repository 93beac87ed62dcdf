package jsjson

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRoundTrip pins JSON.parse + JSON.stringify results that need no node.
func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct{ in, compact, indent string }{
		{`{"b":1,"a":[true,null,{}],"b":2}`, `{"b":2,"a":[true,null,{}]}`, "{\n  \"b\": 2,\n  \"a\": [\n    true,\n    null,\n    {}\n  ]\n}"},
		{`{"x":1,"10":1,"2":1}`, `{"2":1,"10":1,"x":1}`, "{\n  \"2\": 1,\n  \"10\": 1,\n  \"x\": 1\n}"},
		{`[1e3,-0,1e21,1e-7,0.000001,12345678901234567890]`, `[1000,0,1e+21,1e-7,0.000001,12345678901234567000]`, ""},
		{`"\ud800"`, `"\ud800"`, `"\ud800"`},
		{`"\ud83d\ude00"`, `"😀"`, `"😀"`},
		{`"\ud83d" `, `"\ud83d"`, ``},
		{"\"a\xe2\x82b\"", "\"a\ufffdb\"", ""},             // one maximal subpart
		{"\"\xed\xa0\x80\"", "\"\ufffd\ufffd\ufffd\"", ""}, // raw surrogate bytes are invalid
		{`"<>&\u2028\u0001"`, "\"<>&\u2028\\u0001\"", ""},
		{`[]`, `[]`, `[]`},
		{`{}`, `{}`, `{}`},
	} {
		v, err := Decode([]byte(tc.in))
		if err != nil {
			t.Errorf("Decode(%q): %v", tc.in, err)
			continue
		}
		got, _ := Marshal(v)
		if diff := cmp.Diff(tc.compact, string(got)); diff != "" {
			t.Errorf("Marshal(Decode(%q)) (-want +got):\n%s", tc.in, diff)
		}
		if tc.indent != "" {
			got, _ := MarshalIndent(v)
			if diff := cmp.Diff(tc.indent, string(got)); diff != "" {
				t.Errorf("MarshalIndent(Decode(%q)) (-want +got):\n%s", tc.in, diff)
			}
		}
	}
}

// TestDecodeErrors lists inputs JSON.parse refuses.
func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{
		``, " ", "\ufeff{}", `01`, `1.`, `.5`, `+1`, `-`, `1e`, `NaN`, `[1,]`, `{"a":1,}`, `{"a" 1}`,
		`'a'`, `"\x"`, `"\u12"`, `"abc`, "\"\x01\"", "\u00a0null", "\fnull", `[] []`, `tru`, "\xff",
	} {
		if v, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%q) = %v, want an error", in, v)
		}
	}
	deep := strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)
	if _, err := Decode([]byte(deep)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Decode(deep) = %v, want ErrTooDeep", err)
	}
}

// TestAppendNumber pins Number#toString formatting.
func TestAppendNumber(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {-1.5, "-1.5"}, {1e21, "1e+21"}, {1e20, "100000000000000000000"},
		{1e-7, "1e-7"}, {1e-6, "0.000001"}, {5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
		{0.30000000000000004, "0.30000000000000004"}, {123e-20, "1.23e-18"},
	} {
		if got := string(AppendNumber(nil, tc.f)); got != tc.want {
			t.Errorf("AppendNumber(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

// FuzzDecode checks that Decode never panics, accepts exactly the texts
// encoding/json calls valid (up to MaxDepth), and that its output re-parses
// to the same text.
func FuzzDecode(f *testing.F) {
	for _, s := range fixedInputs() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := Decode(in)
		if errors.Is(err, ErrTooDeep) {
			return
		}
		if valid := json.Valid(in); valid != (err == nil) {
			t.Fatalf("Decode(%q) error %v, but json.Valid = %v", in, err, valid)
		}
		if err != nil {
			return
		}
		out, err := Marshal(v)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		if !json.Valid(out) {
			t.Fatalf("Marshal output %q is not valid JSON", out)
		}
		v2, err := Decode(out)
		if err != nil {
			t.Fatalf("re-Decode(%q): %v", out, err)
		}
		out2, _ := Marshal(v2)
		if string(out) != string(out2) {
			t.Fatalf("not idempotent: %q then %q", out, out2)
		}
	})
}

// submissionLike builds a value shaped like get_submission with files and
// test output: about 1 MiB of mostly string content.
func submissionLike() any {
	files := make([]any, 0, 40)
	for i := range 40 {
		files = append(files, NewObject(4).
			Set("id", float64(1000+i)).
			Set("name", "src/main/java/edu/neu/Example"+strconv.Itoa(i)+".java").
			Set("size", float64(20000)).
			Set("contents", strings.Repeat("public class X {\n\t// \"quoted\" <html> é\n}\n", 500)))
	}
	tests := make([]any, 0, 200)
	for i := range 200 {
		tests = append(tests, NewObject(5).
			Set("id", float64(i)).
			Set("name", "test "+strconv.Itoa(i)).
			Set("score", 0.5).
			Set("max_score", float64(1)).
			Set("output", strings.Repeat("expected <1> but was <2>\n", 10)))
	}
	return NewObject(4).
		Set("submission", NewObject(3).Set("id", float64(42)).Set("sha", "abc123").Set("created_at", "2026-01-30T03:19:26.123456+00:00")).
		Set("files", files).
		Set("tests", tests).
		Set("errors", nil)
}

func BenchmarkMarshalIndent(b *testing.B) {
	v := submissionLike()
	out, _ := MarshalIndent(v)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MarshalIndent(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	in, _ := Marshal(submissionLike())
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEncodeTooDeep: both encoders refuse a value nested deeper than
// MaxDepth instead of recursing without bound.
func TestEncodeTooDeep(t *testing.T) {
	v := deepArray(MaxDepth + 2)
	if _, err := Marshal(v); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Marshal(too deep) error %v, want ErrTooDeep", err)
	}
	if _, err := MarshalIndent(v); !errors.Is(err, ErrTooDeep) {
		t.Errorf("MarshalIndent(too deep) error %v, want ErrTooDeep", err)
	}
}

// deepArray is n arrays nested in one another.
func deepArray(n int) any {
	var v any = []any{}
	for range n - 1 {
		v = []any{v}
	}
	return v
}
