//go:build unix

package main

import (
	"encoding/json"
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

// TestImportLinksOut: import applies apply's link rule before it reads or
// writes anything. A file or directory that is a symbolic link out of the
// repository (or to nothing) is left with the reason; the file outside is
// neither read into actant.cue nor rewritten, not even for a moment.
func TestImportLinksOut(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir()) // the messages name resolved targets
	if err != nil {
		t.Fatal(err)
	}
	out, repo := filepath.Join(base, "out"), filepath.Join(base, "repo")
	writeTree(t, out, map[string]string{
		"notes.md":               "My private notes.\n",
		"mcp.json":               `{"mcpServers": {"x": {"command": "x"}}}` + "\n",
		"settings.json":          `{"permissions": {"allow": ["Bash(ls)"]}}` + "\n",
		"skills/s/SKILL.md":      "---\nname: s\ndescription: d\n---\n\nbody\n",
		"commands/c.md":          "Do it.\n",
		"gemini/commands/g.toml": "prompt = \"g\"\n",
	})
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	link := func(target, name string) {
		t.Helper()
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	link("../out/notes.md", "CLAUDE.md")
	outStamps, outFiles := stamps(t, out), readTree(t, out)
	repoStamps := stamps(t, repo)
	checkUntouched := func() {
		t.Helper()
		if now := stamps(t, out); !equalStamps(outStamps, now) {
			t.Errorf("import wrote outside the repository:\n%s", diffStamps(outStamps, now))
		}
		if now := readTree(t, out); !maps.Equal(now, outFiles) {
			t.Errorf("the files outside changed:\n%v", now)
		}
	}

	r := actctl(t, repo, "", "import")
	if want := "CLAUDE.md: CLAUDE.md is a symbolic link to " + filepath.Join(out, "notes.md") + ", outside the repository: import reads and writes nothing outside it (apply refuses to write through it); backend claude-code not imported"; r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("exit %d, want %q in\n%s", r.Code, want, r.Stderr)
	}
	checkUntouched()
	if now := stamps(t, repo); !equalStamps(repoStamps, now) {
		t.Errorf("import wrote in the repository:\n%s", diffStamps(repoStamps, now))
	}

	// Every other kind of file, a directory on the way, and a link to
	// nothing: each is left, the rest imported.
	if err := os.Remove(filepath.Join(repo, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	writeTree(t, repo, map[string]string{"AGENTS.md": "Be brief.\n", "GEMINI.md": "Be kind.\n"})
	link("../out/mcp.json", ".mcp.json")
	link("../../out/settings.json", ".claude/settings.json")
	link("../../out/skills", ".claude/skills")
	link("../../out/commands", ".claude/commands")
	link("../out/gemini", ".gemini")
	link("../nowhere.json", ".cursor/mcp.json")
	r = actctl(t, repo, "", "-o", "json", "import")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	var got importJSON
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatal(err)
	}
	left := map[string]string{}
	for _, it := range got.Left {
		left[it.Path] = it.Reason
	}
	outside := func(link, target string) string {
		return link + " is a symbolic link to " + filepath.Join(out, target) + ", outside the repository: import reads and writes nothing outside it (apply refuses to write through it)"
	}
	for p, want := range map[string]string{
		".mcp.json":             outside(".mcp.json", "mcp.json"),
		".claude/settings.json": outside(".claude/settings.json", "settings.json"),
		".claude/skills":        outside(".claude/skills", "skills"),
		".claude/commands":      outside(".claude/commands", "commands"),
		".gemini/commands":      outside(".gemini", "gemini"),
		".cursor/mcp.json":      ".cursor/mcp.json is a symbolic link that leads nowhere (apply refuses to write through it)",
	} {
		if left[p] != want {
			t.Errorf("left %s: %q, want %q", p, left[p], want)
		}
	}
	if strings.Contains(got.Config, "Bash(ls)") || strings.Contains(got.Config, "My private") || strings.Contains(got.Config, "Do it") {
		t.Errorf("actant.cue holds text from outside:\n%s", got.Config)
	}
	checkUntouched()
}

// TestImportEscapesNames: a name from the repository is printed with its
// control characters escaped (a skill directory named with an escape
// sequence would clear the screen).
func TestImportEscapesNames(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"CLAUDE.md": "Be brief.\n",
		".claude/skills/\x1b[2J\x1b[Hgone/SKILL.md": "---\nname: x\ndescription: d\n---\n\nbody\n",
		".claude/commands/\x1b]0;title\x07.md":      "Do it.\n",
	})
	r := actctl(t, dir, "", "import", "--dry-run")
	if r.Code != 0 || strings.ContainsAny(r.Stdout+r.Stderr, "\x1b\x07") {
		t.Errorf("exit %d, raw control characters in\n%q\n%q", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{`skill \x1b[2J\x1b[Hgone`, `command \x1b]0;title\x07`} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("want %s in\n%s", want, r.Stdout)
		}
	}
}
