//go:build unix

package main

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestImportSpecialFiles: a named pipe where import reads a file is
// refused or left, never opened (import would wait for a writer for
// ever).
func TestImportSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "CLAUDE.md"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	before := stamps(t, dir)
	r := actctl(t, dir, "", "import")
	if r.Code != 1 || !strings.Contains(r.Stderr, "CLAUDE.md: cannot read it (CLAUDE.md is not a regular file); backend claude-code not imported") {
		t.Errorf("exit %d\n%s", r.Code, r.Stderr)
	}
	if after := stamps(t, dir); !equalStamps(before, after) {
		t.Errorf("wrote:\n%s", diffStamps(before, after))
	}

	dir = t.TempDir()
	writeTree(t, dir, map[string]string{"CLAUDE.md": "Be brief.\n", ".claude/commands/ok.md": "Do it.\n"})
	for _, p := range []string{".mcp.json", ".claude/settings.json", ".claude/commands/pipe.md"} {
		if err := syscall.Mkfifo(filepath.Join(dir, p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r = actctl(t, dir, "", "-o", "json", "import", "--dry-run")
	for _, want := range []string{`"path": ".mcp.json",
      "reason": ".mcp.json is not a regular file"`, `"path": ".claude/settings.json",
      "reason": ".claude/settings.json is not a regular file"`, `"path": ".claude/commands/pipe.md",
      "reason": "not a .md command file; left as it is"`} {
		if r.Code != 0 || !strings.Contains(r.Stdout, want) {
			t.Errorf("exit %d, want %s in\n%s\n%s", r.Code, want, r.Stdout, r.Stderr)
		}
	}
}

// TestImportUnreadableDirs: a skills or commands path that is a file, or
// a directory import cannot read, is left with the reason; the rest is
// imported.
func TestImportUnreadableDirs(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"CLAUDE.md": "Be brief.\n", ".claude/skills": "not a directory\n", ".cursor/commands/x.md": "X.\n"})
	want := []string{`"path": ".claude/skills",
      "reason": "cannot read the directory`}
	locked := filepath.Join(dir, ".cursor/commands")
	if err := os.Chmod(locked, 0o000); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	if _, err := os.ReadDir(locked); err != nil { // not when run as root
		want = append(want, `"path": ".cursor/commands",
      "reason": "cannot read the directory`)
	}
	r := actctl(t, dir, "", "-o", "json", "import", "--dry-run")
	for _, w := range want {
		if r.Code != 0 || !strings.Contains(r.Stdout, w) {
			t.Errorf("exit %d, want %s in\n%s\n%s", r.Code, w, r.Stdout, r.Stderr)
		}
	}
}

// TestImportUndone: when the apply import runs would not adopt its files
// as they are (here it cannot write the .gitignore, a named pipe), import
// puts every file it changed back, byte for byte, and removes what it
// created.
func TestImportUndone(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"CLAUDE.md": "Be brief.\n", ".claude/skills/s/SKILL.md": "---\ndescription: >\n  folded\n---\nbody\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, ".gitignore"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	orig := readTreeNoPipes(t, dir)
	r := actctl(t, dir, "", "import", "--move")
	if r.Code != 1 || !strings.Contains(r.Stderr, ".gitignore is not a regular file (import undone: every file it changed holds its bytes again, and actant.cue is gone)") {
		t.Errorf("exit %d\n%s", r.Code, r.Stderr)
	}
	if now := readTreeNoPipes(t, dir); !maps.Equal(now, orig) {
		t.Errorf("after the undone import:\n%v\nwant\n%v", now, orig)
	}
	for _, gone := range []string{"actant.cue", "skills", ".actant"} {
		if _, err := os.Lstat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", gone, err)
		}
	}
}

// readTreeNoPipes is readTree without named pipes (reading one blocks).
func readTreeNoPipes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !d.Type().IsRegular() {
			out[rel] = d.Type().String()
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
