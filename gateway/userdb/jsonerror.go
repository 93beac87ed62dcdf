package userdb

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonParseError returns the message JavaScript's JSON.parse (V8) gives for
// src, or "" when src is valid JSON. The original reports that message as
// the A11 step 3 error, so the reimplementation words syntax errors the
// same way: "Expected property name or '}' in JSON at position 1",
// "Unexpected end of JSON input", and so on, with positions in UTF-16 code
// units.
//
// One deliberate difference: for a stray token, current V8 quotes the
// surrounding source ("Unexpected token 'x', \"…\" is not valid JSON"). The
// source is the private signing key, so the message uses V8's older form,
// "Unexpected token 'x' in JSON at position N", which names only the
// offending character.
func jsonParseError(src string) string {
	p := jsonChecker{s: src}
	p.ws()
	if !p.value() {
		return p.msg
	}
	p.ws()
	if p.i < len(p.s) {
		return "Unexpected non-whitespace character after JSON at position " + strconv.Itoa(p.pos())
	}
	return ""
}

// maxJSONDepth bounds recursion on hostile input (V8 would throw a
// RangeError for very deep nesting; a JWK is never deep).
const maxJSONDepth = 512

type jsonChecker struct {
	s     string
	i     int
	depth int
	msg   string
}

// pos is the UTF-16 offset of byte offset i.
func (p *jsonChecker) pos() int {
	n := 0
	for _, r := range p.s[:p.i] {
		n += utf16.RuneLen(r)
	}
	return n
}

func (p *jsonChecker) at(what string) string {
	return what + " in JSON at position " + strconv.Itoa(p.pos())
}

func (p *jsonChecker) fail(msg string) bool { p.msg = msg; return false }

func (p *jsonChecker) eof() bool { return p.fail("Unexpected end of JSON input") }

func (p *jsonChecker) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// unexpected is V8's generic report for the token at the cursor.
func (p *jsonChecker) unexpected() bool {
	if p.i >= len(p.s) {
		return p.eof()
	}
	switch c := p.s[p.i]; {
	case c == '-' || (c >= '0' && c <= '9'):
		return p.fail(p.at("Unexpected number"))
	case c == '"':
		return p.fail(p.at("Unexpected string"))
	}
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return p.fail(p.at("Unexpected token '" + string(r) + "'"))
}

func (p *jsonChecker) value() bool {
	if p.i >= len(p.s) {
		return p.eof()
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	default:
		return p.unexpected()
	}
}

func (p *jsonChecker) literal(word string) bool {
	for k := 0; k < len(word); k++ {
		if p.i >= len(p.s) {
			return p.eof()
		}
		if p.s[p.i] != word[k] {
			return p.unexpected()
		}
		p.i++
	}
	return true
}

// object follows V8's messages, which differ between the first member
// (specific messages, also at end of input) and later ones (a generic
// "Unexpected …" when the colon is missing).
func (p *jsonChecker) object() bool {
	if p.depth++; p.depth > maxJSONDepth {
		return p.fail("Maximum call stack size exceeded")
	}
	defer func() { p.depth-- }()
	p.i++ // {
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return true
	}
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return p.fail(p.at("Expected property name or '}'"))
	}
	for first := true; ; first = false {
		if !p.str() {
			return false
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			if first {
				return p.fail(p.at("Expected ':' after property name"))
			}
			return p.unexpected()
		}
		p.i++
		p.ws()
		if !p.value() {
			return false
		}
		p.ws()
		if p.i >= len(p.s) {
			return p.fail(p.at("Expected ',' or '}' after property value"))
		}
		switch p.s[p.i] {
		case '}':
			p.i++
			return true
		case ',':
			p.i++
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return p.fail(p.at("Expected double-quoted property name"))
			}
		default:
			return p.fail(p.at("Expected ',' or '}' after property value"))
		}
	}
}

func (p *jsonChecker) array() bool {
	if p.depth++; p.depth > maxJSONDepth {
		return p.fail("Maximum call stack size exceeded")
	}
	defer func() { p.depth-- }()
	p.i++ // [
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return true
	}
	for {
		p.ws()
		if !p.value() {
			return false
		}
		p.ws()
		if p.i >= len(p.s) {
			return p.fail(p.at("Expected ',' or ']' after array element"))
		}
		switch p.s[p.i] {
		case ']':
			p.i++
			return true
		case ',':
			p.i++
		default:
			return p.fail(p.at("Expected ',' or ']' after array element"))
		}
	}
}

func (p *jsonChecker) str() bool {
	p.i++ // opening quote
	for {
		if p.i >= len(p.s) {
			return p.fail(p.at("Unterminated string"))
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return true
		case c < 0x20:
			return p.fail(p.at("Bad control character in string literal"))
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return p.eof()
			}
			switch p.s[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				p.i++
				for k := 0; k < 4; k++ {
					if p.i >= len(p.s) || !isHex(p.s[p.i]) {
						return p.fail(p.at("Bad Unicode escape"))
					}
					p.i++
				}
			default:
				return p.fail(p.at("Bad escaped character"))
			}
		default:
			p.i++
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(p *jsonChecker) bool { return p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' }

func (p *jsonChecker) number() bool {
	if p.s[p.i] == '-' {
		p.i++
		if !isDigit(p) {
			return p.fail(p.at("No number after minus sign"))
		}
	}
	if p.s[p.i] == '0' {
		p.i++
		if isDigit(p) {
			return p.fail(p.at("Unexpected number"))
		}
	} else {
		for isDigit(p) {
			p.i++
		}
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if !isDigit(p) {
			return p.fail(p.at("Unterminated fractional number"))
		}
		for isDigit(p) {
			p.i++
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if !isDigit(p) {
			return p.fail(p.at("Exponent part is missing a number"))
		}
		for isDigit(p) {
			p.i++
		}
	}
	return true
}
