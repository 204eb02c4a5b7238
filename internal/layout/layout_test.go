package layout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoLinks: a link at .actant or at a directory below it on the way
// to a record is refused, naming it; real or missing directories, and
// paths outside .actant, are fine.
func TestNoLinks(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"real/.actant/logs", "elsewhere"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws := filepath.Join(root, "real")
	linked := filepath.Join(root, "linked")
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(linked, Dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(ws, Dir, Agents)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		root, p, bad string
	}{
		{ws, Path(ws, State), ""},
		{ws, Path(ws, Logs, "a.log"), ""},
		{ws, Path(ws, Backup, "s", "x", "y"), ""},
		{ws, filepath.Join(ws, "CLAUDE.md"), ""},
		{ws, Path(ws, Agents, "a.json"), filepath.Join(ws, Dir, Agents)},
		{linked, Path(linked, State), filepath.Join(linked, Dir)},
		{linked, Path(linked, Logs, "a.log"), filepath.Join(linked, Dir)},
	} {
		for _, err := range []error{NoLinks(tc.root, tc.p), NoLinksIn(tc.p)} {
			if (err == nil) != (tc.bad == "") || err != nil && !strings.Contains(err.Error(), tc.bad+" is a symbolic link") {
				t.Errorf("%s: %v, want %q refused", tc.p, err, tc.bad)
			}
		}
	}
}
