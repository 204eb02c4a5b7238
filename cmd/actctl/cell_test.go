package main

import (
	"strings"
	"testing"
)

// TestCellText: a table cell holds one line: a multi-line error keeps
// its first line and says something was left out; a long line is cut;
// control characters are escaped.
func TestCellText(t *testing.T) {
	long := strings.Repeat("x", 240)
	for _, tc := range []struct{ in, want string }{
		{"running pid 4 (managed)", "running pid 4 (managed)"},
		{"failed, last error: exit status 1: panic: boom\ngoroutine 1 [running]:\nmain.main()", "failed, last error: exit status 1: panic: boom …"},
		{"one line\n", "one line"},
		{long, strings.Repeat("x", maxCell) + " …"},
		{"bell\x07", `bell\x07`},
	} {
		got := cellText(tc.in)
		if got != tc.want {
			t.Errorf("cellText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Contains(got, `\n`) {
			t.Errorf("cellText(%q) = %q: an escaped newline", tc.in, got)
		}
	}
}
