package skills

import (
	"regexp"
	"slices"
	"strings"
)

// The skills write a tool call as inline code, the tool's name followed by
// the arguments it is given in braces: `get_test_output {submission_id,
// class_id, test_name}`, with a value where the skill suggests one:
// `glob_pattern: "**/*.java"`. A name alone in inline code is a tool, an
// argument or a field of a tool's result, and so is a name given a value
// (`status: "open"`, `student_authored: true`). Mentions reads these back
// so tests can hold every one against the catalogue and the seeded stack.

// Call is one tool call a skill writes: the tool and the arguments it
// names, in order.
type Call struct {
	Tool string
	Args []string
}

// Mentions is what a skill's text names.
type Mentions struct {
	// Calls are the tool calls, in order of appearance.
	Calls []Call
	// Words are the other names in inline code, each once: tools,
	// arguments or result fields named on their own (snake_case), or given
	// a value (`name: value`).
	Words []string
	// ToolLike are the words anywhere in the text shaped like a tool name
	// (a verb such as get_ or list_ and more), each once.
	ToolLike []string
	// Globs are the glob_pattern values suggested, each once.
	Globs []string
}

var (
	inlineCode = regexp.MustCompile("`([^`\n]+)`")
	callShape  = regexp.MustCompile(`^([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?: \{([^}]*)\})?$`)
	argShape   = regexp.MustCompile(`^([a-z][a-z0-9]*(?:_[a-z0-9]+)*)(?:: .*)?$`)
	valueShape = regexp.MustCompile(`^([a-z][a-z0-9]*(?:_[a-z0-9]+)*): \S`)
	toolShape  = regexp.MustCompile(`\b(?:get|list|search|reply|set|comment|decide|add|create|update|delete)_[a-z0-9_]*[a-z0-9]\b`)
	globValue  = regexp.MustCompile(`glob_pattern: "([^"]*)"`)
)

// Mentioned reads the tool calls, names and glob patterns of a skill's
// text. Inline code never spans a line break in the skills (a test checks
// it), so each is read within its line.
func Mentioned(text string) Mentions {
	var m Mentions
	for _, span := range inlineCode.FindAllStringSubmatch(text, -1) {
		c := callShape.FindStringSubmatch(span[1])
		switch {
		case c == nil:
			if v := valueShape.FindStringSubmatch(span[1]); v != nil {
				m.Words = appendOnce(m.Words, v[1])
			}
			continue
		case strings.Contains(span[1], "{"):
			call := Call{Tool: c[1]}
			for _, a := range strings.Split(c[2], ",") {
				a = strings.TrimSpace(a)
				if am := argShape.FindStringSubmatch(a); am != nil {
					call.Args = append(call.Args, am[1])
				} else {
					call.Args = append(call.Args, a) // held against the schema, so it fails there
				}
			}
			m.Calls = append(m.Calls, call)
		default:
			m.Words = appendOnce(m.Words, c[1])
		}
	}
	for _, w := range toolShape.FindAllString(text, -1) {
		m.ToolLike = appendOnce(m.ToolLike, w)
	}
	for _, g := range globValue.FindAllStringSubmatch(text, -1) {
		m.Globs = appendOnce(m.Globs, g[1])
	}
	return m
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
