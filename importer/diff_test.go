package importer

import "testing"

// TestFirstDiff: the first line that differs, both versions quoted (a
// missing blank line, a changed line, a line more on either side).
func TestFirstDiff(t *testing.T) {
	for _, c := range []struct{ have, want, diff string }{
		{"---\nname: s\n---\nbody\n", "---\nname: s\n---\n\nbody\n", `line 4: yours is "body\n", apply writes "\n"`},
		{"a\nb\n", "a\nb\nc\n", `line 3: apply writes "c\n", yours has no more lines`},
		{"a\nb\nc\n", "a\nb\n", `line 3: yours has "c\n", apply writes no more lines`},
		{"a\nb", "a\nb\n", `line 2: yours is "b", apply writes "b\n"`},
		{"a\n", "a\n", "the same bytes"},
	} {
		if got := firstDiff([]byte(c.have), []byte(c.want)); got != c.diff {
			t.Errorf("firstDiff(%q, %q) = %s, want %s", c.have, c.want, got, c.diff)
		}
	}
}
