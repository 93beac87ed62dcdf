package activityrecord

import "bytes"

// MaxStudents bounds the student profiles one row records (the table's
// check allows 1000); an answer naming more records the first ones.
const MaxStudents = 1000

// studentKey is the key under which every tool's answer names the student
// a record belongs to (submissions, help requests, regrade requests, a
// student's overview).
var studentKey = []byte(`"student_profile_id"`)

// Students returns the distinct student profile ids an answer's JSON text
// holds: every value of a "student_profile_id" key that is a uuid, in the
// order they first appear, at most MaxStudents. Text inside strings cannot
// forge a key: a quote in a string value is escaped in JSON text, so the
// key's pattern never matches there.
func Students(text []byte) []string {
	var out []string
	var seen map[string]struct{}
	for len(out) < MaxStudents {
		i := bytes.Index(text, studentKey)
		if i < 0 {
			break
		}
		escaped := i > 0 && text[i-1] == '\\'
		text = text[i+len(studentKey):]
		if escaped {
			continue
		}
		id, ok := uuidValue(text)
		if !ok {
			continue
		}
		if seen == nil {
			seen = make(map[string]struct{})
		}
		if _, dup := seen[id]; !dup {
			seen[id] = struct{}{}
			out = append(out, id)
		}
	}
	return out
}

// uuidValue reads `: "<uuid>"` (with optional white space) at the start of
// text.
func uuidValue(text []byte) (string, bool) {
	text = bytes.TrimLeft(text, " \t\r\n")
	if len(text) == 0 || text[0] != ':' {
		return "", false
	}
	text = bytes.TrimLeft(text[1:], " \t\r\n")
	if len(text) < 38 || text[0] != '"' || text[37] != '"' || !isUUID(text[1:37]) {
		return "", false
	}
	return string(text[1:37]), true
}

// isUUID reports whether b is a uuid in its canonical text form.
func isUUID(b []byte) bool {
	for i, c := range b {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
