package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIgnored reports whether git in dir ignores the path rel (which need
// not exist), via `git check-ignore`.
func gitIgnored(t *testing.T, dir, rel string) bool {
	t.Helper()
	cmd := exec.Command("git", "check-ignore", "-q", "--no-index", rel)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return false
	} else if err != nil {
		t.Fatalf("git check-ignore %s: %v", rel, err)
	}
	return true
}

// TestGitignoreAnchored: a tool agent's .gitignore block lists only what
// actctl writes in its workspace, anchored there: the user's own logs/
// directories and .actant.json files stay visible to git, in the root and
// in an agent's workDir below it.
func TestGitignoreAnchored(t *testing.T) {
	dir := t.TempDir()
	hubGit(t, dir, "init", "-q")
	writeFiles(t, dir, map[string]string{
		".gitignore":           "node_modules/\n",
		"internal/logs/app.go": "package logs\n",
		"sub/logs/keep.txt":    "mine\n",
		"sub/.actant.json":     "{}\n",
	})
	writeConfig(t, dir, `package actant

templates: {
	root: {backend: "claude-code"}
	below: {backend: "codex"}
}
agents: {
	root: template: "root"
	below: {template: "below", workDir: "sub"}
}
`)
	mustApply(t, dir, "")
	want := map[string]string{
		".gitignore":     "node_modules/\n\n# BEGIN actctl\n/.actant/\n# END actctl\n",
		"sub/.gitignore": "# BEGIN actctl\n/.actant/\n# END actctl\n",
	}
	for f, w := range want {
		if got := read(t, filepath.Join(dir, f)); got != w {
			t.Errorf("%s:\n got %q\nwant %q", f, got, w)
		}
	}
	for rel, ignored := range map[string]bool{
		"internal/logs/app.go":      false,
		"logs/x.log":                false,
		".actant.json":              false,
		"sub/logs/keep.txt":         false,
		"sub/.actant.json":          false,
		"sub/internal/.actant/x":    false,
		".actant/state.json":        true,
		"sub/.actant/agents/x.json": true,
	} {
		if got := gitIgnored(t, dir, rel); got != ignored {
			t.Errorf("git ignores %s: %v, want %v", rel, got, ignored)
		}
	}
	if r := actctl(t, dir, "", "diff"); r.Code != 0 {
		t.Errorf("diff after apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

func permOf(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func chmod(t *testing.T, p string, m os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, m); err != nil {
		t.Fatal(err)
	}
}

// TestSkillFileModes: a skill's executable script arrives executable for
// every backend; a change of the source's mode alone is a change that
// apply makes and diff shows; a mode flipped by hand is drift, kept until
// --force; a second apply writes nothing.
func TestSkillFileModes(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{
		"skills/tools/SKILL.md":       "---\ndescription: Tools\n---\nRun scripts/run.sh.\n",
		"skills/tools/scripts/run.sh": "#!/bin/sh\necho ok\n",
		"skills/tools/notes.md":       "notes\n",
	})
	src := filepath.Join(dir, "skills/tools/scripts/run.sh")
	chmod(t, src, 0o755)
	writeConfig(t, dir, `package actant

skills: tools: dir: "skills/tools"
templates: {
	c: {backend: "claude-code", skills: ["tools"]}
	x: {backend: "codex", skills: ["tools"]}
}
agents: {
	c: template: "c"
	x: template: "x"
}
`)
	claude := filepath.Join(dir, ".claude/skills/tools/scripts/run.sh")
	codex := filepath.Join(dir, ".agents/skills/tools/scripts/run.sh")
	notes := filepath.Join(dir, ".claude/skills/tools/notes.md")
	mustApply(t, dir, home)
	for _, p := range []string{claude, codex} {
		if m := permOf(t, p); m != 0o755 {
			t.Errorf("%s: mode %v, want 0755", p, m)
		}
	}
	if m := permOf(t, notes); m != 0o644 {
		t.Errorf("notes.md: mode %v, want 0644", m)
	}
	before := stamps(t, dir)
	if res := mustApply(t, dir, home); res.Counts.Changed != 0 || !equalStamps(before, stamps(t, dir)) {
		t.Errorf("second apply changed something: %+v\n%s", res.Counts, diffStamps(before, stamps(t, dir)))
	}

	// The source loses its x bit: a change of the mode alone.
	chmod(t, src, 0o644)
	r := actctl(t, dir, home, "diff")
	if r.Code != 1 || !strings.Contains(r.Stdout, "old mode 100755\nnew mode 100644\n") {
		t.Errorf("diff of a mode change: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	res := mustApply(t, dir, home)
	if got := changedPaths(res); strings.Join(got, " ") != ".agents/skills/tools/scripts/run.sh .claude/skills/tools/scripts/run.sh" {
		t.Errorf("changed %v", got)
	}
	for _, p := range []string{claude, codex} {
		if m := permOf(t, p); m != 0o644 {
			t.Errorf("%s: mode %v after the source lost its x bit, want 0644", p, m)
		}
	}
	chmod(t, src, 0o755)
	mustApply(t, dir, home)
	if m := permOf(t, claude); m != 0o755 {
		t.Fatalf("mode %v after the source got its x bit back, want 0755", m)
	}

	// A hand chmod is drift: reported by diff (exit 1), apply and status, kept.
	chmod(t, claude, 0o644)
	if r := actctl(t, dir, home, "diff"); r.Code != 1 || !strings.Contains(r.Stderr, "drift: .claude/skills/tools/scripts/run.sh: mode changed since the last apply") {
		t.Errorf("diff of a hand chmod: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	res = mustApply(t, dir, home)
	if res.Counts.Drifted != 1 || res.Counts.Changed != 0 || permOf(t, claude) != 0o644 {
		t.Errorf("apply over a hand chmod: %+v, mode %v", res.Counts, permOf(t, claude))
	}
	if r := actctl(t, dir, home, "status"); !strings.Contains(r.Stdout, "mode changed") {
		t.Errorf("status does not show the mode drift:\n%s", r.Stdout)
	}
	mustApply(t, dir, home, "--force")
	if m := permOf(t, claude); m != 0o755 {
		t.Errorf("mode %v after --force, want 0755", m)
	}
	before = stamps(t, dir)
	if res := mustApply(t, dir, home); res.Counts.Changed != 0 || res.Counts.Drifted != 0 || !equalStamps(before, stamps(t, dir)) {
		t.Errorf("apply after --force changed something: %+v", res.Counts)
	}
}

// TestHubSkillExecutable: a hub skill's script committed as 100755 is
// materialized executable (over file://, through the cache).
func TestHubSkillExecutable(t *testing.T) {
	src := filepath.Join(t.TempDir(), "hub")
	writeFiles(t, src, map[string]string{
		"actant.json":                  `{"name":"h","version":"1.0.0"}`,
		"skills/tools/SKILL.md":        "---\nname: tools\ndescription: Tools\n---\nRun scripts/run.sh.\n",
		"skills/tools/scripts/run.sh":  "#!/bin/sh\necho ok\n",
		"skills/tools/scripts/data.md": "data\n",
	})
	chmod(t, filepath.Join(src, "skills/tools/scripts/run.sh"), 0o755)
	hubGit(t, src, "init", "-q", "-b", "main")
	hubGit(t, src, "add", "-A")
	hubGit(t, src, "commit", "-q", "-m", "one")
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, `package actant
hub: h: {url: "file://`+src+`", ref: branch: "main"}
templates: t: {backend: "claude-code", skills: ["h@tools"]}
agents: a: template: "t"
`)
	mustApply(t, dir, home)
	base := filepath.Join(dir, ".claude/skills/tools/scripts")
	if m := permOf(t, filepath.Join(base, "run.sh")); m != 0o755 {
		t.Errorf("run.sh: mode %v, want 0755", m)
	}
	if m := permOf(t, filepath.Join(base, "data.md")); m != 0o644 {
		t.Errorf("data.md: mode %v, want 0644", m)
	}
}

// TestPruneAfterCRLFConversion: the user converts CLAUDE.md to CRLF after
// apply; removing the agent gives back their text, converted, without an
// extra blank line.
func TestPruneAfterCRLFConversion(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"CLAUDE.md": "# Notes\n\nBe nice.\n"})
	writeConfig(t, dir, "package actant\ntemplates: t: {backend: \"claude-code\", description: \"T\"}\nagents: a: template: \"t\"\n")
	mustApply(t, dir, home)
	p := filepath.Join(dir, "CLAUDE.md")
	crlf := strings.ReplaceAll(read(t, p), "\n", "\r\n")
	if err := os.WriteFile(p, []byte(crlf), 0o644); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, dir, "package actant\n")
	res := mustApply(t, dir, home)
	if got := read(t, p); got != "# Notes\r\n\r\nBe nice.\r\n" {
		t.Errorf("CLAUDE.md after prune = %q (%+v)", got, res.Counts)
	}
}

// TestApplyRefusesUTF16Instructions: a UTF-16 CLAUDE.md does not get a
// UTF-8 block appended: apply fails naming the file and why, and writes
// nothing at all.
func TestApplyRefusesUTF16Instructions(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	utf16 := "\xff\xfe#\x00 \x00N\x00o\x00t\x00e\x00s\x00\r\x00\n\x00"
	writeFiles(t, dir, map[string]string{"CLAUDE.md": utf16})
	writeConfig(t, dir, `package actant
skills: s: {description: "S", content: "Do it."}
templates: t: {backend: "claude-code", description: "T", skills: ["s"]}
agents: a: template: "t"
`)
	for _, args := range [][]string{{"apply"}, {"diff"}} {
		r := actctl(t, dir, home, args...)
		if r.Code == 0 || !strings.Contains(r.Stderr, "CLAUDE.md") || !strings.Contains(r.Stderr, "not UTF-8 text: it starts with a UTF-16LE byte order mark") {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", args, r.Code, r.Stdout, r.Stderr)
		}
	}
	if got := read(t, filepath.Join(dir, "CLAUDE.md")); got != utf16 {
		t.Errorf("CLAUDE.md changed: %q", got)
	}
	assertNotWritten(t, dir, "apply into a UTF-16 CLAUDE.md", ".claude", ".gitignore", ".actant/state.json")
}
