package inputs

import (
	"path/filepath"
	"strings"
)

// addGit adds git's view of the tracked files, which the renderer asks
// when it writes a .gitignore block (see reconcile's gitTracked): the
// presence of .git in the root and each parent up to the first one that
// has it (a repository created above the workspace is a change), then the
// index of that repository. Only the presence of the .git directory
// counts: git touches it on every command; a .git file (a worktree or a
// submodule) counts whole, with the index of the directory it names.
func addGit(root string, add func(p string, lstat, presence bool) error) error {
	for dir := root; ; dir = filepath.Dir(dir) {
		dotGit := filepath.Join(dir, ".git")
		st, err := statOf(dotGit, true, true)
		if err != nil {
			return err
		}
		if !st.Missing {
			return addGitIndex(dotGit, st.Mode.IsDir(), add)
		}
		if err := add(dotGit, true, true); err != nil {
			return err
		}
		if filepath.Dir(dir) == dir {
			return nil
		}
	}
}

func addGitIndex(dotGit string, isDir bool, add func(p string, lstat, presence bool) error) error {
	if isDir {
		if err := add(dotGit, true, true); err != nil {
			return err
		}
		return add(filepath.Join(dotGit, "index"), false, false)
	}
	if err := add(dotGit, true, false); err != nil {
		return err
	}
	b, err := readRegular(dotGit)
	if err != nil {
		return nil // the loader finds no repository either: nothing tracked
	}
	gitDir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return nil
	}
	gitDir = strings.TrimSpace(gitDir)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(filepath.Dir(dotGit), gitDir)
	}
	return add(filepath.Join(gitDir, "index"), false, false)
}
