package schema

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustNotesChecked: a trust gate's path with no note, and a note for
// no path, are errors at their position; nothing is written.
func TestTrustNotesChecked(t *testing.T) {
	for _, tc := range []struct{ cue, want string }{
		{`backends: mine: {acp: command: "m", files: {}, trust: {paths: [".mine/"]}}`,
			`actant.cue:2:48: backends.mine.trust: trust path ".mine/" has no note: give trust.note, or trust.notes: ".mine/": "..."`},
		{`backends: mine: {acp: command: "m", files: {}, trust: {paths: [".mine/"], notes: {".mine/": "a", ".other/": "b"}}}`,
			`backends.mine.trust.notes.".other/": a note for ".other/", which is not one of trust.paths (".mine/")`},
	} {
		dir := writeWorkspace(t, map[string]string{"actant.cue": "package actant\n" + tc.cue + "\n"})
		_, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
		var ds Diagnostics
		if !errors.As(err, &ds) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\ngot  %v\nwant %s", tc.cue, err, tc.want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%s: the workspace has %d entries, want actant.cue alone", tc.cue, len(ents))
		}
	}
	mustLoad(t, map[string]string{"actant.cue": "package actant\n" +
		`backends: mine: {acp: command: "m", files: {}, trust: {paths: [".mine/", "x.json"], note: "n", notes: {"x.json": "x"}}}` + "\n"})
}
