package jsjson

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Marshal returns the compact JSON text of v, as JSON.stringify(v) would.
func Marshal(v any) ([]byte, error) {
	return AppendCompact(make([]byte, 0, 256), v)
}

// MarshalIndent returns JSON.stringify(v, null, 2).
func MarshalIndent(v any) ([]byte, error) {
	e := encoder{buf: make([]byte, 0, 1024), indent: true}
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// AppendCompact appends the compact JSON text of v to dst.
func AppendCompact(dst []byte, v any) ([]byte, error) {
	e := encoder{buf: dst}
	if err := e.value(v, 0); err != nil {
		return nil, err
	}
	return e.buf, nil
}

type encoder struct {
	buf    []byte
	indent bool
}

func (e *encoder) newline(depth int) {
	e.buf = append(e.buf, '\n')
	for i := 0; i < depth; i++ {
		e.buf = append(e.buf, ' ', ' ')
	}
}

func (e *encoder) value(v any, depth int) error {
	if depth > MaxDepth {
		return ErrTooDeep
	}
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case float64:
		e.buf = AppendNumber(e.buf, x)
	case float32:
		e.buf = AppendNumber(e.buf, float64(x))
	case int:
		e.buf = AppendNumber(e.buf, float64(x))
	case int32:
		e.buf = AppendNumber(e.buf, float64(x))
	case int64:
		e.buf = AppendNumber(e.buf, float64(x))
	case uint32:
		e.buf = AppendNumber(e.buf, float64(x))
	case string:
		e.buf = AppendString(e.buf, x)
	case *Object:
		if x == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.object(x, depth)
	case []any:
		if x == nil {
			e.buf = append(e.buf, "[]"...)
			return nil
		}
		return e.array(len(x), func(i int) any { return x[i] }, depth)
	case []string:
		return e.array(len(x), func(i int) any { return x[i] }, depth)
	case []*Object:
		return e.array(len(x), func(i int) any { return x[i] }, depth)
	case json.RawMessage:
		parsed, err := Decode(x)
		if err != nil {
			return err
		}
		return e.value(parsed, depth)
	default:
		return fmt.Errorf("jsjson: unsupported type %T", v)
	}
	return nil
}

func (e *encoder) array(n int, at func(int) any, depth int) error {
	if n == 0 {
		e.buf = append(e.buf, "[]"...)
		return nil
	}
	e.buf = append(e.buf, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if e.indent {
			e.newline(depth + 1)
		}
		if err := e.value(at(i), depth+1); err != nil {
			return err
		}
	}
	if e.indent {
		e.newline(depth)
	}
	e.buf = append(e.buf, ']')
	return nil
}

func (e *encoder) object(o *Object, depth int) error {
	if len(o.keys) == 0 {
		e.buf = append(e.buf, "{}"...)
		return nil
	}
	e.buf = append(e.buf, '{')
	first := true
	emit := func(i int) error {
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		if e.indent {
			e.newline(depth + 1)
		}
		e.buf = AppendString(e.buf, o.keys[i])
		e.buf = append(e.buf, ':')
		if e.indent {
			e.buf = append(e.buf, ' ')
		}
		return e.value(o.vals[i], depth+1)
	}
	// JavaScript enumerates array-index keys first, in ascending numeric
	// order, then the other keys in insertion order.
	if idx := indexKeys(o.keys); idx != nil {
		for _, i := range idx {
			if err := emit(i); err != nil {
				return err
			}
		}
		for i, k := range o.keys {
			if _, ok := arrayIndex(k); ok {
				continue
			}
			if err := emit(i); err != nil {
				return err
			}
		}
	} else {
		for i := range o.keys {
			if err := emit(i); err != nil {
				return err
			}
		}
	}
	if e.indent {
		e.newline(depth)
	}
	e.buf = append(e.buf, '}')
	return nil
}

// indexKeys returns the positions of array-index keys sorted by their
// numeric value, or nil when there are none (the common case).
func indexKeys(keys []string) []int {
	var idx []int
	for i, k := range keys {
		if _, ok := arrayIndex(k); ok {
			idx = append(idx, i)
		}
	}
	if idx == nil {
		return nil
	}
	// Insertion sort: index keys are rare and few.
	for a := 1; a < len(idx); a++ {
		for b := a; b > 0; b-- {
			x, _ := arrayIndex(keys[idx[b-1]])
			y, _ := arrayIndex(keys[idx[b]])
			if x <= y {
				break
			}
			idx[b-1], idx[b] = idx[b], idx[b-1]
		}
	}
	return idx
}

// arrayIndex reports whether k is a canonical array index (0 to 2^32-2).
func arrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, n < math.MaxUint32
}

// AppendNumber appends f formatted as JavaScript's Number#toString does,
// with NaN and ±Infinity written as null, as JSON.stringify writes them.
func AppendNumber(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return append(dst, "null"...)
	case f == 0:
		return append(dst, '0') // also -0
	}
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // e.g. 1.5e-07, 1e+21
	mant, exp, _ := strings.Cut(s, "e")
	dst = append(dst, mant...)
	dst = append(dst, 'e', exp[0])
	digits := strings.TrimLeft(exp[1:], "0")
	return append(dst, digits...)
}

const hexDigits = "0123456789abcdef"

// wtf8Surrogate reports whether s[i:] starts with a surrogate code point in
// generalized UTF-8 (ED A0–BF 80–BF) and returns it.
func wtf8Surrogate(s string, i int) (rune, bool) {
	if i+3 > len(s) || s[i] != 0xED || s[i+1] < 0xA0 || s[i+1] > 0xBF || s[i+2] < 0x80 || s[i+2] > 0xBF {
		return 0, false
	}
	return 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), true
}

// AppendString appends s as a JSON string literal escaped as
// JSON.stringify escapes it. Invalid UTF-8 is written as U+FFFD.
func AppendString(dst []byte, s string) []byte {
	dst = reserve(dst, len(s)+2)
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size != 1 {
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		if u, ok := wtf8Surrogate(s, i); ok {
			// A lone surrogate kept by Decode: JSON.stringify escapes it,
			// unless it is the high half of a pair, which is one character.
			if lo, ok := wtf8Surrogate(s, i+3); ok && u <= 0xDBFF && lo >= 0xDC00 {
				dst = utf8.AppendRune(dst, 0x10000+(u-0xD800)<<10+(lo-0xDC00))
				i += 6
			} else {
				dst = append(dst, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xf], hexDigits[u>>4&0xf], hexDigits[u&0xf])
				i += 3
			}
		} else {
			// Invalid UTF-8 reads as the WHATWG decoder reads it: one U+FFFD
			// per maximal invalid subsequence.
			_, n, _ := decodeRuneWHATWG([]byte(s[i:min(i+4, len(s))]))
			dst = append(dst, "\ufffd"...)
			i += n
		}
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// reserve makes room for n more bytes, doubling the buffer. append alone
// grows large slices by about 1.25×, so a megabyte of tool output built from
// long strings used to allocate five times its size; doubling keeps the
// total near twice the output.
func reserve(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	grown := make([]byte, len(dst), 2*cap(dst)+n)
	copy(grown, dst)
	return grown
}
