package minimatch

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Port of npm brace-expansion 2.1.x (the version minimatch 9 depends on),
// including its iterative expansion and step budget, so that odd inputs
// ({a},b}, ${x}, {a..e..2}, a leading {}) expand the same way.

// Sentinels stand in for escaped characters during expansion. The original
// randomises them; a NUL-delimited constant is just as unlikely in a path
// pattern and keeps expansion deterministic.
const (
	escSlash  = "\x00SLASH\x00"
	escOpen   = "\x00OPEN\x00"
	escClose  = "\x00CLOSE\x00"
	escComma  = "\x00COMMA\x00"
	escPeriod = "\x00PERIOD\x00"
)

// Limits from brace-expansion; maxExpansions and maxExpansionLength are
// passed in by Compile (which uses tighter caps).
const (
	expansionMaxDepth    = 1000
	expansionMaxRewrites = 1000
	expansionMaxSteps    = 20000000
	callSteps            = 16
)

var (
	numericSeqRE = regexp.MustCompile(`^-?\d+\.\.-?\d+(?:\.\.-?\d+)?$`)
	alphaSeqRE   = regexp.MustCompile(`^[a-zA-Z]\.\.[a-zA-Z](?:\.\.-?\d+)?$`)
	paddedRE     = regexp.MustCompile(`^-?0\d`)
)

type budget struct{ remaining int }

type expander struct {
	max, maxLength int
	budget         budget
	truncated      bool // a result was dropped because of max or maxLength
}

