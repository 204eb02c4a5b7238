package reconcile

import (
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/actctl/actctl/schema"
	"github.com/go-git/go-git/v5"
)

// gitTracked returns the renderer's IsTracked: whether git tracks a path
// relative to a project agent's workspace. The git index is read once,
// lazily (only when a .gitignore block is rendered); without a repository
// nothing is tracked. The renderer's callback does not say which agent
// asks, so a path counts as tracked when it is tracked below any project
// agent's directory: it errs on the side of not ignoring. Each question
// is one map lookup (trackedUnder): asked for every project agent's
// block, a walk of every project directory per question was quadratic in
// the team (docs/benchmarks.md, "Cold apply at 10,000 agents").
func gitTracked(cfg *schema.Config) func(rel string) bool {
	var once sync.Once
	var under map[string]bool
	load := func() {
		entries, wtRoot, ok := gitIndex(cfg.Root)
		if !ok {
			return
		}
		var dirs []string
		for name := range cfg.Agents {
			r, err := cfg.Resolve(name)
			if err != nil || r.Archetype.Workspace != schema.WorkspaceProject {
				continue
			}
			d := r.Dir
			if rd, err := filepath.EvalSymlinks(d); err == nil {
				d = rd
			}
			rel, err := filepath.Rel(wtRoot, d)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue // outside the worktree: nothing under it is tracked
			}
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		under = trackedUnder(entries, dirs)
	}
	return func(rel string) bool {
		once.Do(load)
		return under[rel]
	}
}

// gitIndex lists the paths the git index of the repository holding root
// tracks (slash-separated, relative to its worktree) and the worktree's
// root with links resolved; false without a usable repository.
func gitIndex(root string) ([]string, string, bool) {
	if !dotGitUsable(root) {
		return nil, "", false
	}
	repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, "", false
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, "", false
	}
	idx, err := repo.Storer.Index()
	if err != nil {
		return nil, "", false
	}
	wtRoot := wt.Filesystem.Root()
	if r, err := filepath.EvalSymlinks(wtRoot); err == nil {
		wtRoot = r
	}
	entries := make([]string, len(idx.Entries))
	for i, e := range idx.Entries {
		entries[i] = e.Name
	}
	return entries, wtRoot, true
}

// trackedUnder is the set of paths that are tracked (a tracked file, or a
// directory holding one) below one of dirs, relative to that directory:
// entries are the tracked files and dirs the project directories, both
// slash-separated and relative to the worktree's root ("." for the root
// itself). A directory that is itself tracked gives "" (the path "." below it).
// The work is the entries times their depth, whatever the number of
// directories.
func trackedUnder(entries, dirs []string) map[string]bool {
	project := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		project[path.Clean(d)] = true
	}
	under := map[string]bool{}
	seen := map[string]bool{}
	for _, e := range entries {
		// e and each directory above it, deepest first; a directory seen
		// already was done with everything above it.
		for p := e; p != "." && !seen[p]; p = path.Dir(p) {
			seen[p] = true
			if project["."] {
				under[p] = true
			}
			for a := path.Dir(p); ; a = path.Dir(a) {
				if a != "." && project[a] {
					under[p[len(a)+1:]] = true
				}
				if a == "." {
					break
				}
			}
			if project[p] {
				under[""] = true
			}
		}
	}
	return under
}
