package jsjson

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// ErrTooDeep is returned for input nested deeper than MaxDepth.
var ErrTooDeep = errors.New("jsjson: nesting too deep")

// MaxDepth bounds nesting so hostile input cannot exhaust the stack.
const MaxDepth = 512

// Decode parses one JSON value the way the original's request.json() does:
// the bytes are read as UTF-8 with WHATWG replacement (each maximal invalid
// subsequence becomes one U+FFFD; a byte-order mark is not skipped), then
// JSON.parse runs. Objects keep key order (a repeated key keeps its first
// position and takes the last value), numbers become float64 (out-of-range
// values become ±Inf, which encode as null; Object.OverflowText keeps their
// text), and \u escapes of lone
// surrogates are kept as WTF-8 so they encode back as \udxxx, as
// JSON.stringify writes them. Trailing data other than JSON white space is an
// error.
//
// The parser is hand-written rather than built on encoding/json because
// encoding/json replaces lone surrogates and invalid bytes differently from
// JavaScript, and its token API allocates per token.
func Decode(data []byte) (any, error) {
	p := parser{data: data}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.errorf("unexpected data after top-level value")
	}
	return v, nil
}

type parser struct {
	data []byte
	pos  int
	buf  []byte // scratch for strings that need unescaping
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("jsjson: %s at offset %d", fmt.Sprintf(format, args...), p.pos)
}

// skipSpace skips JSON white space: space, tab, line feed, carriage return
// (JSON.parse accepts nothing else, not even U+FEFF or U+00A0).
func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, ErrTooDeep
	}
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of JSON input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.errorf("unexpected character %q", c)
	}
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.errorf("invalid literal")
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(depth int) (any, error) {
	p.pos++ // '{'
	o := NewObject(4)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return o, nil
	}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errorf("expected string key")
		}
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf("expected ':' after object key")
		}
		p.pos++
		p.skipSpace()
		start := p.pos
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		o.Set(key, v)
		if f, ok := v.(float64); ok && math.IsInf(f, 0) {
			if o.overflow == nil {
				o.overflow = make(map[string]string, 1)
			}
			o.overflow[key] = string(p.data[start:p.pos])
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unterminated object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case '}':
			p.pos++
			return o, nil
		default:
			return nil, p.errorf("expected ',' or '}' in object")
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	p.pos++ // '['
	a := make([]any, 0, 4)
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return a, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unterminated array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case ']':
			p.pos++
			return a, nil
		default:
			return nil, p.errorf("expected ',' or ']' in array")
		}
	}
}

// number scans the strict JSON number grammar and converts it to the
// nearest double, as JSON.parse does.
func (p *parser) number() (any, error) {
	start := p.pos
	d := p.data
	i := p.pos
	if d[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n++
		}
		return n
	}
	intStart := i
	switch n := digits(); {
	case n == 0:
		p.pos = i
		return nil, p.errorf("invalid number")
	case n > 1 && d[intStart] == '0':
		p.pos = intStart + 1
		return nil, p.errorf("leading zero in number")
	}
	simple := true
	if i < len(d) && d[i] == '.' {
		i++
		simple = false
		if digits() == 0 {
			p.pos = i
			return nil, p.errorf("invalid number")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		simple = false
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			p.pos = i
			return nil, p.errorf("invalid number")
		}
	}
	p.pos = i
	// Integers of up to 15 digits are exact in a double: skip ParseFloat.
	if simple && i-intStart <= 15 {
		var n int64
		for _, c := range d[intStart:i] {
			n = n*10 + int64(c-'0')
		}
		f := float64(n)
		if d[start] == '-' {
			f = -f
		}
		return f, nil
	}
	f, err := strconv.ParseFloat(string(d[start:i]), 64)
	if err != nil {
		// ParseFloat reports overflow with ±Inf and underflow with 0; both
		// are what JSON.parse yields. The grammar was checked above.
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return nil, p.errorf("invalid number")
		}
	}
	return f, nil
}

