package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportUpdate: after import, a hand edit of CLAUDE.md is drift that
// names its prompt and position; import --update --dry-run writes
// nothing, import --update writes the edit into actant.cue (nothing else
// there changes) and the apply after finds nothing to do; --update with
// --backend is a usage error that writes nothing (issue #34 item 14).
func TestImportUpdate(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"CLAUDE.md": "# Project\n\nUse Go 1.26. Run tests.\n"})
	if r := actctl(t, dir, home, "import"); r.Code != 0 {
		t.Fatalf("import: %d %s", r.Code, r.Stderr)
	}
	cuePath, claude := filepath.Join(dir, "actant.cue"), filepath.Join(dir, "CLAUDE.md")
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := read(cuePath)
	edited := strings.Replace(read(claude), "Run tests.", "Run tests with -race.", 1)
	writeFiles(t, dir, map[string]string{"CLAUDE.md": edited})

	r := actctl(t, dir, home, "apply")
	if !strings.Contains(r.Stdout+r.Stderr, `its text is prompts."claude-code".content at actant.cue:`) ||
		!strings.Contains(r.Stdout+r.Stderr, "actctl import --update") {
		t.Fatalf("apply after a hand edit:\n%s%s", r.Stdout, r.Stderr)
	}
	if r := actctl(t, dir, home, "import", "--update", "--backend", "codex"); r.Code != 2 || !strings.Contains(r.Stderr, "--update takes no --backend or --move") {
		t.Errorf("--update --backend: %d %s", r.Code, r.Stderr)
	}
	r = actctl(t, dir, home, "import", "--update", "--dry-run")
	if r.Code != 0 || !strings.Contains(r.Stdout, "would take 1 edit(s) into the config") || read(cuePath) != before {
		t.Fatalf("dry run: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = actctl(t, dir, home, "import", "--update")
	if r.Code != 0 || !strings.Contains(r.Stdout, `take  CLAUDE.md  agent claude-code  -> prompts."claude-code".content at actant.cue:`) {
		t.Fatalf("import --update: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if want := strings.Replace(before, "Run tests.", "Run tests with -race.", 1); read(cuePath) != want {
		t.Errorf("actant.cue =\n%s\nwant\n%s", read(cuePath), want)
	}
	if read(claude) != edited {
		t.Errorf("CLAUDE.md changed")
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || strings.TrimSpace(r.Stdout) != "no changes" {
		t.Errorf("apply after update: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, dir, home, "import", "--update"); !strings.Contains(r.Stdout, "no hand edit of imported text to take") {
		t.Errorf("second update: %q", r.Stdout)
	}
}
