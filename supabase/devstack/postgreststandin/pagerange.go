package postgreststandin

import (
	"math/big"
	"strings"
	"unicode"
)

// Pagination as PostgREST 12 computes it (ApiRequest/QueryParams.hs,
// RangeQuery.hs): limit and offset are read with Haskell's readMaybe into
// unbounded Integers (a value that does not read is ignored, as if absent
// but still present as a key), combined into one inclusive row range, and
// the root's range is intersected with the Range header's. Because the
// default range is [0, ∞), a negative root offset is a no-op; an empty
// result range is an error unless it is exactly a limit of zero. Numbers
// that overflow bigint reach PostgreSQL, which refuses them (22003).

// rangeParam is one limit or offset parameter: n is nil when its value
// does not read as an Integer.
type rangeParam struct{ n *big.Int }

// rowRange is an inclusive range of row indexes; hi nil is unbounded.
type rowRange struct{ lo, hi *big.Int }

func allRange() rowRange { return rowRange{lo: big.NewInt(0)} }

var bigOne = big.NewInt(1)

// limit is the number of rows in r (nil when unbounded); it is negative for
// a range whose upper bound is below its lower bound by more than one.
func (r rowRange) limit() *big.Int {
	if r.hi == nil {
		return nil
	}
	n := new(big.Int).Sub(r.hi, r.lo)
	return n.Add(n, bigOne)
}

func (r rowRange) empty() bool { return r.hi != nil && r.hi.Cmp(r.lo) < 0 }

func (r rowRange) isAll() bool { return r.hi == nil && r.lo.Sign() == 0 }

func intersect(a, b rowRange) rowRange {
	out := rowRange{lo: a.lo}
	if b.lo.Cmp(a.lo) > 0 {
		out.lo = b.lo
	}
	switch {
	case a.hi == nil:
		out.hi = b.hi
	case b.hi == nil || a.hi.Cmp(b.hi) < 0:
		out.hi = a.hi
	default:
		out.hi = b.hi
	}
	return out
}

// restrict is RangeQuery.restrictRange: at most n rows from r's start.
func restrict(n *big.Int, r rowRange) rowRange {
	hi := new(big.Int).Add(r.lo, n)
	return intersect(r, rowRange{lo: new(big.Int).Set(r.lo), hi: hi.Sub(hi, bigOne)})
}

// urlRange is the range one level's limit and offset describe, and whether
// either was given.
func urlRange(limit, offset *rangeParam) (rowRange, bool) {
	var lr, or rowRange
	if limit != nil {
		lr = allRange()
		if limit.n != nil {
			lr = restrict(limit.n, lr)
		}
	}
	if offset != nil {
		or = allRange()
		if offset.n != nil {
			or = rowRange{lo: offset.n}
		}
	}
	switch {
	case limit != nil && offset != nil:
		// An unreadable limit counts as 0 rows here, as in PostgREST.
		l := lr.limit()
		if l == nil {
			l = new(big.Int)
		}
		hi := new(big.Int).Add(or.lo, l)
		return rowRange{lo: or.lo, hi: hi.Sub(hi, bigOne)}, true
	case limit != nil:
		return lr, true
	case offset != nil:
		return or, true
	}
	return allRange(), false
}

// sqlLimitOffset renders r as PostgREST's limitOffsetF does: nothing for the
// whole range, else LIMIT n|ALL OFFSET m. The numbers are quoted literals
// so that PostgreSQL, not this server, refuses values beyond bigint.
func sqlLimitOffset(r rowRange) string {
	if r.isAll() {
		return ""
	}
	limit := "ALL"
	if l := r.limit(); l != nil {
		limit = "'" + l.String() + "'"
	}
	return " LIMIT " + limit + " OFFSET '" + r.lo.String() + "'"
}

// readInteger is Haskell's readMaybe at type Integer: optional white space
// and parentheses around an optionally negated decimal, 0x/0X hexadecimal
// or 0o/0O octal literal. Signs other than one leading '-', fractions,
// exponents and anything else do not read.
func readInteger(s string) (*big.Int, bool) {
	s = strings.TrimFunc(s, isHaskellSpace)
	for len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' {
		s = strings.TrimFunc(s[1:len(s)-1], isHaskellSpace)
	}
	neg := false
	if strings.HasPrefix(s, "-") {
		neg = true
		s = strings.TrimLeftFunc(s[1:], isHaskellSpace)
	}
	base := 10
	switch {
	case len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		base, s = 16, s[2:]
	case len(s) > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O'):
		base, s = 8, s[2:]
	}
	if s == "" {
		return nil, false
	}
	for _, c := range s {
		if !isDigitIn(c, base) {
			return nil, false
		}
	}
	n, ok := new(big.Int).SetString(s, base)
	if !ok {
		return nil, false
	}
	if neg {
		n.Neg(n)
	}
	return n, true
}

func isDigitIn(c rune, base int) bool {
	switch base {
	case 16:
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	case 8:
		return c >= '0' && c <= '7'
	}
	return c >= '0' && c <= '9'
}

// isHaskellSpace is Data.Char.isSpace.
func isHaskellSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\v', 0xa0:
		return true
	}
	return r > 0xff && unicode.Is(unicode.Zs, r)
}
