package importer

import (
	"fmt"
	"strings"
)

// firstDiff says where a file (have) first differs from what apply
// writes (want): the line and both versions of it, each cut to a
// readable length, so a "left" line shows what keeps it from being taken.
func firstDiff(have, want []byte) string {
	hl, wl := strings.SplitAfter(string(have), "\n"), strings.SplitAfter(string(want), "\n")
	for i := 0; i < max(len(hl), len(wl)); i++ {
		h, w := lineAt(hl, i), lineAt(wl, i)
		if h == w {
			continue
		}
		switch {
		case i >= len(hl) || hl[i] == "":
			return fmt.Sprintf("line %d: apply writes %s, yours has no more lines", i+1, clip(w))
		case i >= len(wl) || wl[i] == "":
			return fmt.Sprintf("line %d: yours has %s, apply writes no more lines", i+1, clip(h))
		}
		return fmt.Sprintf("line %d: yours is %s, apply writes %s", i+1, clip(h), clip(w))
	}
	return "the same bytes"
}

// lineAt is line i of ls, or "" past the end.
func lineAt(ls []string, i int) string {
	if i < len(ls) {
		return ls[i]
	}
	return ""
}

// clip quotes line, cut to 60 bytes.
func clip(line string) string {
	const n = 60
	if len(line) > n {
		return fmt.Sprintf("%q...", line[:n])
	}
	return fmt.Sprintf("%q", line)
}
