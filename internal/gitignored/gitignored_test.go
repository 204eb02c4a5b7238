package gitignored

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAbove: the repository's .gitignore above the workspace ignores the
// example's output (directory patterns cover the files below them); the
// workspace's own .gitignore does not count; no repository, nothing.
func TestAbove(t *testing.T) {
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	write(t, filepath.Join(repo, ".gitignore"), "# outputs\n/examples/*/.claude/\n/examples/*/CLAUDE.md\n")
	ws := filepath.Join(repo, "examples", "quick")
	write(t, filepath.Join(ws, ".gitignore"), "AGENTS.md\n")
	got, file := Above(ws, []string{"CLAUDE.md", ".claude/skills/x/SKILL.md", "AGENTS.md", "README.md"})
	if want := []string{"CLAUDE.md", ".claude/skills/x/SKILL.md"}; !slices.Equal(got, want) || file != filepath.Join(repo, ".gitignore") {
		t.Errorf("Above = %v, %q; want %v in the repository's .gitignore", got, file, want)
	}
	if got, file := Above(repo, []string{"examples/quick/CLAUDE.md"}); got != nil || file != "" {
		t.Errorf("at the repository's top: %v %q, want nothing", got, file)
	}
	if got, _ := Above(t.TempDir(), []string{"CLAUDE.md"}); got != nil {
		t.Errorf("outside a repository: %v", got)
	}
}
