package jsjson

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// nodeScript reads a JSON array of base64 request bodies and, for each,
// decodes it as the original's request.json() does (UTF-8 with replacement,
// BOM kept) and answers [compact, indented] JSON.stringify output in
// base64, or null when JSON.parse throws.
const nodeScript = `
const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const inputs = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const dec = new TextDecoder("utf-8", { ignoreBOM: true });
  const b64 = (s) => Buffer.from(s, "utf8").toString("base64");
  const out = inputs.map((input) => {
    let v;
    try {
      v = JSON.parse(dec.decode(Buffer.from(input, "base64")));
    } catch {
      return null;
    }
    return [b64(JSON.stringify(v)), b64(JSON.stringify(v, null, 2))];
  });
  process.stdout.write(JSON.stringify(out));
});
`

// runNode returns node's answers for inputs; a missing node fails the test
// (CI installs it, so a skip would only hide the comparison).
func runNode(t *testing.T, inputs [][]byte) [][2][]byte {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH: the differential test needs it (scripts/install-deps installs it)")
	}
	script := filepath.Join(t.TempDir(), "stringify.cjs")
	if err := os.WriteFile(script, []byte(nodeScript), 0o600); err != nil {
		t.Fatal(err)
	}
	enc := make([]string, len(inputs))
	for i, in := range inputs {
		enc[i] = base64.StdEncoding.EncodeToString(in)
	}
	stdin, _ := json.Marshal(enc)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var raw []*[2]string
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) != len(inputs) {
		t.Fatalf("node answered %d results for %d inputs", len(raw), len(inputs))
	}
	res := make([][2][]byte, len(raw))
	for i, r := range raw {
		if r == nil {
			continue
		}
		for j := range 2 {
			if res[i][j], err = base64.StdEncoding.DecodeString(r[j]); err != nil {
				t.Fatal(err)
			}
		}
	}
	return res
}

// TestNodeDifferential parses and prints many generated documents with
// jsjson and with node's JSON.parse/JSON.stringify and requires identical
// bytes (or both refusing the input).
func TestNodeDifferential(t *testing.T) {
	inputs := append([][]byte(nil), fixedInputs()...)
	g := &gen{r: rand.New(rand.NewPCG(1, 2))}
	for range 3000 {
		inputs = append(inputs, g.document())
	}
	want := runNode(t, inputs)
	failures := 0
	for i, in := range inputs {
		v, err := Decode(in)
		if want[i][0] == nil {
			if err == nil {
				t.Errorf("input %q: jsjson accepted what JSON.parse refuses", in)
				failures++
			}
		} else if err != nil {
			t.Errorf("input %q: jsjson refused what JSON.parse accepts: %v", in, err)
			failures++
		} else {
			compact, err1 := Marshal(v)
			indent, err2 := MarshalIndent(v)
			if err1 != nil || err2 != nil {
				t.Fatalf("input %q: marshal: %v %v", in, err1, err2)
			}
			if !bytes.Equal(compact, want[i][0]) {
				t.Errorf("input %q:\n compact jsjson %q\n         node   %q", in, compact, want[i][0])
				failures++
			}
			if !bytes.Equal(indent, want[i][1]) {
				t.Errorf("input %q:\n indent jsjson %q\n        node   %q", in, indent, want[i][1])
				failures++
			}
		}
		if failures >= 20 {
			t.Fatal("too many differences")
		}
	}
}

// fixedInputs are hand-picked edge cases, valid and invalid.
func fixedInputs() [][]byte {
	s := []string{
		``, ` `, `null`, ` true `, `false`, `"x"`, `0`, `-0`, `-0.0`, `1e21`, `1e-7`, `1E+2`, `0.1e-0`,
		`5e-324`, `2e-324`, `1.7976931348623157e308`, `1e400`, `-1e400`, `9007199254740993`,
		`12345678901234567890`, `123456789012345678901234567890`, `0.000001`, `1e-6`, `4.35`, `0.1`,
		`100`, `1.5e300`, `2.2250738585072014e-308`, `-123.456e-789`, `999999999999999`, `1000000000000000`,
		`-999999999999999`, `1e+21`, `1e20`, `123e-20`, `0.0000001234`,
		// invalid
		"\ufeff{}", "\ufeff", `01`, `-01`, `1.`, `.5`, `+1`, `-`, `1e`, `1e+`, `0x1`, `NaN`, `Infinity`, `-Infinity`,
		`[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{'a':1}`, `'a'`, `"\x"`, `"\u12"`, `"\u12G4"`, `"abc`, `[`, `{`,
		`[1 2]`, `{"a":1 "b":2}`, `truee`, `nul`, `[] []`, "\"\x01\"", "\"\t\"", "\u00a0null", "\fnull", "null\v",
		"\"\\\n\"", `/**/1`, `1 // c`,
		// strings
		`"\ud800"`, `"\udc00"`, `"\ud83d\ude00"`, `"\ude00\ud83d"`, `"\ud83d\ud83d\ude00"`, `"\ud83dx\ude00"`,
		`"\uD83D\uDE00"`, `"\u2028\u2029"`, "\"\u2028\u2029\"", `"\u0000\u001f\u007f\u0080"`, `"<>&'"`,
		`"\/\b\f\n\r\t\"\\"`, `"\ud800\\"`, `"\ud800\u"`,
		"\"\xff\"", "\"\xc0\xaf\"", "\"\xe2\x82A\"", "\"\xf0\x9f\x98\"", "\"\xed\xa0\x80\"", "\"\x80\x80\"",
		"\"\xf4\x90\x80\x80\"", "\"\xe0\x80\x80\"", "\"\xf0\x9f\x98\x80\"", "\"\xe2\x82\"", "\"a\xe2\"", "\xff",
		"[\"\xed\xa0\x80\\udc00\"]",
		// objects
		`{"b":1,"a":2,"b":3}`, `{"1":1,"0":0,"b":2,"a":3}`, `{"4294967295":1,"4294967294":2,"01":3,"-1":4,"1.5":5,"10":6,"2":7}`,
		`{"__proto__":{"x":1},"constructor":2}`, `{"":1,"":2}`, `{"a":{"a":{"a":[]}},"b":{}}`, `[[],[{}],[[[]]]]`,
		`{"0":1,"0":2,"1":3}`, `{"\ud800":1,"\u0030":2}`,
	}
	out := make([][]byte, len(s))
	for i, x := range s {
		out[i] = []byte(x)
	}
	return out
}

