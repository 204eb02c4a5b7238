package reconcile

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// headChecker returns PlanOptions.AtHead for the workspace at root: whether
// git holds a file's bytes exactly, as a regular file tracked at HEAD, so
// that `git checkout HEAD -- FILE` gives them back. The repository is
// opened once, on the first question, which only a removal resting on a
// committed record from elsewhere asks (never on the no-change path);
// without a repository, or a HEAD, nothing is held.
func headChecker(root string) func(abs string, data []byte) bool {
	var once sync.Once
	var tree *object.Tree
	var wtRoot string
	load := func() {
		repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
		if err != nil {
			return
		}
		wt, err := repo.Worktree()
		if err != nil {
			return
		}
		head, err := repo.Head()
		if err != nil {
			return
		}
		c, err := repo.CommitObject(head.Hash())
		if err != nil {
			return
		}
		if tree, err = c.Tree(); err != nil {
			tree = nil
			return
		}
		wtRoot = wt.Filesystem.Root()
		if r, err := filepath.EvalSymlinks(wtRoot); err == nil {
			wtRoot = r
		}
	}
	var mu sync.Mutex
	return func(abs string, data []byte) bool {
		once.Do(load)
		if tree == nil {
			return false
		}
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		rel, err := filepath.Rel(wtRoot, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return false
		}
		mu.Lock() // a go-git tree is not safe for concurrent use
		e, err := tree.FindEntry(filepath.ToSlash(rel))
		mu.Unlock()
		if err != nil || (e.Mode != filemode.Regular && e.Mode != filemode.Executable) {
			return false
		}
		return e.Hash == plumbing.ComputeHash(plumbing.BlobObject, data)
	}
}
