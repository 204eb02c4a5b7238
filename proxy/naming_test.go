package proxy

import (
	"strings"
	"testing"
)

func TestCopyNames(t *testing.T) {
	long := strings.Repeat("a", 63)
	for _, tc := range []struct {
		agent, dir string
		want       string
	}{
		{"goex", "/src/p", "goex-p"},
		{long, "/src/p", strings.Repeat("a", 52) + "-p"},
	} {
		got := ProjectCopyName(tc.agent, tc.dir)
		if !strings.HasPrefix(got, tc.want) || len(got) != len(tc.want)+8 || len(got) > 63 {
			t.Errorf("ProjectCopyName(%q) = %q, want %q + 8 hex digits", tc.agent, got, tc.want)
		}
		if again := ProjectCopyName(tc.agent, tc.dir); again != got {
			t.Errorf("ProjectCopyName is not stable: %q then %q", got, again)
		}
		if other := ProjectCopyName(tc.agent, tc.dir+"2"); other == got {
			t.Errorf("two projects share the copy name %q", got)
		}
		if of := ProjectCopyOf(got); of != tc.want[:len(tc.want)-2] {
			t.Errorf("ProjectCopyOf(%q) = %q", got, of)
		}
		eph := EphemeralName(tc.agent)
		if !strings.Contains(eph, "-eph-") || len(eph) > 63 || eph == EphemeralName(tc.agent) {
			t.Errorf("EphemeralName(%q) = %q: want <agent>-eph-<random>, at most 63 bytes", tc.agent, eph)
		}
	}
	for _, name := range []string{"goex", "goex-p1234567", "goex-pABCDEF12", "-p12345678"} {
		if of := ProjectCopyOf(name); of != "" {
			t.Errorf("ProjectCopyOf(%q) = %q, want none", name, of)
		}
	}
}
