package termsafe

import "testing"

// TestEscape: control characters, C1 controls, line separators, bidi
// overrides and invalid bytes are escaped; Text keeps newlines and tabs
// (and drops a carriage return before a newline); clean text is returned
// as it is. (issue #20 item 10)
func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, line, text string }{
		{"plain – text ✓", "plain – text ✓", "plain – text ✓"},
		{"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"x\x1b[2K\ry", `x\x1b[2K\ry`, `x\x1b[2K\ry`},
		{"crlf\r\n", `crlf\r\n`, "crlf\n"},
		{"bell\a del\x7f", `bell\x07 del\x7f`, `bell\x07 del\x7f`},
		{"csi\u009b31m", `csi\u009b31m`, `csi\u009b31m`},
		{"rtl\u202eexe.txt", `rtl\u202eexe.txt`, `rtl\u202eexe.txt`},
		{"sep\u2028x", `sep\u2028x`, `sep\u2028x`},
		{"bad\xff\xfe", `bad\xff\xfe`, `bad\xff\xfe`},
		{"é\n", `é\n`, "é\n"},
		{`back\slash`, `back\slash`, `back\slash`},
	} {
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
		if got := Text(tc.in); got != tc.text {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
		}
	}
}