// string parses a string literal at p.pos (which is '"').
func (p *parser) string() (string, error) {
	p.pos++
	start := p.pos
	d := p.data
	// Fast path: no escapes and valid UTF-8, so the bytes are the value.
	for i := start; i < len(d); {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return string(d[start:i]), nil
		case c == '\\':
			return p.slowString(start, i)
		case c < 0x20:
			p.pos = i
			return "", p.errorf("control character in string")
		case c < utf8.RuneSelf:
			i++
		default:
			_, n, ok := decodeRuneWHATWG(d[i:])
			if !ok {
				return p.slowString(start, i)
			}
			i += n
		}
	}
	p.pos = len(d)
	return "", p.errorf("unterminated string")
}

// slowString continues a string that needs rewriting from offset i.
func (p *parser) slowString(start, i int) (string, error) {
	d := p.data
	b := append(p.buf[:0], d[start:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			p.pos = i + 1
			p.buf = b[:0]
			return string(b), nil
		case c == '\\':
			if i+1 >= len(d) {
				p.pos = i
				return "", p.errorf("unterminated string")
			}
			esc := d[i+1]
			i += 2
			switch esc {
			case '"', '\\', '/':
				b = append(b, esc)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				u, ok := hex4(d, i)
				if !ok {
					p.pos = i
					return "", p.errorf("invalid unicode escape")
				}
				i += 4
				if u >= 0xD800 && u <= 0xDBFF && i+6 <= len(d) && d[i] == '\\' && d[i+1] == 'u' {
					if lo, ok := hex4(d, i+2); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						b = utf8.AppendRune(b, 0x10000+(u-0xD800)<<10+(lo-0xDC00))
						i += 6
						continue
					}
				}
				b = appendWTF8(b, u)
			default:
				p.pos = i - 1
				return "", p.errorf("invalid escape")
			}
		case c < 0x20:
			p.pos = i
			return "", p.errorf("control character in string")
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, n, ok := decodeRuneWHATWG(d[i:])
			if ok {
				b = append(b, d[i:i+n]...)
			} else {
				b = utf8.AppendRune(b, r)
			}
			i += n
		}
	}
	p.pos = len(d)
	return "", p.errorf("unterminated string")
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// appendWTF8 appends the code point u, encoding surrogates (which UTF-8
// cannot hold) as generalized UTF-8, so a JavaScript lone surrogate survives
// a round trip through a Go string.
func appendWTF8(b []byte, u rune) []byte {
	if u >= 0xD800 && u <= 0xDFFF {
		return append(b, 0xED, byte(0x80|(u>>6)&0x3F), byte(0x80|u&0x3F))
	}
	return utf8.AppendRune(b, u)
}

// decodeRuneWHATWG decodes the sequence at s[0] (s[0] >= 0x80) as the
// WHATWG UTF-8 decoder does. When ok is false, n bytes form one maximal
// invalid subsequence that the decoder replaces with a single U+FFFD (Go's
// utf8.DecodeRune would report one byte at a time).
func decodeRuneWHATWG(s []byte) (r rune, n int, ok bool) {
	b0 := s[0]
	lo, hi := byte(0x80), byte(0xBF)
	var need int
	switch {
	case b0 >= 0xC2 && b0 <= 0xDF:
		need, r = 1, rune(b0&0x1F)
	case b0 >= 0xE0 && b0 <= 0xEF:
		need, r = 2, rune(b0&0x0F)
		if b0 == 0xE0 {
			lo = 0xA0
		} else if b0 == 0xED {
			hi = 0x9F
		}
	case b0 >= 0xF0 && b0 <= 0xF4:
		need, r = 3, rune(b0&0x07)
		if b0 == 0xF0 {
			lo = 0x90
		} else if b0 == 0xF4 {
			hi = 0x8F
		}
	default:
		return utf8.RuneError, 1, false
	}
	for i := 1; i <= need; i++ {
		if i >= len(s) || s[i] < lo || s[i] > hi {
			return utf8.RuneError, i, false
		}
		r = r<<6 | rune(s[i]&0x3F)
		lo, hi = 0x80, 0xBF
	}
	return r, need + 1, true
}
