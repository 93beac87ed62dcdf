package jsjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// ErrTooDeep is returned for input nested deeper than MaxDepth.
var ErrTooDeep = errors.New("jsjson: nesting too deep")

// MaxDepth bounds nesting so hostile input cannot exhaust the stack.
const MaxDepth = 512

// Decode parses one JSON value the way JSON.parse does: objects keep key
// order (a repeated key keeps its first position and takes the last value),
// numbers become float64 (out-of-range values become ±Inf, which encode as
// null), and invalid UTF-8 in strings becomes U+FFFD. Trailing data other
// than white space is an error.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, errors.New("jsjson: unexpected data after top-level value")
		}
		return nil, err
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, ErrTooDeep
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject(8)
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("jsjson: object key is %T", kt)
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Set(key, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			a := make([]any, 0, 4)
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("jsjson: unexpected delimiter %q", t)
	case json.Number:
		return parseNumber(string(t)), nil
	default:
		return t, nil // nil, bool, string
	}
}

// parseNumber converts JSON number text to the double JavaScript would hold.
func parseNumber(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// ParseFloat reports overflow with ±Inf and underflow with 0; both
		// are what JSON.parse yields, so only the value matters.
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f
		}
		return math.NaN()
	}
	return f
}
