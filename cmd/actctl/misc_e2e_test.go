package main

import (
	"os"
	"os/exec"
	"path/filepath"
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
		".gitignore":     "node_modules/\n\n# BEGIN actctl agent=root\n/.actant/\n# END actctl agent=root\n",
		"sub/.gitignore": "# BEGIN actctl agent=below\n/.actant/\n# END actctl agent=below\n",
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
