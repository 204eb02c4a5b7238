package cronspec

import (
	"fmt"
	"strings"
)

// cronFields are the five fields of a pattern: their name, their
// numbers and, for month and day of week, the names they take.
var cronFields = [5]struct {
	name, numbers string
	names         []string
}{
	{"minute", "0-59", nil},
	{"hour", "0-23", nil},
	{"day of month", "1-31", nil},
	{"month", "1-12", []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
	{"day of week", "0-7, 0 and 7 are Sunday", []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}},
}

// wordError explains a word of a 5-field pattern the parser refused: a
// name that is not a month or day name (listing the names), or a word in
// a field that takes numbers only; nil when no word is the cause.
func wordError(pattern string) error {
	for i, field := range strings.Fields(pattern) {
		f := cronFields[i]
		for _, w := range strings.FieldsFunc(field, func(r rune) bool { return strings.ContainsRune(",-/*?", r) }) {
			if !isWord(w) || containsFold(f.names, w) {
				continue
			}
			if f.names == nil {
				return fmt.Errorf("%q: the %s field takes numbers (%s), not %q", pattern, f.name, f.numbers, w)
			}
			return fmt.Errorf("%q: %q is not a %s: the names are %s (or the numbers %s)", pattern, w, f.name, strings.Join(f.names, " "), f.numbers)
		}
	}
	return nil
}

// isWord reports whether w is letters only.
func isWord(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') }) < 0
}

// containsFold reports whether names holds w, ignoring case.
func containsFold(names []string, w string) bool {
	for _, n := range names {
		if strings.EqualFold(n, w) {
			return true
		}
	}
	return false
}