// jsLen is JavaScript's String.prototype.length (UTF-16 code units).
func jsLen(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

func escapeBraces(s string) string {
	s = strings.ReplaceAll(s, `\\`, escSlash)
	s = strings.ReplaceAll(s, `\{`, escOpen)
	s = strings.ReplaceAll(s, `\}`, escClose)
	s = strings.ReplaceAll(s, `\,`, escComma)
	return strings.ReplaceAll(s, `\.`, escPeriod)
}

func unescapeBraces(s string) string {
	s = strings.ReplaceAll(s, escSlash, `\`)
	s = strings.ReplaceAll(s, escOpen, "{")
	s = strings.ReplaceAll(s, escClose, "}")
	s = strings.ReplaceAll(s, escComma, ",")
	return strings.ReplaceAll(s, escPeriod, ".")
}

// balancedRange ports balanced-match's range('{', '}', str).
func balancedRange(str string) (int, int, bool) {
	ai := strings.IndexByte(str, '{')
	bi := -1
	if ai+1 <= len(str) {
		if j := strings.IndexByte(str[ai+1:], '}'); j >= 0 {
			bi = ai + 1 + j
		}
	}
	if !(ai >= 0 && bi > 0) {
		return 0, 0, false
	}
	var begs []int
	left := len(str)
	right := -1
	i := ai
	found := false
	var rs, re int
	indexFrom := func(c byte, from int) int {
		if from > len(str) {
			return -1
		}
		if j := strings.IndexByte(str[from:], c); j >= 0 {
			return from + j
		}
		return -1
	}
	for i >= 0 && !found {
		if i == ai {
			begs = append(begs, i)
			ai = indexFrom('{', i+1)
		} else if len(begs) == 1 {
			rs, re = begs[0], bi
			begs = begs[:0]
			found = true
		} else {
			beg := begs[len(begs)-1]
			begs = begs[:len(begs)-1]
			if beg < left {
				left = beg
				right = bi
			}
			bi = indexFrom('}', i+1)
		}
		if ai < bi && ai >= 0 {
			i = ai
		} else {
			i = bi
		}
	}
	if len(begs) > 0 {
		if right < 0 {
			return 0, 0, false // JavaScript: [left, undefined] → no result
		}
		return left, right, true
	}
	return rs, re, found
}

type balancedMatch struct {
	end             int
	pre, body, post string
	unmatched       bool
}

func (e *expander) balancedWithBudget(str, masked string) (balancedMatch, bool) {
	if e.budget.remaining < 0 {
		return balancedMatch{}, false
	}
	s, end, ok := balancedRange(masked)
	unmatched := ok && strings.IndexByte(masked, '{') < s
	if ok && !unmatched {
		e.budget.remaining -= end + 1
	} else {
		e.budget.remaining -= len(str)
	}
	if !ok || e.budget.remaining < 0 {
		return balancedMatch{}, false
	}
	return balancedMatch{end: end, pre: str[:s], body: str[s+1 : end], post: str[end+1:], unmatched: unmatched}, true
}

func (e *expander) maskUnmatchedOpens(masked string) string {
	e.budget.remaining -= len(masked)
	var open []int
	for i := 0; i < len(masked); i++ {
		switch masked[i] {
		case '{':
			open = append(open, i)
		case '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	b := []byte(masked)
	for _, j := range open {
		b[j] = 0
	}
	return string(b)
}

func (e *expander) commaSetFollows(str string) bool {
	e.budget.remaining -= len(str)
	if e.budget.remaining < 0 {
		return false
	}
	u := utf16.Encode([]rune(str))
	closeSeen := false
	for i := len(u) - 1; i >= 0; i-- {
		c := u[i]
		switch {
		case c == '}':
			closeSeen = true
		case c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029:
			closeSeen = false
		case c == ',' && closeSeen && (i+1 >= len(u) || u[i+1] != ','):
			return true
		}
	}
	return false
}

func (e *expander) parseCommaParts(str string) ([]string, bool) {
	var parts []string
	carry := ""
	for {
		m, ok := e.balancedWithBudget(str, str)
		if e.budget.remaining < 0 {
			return nil, false
		}
		if !ok {
			tail := strings.Split(str, ",")
			tail[0] = carry + tail[0]
			return append(parts, tail...), true
		}
		p := strings.Split(m.pre, ",")
		p[0] = carry + p[0]
		p[len(p)-1] += "{" + m.body + "}"
		if m.post == "" {
			return append(parts, p...), true
		}
		carry = p[len(p)-1]
		parts = append(parts, p[:len(p)-1]...)
		str = m.post
	}
}

func (e *expander) combine(acc []string, pre string, values []string, dropEmpties bool) []string {
	var out []string
	length := 0
	var nonEmpty []string
	haveNonEmpty := false
outer:
	for _, a := range acc {
		prefix := a + pre
		vs := values
		if dropEmpties && prefix == "" {
			if !haveNonEmpty {
				for _, v := range values {
					if v != "" {
						nonEmpty = append(nonEmpty, v)
					}
				}
				haveNonEmpty = true
			}
			vs = nonEmpty
		}
		for _, v := range vs {
			if len(out) >= e.max {
				e.truncated = true
				break outer
			}
			expansion := prefix + v
			if length+jsLen(expansion) > e.maxLength {
				e.truncated = true
				break outer
			}
			out = append(out, expansion)
			length += jsLen(expansion)
		}
	}
	e.budget.remaining -= len(out)
	return out
}

// numeric is brace-expansion's numeric(): the integer value, or the first
// character's code unit.
func numeric(s string) float64 {
	if v, err := strconv.ParseFloat(s, 64); err == nil && jsParseIntMatches(s) {
		return v
	}
	u := utf16.Encode([]rune(s))
	if len(u) == 0 {
		return math.NaN()
	}
	return float64(u[0])
}

// jsParseIntMatches reports whether parseInt(s, 10) == s in JavaScript for
// the inputs brace-expansion passes (/-?\d+/ and single letters): true for
// integers written in decimal.
func jsParseIntMatches(s string) bool {
	t := strings.TrimPrefix(s, "-")
	if t == "" {
		return false
	}
	for _, c := range t {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func jsNumberString(f float64) string {
	if f == 0 {
		return "0" // String(-0) is "0"
	}
	if math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64) // "1e+21", as JavaScript prints it
}

func (e *expander) expandSequence(body string, isAlpha bool) ([]string, bool) {
	n := strings.Split(body, "..")
	var out []string
	if len(n) < 2 {
		return out, true
	}
	x := numeric(n[0])
	y := numeric(n[1])
	width := max(jsLen(n[0]), jsLen(n[1]))
	incr := 1.0
	if len(n) == 3 {
		incr = math.Max(math.Abs(numeric(n[2])), 1)
	}
	test := func(i, y float64) bool { return i <= y }
	if y < x {
		incr = -incr
		test = func(i, y float64) bool { return i >= y }
	}
	pad := false
	for _, el := range n {
		if paddedRE.MatchString(el) {
			pad = true
		}
	}
	cost := 1
	if pad {
		cost = width
	}
	length := 0
	for i := x; test(i, y); i += incr {
		if len(out) >= e.max {
			e.truncated = true
			break
		}
		e.budget.remaining -= cost
		if e.budget.remaining < 0 {
			return nil, false
		}
		var c string
		if isAlpha {
			c = string(utf16.Decode([]uint16{uint16(i)}))
			if c == `\` {
				c = ""
			}
		} else {
			c = jsNumberString(i)
			if pad {
				if need := width - jsLen(c); need > 0 {
					z := strings.Repeat("0", need)
					if i < 0 {
						c = "-" + z + c[1:]
					} else {
						c = z + c
					}
				}
			}
		}
		if length+jsLen(c) > e.maxLength {
			e.truncated = true
			break
		}
		out = append(out, c)
		length += jsLen(c)
	}
	return out, true
}

func embraceAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "{" + s + "}"
	}
	return out
}

// expandBraces is brace-expansion's expandTop. truncated reports that the
// max or maxLength cap cut the result short.
func expandBraces(str string, maxExpansions, maxLength int) (out []string, truncated bool) {
	if str == "" {
		return nil, false
	}
	if strings.HasPrefix(str, "{}") {
		str = `\{\}` + str[2:]
	}
	e := &expander{max: maxExpansions, maxLength: maxLength, budget: budget{expansionMaxSteps}}
	out = e.expand(escapeBraces(str), 0, true)
	for i := range out {
		out[i] = unescapeBraces(out[i])
	}
	return out, e.truncated
}

func (e *expander) expand(str string, depth int, isTop bool) []string {
	e.budget.remaining -= callSteps
	if depth > expansionMaxDepth {
		return []string{str}
	}
	acc := []string{""}
	rewrites := 0
	dropEmpties := false
	firstGroup := true
	masked := str
	for {
		m, ok := e.balancedWithBudget(str, masked)
		if !ok {
			return e.combine(acc, str, []string{""}, dropEmpties)
		}
		if m.unmatched {
			masked = e.maskUnmatchedOpens(masked)
		}
		pre := m.pre
		literal := func() []string {
			return e.combine(acc, pre+"{"+m.body+"}"+m.post, []string{""}, dropEmpties)
		}
		if strings.HasSuffix(pre, "$") {
			acc = e.combine(acc, pre+"{"+m.body+"}", []string{""}, dropEmpties && m.post == "")
			firstGroup = false
			if m.post == "" {
				break
			}
			str = m.post
			masked = masked[m.end+1:]
			continue
		}
		isNumericSequence := numericSeqRE.MatchString(m.body)
		isAlphaSequence := alphaSeqRE.MatchString(m.body)
		isSequence := isNumericSequence || isAlphaSequence
		isOptions := strings.Contains(m.body, ",")
		if !isSequence && !isOptions {
			if rewrites < expansionMaxRewrites && e.commaSetFollows(m.post) {
				rewrites++
				str = m.pre + "{" + m.body + escClose + m.post
				masked = masked[:m.end] + escClose + masked[m.end+1:]
				isTop = true
				continue
			}
			return literal()
		}
		if firstGroup {
			dropEmpties = isTop && !isSequence
			firstGroup = false
		}
		var values []string
		if isSequence {
			v, ok := e.expandSequence(m.body, isAlphaSequence)
			if !ok {
				return literal()
			}
			values = v
		} else {
			n, ok := e.parseCommaParts(m.body)
			if !ok {
				return literal()
			}
			if len(n) == 1 {
				n = embraceAll(e.expand(n[0], depth+1, false))
				if e.budget.remaining < 0 {
					return literal()
				}
				if len(n) == 1 {
					single := e.combine(acc, pre+n[0], []string{""}, dropEmpties && m.post == "")
					if e.budget.remaining < 0 {
						return literal()
					}
					acc = single
					if m.post == "" {
						break
					}
					str = m.post
					masked = masked[m.end+1:]
					continue
				}
			}
			dropsEmpties := dropEmpties && m.post == "" && pre == ""
			for _, a := range acc {
				if a != "" {
					dropsEmpties = false
				}
			}
			valuesLength := 0
		outer:
			for _, part := range n {
				expanded := e.expand(part, depth+1, false)
				if e.budget.remaining < 0 {
					return literal()
				}
				for _, v := range expanded {
					if dropsEmpties && v == "" {
						continue
					}
					if len(values) >= e.max || valuesLength+jsLen(v) > e.maxLength {
						e.truncated = true
						break outer
					}
					values = append(values, v)
					valuesLength += jsLen(v)
				}
			}
		}
		next := e.combine(acc, pre, values, dropEmpties && m.post == "")
		if e.budget.remaining < 0 {
			return literal()
		}
		acc = next
		if m.post == "" {
			break
		}
		str = m.post
		masked = masked[m.end+1:]
	}
	return acc
}