// gen produces random JSON texts with JavaScript's hard cases.
type gen struct {
	r *rand.Rand
	b []byte
}

func (g *gen) document() []byte {
	g.b = nil
	g.space()
	g.value(0)
	g.space()
	return g.b
}

func (g *gen) space() {
	for g.r.IntN(4) == 0 {
		g.b = append(g.b, " \t\n\r"[g.r.IntN(4)])
	}
}

func (g *gen) value(depth int) {
	k := g.r.IntN(10)
	if depth >= 5 && k >= 8 {
		k = g.r.IntN(8)
	}
	switch k {
	case 0:
		g.b = append(g.b, []string{"null", "true", "false"}[g.r.IntN(3)]...)
	case 1, 2, 3:
		g.number()
	case 4, 5, 6, 7:
		g.str()
	case 8:
		g.b = append(g.b, '[')
		n := g.r.IntN(5)
		for i := range n {
			if i > 0 {
				g.b = append(g.b, ',')
			}
			g.space()
			g.value(depth + 1)
			g.space()
		}
		g.b = append(g.b, ']')
	case 9:
		g.b = append(g.b, '{')
		n := g.r.IntN(6)
		var keys [][]byte
		for i := range n {
			if i > 0 {
				g.b = append(g.b, ',')
			}
			g.space()
			switch {
			case len(keys) > 0 && g.r.IntN(5) == 0: // a duplicate key
				g.b = append(g.b, keys[g.r.IntN(len(keys))]...)
			case g.r.IntN(3) == 0:
				special := []string{"0", "1", "2", "10", "4294967294", "4294967295", "01", "-1", "1.5", "__proto__", "constructor", ""}
				g.b = append(g.b, strconv.Quote(special[g.r.IntN(len(special))])...)
			default:
				start := len(g.b)
				g.str()
				keys = append(keys, append([]byte(nil), g.b[start:]...))
			}
			g.space()
			g.b = append(g.b, ':')
			g.space()
			g.value(depth + 1)
		}
		g.b = append(g.b, '}')
	}
}

var trickyNumbers = []string{
	"0", "-0", "-0.0", "1e21", "1e-7", "1E+2", "0.1e-0", "5e-324", "1.7976931348623157e308", "1e400",
	"9007199254740993", "12345678901234567890", "0.000001", "4.35", "0.1", "1e2", "2.2250738585072014e-308",
	"18446744073709551616", "123e-20", "999999999999999.9", "1e-400",
}

func (g *gen) number() {
	switch g.r.IntN(5) {
	case 0:
		g.b = strconv.AppendInt(g.b, g.r.Int64N(2_000_001)-1_000_000, 10)
	case 1:
		g.b = append(g.b, trickyNumbers[g.r.IntN(len(trickyNumbers))]...)
	case 2:
		g.b = strconv.AppendInt(g.b, int64(g.r.Uint64()>>g.r.IntN(64)), 10)
	default:
		f := math.Float64frombits(g.r.Uint64())
		for math.IsNaN(f) || math.IsInf(f, 0) {
			f = math.Float64frombits(g.r.Uint64())
		}
		format := []byte{'e', 'g', 'E'}[g.r.IntN(3)]
		prec := []int{-1, 17, 3}[g.r.IntN(3)]
		g.b = strconv.AppendFloat(g.b, f, format, prec, 64)
	}
}

var stringParts = []string{
	"a", "Zz", " ", "é", "中", "😀", "\u2028", "\u2029", "<>&", "\x7f", "'", "\ufeff", "\ufffd",
	`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0000`, `\u001F`, `\u0041`, `\u00e9`, `\u2028`,
	`\ud800`, `\uDBFF`, `\udc00`, `\uDFFF`, `\ud83d\ude00`, `\ude00\ud83d`, `\uD83D`, `\ufeff`, `\uffff`,
	"\xff", "\xc0\xaf", "\xe2\x82", "\xf0\x9f\x98", "\xed\xa0\x80", "\x80", "\xf4\x90\x80\x80", "\xe0\x80\x80",
	"\xed\xb0\x80", "\xc2",
}

func (g *gen) str() {
	g.b = append(g.b, '"')
	n := g.r.IntN(6)
	for range n {
		if g.r.IntN(3) == 0 {
			g.b = append(g.b, `\u`...)
			g.b = append(g.b, strings.ToUpper(strconv.FormatInt(int64(0x1000+g.r.IntN(0xF000)), 16))[:4]...)
			continue
		}
		g.b = append(g.b, stringParts[g.r.IntN(len(stringParts))]...)
	}
	g.b = append(g.b, '"')
}
