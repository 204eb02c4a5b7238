package reconcile

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// runGit runs git in dir, isolated from the user's configuration.
func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestHeadChecker: git holds a file only when it is tracked at HEAD with
// exactly these bytes, in a repository's main checkout and in a linked
// worktree alike; not an untracked file, another content, a file outside
// the repository, or anything without a repository or a commit.
// (issue #20 item 1)
func TestHeadChecker(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	if got := headChecker(repo)(filepath.Join(repo, "a"), nil); got {
		t.Error("held without a repository")
	}
	runGit(t, repo, "init", "-q")
	files := map[string]string{"a.md": "tracked\n", "sub/empty.py": ""}
	for n, c := range files {
		p := filepath.Join(repo, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := headChecker(repo)(filepath.Join(repo, "a.md"), []byte("tracked\n")); got {
		t.Error("held without a commit")
	}
	runGit(t, repo, "add", "-A")
	runGit(t, repo, "commit", "-q", "-m", "one")
	wt := filepath.Join(t.TempDir(), "wt")
	runGit(t, repo, "worktree", "add", "-q", wt)
	for _, root := range []string{repo, wt} {
		at := headChecker(root)
		for _, c := range []struct {
			path, data string
			want       bool
		}{
			{"a.md", "tracked\n", true},
			{"sub/empty.py", "", true},
			{"a.md", "tracked\nedited\n", false},
			{"untracked.md", "", false},
			{"sub", "", false},
			{"../outside", "tracked\n", false},
		} {
			if got := at(filepath.Join(root, c.path), []byte(c.data)); got != c.want {
				t.Errorf("%s: %s %q held: %v, want %v", root, c.path, c.data, got, c.want)
			}
		}
	}
}
