package minimatch

import (
	"strings"
	"unicode/utf8"
)

// Port of minimatch v9's brace-expressions.ts (parseClass): a glob bracket
// expression becomes JavaScript character-class source.

type posixClass struct {
	name     string
	src      string
	needU    bool
	negative bool
}

// posixClasses keeps the original's object-entry order, which decides which
// class name wins when several could start at the same position.
var posixClasses = []posixClass{
	{"[:alnum:]", `\p{L}\p{Nl}\p{Nd}`, true, false},
	{"[:alpha:]", `\p{L}\p{Nl}`, true, false},
	{"[:ascii:]", `\x00-\x7f`, false, false},
	{"[:blank:]", `\p{Zs}\t`, true, false},
	{"[:cntrl:]", `\p{Cc}`, true, false},
	{"[:digit:]", `\p{Nd}`, true, false},
	{"[:graph:]", `\p{Z}\p{C}`, true, true},
	{"[:lower:]", `\p{Ll}`, true, false},
	{"[:print:]", `\p{C}`, true, false},
	{"[:punct:]", `\p{P}`, true, false},
	{"[:space:]", `\p{Z}\t\r\n\v\f`, true, false},
	{"[:upper:]", `\p{Lu}`, true, false},
	{"[:word:]", `\p{L}\p{Nl}\p{Nd}\p{Pc}`, true, false},
	{"[:xdigit:]", `A-Fa-f0-9`, false, false},
}

// braceEscape escapes [ ] \ - for use inside a character class.
func braceEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == '[' || c == ']' || c == '\\' || c == '-' {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func hasRunePrefix(g []rune, i int, prefix string) bool {
	for _, c := range prefix {
		if i >= len(g) || g[i] != c {
			return false
		}
		i++
	}
	return true
}

// parseClass returns the regex source, whether the u flag is needed, the
// number of runes consumed (0: not a class, treat '[' literally) and whether
// the result is magic.
func parseClass(glob []rune, pos int) (string, bool, int, bool) {
	var ranges, negs []string
	i := pos + 1
	sawStart := false
	uflag := false
	escaping := false
	negate := false
	endPos := pos
	var rangeStart rune
	haveRangeStart := false
outer:
	for i < len(glob) {
		c := glob[i]
		if (c == '!' || c == '^') && i == pos+1 {
			negate = true
			i++
			continue
		}
		if c == ']' && sawStart && !escaping {
			endPos = i + 1
			break
		}
		sawStart = true
		if c == '\\' && !escaping {
			escaping = true
			i++
			continue
		}
		if c == '[' && !escaping {
			for _, pc := range posixClasses {
				if hasRunePrefix(glob, i, pc.name) {
					if haveRangeStart {
						return "$.", false, len(glob) - pos, true
					}
					i += len(pc.name)
					if pc.negative {
						negs = append(negs, pc.src)
					} else {
						ranges = append(ranges, pc.src)
					}
					uflag = uflag || pc.needU
					continue outer
				}
			}
		}
		escaping = false
		if haveRangeStart {
			if c > rangeStart {
				ranges = append(ranges, braceEscape(string(rangeStart))+"-"+braceEscape(string(c)))
			} else if c == rangeStart {
				ranges = append(ranges, braceEscape(string(c)))
			}
			haveRangeStart = false
			i++
			continue
		}
		if hasRunePrefix(glob, i+1, "-]") {
			ranges = append(ranges, braceEscape(string(c)+"-"))
			i += 2
			continue
		}
		if hasRunePrefix(glob, i+1, "-") {
			rangeStart = c
			haveRangeStart = true
			i += 2
			continue
		}
		ranges = append(ranges, braceEscape(string(c)))
		i++
	}
	if endPos < i {
		return "", false, 0, false
	}
	if len(ranges) == 0 && len(negs) == 0 {
		return "$.", false, len(glob) - pos, true
	}
	if len(negs) == 0 && len(ranges) == 1 && !negate && isSingleEscapedChar(ranges[0]) {
		r := ranges[0]
		if utf8.RuneCountInString(r) == 2 {
			_, size := utf8.DecodeRuneInString(r)
			r = r[size:]
		}
		return regExpEscape(r), false, endPos - pos, false
	}
	neg, pos2 := "", "^"
	if negate {
		neg, pos2 = "^", ""
	}
	sranges := "[" + neg + strings.Join(ranges, "") + "]"
	snegs := "[" + pos2 + strings.Join(negs, "") + "]"
	var comb string
	switch {
	case len(ranges) > 0 && len(negs) > 0:
		comb = "(" + sranges + "|" + snegs + ")"
	case len(ranges) > 0:
		comb = sranges
	default:
		comb = snegs
	}
	return comb, uflag, endPos - pos, true
}

// isSingleEscapedChar is /^\\?.$/ (where '.' excludes line terminators).
func isSingleEscapedChar(s string) bool {
	r := []rune(s)
	switch len(r) {
	case 1:
		return !isLineTerminator(r[0])
	case 2:
		return r[0] == '\\' && !isLineTerminator(r[1])
	}
	return false
}
