package reconcile

import (
	"os"
	"path/filepath"

	"github.com/actctl/actctl/schema"
)

// readRegular reads the record p (state.json, actant.owned) only if it is
// a regular file: a named pipe put there is refused without blocking
// (schema.ReadRegular), instead of hanging every command.
func readRegular(p string) ([]byte, error) { return schema.ReadRegular(p, 0) }

// dotGitUsable reports whether the first .git found from root upward, as
// git looks for it, is a directory or a regular file (a worktree's or a
// submodule's): go-git reads a .git file whole, and a named pipe there
// would block it forever. With no .git at all it reports true (go-git
// then finds no repository).
func dotGitUsable(root string) bool {
	for dir := root; ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(filepath.Join(dir, ".git"))
		if err == nil {
			return fi.IsDir() || fi.Mode().IsRegular()
		}
		if filepath.Dir(dir) == dir {
			return true
		}
	}
}
