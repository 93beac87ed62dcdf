package repofiles

import "strings"

// NormalizeTemplateRepo turns assignments.template_repo into org and repo
// exactly like the original's normalizeTemplateRepo (docs/contract/tools.md §1.9):
//
//  1. drop a leading http(s)://[www.]github.com/ (ASCII case-insensitive);
//  2. drop a leading git@github.com: (ASCII case-insensitive);
//  3. drop a trailing ".git" (case-sensitive, before trimming);
//  4. trim JavaScript whitespace, then strip leading and trailing '/';
//  5. split on '/', drop empty segments; exactly two must remain.
//
// ok is false for an empty input or any other segment count.
func NormalizeTemplateRepo(s string) (org, repo string, ok bool) {
	if s == "" {
		return "", "", false
	}
	for _, prefix := range []string{"https://www.github.com/", "https://github.com/", "http://www.github.com/", "http://github.com/"} {
		if hasPrefixFoldASCII(s, prefix) {
			s = s[len(prefix):]
			break
		}
	}
	if hasPrefixFoldASCII(s, "git@github.com:") {
		s = s[len("git@github.com:"):]
	}
	s = strings.TrimSuffix(s, ".git")
	s = strings.TrimFunc(s, isJSWhitespace)
	s = strings.Trim(s, "/")
	var parts []string
	for _, p := range strings.Split(s, "/") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) != 2 {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// SplitGraderRepo splits autograder.grader_repo into its first two
// '/'-separated parts, verbatim (no trimming or URL handling), as the
// original does. ok is false when there are fewer than two parts or either
// is empty: the original then fails at GitHub, which yields the same empty
// tool result without a request here.
func SplitGraderRepo(s string) (org, repo string, ok bool) {
	parts := strings.SplitN(s, "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// hasPrefixFoldASCII is a JavaScript /i prefix test for an ASCII prefix:
// only ASCII letters fold (unlike strings.EqualFold, which also folds the
// Kelvin sign to 'k').
func hasPrefixFoldASCII(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		a, b := s[i], prefix[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// isJSWhitespace is what String.prototype.trim removes: WhiteSpace and
// LineTerminator code points.
func isJSWhitespace(c rune) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return c >= 0x2000 && c <= 0x200a
}

// validOwner and validRepo accept the names GitHub allows. Anything else
// cannot name a repository, and refusing it keeps odd values (such as "..")
// out of request URLs.
func validOwner(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '-' || c == '_' || isAlnum(c)) {
			return false
		}
	}
	return true
}

func validRepo(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 100 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '-' || c == '_' || c == '.' || isAlnum(c)) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}
